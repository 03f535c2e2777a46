package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// loopback runs a net client and server on loopback for 3 s, both under
// taskset -c cpus when cpus is set, and returns the client's exit and run
// and the CPUs' counters around the client's run.
func loopback(t *testing.T, cpus string, extra ...string) (outcome, *result.Document, procWindow) {
	t.Helper()
	port := strconv.Itoa(nettest.FreePort(t))
	wrap := func(args ...string) *exec.Cmd {
		if cpus == "" {
			return exec.Command(thruputBin, args...)
		}
		return exec.Command("taskset", append([]string{"-c", cpus, thruputBin}, args...)...)
	}
	srv := startBackground(t, wrap("net", "server", "-p", port, "--once", "--bind", "127.0.0.1", "-q"))
	p, _ := strconv.Atoi(port)
	waitListening(t, p)
	w := procWindow{before: procCPUs(t)}
	start := time.Now()
	o := runOutcome(t, wrap(append([]string{"net", "client", "127.0.0.1", "-p", port, "-t", "3", "--json", "--no-save"}, extra...)...), nil)
	w.wall, w.after = time.Since(start).Seconds(), procCPUs(t)
	srv.wait(t)
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Health == nil {
		t.Fatalf("net client: exit %d, no health: %v\n%s%s", o.code, err, o.stdout, o.stderr)
	}
	return o, doc, w
}

// procWindow is each CPU's counters read just before a run started and
// just after it ended, wall seconds apart.
type procWindow struct {
	before, after map[int]procTicks
	wall          float64
}

// procTicks is a CPU's busy and total time in /proc/stat's ticks
// (USER_HZ), busy as the health sampler counts it: all but idle and
// iowait (guest time is already in user).
type procTicks struct{ busy, total uint64 }

// procCPUs reads each CPU's line of /proc/stat.
func procCPUs(t testing.TB) map[int]procTicks {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]procTicks{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		// The line of all CPUs, "cpu", has no number.
		c, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var p procTicks
		// user nice system idle iowait irq softirq steal
		for i, v := range f[1:9] {
			n, _ := strconv.ParseUint(v, 10, 64)
			p.total += n
			if i != 3 && i != 4 {
				p.busy += n
			}
		}
		out[c] = p
	}
	return out
}

// shares bounds each CPU's busy share, in percent, over the sampler's
// window of secs within w, as the kernel counted it: the ticks of w
// outside the window may each have been busy or idle, and the counters
// move in whole ticks, one either end.
func (w procWindow) shares(secs float64) map[int][2]float64 {
	out := map[int][2]float64{}
	for c, a := range w.after {
		b, ok := w.before[c]
		if !ok || w.wall <= 0 {
			continue
		}
		busy, total := float64(a.busy-b.busy), float64(a.total-b.total)
		in := total * min(secs, w.wall) / w.wall
		if in <= 0 {
			continue
		}
		lo := (busy - (total - in) - 2) / in * 100
		hi := (busy + 2) / in * 100
		out[c] = [2]float64{max(0, lo), min(100, hi)}
	}
	return out
}

// verdicts are a run's bottleneck verdicts, a line each.
func verdicts(doc *result.Document) string {
	var vs []string
	for _, b := range doc.Bottlenecks {
		vs = append(vs, b.Verdict)
	}
	return strings.Join(vs, "\n")
}

// boundCore is the core a run's verdict names as the one the work is
// bound to, -1 for none.
func boundCore(doc *result.Document) int {
	m := regexp.MustCompile(`(?m)CPU (\d+) was \d+ % busy \(irq\+softirq \d+ %\).*bound to one core`).FindStringSubmatch(verdicts(doc))
	if m == nil {
		return -1
	}
	c, _ := strconv.Atoi(m[1])
	return c
}

// Thresholds of ceiling's busy-core rule (internal/ceiling/cpu.go, coreBusy
// and coreLead): a core is named when it was 90 % busy or more and 20
// points ahead of the mean of the others.
const (
	coreBusy = 90
	coreLead = 20
)

