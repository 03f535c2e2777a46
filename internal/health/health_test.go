package health

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

func TestParseInterruptsPi4(t *testing.T) {
	f, err := os.Open("testdata/pi4-interrupts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := parseInterrupts(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 10 {
		t.Errorf("%d device lines, want 10 (no IPI, no Err): %v", len(m), m)
	}
	x := m["39"]
	if x.name != "xhci_hcd" || x.counts[0] != 30845207 || x.counts[1] != 0 || len(x.counts) != 4 {
		t.Errorf("39 = %+v", x)
	}
	if mmc := m["25"]; mmc.name != "mmc1, mmc0" || mmc.counts[2] != 938869 {
		t.Errorf("25 = %+v", mmc)
	}
	if d := m["17"]; d.name != "DMA IRQ" {
		t.Errorf("17 name %q: one action's name may hold a space", d.name)
	}
}

func TestParseTables(t *testing.T) {
	stat := "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 5 1 2 40 3 4 5 6 0 0\ncpu1 5 0 8 40\nintr 1 2 3\ncpux 1 2 3 4\n"
	m, err := parseStat(strings.NewReader(stat))
	if err != nil || len(m) != 2 {
		t.Fatalf("parseStat: %v %v", m, err)
	}
	if m[0] != (cpuTicks{5, 1, 2, 40, 3, 4, 5, 6}) || m[0].busy() != 5+1+2+4+5+6 || m[1].total() != 53 {
		t.Errorf("parseStat = %+v", m)
	}
	// CPU 1 offline: its column is missing, and CPU 2 is the second.
	sirq := "                    CPU0       CPU2\n          HI:          0          0\n      NET_RX:    2060991    1758061\n       BLOCK:          0     115443\n"
	s, err := parseSoftirqs(strings.NewReader(sirq))
	if err != nil || s["NET_RX"][2] != 1758061 || s["BLOCK"][0] != 0 || len(s["BLOCK"]) != 2 {
		t.Errorf("parseSoftirqs = %v %v", s, err)
	}
	// comm may hold ") " itself.
	if v, ok := parseSelfStat("42 (a) b) S 1 42 42 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 1 0"); !ok || v != 280 {
		t.Errorf("parseSelfStat = %d %v", v, ok)
	}
	for _, bad := range []string{"", "42 (x", "42 (x) S 1 2"} {
		if _, ok := parseSelfStat(bad); ok {
			t.Errorf("parseSelfStat(%q) accepted", bad)
		}
	}
}

func TestPatterns(t *testing.T) {
	// Lines as the kernel prints them, quoted in raspberrypi/linux and
	// sbc-bench threads.
	for line, want := range map[string]string{
		"xhci_hcd 0000:01:00.0: xHCI host controller not responding, assume dead": "xhci died",
		"xhci_hcd 0000:01:00.0: HC died; cleaning up":                             "xhci died",
		"usb 2-1: reset SuperSpeed USB device number 2 using xhci_hcd":            "usb reset",
		"usb 1-1.3: reset high-speed USB device number 4 using xhci_hcd":          "usb reset",
		"sd 0:0:0:0: [sda] tag#0 uas_eh_abort_handler 0 uas-tag 1 inflight: CMD":  "uas abort",
		"blk_update_request: I/O error, dev sda, sector 2048 op 0x1:(WRITE)":      "i/o error",
		"mmc1: Timeout waiting for hardware interrupt.":                           "mmc timeout",
		"mmc0: tuning execution failed: -5":                                       "mmc re-tuning",
		"pcieport 0000:00:00.0: AER: Corrected error received: 0000:00:00.0":      "pcie aer",
		"hwmon hwmon1: Undervoltage detected!":                                    "under-voltage",
		"NETDEV WATCHDOG: eth0 (bcmgenet): transmit queue 1 timed out":            "netdev watchdog",
		"EXT4-fs error (device sda1): ext4_find_entry:1455: inode #2":             "filesystem error",
	} {
		p, ok := Match(line)
		if !ok || p.Name != want {
			t.Errorf("Match(%q) = %q %v, want %q", line, p.Name, ok, want)
		}
	}
	for _, line := range []string{
		"usb 1-1: new high-speed USB device number 2 using xhci_hcd",
		"eth0: Link is Up - 1Gbps/Full - flow control rx/tx",
		"thruput-test: nothing to see here",
	} {
		if p, ok := Match(line); ok {
			t.Errorf("Match(%q) = %q, want none", line, p.Name)
		}
	}
	if msg, ok := kmsgRecord("6,1402,4253122,-;usb 2-1: reset SuperSpeed USB device\n SUBSYSTEM=usb\n"); !ok || msg != "usb 2-1: reset SuperSpeed USB device" {
		t.Errorf("kmsgRecord = %q %v", msg, ok)
	}
	if _, ok := kmsgRecord("no prefix"); ok {
		t.Error("kmsgRecord accepted a line without a prefix")
	}
}

