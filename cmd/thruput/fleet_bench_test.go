package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fleet"
	"github.com/thruput/thruput/internal/result"
)

// TestFleetBench is bench/fleet's measurement, not a test: it runs only
// with BENCH_FLEET=1 and prints its figures and a PASS/FAIL line per
// criterion of issue 15.
func TestFleetBench(t *testing.T) {
	if os.Getenv("BENCH_FLEET") == "" {
		t.Skip("bench/fleet runs this measurement (BENCH_FLEET=1)")
	}
	hosts := 50
	if n, err := strconv.Atoi(os.Getenv("BENCH_FLEET_HOSTS")); err == nil && n > 1 {
		hosts = n
	}
	say := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	verdict := func(ok bool, format string, args ...any) {
		v := "PASS"
		if !ok {
			v = "FAIL"
		}
		say(v+"  "+format, args...)
	}
	l := newFleetLab(t, make([]int, hosts)...)
	rss := regexp.MustCompile(`(?m)^rss=(\d+)$`)
	ctlCPU := regexp.MustCompile(`(?m)^cpu=([0-9.]+) ([0-9.]+)$`)
	// cpu is the machine's busy CPU time over each run, ctl the
	// controller's own: whether the hosts' share of the machine's CPUs
	// (their sshd, shell and thruput), not the controller, sets the pace.
	var cpu, ctl []time.Duration
	// run times the controller and reads its peak RSS (GNU time, which
	// ip netns exec runs in the controller's namespace).
	run := func(args ...string) (time.Duration, int, []fleet.HostLine) {
		busy0 := cpuBusy(t)
		defer func() { cpu = append(cpu, cpuBusy(t)-busy0) }()
		cmd := l.lan.Command(t.Context(), 0, "/usr/bin/time", append([]string{"-f", "rss=%M\ncpu=%U %S", thruputBin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+l.home, "THRUPUT_DB="+l.db, "SSH_AUTH_SOCK=")
		start := time.Now()
		o := runOutcome(t, cmd, args)
		took := time.Since(start)
		var lines []fleet.HostLine
		if err := json.Unmarshal([]byte(o.stdout), &lines); err != nil || o.code != 0 {
			t.Fatalf("%v: exit %d %v\n%s", args, o.code, err, o.stderr)
		}
		if c := ctlCPU.FindStringSubmatch(o.stderr); c != nil {
			u, _ := strconv.ParseFloat(c[1], 64)
			k, _ := strconv.ParseFloat(c[2], 64)
			ctl = append(ctl, time.Duration((u+k)*float64(time.Second)))
		}
		m := rss.FindStringSubmatch(o.stderr)
		kib := 0
		if m != nil {
			kib, _ = strconv.Atoi(m[1])
		}
		return took, kib, lines
	}
	sent := func(lines []fleet.HostLine) (n int64) {
		for _, l := range lines {
			n += l.SentBytes
		}
		return n
	}
	all := l.hosts(hosts)
	cold, coldRSS, lines := run("fleet", "run", "--json", "--hosts", all, "--", "sysinfo")
	say("fleet run -- sysinfo, %d hosts, cold cache: %v, %d MiB copied, controller peak RSS %.1f MiB", hosts, cold.Round(time.Millisecond), sent(lines)>>20, float64(coldRSS)/1024)
	var one, many, oneCPU, manyCPU []time.Duration
	var peak int
	var resent int64
	for range 3 {
		d, _, _ := run("fleet", "run", "--json", "--hosts", "h1", "--", "sysinfo")
		one, oneCPU = append(one, d), append(oneCPU, cpu[len(cpu)-1])
		d, r, lines := run("fleet", "run", "--json", "--hosts", all, "--", "sysinfo")
		many, manyCPU = append(many, d), append(manyCPU, cpu[len(cpu)-1])
		peak, resent = max(peak, r, coldRSS), resent+sent(lines)
	}
	med := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	ratio := float64(med(many)) / float64(med(one))
	say("warm cache, median of 3: 1 host %v, %d hosts %v (%.2fx)", med(one).Round(time.Millisecond), hosts, med(many).Round(time.Millisecond), ratio)
	say("machine CPU busy, median: 1 host %v, %d hosts %v (%v a host, %d CPUs)", med(oneCPU).Round(time.Millisecond), hosts, med(manyCPU).Round(time.Millisecond), (med(manyCPU) / time.Duration(hosts)).Round(100*time.Microsecond), runtime.NumCPU())
	// The runs alternate one host and all hosts after the cold run.
	var manyCtl []time.Duration
	for i := 2; i < len(ctl); i += 2 {
		manyCtl = append(manyCtl, ctl[i])
	}
	if len(manyCtl) > 0 {
		floor := (med(manyCPU) - med(manyCtl)) / time.Duration(runtime.NumCPU())
		say("of which the controller %v (%v a host); the hosts' own work alone needs %v of wall time on %d CPUs, %.2fx one host's run", med(manyCtl).Round(time.Millisecond), (med(manyCtl) / time.Duration(hosts)).Round(100*time.Microsecond), floor.Round(time.Millisecond), runtime.NumCPU(), float64(floor)/float64(med(one)))
	}
	verdict(ratio <= 3, "%d hosts take %.2fx the time of one (<= 3x)", hosts, ratio)
	verdict(peak < 64<<10, "controller peak RSS %.1f MiB (< 64 MiB)", float64(peak)/1024)
	verdict(resent == 0, "a second run copies no binary (%d bytes copied)", resent)
}

// cpuBusy is the time all CPUs of the machine spent not idle, from
// /proc/stat.
func cpuBusy(t *testing.T) time.Duration {
	var busy uint64
	for _, c := range procCPUs(t) {
		busy += c.busy
	}
	return time.Duration(busy) * time.Second / 100
}

// TestFleetNetBench compares each pair of fleet net on 100 Mbit/s links
// with a lone net client on that pair (bench/fleet; BENCH_FLEET=1).
func TestFleetNetBench(t *testing.T) {
	if os.Getenv("BENCH_FLEET") == "" {
		t.Skip("bench/fleet runs this measurement (BENCH_FLEET=1)")
	}
	const n = 6
	l := newFleetLab(t, 100, 100, 100, 100, 100, 100)
	o := l.thruput(t, "fleet", "net", "--json", "-q", "--hosts", l.hosts(n), "--", "-t", "3")
	var m fleet.Matrix
	if err := json.Unmarshal([]byte(o.stdout), &m); err != nil || o.code != 0 {
		t.Fatalf("fleet net: exit %d %v\n%s", o.code, err, o.stderr)
	}
	worst := 0.0
	for _, p := range m.Pairs {
		from, _ := strconv.Atoi(strings.TrimPrefix(p.From, "h"))
		to, _ := strconv.Atoi(strings.TrimPrefix(p.To, "h"))
		port := strconv.Itoa(5300 + to)
		srv := l.lan.Command(t.Context(), to, thruputBin, "net", "server", "-1", "--no-save", "-q", "-p", port)
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		var lone float64
		for try := 0; try < 20 && lone == 0; try++ {
			time.Sleep(100 * time.Millisecond)
			c := l.lan.Command(t.Context(), from, thruputBin, "net", "client", l.lan.Hosts[to].Addr, "-p", port, "-t", "3", "--json", "--no-save", "-q")
			out, err := c.Output()
			if err != nil {
				continue
			}
			doc, err := result.Read(strings.NewReader(string(out)))
			if err == nil {
				lone, _ = doc.ReceiverMbits()
			}
		}
		_ = srv.Process.Kill()
		_ = srv.Wait()
		if p.MbitPerSecond == nil || lone == 0 {
			t.Errorf("%s -> %s: fleet %v, lone %v", p.From, p.To, p.MbitPerSecond, lone)
			continue
		}
		diff := *p.MbitPerSecond/lone - 1
		worst = math.Max(worst, math.Abs(diff))
		fmt.Printf("%s -> %s: fleet %.1f Mbit/s, lone net client %.1f Mbit/s, %+.2f %%\n", p.From, p.To, *p.MbitPerSecond, lone, diff*100)
	}
	v := "PASS"
	if worst > 0.02 {
		v = "FAIL"
	}
	fmt.Printf("%s  every pair of fleet net on %d hosts within 2%% of a lone net client (worst %.2f %%)\n", v, n, worst*100)
}
