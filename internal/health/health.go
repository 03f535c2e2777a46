// Package health samples what the machine does while a run measures: how
// busy each CPU is and with what (user, system, irq, softirq, iowait,
// steal), which interrupt lines fire on which CPU, the clock of each
// cpufreq policy, the thermal zones, the Raspberry Pi firmware's
// throttling bits, the CPU other processes take, thruput's own cgroup
// CPU throttling, the kernel's complaints, and the WiFi station a network
// run crossed (its rates, MCS, signal, retries and power save).
//
// It exists because a throughput figure is only the machine's own when
// nothing else held it down: a Pi that sagged under-voltage mid-run and
// recovered shows only sticky bits afterwards, the firmware throttles
// behind scaling_cur_freq, and a receive path bound to one core looks,
// from the process's CPU figure, like a slow link. Read once after the
// run, none of this can be told apart; sampled every second and at the
// start and end, it can, at a cost of a few small file reads a second.
//
// Everything is read from files under a Proc and a Sys root, like
// internal/sysinfo, so fixture trees can drive it. A file that cannot be
// read leaves its fact unknown (named in the result's Unknown), never
// zero, never an error.
package health

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/kfile"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
	"github.com/thruput/thruput/internal/throttle"
)

// Config says where the sampler reads and how often.
type Config struct {
	// Proc and Sys stand in for /proc and /sys.
	Proc, Sys string
	// Kmsg is the kernel log device, "" for none.
	Kmsg string
	// Interval between samples; 1 s if zero.
	Interval time.Duration
	// Mailbox asks the firmware for its throttling bits over /dev/vcio,
	// on the live machine only (internal/throttle).
	Mailbox bool
	// WiFi reads the WiFi stations over nl80211, on the live machine
	// only.
	WiFi bool
	// MeasuredClock reads the ARM clock the firmware measures, in Hz
	// (throttle.MeasuredClock on the live machine); nil for none.
	MeasuredClock func() (uint32, bool)
}

// Default samples the running machine every second.
func Default() Config {
	return Config{Proc: "/proc", Sys: "/sys", Kmsg: "/dev/kmsg", Interval: time.Second, Mailbox: true, WiFi: true,
		MeasuredClock: throttle.MeasuredClock}
}

// userHZ is the unit of /proc/stat and /proc/PID/stat times: the kernel
// exports USER_HZ, 100 on every architecture, whatever its own HZ.
const userHZ = 100

// Sampler samples one run. Start it before the run measures and Stop it
// after; a nil Sampler stops to nil.
type Sampler struct {
	cfg  Config
	t0   time.Time
	tEnd time.Time

	first, last snapshot

	throttle   *throttle.Source
	thrStart   uint32
	thrEnd     uint32
	thrOK      bool
	thrFirst   map[int]float64
	thrAtStart map[int]bool

	zones    []zone
	policies []*policy

	// fw reads the firmware's measured ARM clock; fwMin, fwMax and
	// fwSum (MHz) over fwN readings.
	fw                  func() (uint32, bool)
	fwMin, fwMax, fwSum float64
	fwN                 int

	// busy is each CPU's busy share between two readings of /proc/stat
	// (at busyAt), read into statBuf and parsed into statNow, which
	// swaps with statPrev: the per-second reading allocates nothing
	// once the buffers have grown.
	statBuf           []byte
	statPrev, statNow map[int]cpuTicks
	busy              map[int][]float64
	busyAt            []float64
	// loadIdx is the reading at which the load began (LoadBegins).
	loadIdx int

	cg   cgroupCPU
	cgOK bool

	wifi      *wifiSource
	wifiReads map[string][]wifiReading
	crossed   string

	km       *kmsg
	newLines int
	matched  []result.KernelLine
	// underTest are the names of the devices the run's data crossed, as
	// the kernel's lines name them (UnderTest).
	underTest map[string]bool

	suspects []result.Suspect
	samples  int

	mu sync.Mutex
	// load is the counters when the load began (LoadBegins), at loadAt:
	// what precedes it (latency's idle phase) is left out of the
	// counters' figures.
	load    *snapshot
	loadAt  time.Time
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	outcome *result.Health
}