// judgeCores holds a run's verdict and per-CPU figures to the CPUs' busy
// shares the kernel counted in the same window (shares' bounds), and says
// whether those shares decide the rule: a core that stood out by them
// beyond their uncertainty must be named, and one that could not have
// stood out must not; a run whose shares sit within their uncertainty of
// the rule's bars decides nothing about the verdict, and says why.
func judgeCores(t *testing.T, what string, doc *result.Document, w procWindow) (decided bool, why string) {
	t.Helper()
	h := doc.Health
	secs := h.Seconds
	if h.LoadS > 0 {
		secs = h.LoadS
	}
	b := w.shares(secs)
	var say []string
	for _, c := range h.CPUs {
		say = append(say, fmt.Sprintf("CPU %d %.1f %% (kernel %.1f..%.1f)", c.CPU, c.Busy, b[c.CPU][0], b[c.CPU][1]))
	}
	t.Logf("%s, over %.3f s of the client's %.3f: %s", what, secs, w.wall, strings.Join(say, ", "))
	for _, c := range h.CPUs {
		if r, ok := b[c.CPU]; !ok || c.Busy < r[0]-0.05 || c.Busy > r[1]+0.05 {
			t.Errorf("%s: CPU %d %.1f %% busy, the kernel counted %.1f..%.1f %% in the same window", what, c.CPU, c.Busy, r[0], r[1])
		}
	}
	// The mean of the other cores' bounds.
	others := func(cpu, end int) float64 {
		sum, n := 0.0, 0
		for c, r := range b {
			if c != cpu {
				sum, n = sum+r[end], n+1
			}
		}
		return sum / float64(max(n, 1))
	}
	// surely: c stood out by the lower bounds of its share against the
	// upper of the others'; could: by the upper against the lower.
	surely := func(c int) bool { return b[c][0] >= coreBusy && b[c][0]-others(c, 1) >= coreLead }
	could := func(c int) bool { return b[c][1] >= coreBusy && b[c][1]-others(c, 0) >= coreLead }
	named := boundCore(doc)
	if named >= 0 && !could(named) {
		t.Errorf("%s: CPU %d named the bottleneck, though the kernel counted it at most %.1f %% busy against the others' %.1f at least:\n%s", what, named, b[named][1], others(named, 0), verdicts(doc))
		return true, ""
	}
	anyCould := false
	for c := range b {
		if surely(c) && named != c {
			t.Errorf("%s: CPU %d was %.1f %% busy or more against the others' %.1f at most, and the verdict does not name it:\n%s", what, c, b[c][0], others(c, 1), verdicts(doc))
			return true, ""
		}
		anyCould = anyCould || could(c)
	}
	if named >= 0 && surely(named) || named < 0 && !anyCould {
		return true, ""
	}
	return false, fmt.Sprintf("%s: the kernel's busy shares sit within their uncertainty of the rule's %d %% and %d points", what, coreBusy, coreLead)
}

// quietTries is how many runs a test of what one core does may take to
// find the shared machine's cores clear enough of the rule's bars to
// decide it.
const quietTries = 3

// unquiet ends a test whose machine was never quiet enough in tries runs
// to judge: under CI (CI=true) a failure, since a skip there would pass
// having asserted nothing; elsewhere a skip that says why.
func unquiet(t *testing.T, tries int, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("never quiet enough to judge in %d tries (CI=true: not a skip): "+format, append([]any{tries}, args...)...)
	}
	t.Skipf("never quiet enough to judge in %d tries: "+format, append([]any{tries}, args...)...)
}

