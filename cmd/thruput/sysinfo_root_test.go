package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// sysinfoJSON runs thruput sysinfo --json with args and decodes it.
func sysinfoJSON(t *testing.T, args ...string) result.Sysinfo {
	t.Helper()
	o := thruput(t, append([]string{"sysinfo", "--json"}, args...)...)
	if o.code != 0 {
		t.Fatalf("sysinfo --json %v: exit %d\n%s", args, o.code, o.stderr)
	}
	var doc result.Sysinfo
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("sysinfo --json %v: %v\n%s", args, err, o.stdout)
	}
	return doc
}

// withoutMoments drops what changes from one read to the next (interrupt
// counts, the clock) and what only the live machine can say (free space).
func withoutMoments(doc result.Sysinfo) result.Sysinfo {
	doc.System.Interrupts = nil
	doc.System.CPU.CurKHz = 0
	for i := range doc.Targets {
		doc.Targets[i].FreeBytes = 0
	}
	return doc
}

// TestSysinfoCaptureRoot: a capture of this machine, read back with
// --root, says what sysinfo says here, chains included; and the capture
// holds no MAC address unless --no-redact.
func TestSysinfoCaptureRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "capture.txt")
	if o := thruput(t, "sysinfo", "--capture", file, "/", "lo"); o.code != 0 {
		t.Fatalf("--capture: exit %d\n%s", o.code, o.stderr)
	}
	live := withoutMoments(sysinfoJSON(t, "/", "lo"))
	got := withoutMoments(sysinfoJSON(t, "--root", file, "/", "lo"))
	// The capture zeroes serials, WWNs and MACs, so it names no hardware.
	if ids := deviceIDs(got); len(ids) > 0 {
		t.Errorf("a redacted capture gives device ids %v", ids)
	}
	for i := range live.System.NetInterfaces {
		live.System.NetInterfaces[i].DeviceID = ""
	}
	for i := range live.System.BlockDevices {
		live.System.BlockDevices[i].DeviceID = ""
	}
	for i := range live.Targets {
		live.Targets[i].DeviceID = ""
	}
	if !reflect.DeepEqual(live, got) {
		a, _ := json.MarshalIndent(live, "", " ")
		b, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("--root of the capture differs from the live read:\nlive %s\nroot %s", a, b)
	}
	if len(got.Chains) != 2 || got.Chains[0].Kind != "path" || got.Chains[1].Hops[0].Link != "loopback" {
		t.Errorf("chains %+v", got.Chains)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "thruput sysinfo capture") || !strings.Contains(string(b), "-- proc/cpuinfo --") {
		t.Errorf("capture does not look like one:\n%.300s", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("capture left %d files in its directory, want 1", len(entries))
	}
	// Unpacked --root trees are removed again.
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "thruput-capture-*")); len(left) > 0 {
		t.Errorf("--root left %v", left)
	}
}

// deviceIDs are every id sysinfo gave.
func deviceIDs(doc result.Sysinfo) []string {
	var ids []string
	for _, n := range doc.System.NetInterfaces {
		ids = append(ids, n.DeviceID)
	}
	for _, d := range doc.System.BlockDevices {
		ids = append(ids, d.DeviceID)
	}
	for _, tg := range doc.Targets {
		ids = append(ids, tg.DeviceID)
	}
	return slices.DeleteFunc(ids, func(id string) bool { return id == "" })
}