// snapshot is what is read only at the start and the end: the counters
// whose difference over the run is the figure.
type snapshot struct {
	stat       map[int]cpuTicks
	statOK     bool
	irqs       map[string]irqLine
	irqsOK     bool
	softirqs   map[string]map[int]uint64
	softirqsOK bool
	own        uint64
	ownOK      bool
	cg         cgroupStat
	cgOK       bool
}

type zone struct {
	name, typ              string
	start, max, end, maxAt float64
	seen                   bool
}

type policy struct {
	name, dir, cpus, governor string
	maxKHz                    float64
	tisStart, tisLast         map[float64]uint64
	minSeen, maxSeen          float64
	// cur is scaling_cur_freq at the last reading, 0 when unread.
	cur          float64
	clockFlagged bool
}

// Start reads the start and samples every Interval until Stop or ctx ends.
func Start(ctx context.Context, cfg Config) *Sampler {
	s := newSampler(cfg)
	s.begin(time.Now())
	go s.loop(ctx)
	return s
}

func newSampler(cfg Config) *Sampler {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	return &Sampler{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{}),
		thrFirst: map[int]float64{}, thrAtStart: map[int]bool{}, wifiReads: map[string][]wifiReading{},
		statPrev: map[int]cpuTicks{}, statNow: map[int]cpuTicks{}, busy: map[int][]float64{}}
}

// loop samples every Interval. The ticks are a timerfd's (sockio.Alarm)
// where the kernel gives one: a runtime timer also wakes the runtime's
// monitor (sysmon), which then polls every 20 us until the process is
// idle again, several more thread switches a sample on a one-core board
// than the sample itself costs. A runtime ticker stands in where the
// timerfd is refused (a seccomp filter).
func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	var alarm <-chan struct{}
	var ticker <-chan time.Time
	if a, err := sockio.NewAlarm(); err == nil && a.Set(s.cfg.Interval, s.cfg.Interval) == nil {
		defer a.Close()
		alarm = a.C()
	} else {
		if a != nil {
			a.Close()
		}
		t := time.NewTicker(s.cfg.Interval)
		defer t.Stop()
		ticker = t.C
	}
	for {
		select {
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		case <-alarm:
		case <-ticker:
		}
		s.mu.Lock()
		s.sample(time.Now())
		s.mu.Unlock()
	}
}

// Stop reads the end and returns the run's health; later calls return
// the same.
func (s *Sampler) Stop() *result.Health {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.finish(time.Now())
	})
	return s.outcome
}

// begin discovers what can be read and takes the first sample at t.
func (s *Sampler) begin(t time.Time) {
	s.t0 = t
	s.throttle = throttle.Find(s.cfg.Sys, s.cfg.Mailbox, readValue)
	if f, err := kfile.Open(filepath.Join(s.cfg.Proc, "self/cgroup")); err == nil {
		s.cg, s.cgOK = findCgroup(f, s.cfg.Sys)
		f.Close()
	}
	zs, _ := filepath.Glob(filepath.Join(s.cfg.Sys, "class/thermal/thermal_zone*"))
	for _, z := range zs {
		if _, ok := readMilliC(filepath.Join(z, "temp")); ok {
			s.zones = append(s.zones, zone{name: filepath.Base(z), typ: readValue(filepath.Join(z, "type"))})
		}
	}
	ps, _ := filepath.Glob(filepath.Join(s.cfg.Sys, "devices/system/cpu/cpufreq/policy*"))
	for _, p := range ps {
		s.policies = append(s.policies, &policy{name: filepath.Base(p), dir: p, cpus: cpuList(readValue(filepath.Join(p, "related_cpus")))})
	}
	if s.cfg.Kmsg != "" {
		if k, err := openKmsg(s.cfg.Kmsg); err == nil {
			s.km = k
		}
	}
	if s.cfg.WiFi {
		s.wifi = openWiFi()
	}
	if s.cfg.MeasuredClock != nil {
		if _, ok := s.cfg.MeasuredClock(); ok {
			s.fw = s.cfg.MeasuredClock
		}
	}
	s.first = s.snap()
	s.sample(t)
}