// TestHealthPinnedCore: client and server pinned to CPU 1 make that core
// the bottleneck, named; unpinned on two CPUs no one core is. Other
// processes on this shared machine fill the cores too (CPU 0 at 100 %
// beside a pinned run, seen in every try under make check), so what a run
// must say is not fixed: each run is held to the busy shares the kernel
// counted in its own window (/proc/stat around the client, bounded for
// the moments outside the sampler's window): the core that stood out by
// them must be named, a core that could not have must not, and the
// sampler's per-CPU figures must lie within them. A run whose shares sit
// within their uncertainty of the rule's bars is judged for its figures
// and tried again for its verdict, up to quietTries times; never decided,
// the test fails under CI and skips elsewhere. The runs leave latency
// probes out, so that the sampler's window is the whole test.
func TestHealthPinnedCore(t *testing.T) {
	fstest.Long(t, "it measures loopback for seconds")
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	for _, half := range []struct{ name, cpus string }{{"unpinned", ""}, {"pinned to CPU 1", "1"}} {
		var why string
		decided := false
		for try := 1; try <= quietTries && !decided; try++ {
			o, doc, w := loopback(t, half.cpus, "--no-latency")
			if o.code != 0 {
				t.Fatalf("net client: exit %d\n%s", o.code, o.stderr)
			}
			if half.cpus != "" {
				checkPinned(t, doc)
			}
			if decided, why = judgeCores(t, fmt.Sprintf("%s, run %d", half.name, try), doc, w); !decided {
				t.Log(why)
			}
		}
		if !decided {
			unquiet(t, quietTries, "%s", why)
		}
	}
}

// checkPinned: with client and server pinned to CPU 1, the core is busy,
// and its per-second readings back the mean.
func checkPinned(t *testing.T, doc *result.Document) {
	t.Helper()
	for _, c := range doc.Health.CPUs {
		if c.CPU != 1 {
			continue
		}
		if c.Busy < coreBusy {
			t.Fatalf("CPU 1 only %.0f %% busy with the test pinned to it: %+v", c.Busy, doc.Health.CPUs)
		}
		if len(c.BusySeries) < 2 || len(c.BusySeries) != len(doc.Health.BusyAtS)-1 {
			t.Errorf("CPU 1's per-second readings %v at %v", c.BusySeries, doc.Health.BusyAtS)
		}
	}
}

// cgroupDir makes a cgroup with a CPU quota of 20 % on cgroup v2 or v1,
// whichever this machine has, removed when the test ends.
func cgroupDir(t *testing.T) (dir, procs string) {
	t.Helper()
	name := fmt.Sprintf("thruput-test-%d", os.Getpid())
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		dir = filepath.Join("/sys/fs/cgroup", name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("cgroup v2: %v", err)
		}
		t.Cleanup(func() { os.Remove(dir) })
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("20000 100000"), 0); err != nil {
			t.Skipf("cgroup v2 cpu.max (no cpu controller delegated): %v", err)
		}
		return dir, filepath.Join(dir, "cgroup.procs")
	}
	for _, h := range []string{"cpu,cpuacct", "cpu"} {
		base := filepath.Join("/sys/fs/cgroup", h)
		if _, err := os.Stat(filepath.Join(base, "cpu.cfs_quota_us")); err != nil {
			continue
		}
		dir = filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(dir) })
		if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), []byte("20000"), 0); err != nil {
			t.Fatal(err)
		}
		return dir, filepath.Join(dir, "cgroup.procs")
	}
	t.Skip("no cgroup cpu controller")
	return "", ""
}

// cgroupThrottled is what the cgroup's own cpu.stat counted: the periods
// it was throttled in and the time, in microseconds (v2 throttled_usec;
// v1 writes throttled_time in nanoseconds).
func cgroupThrottled(t *testing.T, dir string) (periods, micros int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "nr_throttled":
			periods = n
		case "throttled_usec":
			micros = n
		case "throttled_time":
			micros = n / 1000
		}
	}
	return periods, micros
}

