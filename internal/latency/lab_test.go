package latency_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/latency"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// The lab tests run thruput's server and client as this test binary
// started again inside a namespace (LATENCY_LAB=server or client): every
// socket of theirs, the probes' too, is then in that namespace, which
// goroutines of a process that only switched one thread would not be.
func TestMain(m *testing.M) {
	switch os.Getenv("LATENCY_LAB") {
	case "server":
		os.Exit(labServer())
	case "client":
		os.Exit(labClient())
	}
	nettest.Main(m)
}

const labPort = 5201

func labServer() int {
	s, err := iperf3.Listen(iperf3.ServerConfig{Addr: os.Getenv("LATENCY_LAB_ADDR")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	if err := s.Serve(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// labArgs is one client test of the lab.
type labArgs struct {
	Server     string
	Port       int
	Seconds    int
	Omit       int
	Reverse    bool
	Congestion string
	// Bitrate paces each stream (-b; 0 unpaced).
	Bitrate int64
	Probes  bool
	Idle    time.Duration
}

// labOut is what the client saw: when its probe stream started (the
// phases' times count from there), the receiver's rate and the section.
type labOut struct {
	Base    time.Time
	Mbps    float64
	Latency *result.LoadLatency
	Err     string
}

func labClient() int {
	var a labArgs
	if err := json.Unmarshal([]byte(os.Getenv("LATENCY_LAB_ARGS")), &a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg := iperf3.ClientConfig{Host: a.Server, Port: a.Port, Version: "thruput lab",
		NetParameters: result.NetParameters{Streams: 1, DurationNs: int64(a.Seconds) * int64(time.Second),
			OmitNs: int64(a.Omit) * int64(time.Second), Congestion: a.Congestion, BitrateBps: a.Bitrate}}
	if a.Reverse {
		cfg.Direction = result.DirDown
	}
	var out labOut
	out.Base = time.Now()
	if a.Probes {
		cfg.Latency = latency.New(latency.Config{Idle: a.Idle})
	}
	n := &result.Net{}
	err := iperf3.Run(context.Background(), cfg, n, progress.Hooks{})
	if cfg.Latency != nil {
		out.Latency = cfg.Latency.Result()
	}
	if err != nil {
		out.Err = err.Error()
	}
	for _, s := range n.Sums {
		out.Mbps += s.Receiver.BitsPerSecond / 1e6
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// lab is a router's namespaces with a thruput server (and irtt's) in the
// server's.
type lab struct {
	*nettest.Router
	t *testing.T
}

func newLab(t *testing.T, q nettest.Queue) *lab {
	r := nettest.NewRouter(t, q)
	for _, tool := range []string{"irtt", "ping", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s, which the latency lab checks against: %v (scripts/setup installs it)", tool, err)
		}
	}
	l := &lab{Router: r, t: t}
	l.start(r.Server, []string{"LATENCY_LAB=server", "LATENCY_LAB_ADDR=" + r.ServerAddr + ":" + strconv.Itoa(labPort)}, "ready")
	l.start(r.Server, nil, "[ListenerStart]", "irtt", "server", "-b", r.ServerAddr+":2112")
	return l
}

// start runs name (this binary when empty) in ns with env until the test
// ends, after a line of its output began with ready.
func (l *lab) start(ns string, env []string, ready string, name ...string) {
	self, err := os.Executable()
	if err != nil {
		l.t.Fatal(err)
	}
	if len(name) == 0 {
		name = []string{self}
	}
	cmd := l.Command(context.Background(), ns, name[0], name[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rd := bufio.NewReader(stdout)
	for {
		line, err := rd.ReadString('\n')
		if strings.HasPrefix(line, ready) {
			break
		}
		if err != nil {
			l.t.Fatalf("%s never said %q: %v", name[0], ready, err)
		}
	}
	// What it says later goes nowhere, without blocking it.
	go func() { _, _ = io.Copy(io.Discard, rd) }()
}

// measured is one test with ping and irtt probing the same queue from
// the client's namespace at the same time, each a sample per 10 ms.
type measured struct {
	labOut
	ping, irtt []stamped
}

type stamped struct {
	at  time.Time
	rtt float64 // ms
}

func (l *lab) run(a labArgs) measured {
	l.t.Helper()
	if a.Port == 0 {
		a.Server, a.Port = l.ServerAddr, labPort
	}
	if a.Idle == 0 {
		a.Idle = time.Second
	}
	span := a.Idle + time.Duration(a.Seconds+a.Omit+2)*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), span+30*time.Second)
	defer cancel()
	dir := l.t.TempDir()
	ping := l.Command(ctx, l.Client, "ping", "-D", "-n", "-i", "0.01", "-w", strconv.Itoa(int(span.Seconds())), l.ServerAddr)
	var pingOut strings.Builder
	ping.Stdout = &pingOut
	irttFile := filepath.Join(dir, "irtt.json")
	irtt := l.Command(ctx, l.Client, "irtt", "client", "-i", "10ms", "-d", span.String(), "-Q", "-o", irttFile, l.ServerAddr+":2112")
	var irttOut strings.Builder
	irtt.Stdout, irtt.Stderr = &irttOut, &irttOut
	for _, c := range []*exec.Cmd{ping, irtt} {
		if err := c.Start(); err != nil {
			l.t.Fatal(err)
		}
	}
	m := measured{labOut: l.client(a)}
	_ = ping.Wait() // -w ends it with status 1 when a reply was missed
	if err := irtt.Wait(); err != nil {
		l.t.Fatalf("irtt client: %v\n%s", err, irttOut.String())
	}
	m.ping = parsePing(l.t, pingOut.String())
	m.irtt = parseIrtt(l.t, irttFile)
	return m
}

// client runs the lab's client in its namespace with a.
func (l *lab) client(a labArgs) labOut {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), a.Idle+time.Duration(a.Seconds+a.Omit)*time.Second+30*time.Second)
	defer cancel()
	args, _ := json.Marshal(a)
	self, _ := os.Executable()
	client := l.Command(ctx, l.Client, self)
	client.Env = append(os.Environ(), "LATENCY_LAB=client", "LATENCY_LAB_ARGS="+string(args))
	client.Stderr = os.Stderr
	b, err := client.Output()
	if err != nil {
		l.t.Fatalf("lab client: %v", err)
	}
	var out labOut
	if err := json.Unmarshal(b, &out); err != nil {
		l.t.Fatalf("lab client said %q: %v", b, err)
	}
	return out
}

var pingLine = regexp.MustCompile(`^\[(\d+\.\d+)\] .* time=([0-9.]+) ms`)

func parsePing(t *testing.T, out string) []stamped {
	var s []stamped
	for _, line := range strings.Split(out, "\n") {
		m := pingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		ms, _ := strconv.ParseFloat(m[2], 64)
		// -D stamps the reply; the probe left an RTT earlier.
		s = append(s, stamped{time.Unix(0, int64(at*1e9)).Add(-time.Duration(ms * 1e6)), ms})
	}
	if len(s) == 0 {
		t.Fatalf("ping printed no replies:\n%s", out)
	}
	return s
}

func parseIrtt(t *testing.T, file string) []stamped {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		RoundTrips []struct {
			Lost       string `json:"lost"`
			Timestamps struct {
				Client struct {
					Send struct {
						Wall int64 `json:"wall"`
					} `json:"send"`
				} `json:"client"`
			} `json:"timestamps"`
			Delay struct {
				RTT int64 `json:"rtt"`
			} `json:"delay"`
		} `json:"round_trips"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var s []stamped
	for _, rt := range doc.RoundTrips {
		if rt.Lost == "false" {
			s = append(s, stamped{time.Unix(0, rt.Timestamps.Client.Send.Wall), float64(rt.Delay.RTT) / 1e6})
		}
	}
	if len(s) == 0 {
		t.Fatal("irtt: no round trip came back")
	}
	return s
}

// estimate is a median round trip with its 95 % confidence interval,
// milliseconds.
type estimate struct {
	name        string
	med, lo, hi float64
}

func (e estimate) String() string {
	return fmt.Sprintf("%s %.3f [%.3f, %.3f] ms", e.name, e.med, e.lo, e.hi)
}

// median is a reference tool's median of the samples sent within the
// phase, a load's edges trimmed by 100 ms (probes sent at the edge meet
// a queue filling or draining), with the distribution-free 95 % interval
// of a median: the order statistics n/2 ∓ 1.96·√n/2.
func median(t *testing.T, s []stamped, base time.Time, p *result.LatencyPhase, tool string) estimate {
	t.Helper()
	trim := 100 * time.Millisecond
	if p.Phase == "idle" {
		trim = 0
	}
	from, to := base.Add(time.Duration(p.StartNs)+trim), base.Add(time.Duration(p.EndNs)-trim)
	var xs []float64
	for _, x := range s {
		if x.at.After(from) && x.at.Before(to) {
			xs = append(xs, x.rtt)
		}
	}
	if len(xs) < 20 {
		t.Fatalf("%s: %d samples within the %s phase", tool, len(xs), p.Phase)
	}
	slices.Sort(xs)
	n := len(xs)
	k := 1.96 * math.Sqrt(float64(n)) / 2
	return estimate{name: tool, med: xs[n/2],
		lo: xs[max(0, int(math.Floor(float64(n)/2-k)))], hi: xs[min(n-1, int(math.Ceil(float64(n)/2+k)))]}
}

// agree checks thruput's median round trip in a phase against ping's and
// irtt's through the same queue at the same time (compare).
func agree(t *testing.T, m measured, p *result.LatencyPhase) {
	t.Helper()
	if problem := compare(t, m, p); problem != "" {
		t.Error(problem)
	}
}

// compare judges thruput's median round trip in a phase by what the two
// references, ping (the kernel answers) and irtt (a server in user space),
// measured through the same queue at the same time: no fixed number of
// milliseconds, which a pair of references can miss themselves (ping and
// irtt were once 1.5 ms apart through one queue). The band is from the
// lowest of their 95 % intervals to the highest, widened on both sides by
// how far apart their medians are: a third method may sit as far from the
// pair as the pair sits from each other. thruput's own 95 % interval must
// reach into the band. It returns the problem, "" when there is none.
func compare(t *testing.T, m measured, p *result.LatencyPhase) string {
	t.Helper()
	refs := []estimate{median(t, m.ping, m.Base, p, "ping"), median(t, m.irtt, m.Base, p, "irtt")}
	got := estimate{name: "thruput", med: float64(p.RTT.P50Ns) / 1e6, lo: float64(p.RTT.P50LowNs) / 1e6, hi: float64(p.RTT.P50HighNs) / 1e6}
	spread := math.Abs(refs[0].med - refs[1].med)
	lo := math.Min(refs[0].lo, refs[1].lo) - spread
	hi := math.Max(refs[0].hi, refs[1].hi) + spread
	t.Logf("%s phase: %v; %v; %v: band [%.3f, %.3f] ms", p.Phase, got, refs[0], refs[1], lo, hi)
	if got.hi < lo || got.lo > hi {
		return fmt.Sprintf("%s phase: %v, outside what the references measured at the same time, [%.3f, %.3f] ms (%v; %v)", p.Phase, got, lo, hi, refs[0], refs[1])
	}
	return ""
}

func loaded(t *testing.T, m measured) *result.LatencyPhase {
	t.Helper()
	if m.Err != "" {
		t.Fatalf("test failed: %s", m.Err)
	}
	if m.Latency == nil || len(m.Latency.Loaded) != 1 || m.Latency.Loaded[0].RTT == nil {
		t.Fatalf("no loaded latency: %+v", m.Latency)
	}
	return &m.Latency.Loaded[0]
}

// deepQueue is tbf at 100 Mbit/s with latency 100ms: a queue of
// rate×100 ms plus the bucket, 1.25 MB + 62.5 kB. A sender's first
// window, 1000 packets of 1448 bytes, overfills it at once.
var deepQueue = nettest.Queue{RateMbit: 100, Latency: "100ms", InitCwnd: 1000}

// queueDelay is what the deep queue holds, full, in time at its rate:
// 1,312,500 bytes at 12.5 MB/s.
const queueDelay = 105 * time.Millisecond

func TestLabDeepQueue(t *testing.T) {
	l := newLab(t, deepQueue)
	for _, dir := range []struct {
		name     string
		reverse  bool
		word     string
		one, two func(*result.LatencyPhase) *result.Added
	}{
		{"up", false, "upload", func(p *result.LatencyPhase) *result.Added { return p.AddedUp }, func(p *result.LatencyPhase) *result.Added { return p.AddedDown }},
		{"down", true, "download", func(p *result.LatencyPhase) *result.Added { return p.AddedDown }, func(p *result.LatencyPhase) *result.Added { return p.AddedUp }},
	} {
		t.Run(dir.name, func(t *testing.T) {
			// CUBIC fills the queue until it drops; BBR (this
			// machine's default) would keep it nearly empty.
			// Every try must agree with ping and irtt. The queue's
			// arithmetic below needs a run that filled it, which
			// the first window of 1000 packets does at the start
			// (deepQueue); should CUBIC still leave the queue under
			// 60 % full, up to two more tries are taken.
			var m measured
			var p *result.LatencyPhase
			for try := 1; ; try++ {
				m = l.run(labArgs{Seconds: 4, Omit: 1, Reverse: dir.reverse, Congestion: "cubic", Probes: true})
				p = loaded(t, m)
				agree(t, m, p)
				added := time.Duration(p.Added.Ns)
				if added >= queueDelay*6/10 || try == 3 {
					break
				}
				t.Logf("try %d: CUBIC kept %v of the %v queue; once more", try, added, queueDelay)
			}
			l.sameThroughput(t, "CUBIC "+dir.name, labArgs{Reverse: dir.reverse, Congestion: "cubic"})
			lat := m.Latency
			if lat.Probe != latency.KindUDPEcho || lat.Idle == nil || lat.IdleAfter {
				t.Fatalf("probes %q, idle %+v after %v: want UDP echoes and an idle phase before the load", lat.Probe, lat.Idle, lat.IdleAfter)
			}
			agree(t, m, lat.Idle)
			// The arithmetic: a full queue holds queueDelay. CUBIC
			// backs off to 0.7 of its window at each drop and the
			// window here is nearly all queue, so the queue swings
			// between about 70 % and 100 % full: the median added
			// delay lies within 0.6 and 1.05 of queueDelay (0.05 for
			// the timer slack of tbf and of the probes).
			added := time.Duration(p.Added.Ns)
			if added < queueDelay*6/10 || added > queueDelay*105/100 {
				t.Errorf("added %v: the full queue holds %v, want 0.6 to 1.05 of it", added, queueDelay)
			}
			// The queue is on the way the data goes: that direction's
			// one-way delay grew, the other's did not.
			if a, b := dir.one(p), dir.two(p); a == nil || b == nil || time.Duration(a.Ns) < queueDelay/2 || time.Duration(b.Ns) > 5*time.Millisecond {
				t.Errorf("one-way added delays %+v (%s) and %+v: want the %s one to carry the queue", a, dir.name, b, dir.name)
			}
			if want := "under load in the " + dir.word + " direction: a deep queue (bufferbloat)"; !strings.Contains(lat.Verdict, want) {
				t.Errorf("verdict %q, want it to say %q", lat.Verdict, want)
			}
			if p.Loss > 0.01 {
				t.Errorf("probe loss %.1f %% through a queue that drops only at its end", 100*p.Loss)
			}
		})
	}
	for _, dir := range []struct {
		name    string
		reverse bool
	}{{"up", false}, {"down", true}} {
		t.Run("bbr-"+dir.name, func(t *testing.T) {
			// BBR keeps the queue nearly empty: its small added delay
			// matches ping's and irtt's too, and the probes cost no
			// throughput.
			with := l.run(labArgs{Seconds: 3, Omit: 1, Reverse: dir.reverse, Probes: true})
			agree(t, with, loaded(t, with))
			l.sameThroughput(t, "BBR "+dir.name, labArgs{Reverse: dir.reverse})
		})
	}
	t.Run("iperf3", func(t *testing.T) {
		if _, err := exec.LookPath("iperf3"); err != nil {
			t.Fatalf("iperf3 (Debian's, scripts/setup installs it): %v", err)
		}
		port := labPort + 1
		var log strings.Builder
		// -d: iperf3 says each extra connection it refused only in
		// its debug lines.
		srv := l.Command(context.Background(), l.Server, "iperf3", "-s", "-1", "-d", "-B", l.ServerAddr, "-p", strconv.Itoa(port))
		srv.Stdout, srv.Stderr = &log, &log
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
		if !nettest.Sockets(fmt.Sprintf("/proc/%d/net", srv.Process.Pid), port, nettest.Listen, 1) {
			t.Fatalf("iperf3 -s does not listen on port %d after 10 s", port)
		}
		a := labArgs{Server: l.ServerAddr, Port: port, Seconds: 3, Omit: 1, Congestion: "cubic", Probes: true, Idle: time.Second}
		m := l.run(a)
		p := loaded(t, m)
		if m.Latency.Probe != latency.KindTCPConnect || !m.Latency.IdleAfter || m.Latency.Idle == nil {
			t.Fatalf("probes %q, idle after %v: want TCP handshakes and the idle phase after the load", m.Latency.Probe, m.Latency.IdleAfter)
		}
		// The handshakes cross the queue ping crosses, at the same time:
		// their median agrees with ping's and irtt's. How full CUBIC keeps
		// the queue here depends on iperf3 3.12's one thread, which also
		// answers every refused handshake (33 ms added seen on a loaded
		// machine, 90 on a quiet one), so the queue is only required to
		// show.
		agree(t, m, p)
		if added := time.Duration(p.Added.Ns); added < 10*time.Millisecond {
			t.Errorf("handshakes through the deep queue added only %v", added)
		}
		if err := srv.Wait(); err != nil {
			t.Errorf("iperf3 -s -1: %v\n%s", err, log.String())
		}
		checkRefused(t, log.String(), m.Latency, time.Duration(a.Omit)*time.Second)
	})
	t.Run("firewall", func(t *testing.T) {
		out, err := l.Command(context.Background(), l.Server, "iptables", "-A", "INPUT", "-p", "udp", "--dport", strconv.Itoa(labPort), "-j", "DROP").CombinedOutput()
		if err != nil {
			t.Fatalf("iptables: %v: %s", err, out)
		}
		m := l.run(labArgs{Seconds: 2, Probes: true})
		if m.Err != "" || m.Mbps < 50 {
			t.Fatalf("the test with its probes dropped: %s, %.1f Mbit/s", m.Err, m.Mbps)
		}
		if want := fmt.Sprintf("latency probes lost: the path drops UDP to port %d", labPort); m.Latency == nil || m.Latency.Lost != want {
			t.Fatalf("lost %+v, want %q", m.Latency, want)
		}
		// The load was probed with handshakes instead.
		if loaded(t, m); m.Latency.Probe != latency.KindTCPConnect {
			t.Errorf("probes %q after the echo was lost", m.Latency.Probe)
		}
	})
}

func TestLabShortQueue(t *testing.T) {
	// limit 30000 bytes: 2.4 ms at 100 Mbit/s, full.
	l := newLab(t, nettest.Queue{RateMbit: 100, Limit: 30000})
	for _, dir := range []struct {
		name    string
		reverse bool
	}{{"up", false}, {"down", true}} {
		t.Run(dir.name, func(t *testing.T) {
			m := l.run(labArgs{Seconds: 3, Omit: 1, Reverse: dir.reverse, Congestion: "cubic", Probes: true})
			p := loaded(t, m)
			t.Logf("%s: %.2f Mbit/s through the short queue", dir.name, m.Mbps)
			agree(t, m, p)
			if added := time.Duration(p.Added.Ns); added > 3*time.Millisecond {
				t.Errorf("a 30000-byte queue added %v", added)
			}
			if m.Latency.Verdict != "" {
				t.Errorf("verdict %q for a short queue", m.Latency.Verdict)
			}
		})
	}
	// A download paced below the link, the case of a Pi's 100 Mbit/s
	// port: the receiver reads as each block comes and the probes keep
	// their own times. Reading at the probes' times instead, to wake once
	// for both, held this flow to 37 Mbit/s against 90 without probes
	// (bench/README.md, "A receiver woken by the probes"): the probes must
	// not move the rate.
	//
	// The round trips here fall in two groups, the idle gap between two
	// blocks and the queue behind one, and the medians split between
	// them: ping 0.79 [0.39, 1.04] ms, irtt 0.28, thruput 0.04 with a p90
	// of 1.8 ms in one run. A median is no fair figure to hold thruput to
	// there, so the comparison is logged, not judged.
	t.Run("down paced", func(t *testing.T) {
		a := labArgs{Seconds: 3, Omit: 1, Reverse: true, Congestion: "cubic", Bitrate: 90e6, Probes: true}
		m := l.run(a)
		p := loaded(t, m)
		t.Logf("down paced at 90 Mbit/s: %.2f Mbit/s through the short queue; thruput's p90 %.3f ms, p99 %.3f ms", m.Mbps, float64(p.RTT.P90Ns)/1e6, float64(p.RTT.P99Ns)/1e6)
		if problem := compare(t, m, p); problem != "" {
			t.Logf("not judged: %s", problem)
		}
		l.sameThroughput(t, "paced down", a)
	})
}

// sameThroughput holds tests with probes to the same tests without, the
// client alone in its namespace (no ping or irtt beside it), two of each,
// in the order with, without, without, with, so that a drift in the
// machine's speed falls on both alike. The tolerance is the runs' own
// spread in this window: the runs with probes may fall below the runs
// without by the link the probes take themselves (probeMbit) and by the
// wider of the two kinds' ranges, no more. A cost that mattered would put
// the runs with probes below the runs without by more than either kind
// scatters. Runs with probes above the runs without are logged, not
// judged: the probes take from the link, so they cannot lift the rate,
// and CI once failed a two-sided bar on 0.14 Mbit/s of noise (paced down,
// medians 90.25 with probes against 90.11, each kind within 0.14); a
// gap of a tenth of the link's width within that (95.58 against 95.72
// Mbit/s, each kind within 0.07, seen through CUBIC's deep queue) is
// noise an exact bar once failed on. Where the two kinds do not meet,
// four more runs are taken in the same order and all eight are judged: a
// stall (a retransmission timeout after a burst of drops at the queue's
// end, or another process on this shared machine taking the CPU) lowers
// the one run it falls in, and a busy make check once lowered both runs
// with probes (91.4 and 85.6 Mbit/s against 93.4 and 93.6).
// probeMbit is the share of the shaped link the probes take from the
// data going the same way: a 64-byte payload (probe.go's probeSize) with
// UDP, IP and Ethernet headers, 106 bytes as tbf counts them, every
// interval, 0.085 Mbit/s at 10 ms.
var probeMbit = float64((64+8+20+14)*8) / latency.DefaultInterval.Seconds() / 1e6

func (l *lab) sameThroughput(t *testing.T, what string, a labArgs) {
	t.Helper()
	a.Server, a.Port, a.Seconds, a.Omit, a.Idle = l.ServerAddr, labPort, 2, 1, time.Second
	var with, without []float64
	for try := 1; try <= 2; try++ {
		for _, probes := range []bool{true, false, false, true} {
			a.Probes = probes
			out := l.client(a)
			if out.Err != "" {
				t.Fatalf("%s, probes %v: %s", what, probes, out.Err)
			}
			if probes {
				with = append(with, out.Mbps)
			} else {
				without = append(without, out.Mbps)
			}
		}
		t.Logf("%s: %.2f Mbit/s with probes, %.2f without", what, with, without)
		mw, mo := stats.Median(with), stats.Median(without)
		tol := max(slices.Max(with)-slices.Min(with), slices.Max(without)-slices.Min(without))
		if mw >= mo-probeMbit-tol {
			if mw > mo+tol {
				t.Logf("%s: the runs with probes came through faster than the runs without, by more than either kind scatters (not judged)", what)
			}
			return
		}
		if try == 1 {
			t.Logf("%s: the runs with probes fell below the runs without by more than they scatter; four more, all judged together", what)
		}
	}
	t.Errorf("%s: throughput %.2f Mbit/s with probes, %.2f without: the probes lowered the median by more than their own %.3f Mbit/s and either kind's spread", what, with, without, probeMbit)
}

// refused is iperf3 3.12's debug line for a connection it turned away
// while it held a test (iperf_accept, src/iperf_server_api.c): sent, or the
// probe had closed before it could be.
var refused = regexp.MustCompile(`(?m)^(?:successfully sent|failed to send) ACCESS_DENIED to an unsolicited connection request during active test$`)

// checkRefused holds a stock iperf3 server's debug log to what handshake
// probes should leave in it: the one test's control connection accepted,
// each probe refused as an extra connection (those of the loaded and the
// idle phases, and those of the omitted start, which no phase counts),
// and no error or warning.
func checkRefused(t *testing.T, log string, l *result.LoadLatency, omit time.Duration) {
	t.Helper()
	if n := strings.Count(log, "Accepted connection from"); n != 1 {
		t.Errorf("iperf3 accepted %d control connections, want the test's alone:\n%s", n, log)
	}
	for _, bad := range []string{"iperf3: error", "warning"} {
		if strings.Contains(log, bad) {
			t.Errorf("iperf3's log has %q:\n%s", bad, log)
		}
	}
	sent, answered := l.Idle.Sent, l.Idle.Received
	for _, p := range l.Loaded {
		sent, answered = sent+p.Sent, answered+p.Received
	}
	// The last handshakes may still wait in the listen queue when iperf3
	// ends; the omitted start's probes come on top.
	lo, hi := answered*9/10, sent+int(omit/latency.DefaultInterval)+10
	n := len(refused.FindAllString(log, -1))
	t.Logf("iperf3 refused %d extra connections; the phases answered %d of %d handshakes", n, answered, sent)
	if n < lo || n > hi {
		t.Errorf("iperf3 refused %d extra connections, want %d to %d (the phases answered %d handshakes of %d)", n, lo, hi, answered, sent)
	}
}