// finish takes the last sample at t and builds the outcome.
func (s *Sampler) finish(t time.Time) {
	s.sample(t)
	s.tEnd = t
	s.last = s.snap()
	if s.km != nil {
		s.km.close()
	}
	if s.wifi != nil {
		s.wifi.close()
	}
	s.outcome = s.summary()
}

// at is t in seconds from the start, to the millisecond.
func (s *Sampler) at(t time.Time) float64 {
	return float64(t.Sub(s.t0).Milliseconds()) / 1000
}

// sample reads what changes within a run and must be caught when it
// happens: the throttling bits, temperatures, clocks, each CPU's busy
// share and the kernel log.
func (s *Sampler) sample(t time.Time) {
	s.samples++
	at := s.at(t)
	s.cpuBusy(at)
	if s.throttle != nil {
		if v, ok := s.throttle.Read(); ok {
			s.throttled(v, at, !s.thrOK)
		}
	}
	for i := range s.zones {
		z := &s.zones[i]
		c, ok := readMilliC(filepath.Join(s.cfg.Sys, "class/thermal", z.name, "temp"))
		if !ok {
			continue
		}
		if !z.seen {
			z.start, z.max, z.maxAt, z.seen = c, c, at, true
		}
		if c > z.max {
			z.max, z.maxAt = c, at
		}
		z.end = c
	}
	for _, p := range s.policies {
		s.clock(p, at)
	}
	if s.fw != nil {
		s.firmwareClock(at)
	}
	if s.wifi != nil {
		s.wifi.read(at, s.wifiReads)
	}
	if s.km != nil {
		for _, msg := range s.km.read() {
			s.newLines++
			// Whether a line makes the run suspect waits for the end,
			// when the run has named the devices it crossed.
			if pat, ok := Match(msg); ok {
				s.matched = append(s.matched, result.KernelLine{AtS: at, Pattern: pat.Name, Kind: pat.Kind, Line: msg})
			}
		}
	}
}

// throttled records a get_throttled reading: the first time each bit is
// seen, and a suspect reason for a bit that holds now (0-3), or a sticky
// one (16-19) that was not set when the run began: it happened between
// two samples.
func (s *Sampler) throttled(v uint32, at float64, first bool) {
	if first {
		s.thrStart, s.thrOK = v, true
	}
	s.thrEnd = v
	for b := range 32 {
		if v&(1<<b) == 0 {
			continue
		}
		if _, ok := s.thrFirst[b]; !ok {
			s.thrFirst[b] = at
			s.thrAtStart[b] = first
		}
		for _, tb := range throttle.Bits {
			if tb.N == b && (b < 16 || !s.thrAtStart[b]) {
				s.suspect(tb.Reason, at, "get_throttled "+hex(v)+" bit "+strconv.Itoa(b)+": "+tb.Meaning)
			}
		}
	}
}

// clock reads a policy's governor, requested clock and time_in_state; a
// performance governor that spent time below its maximum means something
// below the governor (thermal, the firmware) lowered the clock.
func (s *Sampler) clock(p *policy, at float64) {
	p.governor = readValue(filepath.Join(p.dir, "scaling_governor"))
	if v, err := strconv.ParseFloat(readValue(filepath.Join(p.dir, "scaling_max_freq")), 64); err == nil && v > 0 {
		p.maxKHz = v
	}
	cur, err := strconv.ParseFloat(readValue(filepath.Join(p.dir, "scaling_cur_freq")), 64)
	p.cur = 0
	if err == nil && cur > 0 {
		p.cur = cur
		if p.minSeen == 0 || cur < p.minSeen {
			p.minSeen = cur
		}
		p.maxSeen = max(p.maxSeen, cur)
	}
	tis := readTimeInState(filepath.Join(p.dir, "stats/time_in_state"))
	below := false
	if tis != nil && p.tisLast != nil {
		for f, n := range tis {
			if f < p.maxKHz && n > p.tisLast[f] {
				below = true
			}
		}
	} else if tis == nil && err == nil && cur > 0 && cur < p.maxKHz {
		below = true
	}
	if tis != nil {
		if p.tisStart == nil {
			p.tisStart = tis
		}
		p.tisLast = tis
	}
	if below && p.governor == "performance" && p.maxKHz > 0 && !p.clockFlagged {
		p.clockFlagged = true
		s.suspect("clock below maximum", at, p.name+" below its "+mhz(p.maxKHz)+" maximum under the performance governor")
	}
}

