package fleet

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func TestDetectPlatform(t *testing.T) {
	for file, want := range map[string]string{
		"pi1.txt":                "armv6", // ARMv6 although cpuinfo says architecture 7
		"pi2.txt":                "armv7",
		"pi4-32bit-userland.txt": "armv7", // 64-bit kernel (ARMv8, aarch64), 32-bit userland
		"pi5-64bit.txt":          "arm64",
		"visionfive2.txt":        "riscv64",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := DetectPlatform(string(b))
		if err != nil || p.String() != want {
			t.Errorf("%s: %v %v, want %s", file, p, err, want)
		}
	}
	for _, bad := range []string{"", "x86_64", "i686\n32", "mips\n32", "x86_64\n32"} {
		if p, err := DetectPlatform(bad); err == nil {
			t.Errorf("%q: %v, want an error", bad, p)
		}
	}
	// Without getconf, the userland's word size is /bin/sh's ELF class.
	bin := t.TempDir()
	for _, tool := range []string{"uname", "od", "grep"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		os.Symlink(p, filepath.Join(bin, tool))
	}
	// The machine is the input: /bin/sh's class as debug/elf reads it, not
	// this test binary's word size (a 32-bit test binary under qemu-arm
	// runs the host's 64-bit shell).
	sh, err := elf.Open("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	want := map[elf.Class]string{elf.ELFCLASS32: "32", elf.ELFCLASS64: "64"}[sh.Class]
	sh.Close()
	probe := exec.Command("/bin/sh", "-c", probeScript)
	probe.Env = []string{"PATH=" + bin}
	out, err := probe.Output()
	if lines := strings.Split(string(out), "\n"); err != nil || len(lines) < 2 || lines[1] != want {
		t.Errorf("probe without getconf: %q %v, want %s-bit", out, err, want)
	}
	if got := (Platform{GOARCH: "arm", GOARM: 6}).distName(); got != "thruput-linux-armv6" {
		t.Errorf("distName %q, want make dist's name", got)
	}
}

func TestParseHost(t *testing.T) {
	for in, want := range map[string]Host{
		"pi1":                  {Name: "pi1"},
		"pi@pi3:2222":          {Name: "pi3:2222", Address: "pi3", User: "pi", Port: 2222},
		"gw:22":                {Name: "gw", Port: 22},
		"10.0.0.2":             {Name: "10.0.0.2"},
		"fe80::1":              {Name: "fe80::1"},
		"[fe80::1]:22":         {Name: "fe80::1", Port: 22},
		"user@[2001:db8::1]:7": {Name: "[2001:db8::1]:7", Address: "2001:db8::1", User: "user", Port: 7},
	} {
		got, err := ParseHost(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "@pi", "pi:0", "pi:70000", "pi:x", "a b", "[fe80::1]", "pi/1"} {
		if h, err := ParseHost(bad); err == nil {
			t.Errorf("%q: %+v, want an error", bad, h)
		}
	}
}

const inventory = `
user: pi
port: 22
labels: {site: lab}
hosts:
  - name: pi1
    address: 192.168.1.11
    labels: {board: pi4}
    groups: [shelf1]
  - name: pi2
    user: admin
    port: 2222
    identity: ~/.ssh/lab
  - pi3
groups:
  odd: [pi1, pi3]
`

func TestInventory(t *testing.T) {
	inv, err := ParseInventory([]byte(inventory))
	if err != nil {
		t.Fatal(err)
	}
	all, err := Select(nil, inv, "")
	if err != nil || len(all) != 3 {
		t.Fatalf("all hosts: %v %v", all, err)
	}
	want := Host{Name: "pi1", Address: "192.168.1.11", User: "pi", Port: 22, Labels: map[string]string{"site": "lab", "board": "pi4"}}
	if !reflect.DeepEqual(all[0], want) {
		t.Errorf("pi1 %+v, want %+v", all[0], want)
	}
	if all[1].User != "admin" || all[1].Port != 2222 || all[1].Identity != "~/.ssh/lab" {
		t.Errorf("pi2's own settings lost: %+v", all[1])
	}
	if all[2].User != "pi" || all[2].Labels["site"] != "lab" {
		t.Errorf("pi3 lacks the defaults: %+v", all[2])
	}
	for group, names := range map[string]string{"shelf1": "pi1", "odd": "pi1,pi3"} {
		hs, err := Select(nil, inv, group)
		var got []string
		for _, h := range hs {
			got = append(got, h.Name)
		}
		if err != nil || strings.Join(got, ",") != names {
			t.Errorf("group %s: %v %v, want %s", group, got, err, names)
		}
	}
	// A --hosts entry naming an inventory host keeps its settings but
	// for what the entry says.
	hs, err := Select([]string{"root@pi2"}, inv, "")
	if err != nil || hs[0].User != "root" || hs[0].Port != 2222 {
		t.Errorf("root@pi2: %+v %v", hs, err)
	}
	hs, err = Select([]string{"pi1:2022"}, inv, "")
	if err != nil || hs[0].Name != "pi1" || hs[0].Port != 2022 || hs[0].Address != "192.168.1.11" {
		t.Errorf("pi1:2022: %+v %v", hs, err)
	}
	if _, err := Select(nil, inv, "nope"); err == nil || !strings.Contains(err.Error(), "odd, shelf1") {
		t.Errorf("unknown group: %v, want the groups listed", err)
	}
}

func TestInventoryErrors(t *testing.T) {
	for doc, want := range map[string]string{
		"hosts: []":                                "no hosts",
		"hosts: [pi1, pi1]":                        "listed twice",
		"hosts: [{name: pi1, port: 70000}]":        "out of range",
		"hosts: [{name: 'pi@1'}]":                  "without user or port",
		"hosts: [pi1]\ngroups: {g: [pi2]}":         "not in hosts",
		"hosts: [pi1]\nbogus: 1":                   "bogus",
		"hosts: [{name: pi1, labels: {'a b': c}}]": "labels",
		"hosts: [{address: 10.0.0.1}]":             "no name",
		"hosts: [pi1]\nlabels: {'': x}":            "labels",
	} {
		if _, err := ParseInventory([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
}

func TestHostFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(f, []byte("# the lab\npi1, pi2\npi@pi3:2222 # the odd one\n\n"), 0o600)
	hs, err := Select([]string{"@" + f, "pi4"}, nil, "")
	if err != nil || len(hs) != 4 || hs[2].User != "pi" || hs[3].Name != "pi4" {
		t.Fatalf("%+v %v", hs, err)
	}
	// Two boards port-forwarded behind one gateway are two hosts, named
	// apart by their ports.
	hs, err = Select([]string{"gw:2201,pi@gw:2202,gw"}, nil, "")
	if err != nil || len(hs) != 3 || hs[0].Name != "gw:2201" || hs[1].Name != "gw:2202" || hs[1].addr() != "gw" || hs[2].Name != "gw" {
		t.Errorf("hosts behind one address: %+v %v", hs, err)
	}
	for _, args := range [][]string{{"@" + f + ".missing"}, {"pi1,pi1"}, {"gw:2201,gw:2201"}, {}} {
		if _, err := Select(args, nil, ""); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
	if _, err := Select(nil, nil, "g"); err == nil || !strings.Contains(err.Error(), "--inventory") {
		t.Errorf("--group without inventory: %v", err)
	}
}

func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"pi1", "pi@pi3:2222", "[fe80::1]:22", "a@b@c", ":22", "[::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHost(s)
		if err != nil {
			return
		}
		if h.Name == "" || h.Port < 0 || h.Port > 65535 || strings.ContainsAny(h.Name, "/, @") {
			t.Errorf("%q gave %+v", s, h)
		}
	})
}

func FuzzParseInventory(f *testing.F) {
	f.Add([]byte(inventory))
	f.Add([]byte("hosts: [a, b]\ngroups: {g: [a]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := ParseInventory(b)
		if err != nil {
			return
		}
		hs, err := Select(nil, inv, "")
		if err != nil || len(hs) != len(inv.Hosts) {
			t.Errorf("a valid inventory's hosts: %v %v", hs, err)
		}
	})
}

func TestPairsAndSchedule(t *testing.T) {
	hosts := make([]Host, 5)
	for i := range hosts {
		hosts[i].Name = string(rune('a' + i))
	}
	all, err := Pairs(hosts, "all")
	if err != nil || len(all) != 20 {
		t.Fatalf("all: %d pairs %v, want 20", len(all), err)
	}
	seen := map[Pair]bool{}
	for _, p := range all {
		if p.From == p.To || seen[p] {
			t.Errorf("pair %v twice or to itself", p)
		}
		seen[p] = true
	}
	rounds := Schedule(all, 0)
	n := 0
	for _, r := range rounds {
		busy := map[int]bool{}
		for _, p := range r {
			if busy[p.From] || busy[p.To] {
				t.Errorf("round %v has a host in two tests", r)
			}
			busy[p.From], busy[p.To] = true, true
			n++
		}
	}
	// 5 hosts: at most 2 tests at once, so 10 rounds is the least.
	if n != 20 || len(rounds) > 11 {
		t.Errorf("%d tests in %d rounds, want 20 in about 10", n, len(rounds))
	}
	if r := Schedule(all, 1); len(r) != 20 {
		t.Errorf("--parallel 1: %d rounds, want 20", len(r))
	}
	ring, _ := Pairs(hosts, "ring")
	if len(ring) != 5 || ring[4] != (Pair{4, 0}) {
		t.Errorf("ring %v", ring)
	}
	star, _ := Pairs(hosts, "star:c")
	if len(star) != 8 || len(Schedule(star, 0)) != 8 {
		t.Errorf("star %v: every test shares c, so one at a time", star)
	}
	if into := Into(hosts, star, "star:c"); len(into) != 4 || len(Groups(into)) != 1 || Groups(into)[0][3] != (Pair{4, 2}) {
		t.Errorf("star:c into c: %v", into)
	}
	if g := Groups(star); len(g) != 5 || len(g[0]) != 4 {
		t.Errorf("star grouped by server: %v", g)
	}
	// A name with a colon (a host on another SSH port) is one name.
	hosts[4].Name = "gw:2201"
	list, err := Pairs(hosts, "a,gw:2201:b")
	if err != nil || len(list) != 2 || list[0] != (Pair{0, 1}) || list[1] != (Pair{4, 1}) {
		t.Errorf("a,gw:2201:b: %v %v", list, err)
	}
	for _, bad := range []string{"star:z", "mesh", "a,z:b", "a,a:b", "b:b", "a,b:", ":b"} {
		if _, err := Pairs(hosts, bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if _, err := Pairs(hosts[:1], "all"); err == nil {
		t.Error("one host: want an error")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{"disk": "disk", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$HOME": "'$HOME'", "4k,1M": "4k,1M"} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMeasures(t *testing.T) {
	for args, want := range map[string]bool{
		"disk sweep /mnt": true, "disk clean /mnt": false, "net client pi": true, "net http http://x/": true,
		"net server": false, "suite --quick": true, "sysinfo": false, "version": false, "": false,
	} {
		if got := measures(strings.Fields(args)); got != want {
			t.Errorf("measures(%q) = %v, want %v", args, got, want)
		}
	}
}

// After an interrupt every host keeps its name and says why it has no
// result: the one running was interrupted, those waiting for a turn
// were not started.
func TestInterruptedHosts(t *testing.T) {
	f, err := New(Options{Parallel: 1, SSH: SSHOptions{ConfigFile: os.DevNull}})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []Host{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	ctx, cancel := context.WithCancel(context.Background())
	started := 0
	errs := f.each(ctx, hosts, "done", func(ctx context.Context, i int, h Host) error {
		started++
		cancel()
		<-ctx.Done()
		return stopped(ctx, nil)
	})
	if started != 1 {
		t.Errorf("%d hosts started after the interrupt, want 1", started)
	}
	notStarted := 0
	for i, err := range errs {
		switch {
		case err == nil || !strings.Contains(err.Error(), "interrupted"):
			t.Errorf("host %d: %v, want interrupted", i, err)
		case strings.HasPrefix(err.Error(), "not started: "):
			notStarted++
		}
	}
	if notStarted != 2 {
		t.Errorf("%d hosts not started, want 2: %v", notStarted, errs)
	}
	var out strings.Builder
	HostRuns(f.Run(ctx, hosts, []string{"version"})).Write(&out, "table")
	HostRuns(f.Clean(ctx, hosts)).Write(&out, "table")
	Infos(f.Sysinfo(ctx, hosts)).Write(&out, "table")
	for _, h := range hosts {
		if n := strings.Count(out.String(), "\n"+h.Name+" "); n != 3 {
			t.Errorf("host %s has %d rows of 3", h.Name, n)
		}
	}
	if strings.Count(out.String(), "failed: not started: interrupted") != 9 || strings.Contains(out.String(), " ok") {
		t.Errorf("rows after an interrupt:\n%s", out.String())
	}
}

// tinyBinary builds a program that does nothing, statically, for goarch.
func tinyBinary(t *testing.T, goarch string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o600)
	out := filepath.Join(dir, "tiny-"+goarch)
	cmd := exec.Command("go", "build", "-o", out, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v %s", err, b)
	}
	return out
}

// A dynamically linked thruput (built with cgo) is never sent: the
// static one further down the list is, and with none the error says
// how to get one.
func TestPickStatic(t *testing.T) {
	dynamic := "/bin/true"
	if _, err := os.Stat(dynamic); err != nil {
		t.Skip(err)
	}
	static := tinyBinary(t, runtime.GOARCH)
	bin, err := pick([]string{"/nonexistent", dynamic, static})
	if err != nil || bin.path != static || bin.size == 0 || len(bin.sum) != 64 {
		t.Errorf("pick: %+v %v, want %s", bin, err, static)
	}
	_, err = pick([]string{dynamic, "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "make dist") || !strings.Contains(err.Error(), dynamic+" dynamically linked") {
		t.Errorf("only a dynamic binary: %v, want it named and make dist", err)
	}
	script := filepath.Join(t.TempDir(), "thruput")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	if _, err := pick([]string{script}); err == nil {
		t.Error("a script was taken for thruput")
	}
}

func TestSysinfoRow(t *testing.T) {
	down := false
	infos := []HostInfo{{
		Host: "pi4", Platform: "armv7", SoC: "BCM2711",
		Machine: &result.Host{Board: "Raspberry Pi 4 Model B Rev 1.4", CPUModel: "ARMv7 Processor rev 3 (v7l)", CPUCores: 4, MemoryBytes: 4 << 30},
		System: &result.System{
			BlockDevices:  []result.BlockDevice{{Name: "mmcblk0", SizeBytes: 32 << 30, Bus: "sd"}, {Name: "sda", SizeBytes: 1 << 40, Bus: "usb"}},
			NetInterfaces: []result.NetInterface{{Name: "eth0", SpeedMbps: 1000}, {Name: "wlan0", WiFi: &result.WiFiLink{TxBitrateMbps: 72.2}}, {Name: "eth1", Carrier: &down}},
		},
	}, {Host: "pi1", Error: "connect to pi1:22: connection refused"}}
	var out strings.Builder
	if err := WriteSysinfo(&out, infos, "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Raspberry Pi 4 Model B Rev 1.4", "BCM2711, ARMv7 Processor rev 3 (v7l) (4 cores)", "4.0 GiB",
		"mmcblk0 32.0 GiB sd, sda 1.0 TiB usb", "eth0 1000 Mbit/s, wlan0 wifi 72.2 Mbit/s, eth1 no link", "failed: connect to pi1:22"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// TestLatencyMatrix: a pair whose test measured latency under load gets
// its loaded median round trip (the slowest direction's) in the JSON and
// in a second matrix under the throughput's; a pair without has "-", and
// a fleet without any latency prints the throughput matrix alone.
func TestLatencyMatrix(t *testing.T) {
	hosts := []Host{{Name: "a"}, {Name: "b"}}
	doc := func(id string, rttMs ...int64) *result.Document {
		fig := result.NetFigure{BitsPerSecond: 94e6, Bytes: 1, Seconds: 1}
		d := &result.Document{ID: id, Method: "net.client", Net: &result.Net{Sums: []result.NetSum{{Direction: result.DirUp, Sender: fig, Receiver: fig}}}}
		if len(rttMs) > 0 {
			d.LoadLatency = &result.LoadLatency{Probe: "udp-echo"}
			for _, ms := range rttMs {
				d.LoadLatency.Loaded = append(d.LoadLatency.Loaded, result.LatencyPhase{Phase: "up", Received: 1, RTT: &result.Delays{P50Ns: ms * 1e6}})
			}
		}
		return d
	}
	m := NewMatrix(hosts, []PairResult{{From: hosts[0], To: hosts[1], Doc: doc("ab", 12, 91)}, {From: hosts[1], To: hosts[0], Doc: doc("ba")}}, nil)
	if p := m.Pairs[0]; p.LoadedRTTMs == nil || *p.LoadedRTTMs != 91 {
		t.Errorf("a -> b loaded RTT %v, want 91 ms", p.LoadedRTTMs)
	}
	if m.Pairs[1].LoadedRTTMs != nil {
		t.Errorf("b -> a loaded RTT %v without latency", *m.Pairs[1].LoadedRTTMs)
	}
	var b strings.Builder
	if err := m.Write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Mbit/s from \\ to", "Latency under load: the median round trip while the pair's test ran\nloaded RTT ms from \\ to", "a                        -  91.0\nb                        -  -\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	m.Pairs[0].LoadedRTTMs = nil
	if err := m.Write(&b, "table"); err != nil || strings.Contains(b.String(), "RTT") {
		t.Errorf("a latency matrix without latency (%v):\n%s", err, b.String())
	}
}
