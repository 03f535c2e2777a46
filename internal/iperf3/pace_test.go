package iperf3

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
	"github.com/thruput/thruput/internal/stable"
)

// TestStopWakesParkedSender: a paced sender parked until its next block
// sleeps the whole gap, and the stop ends that sleep at once rather than
// at the block; a stop raised before the sleep is never slept through.
func TestStopWakesParkedSender(t *testing.T) {
	if sockio.Held() {
		t.Fatal("a P is held before the test: the pacer would not park")
	}
	// The next block is due in about 11 days.
	const bitrate, total = 8, 1 << 20
	var stop stopper
	p := newPacer(bitrate, 1, &stop)
	defer p.close()
	done := make(chan time.Time, 1)
	go func() {
		p.wait(total)
		done <- time.Now()
	}()
	// The bound is one a stalled machine would miss, far from the gap.
	const bound = 10 * time.Second
	select {
	case <-done:
		t.Fatal("the pacer returned long before its block was due")
	case <-time.After(200 * time.Millisecond):
	}
	raised := time.Now()
	stop.raise()
	select {
	case at := <-done:
		t.Logf("ended %v after the stop", at.Sub(raised))
	case <-time.After(bound):
		t.Fatalf("the parked sender slept on %v after the stop", bound)
	}
	if !p.parked {
		t.Error("the pacer slept raw, not parked on its alarm")
	}

	// Raised first: the sleep does not start.
	a, err := sockio.NewAlarm()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	start := time.Now()
	if err := stop.sleep(a, time.Duration(math.MaxInt64/2)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > bound {
		t.Errorf("a sleep after the stop lasted %v", d)
	}
}

// TestSlowPaceWindows: a test paced slower than a block a window cuts its
// windows one gap between blocks long, halfway between two, so each holds
// one block and the interval's mean is the pace, both ways, over UDP read
// in batches (--skip-rx-copy), and against a stock iperf3 server, whose
// pacing the client's windows follow with -R; the interval is still a
// block over the windows' span wide. Before, 100 ms windows held a block
// or nothing, an interval of ±15 % at -b 1M around a rate the pacer held
// exactly.
func TestSlowPaceWindows(t *testing.T) {
	fstest.Long(t, "paced transfers of seconds")
	ts := startServer(t, ServerConfig{})
	peer := iperf3Peer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// 32 KiB at 1 Mbit/s: a block every 262 ms, 10 windows in 3 s; UDP's
	// 1400-byte datagrams at 100 kbit/s, one every 112 ms.
	tcp := result.NetParameters{DurationNs: 3 * second, BitrateBps: 1_000_000, BlockSize: 32 << 10, Streams: 1}
	udp := result.NetParameters{DurationNs: 3 * second, BitrateBps: 100_000, BlockSize: 1400, Streams: 1,
		Protocol: "udp", Direction: result.DirDown, SkipRxCopy: true}
	down := tcp
	down.Direction = result.DirDown
	for _, c := range []struct {
		name  string
		iperf bool
		p     result.NetParameters
	}{
		{"up", false, tcp},
		{"reverse", false, down},
		{"udp reverse skip-rx-copy", false, udp},
		{"up to iperf3", true, tcp},
		{"reverse from iperf3", true, down},
	} {
		t.Run(c.name, func(t *testing.T) {
			port := ts.port
			wait := func() {}
			if c.iperf {
				port, wait = serveIperf3(ctx, t, peer)
			} else {
				ts.idle(t)
			}
			block := c.p.BlockSize
			gap := pacedGap(block, c.p.BitrateBps)
			pace := float64(c.p.BitrateBps) / 8
			cfg := ClientConfig{Host: "127.0.0.1", Port: port, Version: "test", NetParameters: c.p}
			n, err := runTest(ctx, cfg)
			wait()
			if err != nil {
				t.Fatal(err)
			}
			if len(n.Sums) != 1 || n.Sums[0].Interval == nil {
				t.Fatalf("no interval: %+v", n.Sums)
			}
			iv := n.Sums[0].Interval
			if time.Duration(iv.WindowNs) != gap {
				t.Errorf("windows of %v, want the gap between blocks, %v", time.Duration(iv.WindowNs), gap)
			}
			if iv.Windows+iv.WarmupWindows < stable.MinWindows {
				t.Fatalf("%d windows in 3 s of %v gaps, fewer than an interval takes (%d)", iv.Windows+iv.WarmupWindows, gap, stable.MinWindows)
			}
			if span := float64(iv.Windows) * gap.Seconds(); iv.HalfWidth < float64(block)/span*(1-1e-9) {
				t.Errorf("±%.0f B/s, narrower than a block over the %d windows' %.2f s: %+v", iv.HalfWidth, iv.Windows, span, iv)
			}
			// The windows' mean is the pace when each holds its block: a
			// block late past a window's end moves to the next, so only the
			// outermost windows can gain or lose one, a block in all.
			if tol := pace / float64(iv.Windows); math.Abs(iv.Mean-pace) > tol {
				t.Errorf("windows' mean %.0f B/s, want the pace %.0f ± %.0f (a block over %d windows): %+v", iv.Mean, pace, tol, iv.Windows, iv)
			}
			t.Logf("%d windows, mean %.0f B/s ± %.2f %%", iv.Windows, iv.Mean, iv.Relative*100)
		})
	}
}