// suspect adds a reason once, at the first time it was seen.
func (s *Sampler) suspect(reason string, at float64, detail string) {
	for _, x := range s.suspects {
		if x.Reason == reason && (reason != "kernel error" || x.Detail == detail) {
			return
		}
	}
	s.suspects = append(s.suspects, result.Suspect{Reason: reason, AtS: at, Detail: detail})
}

// snap reads the counters compared between the start and the end.
func (s *Sampler) snap() snapshot {
	var n snapshot
	if f, err := kfile.Open(filepath.Join(s.cfg.Proc, "stat")); err == nil {
		n.stat, err = parseStat(f)
		n.statOK = err == nil && len(n.stat) > 0
		f.Close()
	}
	if f, err := kfile.Open(filepath.Join(s.cfg.Proc, "interrupts")); err == nil {
		n.irqs, err = parseInterrupts(f)
		n.irqsOK = err == nil
		f.Close()
	}
	if f, err := kfile.Open(filepath.Join(s.cfg.Proc, "softirqs")); err == nil {
		n.softirqs, err = parseSoftirqs(f)
		n.softirqsOK = err == nil && len(n.softirqs) > 0
		f.Close()
	}
	n.own, n.ownOK = parseSelfStat(readValue(filepath.Join(s.cfg.Proc, "self/stat")))
	if s.cgOK {
		n.cg, n.cgOK = s.cg.stat()
	}
	return n
}

func readMilliC(path string) (float64, bool) { return Celsius(readValue(path)) }

// Celsius reads a thermal zone's temp file, millidegrees Celsius.
func Celsius(milli string) (float64, bool) {
	v, err := strconv.ParseFloat(milli, 64)
	// A zone whose sensor is not ready reads an error or a value no
	// chip reaches; neither is a temperature.
	if err != nil || v < -60000 || v > 200000 {
		return 0, false
	}
	return v / 1000, true
}

// readTimeInState reads cpufreq's stats/time_in_state, "kHz time" a
// line, the time in 10 ms units; nil when absent.
func readTimeInState(path string) map[float64]uint64 {
	out := map[float64]uint64{}
	if eachLine(path, func(line string) {
		f := strings.Fields(line)
		if len(f) != 2 {
			return
		}
		k, err1 := strconv.ParseFloat(f[0], 64)
		n, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			out[k] = n
		}
	}) != nil || len(out) == 0 {
		return nil
	}
	return out
}

// cpuList prints related_cpus ("0 1 2 3") as a range where it is one.
func cpuList(s string) string {
	f := strings.Fields(s)
	if len(f) > 1 {
		a, err1 := strconv.Atoi(f[0])
		b, err2 := strconv.Atoi(f[len(f)-1])
		if err1 == nil && err2 == nil && b-a == len(f)-1 {
			return f[0] + "-" + f[len(f)-1]
		}
	}
	return strings.Join(f, ",")
}

func hex(v uint32) string { return "0x" + strconv.FormatUint(uint64(v), 16) }

func mhz(khz float64) string { return strconv.FormatFloat(khz/1000, 'f', -1, 64) + " MHz" }

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// LoadBegins marks when the run's load began, after a phase before it
// that moves no data (the idle round trips of latency under load): the
// per-CPU times, interrupts, softirqs and thruput's own CPU are then
// counted from here, so an idle second does not dilute a busy core.
// Clocks, temperatures, throttling and the kernel's lines still cover
// the whole run. Only the first call counts.
func (s *Sampler) LoadBegins() {
	if s != nil {
		s.loadBegins(time.Now())
	}
}

func (s *Sampler) loadBegins(at time.Time) {
	n := s.snap()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.load == nil {
		s.load, s.loadAt = &n, at
		// The busy series starts with a reading as the load begins (or
		// the one just before it).
		s.cpuBusy(s.at(at))
		s.loadIdx = max(0, len(s.busyAt)-1)
	}
}
