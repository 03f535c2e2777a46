package httpget

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/stable"
)

const mib = 1 << 20

func TestWindows(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name    string
		samples []sample
		window  time.Duration
		n       int
		peak    float64
	}{
		// 10 MiB/s steady, then a burst second at 12, then a 0.2 s tail
		// at 50 that is too short to count.
		{"burst and short tail", []sample{{s, 10 * mib}, {2 * s, 22 * mib}, {3 * s, 32 * mib}, {3*s + 200*time.Millisecond, 42 * mib}}, s, 4, 12},
		// A late tick: the window lasted 1.5 s, its rate is over 1.5 s.
		{"late tick", []sample{{1500 * time.Millisecond, 15 * mib}, {2500 * time.Millisecond, 26 * mib}}, s, 2, 11},
		// A tail of half a window counts.
		{"half-window tail", []sample{{s, 10 * mib}, {1500 * time.Millisecond, 16 * mib}}, s, 2, 12},
		// Shorter than half a window: the peak is the average.
		{"short transfer", []sample{{300 * time.Millisecond, 3 * mib}}, s, 1, 10},
		// Half-second windows see the burst the 1 s windows average out.
		{"500ms windows", []sample{{500 * time.Millisecond, 5 * mib}, {s, 12 * mib}, {1500 * time.Millisecond, 17 * mib}}, 500 * time.Millisecond, 3, 14},
		// A sample that did not advance the clock is dropped.
		{"repeated instant", []sample{{s, 10 * mib}, {s, 10 * mib}, {2 * s, 19 * mib}}, s, 2, 10},
		{"no body", []sample{{0, 0}}, s, 0, 0},
	} {
		ws, peak := windows(c.samples, c.window)
		if len(ws) != c.n || math.Abs(peak-c.peak) > 1e-9 {
			t.Errorf("%s: %d windows, peak %.3f MiB/s; want %d, %.3f", c.name, len(ws), peak, c.n, c.peak)
		}
		var bytes int64
		for i, w := range ws {
			bytes += w.Bytes
			if i > 0 && w.StartNs != ws[i-1].EndNs {
				t.Errorf("%s: window %d starts at %d, the one before ended at %d", c.name, i, w.StartNs, ws[i-1].EndNs)
			}
		}
		if last := c.samples[len(c.samples)-1].bytes; bytes != last {
			t.Errorf("%s: windows hold %d bytes, the transfer %d", c.name, bytes, last)
		}
	}
}

// TestMeter runs the sampler against a counter fed at a known pace: the
// windows must tile the transfer and the peak must see the fast stretch.
// It and TestStall spend their time asleep, so they run beside each other
// (after the sequential tests: TestGetAllocations counts every allocation
// in the process).
func TestMeter(t *testing.T) {
	t.Parallel()
	var count atomicCounter
	origin := time.Now()
	m := startMeter(origin, 100*time.Millisecond, time.Minute, &count.Int64, func(int64, time.Duration) {}, func() { t.Error("stalled") }, stable.Options{}.Meter(), func() {})
	for i := range 60 {
		step := int64(10 << 10)
		if i >= 20 && i < 40 {
			// Four times the rate for 200 ms: two windows, so that one
			// whole window is fast however late the sleeps wake.
			step = 40 << 10
		}
		count.Add(step)
		time.Sleep(10 * time.Millisecond)
	}
	samples := m.stop(time.Now())
	ws, peak := windows(samples, 100*time.Millisecond)
	if len(ws) < 3 {
		t.Fatalf("%d windows over 0.6 s of 100 ms", len(ws))
	}
	total := count.Load()
	avg := float64(total) / mib / time.Since(origin).Seconds()
	if peak < 1.5*avg {
		t.Errorf("peak %.2f MiB/s, average %.2f: the fast stretch was averaged away", peak, avg)
	}
	if ws[len(ws)-1].EndNs != int64(samples[len(samples)-1].at) {
		t.Errorf("last window ends at %d, the transfer at %d", ws[len(ws)-1].EndNs, samples[len(samples)-1].at)
	}
}

// TestStall: a body that stops is cut after the timeout.
func TestStall(t *testing.T) {
	t.Parallel()
	var count atomicCounter
	stalled := make(chan struct{})
	m := startMeter(time.Now(), time.Second, 200*time.Millisecond, &count.Int64, func(int64, time.Duration) {}, func() {
		select {
		case <-stalled:
		default:
			close(stalled)
		}
	}, stable.Options{}.Meter(), func() {})
	defer m.stop(time.Now())
	select {
	case <-stalled:
	case <-time.After(2 * time.Second):
		t.Fatal("no stall reported after 2 s without data")
	}
}

type atomicCounter struct{ atomic.Int64 }
