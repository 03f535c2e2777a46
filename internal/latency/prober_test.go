package latency

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestPollSendsFromTheDataPath: while something polls more often than the
// probe interval (a paced data path), the probes go out from Poll and the
// prober's own timer sends none; once the polls stop, the timer sends
// them, still about one an interval.
func TestPollSendsFromTheDataPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of probes")
	}
	lo := net.IPv4(127, 0, 0, 1)
	o := loopbackEcho(t)
	p := New(Config{Idle: 50 * time.Millisecond})
	p.Start(context.Background(), &net.TCPAddr{IP: lo, Port: 1}, &net.TCPAddr{IP: lo, Port: o.Port}, &o)
	defer p.Result()
	p.mu.Lock()
	stamped := p.queue != nil
	p.mu.Unlock()
	if !stamped {
		t.Skip("the kernel does not stamp this socket's datagrams: the probes are the timer's alone")
	}
	counts := func() (polled, timed int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.polled, p.timed
	}
	p.Loaded("up", 0)
	// A data path waking every 2 ms, as a paced sender's blocks do.
	// It takes over from the timer's schedule at the first probe it
	// sends.
	const span = 500 * time.Millisecond
	for polled, _ := counts(); polled == 0; polled, _ = counts() {
		p.Poll()
		time.Sleep(2 * time.Millisecond)
	}
	polled0, timed0 := counts()
	for end := time.Now().Add(span); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		p.Poll()
	}
	polled1, timed1 := counts()
	// At 10 ms, 50 probes, from the polls or, where the machine stretched
	// a poll's sleep past an interval, from the timer.
	t.Logf("polling: %d probes from the polls, %d from the timer", polled1-polled0, timed1-timed0)
	sent := polled1 - polled0 + timed1 - timed0
	if sent < 25 || sent > 55 {
		t.Errorf("%d probes sent in %v at %v, want about %d", sent, span, DefaultInterval, span/DefaultInterval)
	}
	// The polls send them: the timer only the few a held-back poll left,
	// a share (not a count) since a busy machine holds back more.
	if n := timed1 - timed0; n > max(2, sent/5) {
		t.Errorf("the prober's timer sent %d of %d probes while the data path polled", n, sent)
	}
	// No polls: the watchdog takes over.
	time.Sleep(span)
	polled2, timed2 := counts()
	if n := polled2 - polled1; n != 0 {
		t.Errorf("%d probes counted as polled without a poll", n)
	}
	if n := timed2 - timed1; n < 25 || n > 55 {
		t.Errorf("the prober's timer sent %d probes in %v without polls, want about %d", n, span, span/DefaultInterval)
	}
	l := p.Result()
	if l == nil || len(l.Loaded) != 1 || l.Loaded[0].Received < 50 {
		t.Fatalf("loaded phase: %+v", l)
	}
}

// TestPollWithoutProbes: Poll on a nil prober and on one not started sends
// nothing.
func TestPollWithoutProbes(t *testing.T) {
	var nilProber *Prober
	nilProber.Poll()
	p := New(Config{})
	p.Poll()
	if p.polled != 0 || len(p.samples) != 0 {
		t.Fatalf("an unstarted prober sent %d probes on Poll", len(p.samples))
	}
}

// TestIntervalFor: probes every 10 ms unless that is more than 1 % of a
// paced test's load, on the wire (130 bytes a probe), then longer, to 100
// ms at most.
func TestIntervalFor(t *testing.T) {
	for _, c := range []struct {
		load float64
		want time.Duration
	}{
		{0, 10 * time.Millisecond},      // not paced
		{94e6, 10 * time.Millisecond},   // -b 94M
		{10.4e6, 10 * time.Millisecond}, // 1 % at 10 ms exactly
		{10.2e6, 11 * time.Millisecond}, // 10.2 ms, rounded up
		{5.2e6, 20 * time.Millisecond},
		{5e6, 21 * time.Millisecond},
		{2e6, 52 * time.Millisecond},
		{1e6, 100 * time.Millisecond}, // a UDP test's default; 104 ms, bounded
		{1e3, 100 * time.Millisecond},
	} {
		got := IntervalFor(c.load)
		if got != c.want {
			t.Errorf("IntervalFor(%g) = %v, want %v", c.load, got, c.want)
		}
		if c.load > 0 && got < slowestInterval {
			if share := probeWireBits / got.Seconds() / c.load; share > maxLoadShare*(1+1e-9) {
				t.Errorf("IntervalFor(%g) = %v: the probes are %.2f %% of the load", c.load, got, 100*share)
			}
		}
	}
}