// tree is a fixture machine the test rewrites between samples.
type tree struct {
	t        testing.TB
	dir      string
	proc     string
	sys      string
	throttle string
}

func newTree(t testing.TB) *tree {
	d := t.TempDir()
	tr := &tree{t: t, dir: d, proc: filepath.Join(d, "proc"), sys: filepath.Join(d, "sys")}
	tr.throttle = filepath.Join(tr.sys, "devices/platform/soc/soc:firmware/get_throttled")
	return tr
}

func (tr *tree) write(rel, content string) {
	p := filepath.Join(tr.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) config() Config { return Config{Proc: tr.proc, Sys: tr.sys} }

// pi writes a Raspberry Pi's files: get_throttled clear, a thermal zone at
// 48.5 °C, and one cpufreq policy of four CPUs up to 1500 MHz under
// governor with time_in_state tis; it returns the policy's directory.
func (tr *tree) pi(governor, tis string) string {
	tr.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0\n")
	tr.write("sys/class/thermal/thermal_zone0/temp", "48500\n")
	tr.write("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n")
	pol := "sys/devices/system/cpu/cpufreq/policy0/"
	tr.write(pol+"related_cpus", "0 1 2 3\n")
	tr.write(pol+"scaling_governor", governor+"\n")
	tr.write(pol+"scaling_max_freq", "1500000\n")
	tr.write(pol+"scaling_cur_freq", "1500000\n")
	tr.write(pol+"stats/time_in_state", tis)
	return pol
}

// TestFixtureRun drives a sampler by hand over a tree rewritten between
// samples, as a Pi that sagged under-voltage mid-run and recovered.
func TestFixtureRun(t *testing.T) {
	tr := newTree(t)
	pol := tr.pi("performance", "600000 100\n1500000 1000\n")
	tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 100 0 100 800 0 0 0 0\ncpu1 100 0 100 800 0 0 0 0\n")
	in, err := os.ReadFile("testdata/pi4-interrupts.txt")
	if err != nil {
		t.Fatal(err)
	}
	tr.write("proc/interrupts", string(in))
	tr.write("proc/self/stat", "7 (thruput) R 1 7 7 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0\n")

	s := newSampler(tr.config())
	t0 := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	s.begin(t0)
	s.sample(t0.Add(time.Second))
	tr.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50005\n")
	tr.write("sys/class/thermal/thermal_zone0/temp", "81200\n")
	tr.write(pol+"stats/time_in_state", "600000 150\n1500000 1050\n")
	s.sample(t0.Add(2 * time.Second))
	tr.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50000\n")
	tr.write("sys/class/thermal/thermal_zone0/temp", "60000\n")
	s.sample(t0.Add(3 * time.Second))
	// Over 4 s, CPU 0 busy 360 of 400 ticks, with 300 of them in
	// softirq; xhci_hcd 40000 more, all on CPU 0.
	tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 130 0 130 840 0 0 300 0\ncpu1 140 0 140 1120 0 0 0 0\n")
	tr.write("proc/interrupts", strings.Replace(string(in), "30845207", "30885207", 1))
	tr.write("proc/self/stat", "7 (thruput) R 1 7 7 0 -1 0 0 0 0 0 30 30 0 0 20 0 1 0\n")
	s.finish(t0.Add(4 * time.Second))
	h := s.outcome

	if h.Seconds != 4 || h.Samples != 5 {
		t.Errorf("seconds %v samples %d", h.Seconds, h.Samples)
	}
	th := h.Throttled
	if th == nil || th.Start != "0x0" || th.End != "0x50000" {
		t.Fatalf("throttled = %+v", th)
	}
	var bits []int
	for _, e := range th.Events {
		bits = append(bits, e.Bit)
		if e.FirstSeenS != 2 || e.AtStart {
			t.Errorf("bit %d first seen at %v (at start %v), want 2 s", e.Bit, e.FirstSeenS, e.AtStart)
		}
	}
	if !slices.Equal(bits, []int{0, 2, 16, 18}) {
		t.Errorf("bits %v, want 0 2 16 18", bits)
	}
	reasons := map[string]float64{}
	for _, x := range h.Suspect {
		reasons[x.Reason] = x.AtS
	}
	if len(reasons) != 3 || reasons["under-voltage"] != 2 || reasons["throttled"] != 2 {
		t.Errorf("suspect %+v, want under-voltage and throttled at 2 s, and the clock", h.Suspect)
	}
	if at, ok := reasons["clock below maximum"]; !ok || at != 2 {
		t.Errorf("clock below maximum at %v %v, want 2 s (600 MHz ticks grew between 1 and 2 s)", at, ok)
	}
	if len(h.Temperatures) != 1 || h.Temperatures[0] != (result.Temperature{Zone: "thermal_zone0", Type: "cpu-thermal", StartC: 48.5, MaxC: 81.2, EndC: 60, MaxAtS: 2}) {
		t.Errorf("temperatures %+v", h.Temperatures)
	}
	if len(h.Clocks) != 1 || h.Clocks[0].CPUs != "0-3" || h.Clocks[0].MeanMHz != 1050 || h.Clocks[0].MaxMHz != 1500 {
		t.Errorf("clocks %+v, want a mean of (600*50+1500*50)/100 = 1050 MHz", h.Clocks)
	}
	c0 := h.CPUs[0]
	if c0.Busy != 90 || c0.Softirq != 75 || h.CPUs[1].Busy != 20 {
		t.Errorf("cpus %+v", h.CPUs)
	}
	if len(h.Interrupts) != 1 || h.Interrupts[0].Name != "xhci_hcd" || h.Interrupts[0].TopCPU != 0 || h.Interrupts[0].TopShare != 1 || h.Interrupts[0].Count != 40000 {
		t.Errorf("interrupts %+v", h.Interrupts)
	}
	// Busy 360+80 ticks in 4 s = 1.1 CPUs; thruput's own 40 ticks 0.1.
	if h.OwnCPUs == nil || *h.OwnCPUs != 0.1 || h.OthersCPUs == nil || *h.OthersCPUs != 1 {
		t.Errorf("own %v others %v", h.OwnCPUs, h.OthersCPUs)
	}
	for _, u := range []string{"softirqs", "cgroup", "kernel"} {
		if !slices.Contains(h.Unknown, u) {
			t.Errorf("%s not unknown: %v", u, h.Unknown)
		}
	}
}

// TestSamplesEveryInterval: between the start's reading and the end's,
// the sampler reads once an Interval, and not sooner.
func TestSamplesEveryInterval(t *testing.T) {
	tr := newTree(t)
	cfg := tr.config()
	cfg.Kmsg = filepath.Join(tr.dir, "no-kmsg")
	cfg.Interval = 20 * time.Millisecond
	t0 := time.Now()
	s := Start(context.Background(), cfg)
	const ticks = 3
	for {
		s.mu.Lock()
		n := s.samples
		s.mu.Unlock()
		if n >= 1+ticks {
			break
		}
		if time.Since(t0) > 10*time.Second {
			t.Fatalf("%d readings after 10 s at %v", n, cfg.Interval)
		}
		time.Sleep(time.Millisecond)
	}
	if d := time.Since(t0); d < ticks*cfg.Interval {
		t.Errorf("%d readings after %v, want an interval (%v) between", 1+ticks, d, cfg.Interval)
	}
	if h := s.Stop(); h.Samples < 2+ticks {
		t.Errorf("%d samples, want the start's, %d ticks' and the end's", h.Samples, ticks)
	}
}

// TestAbsentIsUnknown: an empty tree gives every fact unknown, and no
// zero in its place.
func TestAbsentIsUnknown(t *testing.T) {
	tr := newTree(t)
	cfg := tr.config()
	cfg.Kmsg = filepath.Join(tr.dir, "no-kmsg")
	cfg.Interval = 10 * time.Millisecond
	s := Start(context.Background(), cfg)
	time.Sleep(30 * time.Millisecond)
	h := s.Stop()
	if h != s.Stop() {
		t.Error("a second Stop gave another outcome")
	}
	want := []string{"cpus", "interrupts", "softirqs", "clocks", "firmware_clock", "temperatures", "throttled", "own_cpu", "cgroup", "kernel"}
	if !slices.Equal(h.Unknown, want) {
		t.Errorf("unknown %v, want %v", h.Unknown, want)
	}
	if h.CPUs != nil || h.OthersCPUs != nil || h.OwnCPUs != nil || h.Kernel != nil || h.Throttled != nil || h.Cgroup != nil || len(h.Suspect) != 0 {
		t.Errorf("absent facts written: %+v", h)
	}
	if h.Samples < 2 {
		t.Errorf("%d samples", h.Samples)
	}
	var nilSampler *Sampler
	if nilSampler.Stop() != nil {
		t.Error("a nil sampler stopped to something")
	}
}

// TestRpiVoltHwmon reads under-voltage from the rpi_volt hwmon device
// where the firmware's get_throttled is absent.
func TestRpiVoltHwmon(t *testing.T) {
	tr := newTree(t)
	tr.write("sys/class/hwmon/hwmon1/name", "rpi_volt\n")
	tr.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", "0\n")
	s := newSampler(tr.config())
	t0 := time.Now()
	s.begin(t0)
	tr.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", "1\n")
	s.finish(t0.Add(1500 * time.Millisecond))
	h := s.outcome
	if h.Throttled == nil || !strings.HasSuffix(h.Throttled.Source, "in0_lcrit_alarm") || h.Throttled.End != "0x1" {
		t.Fatalf("throttled %+v", h.Throttled)
	}
	if len(h.Suspect) != 1 || h.Suspect[0].Reason != "under-voltage" || h.Suspect[0].AtS != 1.5 {
		t.Errorf("suspect %+v", h.Suspect)
	}
}

// TestLoadBegins: a run whose load began a second after it (a network
// test's idle latency probes) has its CPU times counted from the load: an
// idle first second does not dilute the busy core below the verdict's
// 90 %.
func TestLoadBegins(t *testing.T) {
	tr := newTree(t)
	tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 0 0 0 1000 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n")
	s := newSampler(tr.config())
	t0 := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	s.begin(t0)
	// The idle second: both CPUs idle.
	tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 0 0 0 1100 0 0 0 0\ncpu1 0 0 0 1100 0 0 0 0\n")
	s.loadBegins(t0.Add(time.Second))
	// Three loaded seconds: CPU 0 busy 285 of 300 ticks.
	tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 100 0 185 1115 0 0 0 0\ncpu1 10 0 10 1380 0 0 0 0\n")
	s.finish(t0.Add(4 * time.Second))
	h := s.outcome
	if h.Seconds != 4 || h.LoadS != 3 {
		t.Errorf("seconds %v, load %v: want 4 and 3", h.Seconds, h.LoadS)
	}
	if len(h.CPUs) != 2 || h.CPUs[0].Busy != 95 {
		t.Errorf("CPUs %+v: want CPU 0 95 %% busy over the load", h.CPUs)
	}
}

// TestStickyBeforeRun: bits that were set before the run began are not
// the run's: the run is not suspect for them.
func TestStickyBeforeRun(t *testing.T) {
	tr := newTree(t)
	tr.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50000\n")
	s := newSampler(tr.config())
	t0 := time.Now()
	s.begin(t0)
	s.finish(t0.Add(time.Second))
	h := s.outcome
	if len(h.Suspect) != 0 || len(h.Throttled.Events) != 2 || !h.Throttled.Events[0].AtStart {
		t.Errorf("suspect %+v events %+v", h.Suspect, h.Throttled.Events)
	}
}

func TestCgroupFixtures(t *testing.T) {
	tr := newTree(t)
	tr.write("sys/fs/cgroup/user.slice/run.scope/cpu.stat", "usage_usec 100\nnr_periods 10\nnr_throttled 3\nthrottled_usec 4500\n")
	tr.write("sys/fs/cgroup/user.slice/run.scope/cpu.max", "20000 100000\n")
	c, ok := findCgroup(strings.NewReader("0::/user.slice/run.scope\n"), tr.sys)
	if !ok || c.version != 2 || c.quota() != 0.2 {
		t.Fatalf("v2 %+v %v quota %v", c, ok, c.quota())
	}
	if st, ok := c.stat(); !ok || st != (cgroupStat{3, 4500}) {
		t.Errorf("v2 stat %+v", st)
	}
	tr.write("sys/fs/cgroup/cpu,cpuacct/t/cpu.stat", "nr_periods 5\nnr_throttled 2\nthrottled_time 7000000\n")
	tr.write("sys/fs/cgroup/cpu,cpuacct/t/cpu.cfs_quota_us", "-1\n")
	tr.write("sys/fs/cgroup/cpu,cpuacct/t/cpu.cfs_period_us", "100000\n")
	c, ok = findCgroup(strings.NewReader("2:cpu,cpuacct:/t\n0::/\n"), tr.sys)
	if !ok || c.version != 1 || c.quota() != 0 {
		t.Fatalf("v1 %+v %v", c, ok)
	}
	if st, _ := c.stat(); st != (cgroupStat{2, 7000}) {
		t.Errorf("v1 stat %+v: throttled_time is in ns", st)
	}
	if _, ok := findCgroup(strings.NewReader("garbage\n"), tr.sys); ok {
		t.Error("found a cgroup in garbage")
	}
}

func FuzzParsers(f *testing.F) {
	in, _ := os.ReadFile("testdata/pi4-interrupts.txt")
	f.Add(string(in))
	f.Add("cpu0 1 2 3 4 5 6 7 8\n")
	f.Add("   CPU0 CPU1\nNET_RX: 1 2\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseInterrupts(strings.NewReader(s))
		_, _ = parseSoftirqs(strings.NewReader(s))
		_, _ = parseStat(strings.NewReader(s))
		_, _ = parseSelfStat(s)
		_, _ = kmsgRecord(s)
		_, _ = findCgroup(strings.NewReader(s), t.TempDir())
	})
}