// TestSysinfoBadRoot: what is not a capture or a machine's tree, and an
// argument that names nothing there, get a message and exit 2.
func TestSysinfoBadRoot(t *testing.T) {
	dir := t.TempDir()
	notCapture := filepath.Join(dir, "notes.txt")
	escape := filepath.Join(dir, "escape.txt")
	empty := filepath.Join(dir, "empty")
	for f, body := range map[string]string{
		notCapture: "-- proc/cpuinfo --\nprocessor : 0\n",
		escape:     "thruput sysinfo capture\n-- sys/class/net/eth0 -> ../../../../etc --\n",
	} {
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	for _, d := range []string{"proc", "sys"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", notCapture}, "not a thruput sysinfo capture"},
		{[]string{"--root", escape}, "leads outside the root"},
		{[]string{"--root", empty}, "has no"},
		{[]string{"--root", filepath.Join(dir, "missing")}, "does not exist"},
		{[]string{"/dev/no-such-disk"}, "not a block device this machine has"},
		{[]string{"--root", tree, "/dev/nvme9n1"}, "not a block device the machine under --root has"},
		{[]string{"no-such-iface0"}, "no path, block device or network interface"},
		{[]string{"--capture", filepath.Join(dir, "c.txt"), "--root", notCapture}, "cannot be used with --root"},
		{[]string{"--capture", filepath.Join(dir, "c.txt"), "no-such-iface0"}, "no path, block device or network interface"},
	} {
		o := thruput(t, append([]string{"sysinfo"}, tc.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("sysinfo %v: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "thruput-capture-*")); len(left) > 0 {
		t.Errorf("a refused --root left %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*c.txt*")); len(left) > 0 {
		t.Errorf("a refused --capture left %v", left)
	}
}

// TestSysinfoChainsInNamespace: in a namespace of its own, a bridge over
// a veth and a VLAN on that veth are walked down to the veth, whose peer
// is in another namespace. A kernel without 802.1Q support (this
// machine's has none) gets the bridge alone.
func TestSysinfoChainsInNamespace(t *testing.T) {
	fstest.RequireRoot(t)
	l := nettest.NewLink(t, 0)
	ctx := context.Background()
	ip := func(args ...string) error {
		out, err := l.Command(ctx, l.A, "ip", args...).CombinedOutput()
		if err != nil {
			t.Logf("ip %v: %v\n%s", args, err, out)
		}
		return err
	}
	for _, args := range [][]string{
		{"link", "add", "br0", "type", "bridge"},
		{"link", "set", l.DevA, "master", "br0"},
		{"link", "set", "br0", "up"},
	} {
		if ip(args...) != nil {
			t.FailNow()
		}
	}
	args := []string{"br0"}
	want := [][]string{{"br0 bridge", l.DevA + " veth"}}
	if ip("link", "add", "link", l.DevA, "name", "vl10", "type", "vlan", "id", "10") == nil {
		args = append(args, "vl10")
		want = append(want, []string{"vl10 vlan", l.DevA + " veth"})
	} else {
		t.Log("this kernel makes no VLAN (no 8021q): the bridge alone is checked")
	}
	// ip netns exec mounts the namespace's own /sys, as a container has.
	out, err := exec.Command("ip", append([]string{"netns", "exec", l.A, thruputBin, "sysinfo", "--json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("sysinfo in %s: %v", l.A, err)
	}
	var doc result.Sysinfo
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	links := func(c result.Chain) []string {
		var s []string
		for _, h := range c.Hops {
			s = append(s, h.Name+" "+h.Link)
		}
		return s
	}
	if len(doc.Chains) != len(want) {
		t.Fatalf("chains %+v, want hops %v", doc.Chains, want)
	}
	for i, c := range doc.Chains {
		if !reflect.DeepEqual(links(c), want[i]) {
			t.Errorf("chain of %s: hops %v, want %v", c.Of, links(c), want[i])
		}
	}
	if b := doc.Chains[0].Hops[1].Basis; !strings.Contains(b, "another network namespace") {
		t.Errorf("veth hop basis %q", b)
	}
	var veth result.NetInterface
	for _, n := range doc.System.NetInterfaces {
		if n.Name == l.DevA {
			veth = n
		}
	}
	if veth.Kind != "veth" || veth.Master != "br0" {
		t.Errorf("%s = %+v; want a veth in br0", l.DevA, veth)
	}
}

// TestSysinfoLoopChain: a filesystem on a loop device, named by its path
// and by its device, ends its chain at the loop device.
func TestSysinfoLoopChain(t *testing.T) {
	mnt := fstest.Mount(t, "ext4", 8<<20)
	doc := sysinfoJSON(t, mnt)
	dev := doc.Targets[0].Device
	if !strings.HasPrefix(dev, "loop") {
		t.Fatalf("%s is on %q, want a loop device", mnt, dev)
	}
	doc = sysinfoJSON(t, mnt, "/dev/"+dev)
	for _, c := range doc.Chains {
		if len(c.Hops) != 1 || c.Hops[0].Name != dev || c.Hops[0].Link != "loop" || c.Limit != -1 {
			t.Errorf("chain of %s (%s) = %+v; want the loop device alone, no ceiling", c.Of, c.Kind, c.Hops)
		}
	}
	if doc.Chains[1].Kind != "device" {
		t.Errorf("/dev/%s read as %s", dev, doc.Chains[1].Kind)
	}
}
