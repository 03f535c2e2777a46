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
			s, err := iperf3.Listen(iperf3.ServerConfig{Addr: "127.0.0.1:0", Once: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- s.Serve(ctx) }()
			pr := latency.New(latency.Config{Idle: time.Second})
			n := &result.Net{}
			cfg := iperf3.ClientConfig{Host: "127.0.0.1", Port: tcpPort(s), NetParameters: c.p, Version: "thruput test", Latency: pr}
			cfg.Streams, cfg.DurationNs = 1, int64(time.Second)
			err = iperf3.Run(ctx, cfg, n, progress.Hooks{})
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