// BenchmarkSample is the cost of one second's sample on this machine
// (throttling, temperatures, clocks, the kernel log): bench/health reads
// its ns/op as the sampler's share of a core at 1 s sampling.
func BenchmarkSample(b *testing.B) {
	s := newSampler(Default())
	at := time.Now()
	s.begin(at)
	defer s.finish(at)
	b.ResetTimer()
	// A second apart, as the sampler reads: a reading closer to the
	// last one than a quarter interval skips /proc/stat.
	for b.Loop() {
		at = at.Add(time.Second)
		s.sample(at)
	}
}

// BenchmarkSamplePi is one sample of a Raspberry Pi's files: a thermal
// zone, a cpufreq policy with time_in_state, get_throttled.
func BenchmarkSamplePi(b *testing.B) {
	tr := newTree(b)
	tr.pi("ondemand", "600000 100\n700000 0\n800000 0\n900000 0\n1000000 0\n1100000 0\n1200000 0\n1300000 0\n1400000 0\n1500000 1000\n")
	cfg := tr.config()
	cfg.Kmsg = Default().Kmsg
	s := newSampler(cfg)
	at := time.Now()
	s.begin(at)
	defer s.finish(at)
	b.ResetTimer()
	for b.Loop() {
		at = at.Add(time.Second)
		s.sample(at)
	}
}

