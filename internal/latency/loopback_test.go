package latency_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/latency"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
)

// TestLoopbackEcho runs a thruput client with probes against a thruput
// server on loopback: TCP (the echo takes the test's port number), UDP
// (the streams hold it: another port) and --bidir.
func TestLoopbackEcho(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of traffic per case")
	}
	for _, c := range []struct {
		name string
		p    result.NetParameters
		dir  string
		same bool
	}{
		{"tcp", result.NetParameters{}, result.DirUp, true},
		{"udp", result.NetParameters{Protocol: "udp", BitrateBps: 10e6, Direction: result.DirDown}, result.DirDown, false},
		{"bidir", result.NetParameters{Direction: "bidir"}, "bidir", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ctx, done := serveOnce(t)
			pr := latency.New(latency.Config{Idle: time.Second})
			n := &result.Net{}
			cfg := iperf3.ClientConfig{Host: "127.0.0.1", Port: tcpPort(s), NetParameters: c.p, Version: "thruput test", Latency: pr}
			cfg.Streams, cfg.DurationNs = 1, int64(time.Second)
			err := iperf3.Run(ctx, cfg, n, progress.Hooks{})
			l := pr.Result()
			if err != nil || len(n.Sums) == 0 {
				t.Fatalf("test: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("server: %v", err)
			}
			if l.Probe != latency.KindUDPEcho || l.Idle == nil || l.Idle.Received < 10 || len(l.Loaded) != 1 || l.Loaded[0].Received < 10 {
				b, _ := json.Marshal(l)
				t.Fatalf("latency %s", b)
			}
			if lp := l.Loaded[0]; lp.Phase != c.dir || lp.Up == nil || lp.Down == nil || lp.RPM == nil || lp.Added == nil {
				t.Errorf("loaded phase %+v", lp)
			}
			// The load's bins are the test's own tenths of a second,
			// counted from the load's start, after the idle phase.
			if l.LoadStartNs < l.Idle.EndNs {
				t.Errorf("load started at %d ns, before the idle phase ended at %d", l.LoadStartNs, l.Idle.EndNs)
			}
			for _, b := range l.Series {
				if b.Phase != "idle" && (b.AtNs-l.LoadStartNs)%l.BinNs != 0 {
					t.Errorf("a loaded bin from %d ns, not a whole bin from the load's start at %d", b.AtNs, l.LoadStartNs)
				}
			}
			// Every answered probe is in its phase's histogram.
			for _, p := range append([]result.LatencyPhase{*l.Idle}, l.Loaded...) {
				total := 0
				for _, n := range p.RTTHistogram.Counts {
					total += n
				}
				if total != p.Received {
					t.Errorf("%s: %d round trips in the histogram, %d answered", p.Phase, total, p.Received)
				}
			}
			if (l.Port == tcpPort(s)) != c.same {
				t.Errorf("echo on port %d, test on %d", l.Port, tcpPort(s))
			}
		})
	}
}

func tcpPort(s *iperf3.Server) int { return s.Addr().(*net.TCPAddr).Port }

// serveOnce starts a thruput server on loopback for one test, bounded by
// the returned context (30 s); done gives Serve's error.
func serveOnce(t *testing.T) (*iperf3.Server, context.Context, <-chan error) {
	t.Helper()
	s, err := iperf3.Listen(iperf3.ServerConfig{Addr: "127.0.0.1:0", Once: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	return s, ctx, done
}

// TestBackToBackWithProbes runs thruput clients that probe latency one
// right after another against one persistent server: none is told busy.
// Such a test holds its slot until its client says IPERF_DONE, and the
// next client may reach the listener a moment before the server read
// that byte; the server waits for the ending test's slot instead of
// answering busy.
func TestBackToBackWithProbes(t *testing.T) {
	if testing.Short() {
		t.Skip("ten tests of a second")
	}
	s, err := iperf3.Listen(iperf3.ServerConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	for i := range 10 {
		pr := latency.New(latency.Config{Idle: 100 * time.Millisecond})
		n := &result.Net{}
		cfg := iperf3.ClientConfig{Host: "127.0.0.1", Port: tcpPort(s), Version: "thruput test", Latency: pr,
			NetParameters: result.NetParameters{Streams: 1, DurationNs: int64(time.Second)}}
		if i%2 == 1 {
			cfg.Direction = result.DirDown
		}
		if err := iperf3.Run(ctx, cfg, n, progress.Hooks{}); err != nil {
			t.Fatalf("test %d: %v", i+1, err)
		}
		if l := pr.Result(); l == nil || l.Probe != latency.KindUDPEcho {
			t.Fatalf("test %d: no UDP echo probes: %+v", i+1, l)
		}
	}
	cancel()
	<-done
}

// TestProbesRideThePacedDataPath: a stream paced at 94 Mbit/s (a block
// every 11 ms) wakes often enough that its sender sends the probes during
// the load, and the prober's timer only sends those of the idle phase; at
// 1 Mbit/s (a block a second), and with -R (the client's receivers do not
// poll: see iperf3's dataPath.probe), the timer sends them all.
func TestProbesRideThePacedDataPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of traffic per case")
	}
	for _, c := range []struct {
		name   string
		rate   int64
		dir    string
		polled bool
	}{
		{"up 94M", 94e6, result.DirUp, true},
		{"down 94M", 94e6, result.DirDown, false},
		{"up 1M", 1e6, result.DirUp, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ctx, done := serveOnce(t)
			pr := latency.New(latency.Config{Idle: 200 * time.Millisecond})
			cfg := iperf3.ClientConfig{Host: "127.0.0.1", Port: tcpPort(s), Version: "thruput test", Latency: pr,
				NetParameters: result.NetParameters{Streams: 1, DurationNs: int64(time.Second), BitrateBps: c.rate, Direction: c.dir}}
			err := iperf3.Run(ctx, cfg, &result.Net{}, progress.Hooks{})
			l := pr.Result()
			if err != nil {
				t.Fatalf("test: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("server: %v", err)
			}
			if l == nil || l.Probe != latency.KindUDPEcho || l.Idle == nil || len(l.Loaded) != 1 {
				t.Fatalf("latency %+v", l)
			}
			polled, timed := pr.Sent()
			idle, loaded := l.Idle.Sent, l.Loaded[0].Sent
			t.Logf("idle %d and loaded %d probes sent: %d from the data path, %d by the timer", idle, loaded, polled, timed)
			if loaded < 50 || l.Loaded[0].Received < loaded*9/10 {
				t.Errorf("%d probes sent in a second's load, %d answered", loaded, l.Loaded[0].Received)
			}
			// The timer sends the idle phase's probes and, while the
			// paced data path polls, at most a few of the load's: the
			// first, and any a poll held back by the busy machine let
			// through.
			if c.polled && (timed > idle+loaded/5 || polled < loaded*4/5) {
				t.Errorf("paced at %d bit/s: %d probes from the data path, %d by the timer, of %d in the load", c.rate, polled, timed, loaded)
			}
			// A block a second polls once a second.
			if !c.polled && polled > 3 {
				t.Errorf("paced at %d bit/s: %d probes from the data path, want the timer's alone", c.rate, polled)
			}
		})
	}
}
