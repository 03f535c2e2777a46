package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// loopback runs a net client and server on loopback for 3 s, both under
// taskset -c cpus when cpus is set, and returns the client's exit and run
// and the CPU seconds the server took (which the client's health counts
// as other processes').
func loopback(t *testing.T, cpus string, extra ...string) (outcome, *result.Document, float64) {
	t.Helper()
	port := strconv.Itoa(freePort(t))
	wrap := func(args ...string) *exec.Cmd {
		if cpus == "" {
			return exec.Command(thruputBin, args...)
		}
		return exec.Command("taskset", append([]string{"-c", cpus, thruputBin}, args...)...)
	}
	srv := startBackground(t, wrap("net", "server", "-p", port, "--once", "--bind", "127.0.0.1", "-q"))
	p, _ := strconv.Atoi(port)
	waitListening(t, p)
	o := runOutcome(t, wrap(append([]string{"net", "client", "127.0.0.1", "-p", port, "-t", "3", "--json", "--no-save"}, extra...)...), nil)
	srv.wait(t)
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Health == nil {
		t.Fatalf("net client: exit %d, no health: %v\n%s%s", o.code, err, o.stdout, o.stderr)
	}
	ps := srv.cmd.ProcessState
	return o, doc, (ps.UserTime() + ps.SystemTime()).Seconds()
}

func loopbackRun(t *testing.T, cpus string) (*result.Document, float64) {
	t.Helper()
	o, doc, server := loopback(t, cpus)
	if o.code != 0 {
		t.Fatalf("net client: exit %d\n%s", o.code, o.stderr)
	}
	return doc, server
}

// quietCPUs is the most CPU processes other than the test's own client
// and server may take for a run to tell what thruput alone does to the
// cores: a quarter of a core cannot fill one core to 90 %.
const quietCPUs = 0.25

// strangers is the CPU, in CPUs, that processes other than the loopback
// test's client and server took during its run: the run's own others'
// CPU less the server's.
func strangers(doc *result.Document, serverSecs float64) float64 {
	h := doc.Health
	if h.OthersCPUs == nil || h.Seconds <= 0 {
		return 0
	}
	return max(0, *h.OthersCPUs-serverSecs/h.Seconds)
}

func verdicts(doc *result.Document) string {
	var vs []string
	for _, b := range doc.Bottlenecks {
		vs = append(vs, b.Verdict)
	}
	return strings.Join(vs, "\n")
}

// quietTries is how many runs a test of what one core does may take to
// find the shared machine quiet enough to tell.
const quietTries = 3

// unquiet ends a test whose machine was never quiet enough to judge:
// under CI (CI=true) a failure, since a skip there would pass having
// asserted nothing; elsewhere a skip that says why.
func unquiet(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("never quiet enough to judge in %d tries (CI=true: not a skip): "+format, append([]any{quietTries}, args...)...)
	}
	t.Skipf("never quiet enough to judge in %d tries: "+format, append([]any{quietTries}, args...)...)
}

// wholeTestBusy: a core at 90 % or more in every second of the test
// after its first (its ramp).
func wholeTestBusy(c result.CPUTime) bool {
	return len(c.BusySeries) > 1 && !slices.ContainsFunc(c.BusySeries[1:], func(b float64) bool { return b < 90 })
}

// TestHealthPinnedCore: client and server pinned to CPU 1 make that core
// the bottleneck, named; unpinned on two CPUs no one core is. Other
// processes on this shared machine can fill a core themselves, so a run
// that contradicts the claim while they were busy cannot tell: an
// unpinned run naming a core while they took more than quietCPUs (by
// its own health, less the server's CPU), or a pinned run not naming
// CPU 1 while they kept CPU 0 busy; or an unpinned run the scheduler
// kept on one core for the whole test. Such a run is tried again, up to
// quietTries times; never decided, the test fails under CI and skips
// elsewhere. Neither half passes unjudged.
func TestHealthPinnedCore(t *testing.T) {
	fstest.Long(t, "it measures loopback for seconds")
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	judged := false
	var last string
	for try := 1; try <= quietTries && !judged; try++ {
		doc, server := loopbackRun(t, "")
		v := verdicts(doc)
		if !strings.Contains(v, "bound to one core") {
			judged = true
			break
		}
		// A core named while other processes were busy may be theirs.
		if others := strangers(doc, server); others > quietCPUs {
			last = fmt.Sprintf("unpinned run %d named a core while other processes took %.2f CPUs (busy %+v)", try, others, doc.Health.CPUs)
			t.Log(last)
			continue
		}
		// The scheduler may itself keep the test on one core (CPU 0 at
		// 91 % over the whole test, CPU 1 at 47 %, seen once under make
		// check): that run was bound to the core it names, and cannot
		// judge the claim either. A core named below 90 % is wrong.
		if slices.ContainsFunc(doc.Health.CPUs, wholeTestBusy) {
			last = fmt.Sprintf("unpinned run %d: the scheduler kept one core busy (busy %+v)", try, doc.Health.CPUs)
			t.Log(last)
			continue
		}
		judged = true
		t.Errorf("unpinned on a quiet machine (others %.2f CPUs), a core was named the bottleneck:\n%s\n%+v", strangers(doc, server), v, doc.Health.CPUs)
	}
	if !judged {
		unquiet(t, "the unpinned half: %s", last)
	}
	for try := 1; try <= quietTries; try++ {
		doc, _ := loopbackRun(t, "1")
		var cpu0, cpu1 float64
		for _, c := range doc.Health.CPUs {
			switch c.CPU {
			case 0:
				cpu0 = c.Busy
			case 1:
				cpu1 = c.Busy
			}
		}
		if cpu1 < 90 {
			t.Fatalf("CPU 1 only %.0f %% busy with the test pinned to it: %+v", cpu1, doc.Health.CPUs)
		}
		v := verdicts(doc)
		named := strings.Contains(v, "CPU 1 was ") && strings.Contains(v, "bound to one core")
		// Other processes on this shared machine may fill CPU 0 too:
		// then no one core stands out, rightly, and the run cannot tell.
		if !named && cpu0 > 60 {
			last = fmt.Sprintf("pinned run %d: CPU 0 was %.0f %% busy with other processes (%v CPUs)", try, cpu0, *doc.Health.OthersCPUs)
			t.Log(last)
			continue
		}
		if !named {
			t.Errorf("pinned to CPU 1, the verdict does not name it:\n%s", v)
		}
		// The per-second readings back the mean: CPU 1 busy at every one.
		for _, c := range doc.Health.CPUs {
			if c.CPU == 1 && (len(c.BusySeries) < 2 || len(c.BusySeries) != len(doc.Health.BusyAtS)-1) {
				t.Errorf("CPU 1's per-second readings %v at %v", c.BusySeries, doc.Health.BusyAtS)
			}
		}
		return
	}
	unquiet(t, "the pinned half: %s", last)
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
	run := func(line string, extra ...string) (outcome, *result.Document) {
		wrote := make(chan error, 1)
		go func() {
			time.Sleep(time.Second)
			wrote <- os.WriteFile("/dev/kmsg", []byte(line+"\n"), 0)
		}()
		o, doc, _ := loopback(t, "", extra...)
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