// BenchmarkStartStop is the cost of the readings at a run's start and
// end: /proc/stat, /proc/interrupts, /proc/softirqs, the cgroup.
func BenchmarkStartStop(b *testing.B) {
	for b.Loop() {
		s := newSampler(Default())
		s.begin(time.Now())
		s.finish(time.Now())
	}
}

// TestFirmwareClock reads the firmware's measured ARM clock through a
// stand-in reader: a Pi whose cpufreq says 1500 MHz throughout while the
// firmware ran the cores at 600 MHz at 2 s is suspect from then; the
// clock's range and mean cover every reading.
func TestFirmwareClock(t *testing.T) {
	tr := newTree(t)
	tr.pi("ondemand", "600000 100\n1500000 1000\n")
	hz := uint32(1500e6)
	cfg := tr.config()
	cfg.MeasuredClock = func() (uint32, bool) { return hz, true }
	s := newSampler(cfg)
	t0 := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	s.begin(t0)
	// Within 10 % of cpufreq's: the measurement's own spread.
	hz = 1400e6
	s.sample(t0.Add(time.Second))
	hz = 600e6
	s.sample(t0.Add(2 * time.Second))
	hz = 1500e6
	s.sample(t0.Add(3 * time.Second))
	s.finish(t0.Add(4 * time.Second))
	h := s.outcome
	fc := h.FirmwareClock
	// Readings 1500, 1400, 600, 1500, 1500: mean 6500 / 5.
	if fc == nil || *fc != (result.FirmwareClock{MinMHz: 600, MeanMHz: 1300, MaxMHz: 1500, Samples: 5}) {
		t.Errorf("firmware clock %+v", fc)
	}
	var got []result.Suspect
	for _, x := range h.Suspect {
		if x.Reason == "firmware clock below cpufreq" {
			got = append(got, x)
		}
	}
	if len(got) != 1 || got[0].AtS != 2 || !strings.Contains(got[0].Detail, "600 MHz while scaling_cur_freq said 1500 MHz") {
		t.Errorf("suspect %+v, want the firmware clock below cpufreq's from 2 s", h.Suspect)
	}

	// cpufreq itself asking for 600 MHz: the firmware follows, nothing
	// is behind its back.
	tr.write("sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "600000\n")
	hz = 600e6
	s = newSampler(cfg)
	s.begin(t0)
	s.finish(t0.Add(time.Second))
	if len(s.outcome.Suspect) != 0 || s.outcome.FirmwareClock.MeanMHz != 600 {
		t.Errorf("firmware at cpufreq's 600 MHz: suspect %+v, clock %+v", s.outcome.Suspect, s.outcome.FirmwareClock)
	}

	// A mailbox that does not answer: unknown, not zero.
	cfg.MeasuredClock = func() (uint32, bool) { return 0, false }
	s = newSampler(cfg)
	s.begin(t0)
	s.finish(t0.Add(time.Second))
	if s.outcome.FirmwareClock != nil || !slices.Contains(s.outcome.Unknown, "firmware_clock") {
		t.Errorf("unanswered mailbox: clock %+v, unknown %v", s.outcome.FirmwareClock, s.outcome.Unknown)
	}
}

// TestBusySeries: /proc/stat read every second gives each CPU's busy
// share per second, so a core busy for half the run shows as such, not
// only as its mean; the series covers the load once it began.
func TestBusySeries(t *testing.T) {
	tr := newTree(t)
	stat := func(cpu0, cpu1 string) {
		tr.write("proc/stat", "cpu  0 0 0 0\ncpu0 "+cpu0+"\ncpu1 "+cpu1+"\n")
	}
	stat("0 0 0 1000 0 0 0 0", "0 0 0 1000 0 0 0 0")
	s := newSampler(tr.config())
	t0 := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	s.begin(t0)
	// CPU 0: 100 %, 100 % (softirq), 50 %, 10 %; CPU 1: 0, 10, 0, 0.
	stat("100 0 0 1000 0 0 0 0", "0 0 0 1100 0 0 0 0")
	s.sample(t0.Add(time.Second))
	stat("100 0 0 1000 0 0 100 0", "10 0 0 1190 0 0 0 0")
	s.sample(t0.Add(2 * time.Second))
	stat("150 0 0 1050 0 0 100 0", "10 0 0 1290 0 0 0 0")
	s.sample(t0.Add(3 * time.Second))
	stat("160 0 0 1140 0 0 100 0", "10 0 0 1390 0 0 0 0")
	s.finish(t0.Add(4 * time.Second))
	h := s.outcome
	if !slices.Equal(h.BusyAtS, []float64{0, 1, 2, 3, 4}) {
		t.Errorf("busy at %v", h.BusyAtS)
	}
	if len(h.CPUs) != 2 || !slices.Equal(h.CPUs[0].BusySeries, []float64{100, 100, 50, 10}) || !slices.Equal(h.CPUs[1].BusySeries, []float64{0, 10, 0, 0}) {
		t.Errorf("series %+v", h.CPUs)
	}
	if h.CPUs[0].Busy != 65 {
		t.Errorf("CPU 0 busy %v over the run, want 260 of 400 ticks", h.CPUs[0].Busy)
	}

	// The load beginning at 2 s: the series starts there.
	stat("0 0 0 1000 0 0 0 0", "0 0 0 1000 0 0 0 0")
	s = newSampler(tr.config())
	s.begin(t0)
	stat("0 0 0 1100 0 0 0 0", "0 0 0 1100 0 0 0 0")
	s.sample(t0.Add(time.Second))
	stat("0 0 0 1200 0 0 0 0", "0 0 0 1200 0 0 0 0")
	s.loadBegins(t0.Add(2 * time.Second))
	stat("95 0 0 1205 0 0 0 0", "0 0 0 1300 0 0 0 0")
	s.finish(t0.Add(3 * time.Second))
	h = s.outcome
	if !slices.Equal(h.BusyAtS, []float64{2, 3}) || !slices.Equal(h.CPUs[0].BusySeries, []float64{95}) || h.CPUs[0].Busy != 95 {
		t.Errorf("from the load: at %v, CPUs %+v", h.BusyAtS, h.CPUs)
	}
}

// TestParseStatBytes: the per-second parser reads what parseStat's
// callers rely on, from the Pi 4's /proc/stat layout, and skips lines
// that are not a CPU's.
func TestParseStatBytes(t *testing.T) {
	m := map[int]cpuTicks{}
	parseStatBytes([]byte("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 4705 356 584 3699176 23060 0 277 0 0 0\ncpu12 1 2 3 4\ncpux 1 2 3 4 5\ncpu1 1 2 x 4 5\nintr 1 2 3\ncpu3 1 2 3\n"), m)
	if len(m) != 2 || m[0] != (cpuTicks{4705, 356, 584, 3699176, 23060, 0, 277, 0}) || m[12] != (cpuTicks{1, 2, 3, 4, 0, 0, 0, 0}) {
		t.Errorf("parsed %+v", m)
	}
}

// TestKernelScope: a kernel line makes the run suspect when it names a
// device the run crossed, or the USB device, SCSI host or PCI function
// it hangs off, or concerns the whole machine; another device's line is
// a note.
func TestKernelScope(t *testing.T) {
	tr := newTree(t)
	// A USB disk on a Pi 4's VL805 controller, as sysfs links it.
	dev := "sys/devices/platform/scb/fd500000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0/usb2/2-1/2-1:1.0/host0/target0:0:0/0:0:0:0/block/sda"
	tr.write(dev+"/dev", "8:0\n")
	if err := os.MkdirAll(filepath.Join(tr.sys, "class/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tr.dir, dev), filepath.Join(tr.sys, "class/block/sda")); err != nil {
		t.Fatal(err)
	}
	s := newSampler(tr.config())
	s.UnderTest("sda", "sda1", "")
	for line, want := range map[string]string{
		"blk_update_request: I/O error, dev sda, sector 2048 op 0x0:(READ)":                                scopeUnderTest,
		"EXT4-fs error (device sda1): ext4_find_entry:1455: inode #2: comm ls: reading directory lblock 0": scopeUnderTest,
		"usb 2-1: reset SuperSpeed Gen 1 USB device number 2 using xhci_hcd":                               scopeUnderTest,
		"sd 0:0:0:0: [sda] tag#3 uas_eh_abort_handler 0 uas-tag 4 inflight: CMD IN ":                       scopeUnderTest,
		"scsi host0: uas_eh_device_reset_handler start":                                                    scopeUnderTest,
		"pcieport 0000:01:00.0: AER: Corrected error received":                                             scopeUnderTest,
		"blk_update_request: I/O error, dev sdb, sector 0":                                                 scopeOther,
		"usb 1-1.3: reset high-speed USB device number 4 using dwc_otg":                                    scopeOther,
		"mmc0: Timeout waiting for hardware interrupt.":                                                    scopeOther,
		"Under-voltage detected! (0x00050005)":                                                             scopeMachine,
		"xhci_hcd 0000:02:00.0: xHCI host controller not responding, assume dead":                          scopeMachine,
	} {
		pat, ok := Match(line)
		if !ok {
			t.Fatalf("%q matches no pattern", line)
		}
		if got := s.scope(result.KernelLine{Pattern: pat.Name, Kind: pat.Kind, Line: line}); got != want {
			t.Errorf("%q: %s, want %s", line, got, want)
		}
	}
}