// TestHealthCgroupQuota: a sweep in a cgroup held to 20 % of a CPU says
// so: the quota, and the throttling the cgroup's own counters saw.
// Whether the quota held thruput back is the machine's to say, not the
// test's: beside six spinning shells thruput got no more than 0.17 to
// 0.18 CPUs of its 0.20, and below 90 % of its quota the verdict rightly
// names the other processes instead. So each figure is held to what the
// kernel counted in the same run: the run's own CPU to the process's CPU
// time (rusage) less what the time outside the sampler's window can hold,
// the throttling to the cgroup's cpu.stat, and the verdict to the run's
// own CPU, as the documented rule (90 % of the quota) reads it.
func TestHealthCgroupQuota(t *testing.T) {
	fstest.RequireRoot(t)
	cg, procs := cgroupDir(t)
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `echo $$ > "$0" && exec "$@"`, procs, thruputBin,
		"disk", "sweep", dir, "--sizes", "4k", "--file-size", "128M", "--json", "-q", "--no-save")
	start := time.Now()
	o := runOutcome(t, cmd, nil)
	wall := time.Since(start).Seconds()
	if o.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Health == nil || doc.Health.Cgroup == nil || doc.Health.OwnCPUs == nil {
		t.Fatalf("no cgroup health: %v\n%s", err, o.stdout)
	}
	h, q := doc.Health, doc.Health.Cgroup
	periods, micros := cgroupThrottled(t, cg)
	ps := cmd.ProcessState
	used := (ps.UserTime() + ps.SystemTime()).Seconds()
	// Outside the sampler's window (the process's start and exit) the
	// process may have run on every CPU; the sampler counts CPU time in
	// ticks of 10 ms, one at either end, and keeps hundredths of a CPU.
	outside := wall - h.Seconds
	slack := 0.02 + 0.005*h.Seconds
	own := *h.OwnCPUs * h.Seconds
	t.Logf("own %.2f CPUs over %.3f s (%.3f CPU s); the process used %.3f CPU s in %.3f s; throttled %d times for %d µs (cgroup: %d, %d µs)",
		*h.OwnCPUs, h.Seconds, own, used, wall, q.NrThrottled, q.ThrottledMicros, periods, micros)
	if q.QuotaCPUs != 0.2 {
		t.Errorf("quota %v CPUs, want the 0.2 set", q.QuotaCPUs)
	}
	if own > used+slack || own < used-outside*float64(runtime.NumCPU())-slack {
		t.Errorf("own CPU %.3f CPU s over the run's %.3f s, the process used %.3f CPU s in %.3f s", own, h.Seconds, used, wall)
	}
	if q.NrThrottled > periods || q.ThrottledMicros > micros {
		t.Errorf("throttled %d times for %d µs, more than the cgroup counted (%d, %d µs)", q.NrThrottled, q.ThrottledMicros, periods, micros)
	}
	// Periods of 100 ms: those touching the time outside the window,
	// one more at either end, may hold all the throttling the cgroup saw.
	if edge := int64(math.Ceil(outside/0.1)) + 2; periods > edge && (q.NrThrottled == 0 || q.ThrottledMicros == 0) {
		t.Errorf("the cgroup was throttled %d times, the run says %d (%d µs)", periods, q.NrThrottled, q.ThrottledMicros)
	}
	v := verdicts(doc)
	held := math.Round(*h.OwnCPUs*100) >= 18
	if named := strings.Contains(v, "of its cgroup's quota of 0.20") && strings.Contains(v, "the quota holds it"); named != held {
		t.Errorf("own %.2f CPUs of a 0.20 quota: the verdict names the quota %v, want %v:\n%s", *h.OwnCPUs, named, held, v)
	}
}

// TestHealthKernelLine: a line written to the kernel log during a run
// that matches a pattern marks the run suspect (and --strict exits 1);
// one that matches nothing does not.
func TestHealthKernelLine(t *testing.T) {
	fstest.RequireRoot(t)
	n := 0
	run := func(line string, extra ...string) (outcome, *result.Document) {
		// The line goes in once this run's client reads the kernel log, not
		// a fixed time after it starts: a line written before it opened
		// /dev/kmsg is not the run's.
		n++
		label := fmt.Sprintf("kmsg=%d-%d", os.Getpid(), n)
		wrote := make(chan error, 1)
		go func() {
			if !whenOpened(label, "/dev/kmsg", 30*time.Second) {
				wrote <- fmt.Errorf("no client labelled %s opened /dev/kmsg within 30 s", label)
				return
			}
			// Past its first sample, which the line must not fall in.
			time.Sleep(500 * time.Millisecond)
			wrote <- os.WriteFile("/dev/kmsg", []byte(line+"\n"), 0)
		}()
		o, doc, _ := loopback(t, "", append(extra, "--label", label)...)
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
		if doc.Health.Kernel == nil {
			t.Fatalf("kernel log unknown as root: %v", doc.Health.Unknown)
		}
		return o, doc
	}
	tag := fmt.Sprintf("thruput-test-%d", time.Now().UnixNano())
	// The loopback test crosses lo: a watchdog line naming it is the
	// run's.
	o, doc := run(tag+": NETDEV WATCHDOG: lo (thruput-test): transmit queue 0 timed out", "--strict")
	found := false
	for _, m := range doc.Health.Kernel.Matched {
		found = found || strings.Contains(m.Line, tag) && m.AtS >= 0.5 && m.Scope == "device under test"
	}
	if !found || !doc.Suspect() || !strings.Contains(doc.SuspectNote(), tag) {
		t.Errorf("the watchdog line on lo did not make the run suspect: %+v %+v", doc.Health.Kernel.Matched, doc.Health.Suspect)
	}
	if o.code != 1 || !strings.Contains(o.stderr, "--strict: the run is suspect") {
		t.Errorf("--strict on a suspect run: exit %d\n%s", o.code, o.stderr)
	}
	// A disk's I/O error during a network test is another device's: a
	// note, not a reason.
	o, doc = run(tag+": blk_update_request: I/O error, dev loop99, sector 0", "--strict")
	found = false
	for _, m := range doc.Health.Kernel.Matched {
		found = found || strings.Contains(m.Line, tag) && m.Scope == "other device"
	}
	if !found || strings.Contains(doc.SuspectNote(), tag) || o.code != 0 {
		t.Errorf("another device's I/O error: matched %+v, suspect %+v, --strict exit %d", doc.Health.Kernel.Matched, doc.Health.Suspect, o.code)
	}
	_, doc = run(tag + ": all is well")
	for _, m := range doc.Health.Kernel.Matched {
		if strings.Contains(m.Line, tag) {
			t.Errorf("a line matching nothing was matched: %+v", m)
		}
	}
	if doc.Health.Kernel.New == 0 {
		t.Error("the line written was not counted")
	}
}

// TestHealthOthersCPU: a process spinning beside a disk sweep is
// reported as other processes' CPU, and named in the verdict.
func TestHealthOthersCPU(t *testing.T) {
	fstest.Long(t, "it measures for seconds")
	hog := exec.Command("sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	// Four phases of up to a second: long enough for the counters'
	// ticks to say a core was taken.
	doc := sweepJSON(t, t.TempDir(), "--sizes", "64k,1M", "--file-size", "256M", "--max-time", "1s", "--no-save")
	h := doc.Health
	if h == nil || h.OthersCPUs == nil || *h.OthersCPUs < 0.5 {
		t.Fatalf("others' CPU with a hog running beside the sweep: %+v", h)
	}
	if v := verdicts(doc); !strings.Contains(v, "other processes used") {
		t.Errorf("the verdict does not name the other processes:\n%s", v)
	}
}

// TestHealthOff: --no-health leaves the section out.
func TestHealthOff(t *testing.T) {
	doc := sweepJSON(t, t.TempDir(), "--sizes", "4k", "--file-size", "1M", "--no-save", "--no-health")
	if doc.Health != nil {
		t.Errorf("--no-health sampled: %+v", doc.Health)
	}
}

// whenOpened waits up to wait for a process with arg among its command
// line's arguments to hold path open, and says whether one did. A test
// that writes what a run must see (a kernel log line) writes it then,
// rather than a fixed time after the start, which a loaded machine can
// outlast.
func whenOpened(arg, path string, wait time.Duration) bool {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, dir := range procs {
			if !hasArg(filepath.Base(dir), arg) {
				continue
			}
			fds, _ := filepath.Glob(filepath.Join(dir, "fd", "*"))
			for _, fd := range fds {
				if l, _ := os.Readlink(fd); l == path {
					return true
				}
			}
		}
	}
	return false
}

// hasArg says whether process pid has arg among its command line's
// arguments.
func hasArg(pid, arg string) bool {
	b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
	return slices.Contains(strings.Split(string(b), "\x00"), arg)
}
