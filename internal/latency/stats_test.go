package latency

import (
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

func TestMedianInterval(t *testing.T) {
	// The exact binomial tables give the 40th and 61st of 100 (1-based),
	// and for 10 the 2nd and 9th.
	for _, c := range []struct{ n, lo, hi int }{{100, 39, 60}, {10, 1, 8}, {1, 0, 0}, {2, 0, 1}} {
		if lo, hi := medianInterval(c.n); lo != c.lo || hi != c.hi {
			t.Errorf("medianInterval(%d) = %d, %d; want %d, %d", c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []int64{10, 20, 30, 40, 50}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0.5, 30}, {0.9, 46}, {0.99, 50}, {0, 10}, {1, 50}} {
		if got := quantile(xs, c.q); got != c.want {
			t.Errorf("quantile(%v) = %d, want %d", c.q, got, c.want)
		}
	}
}

// echoes makes answered echo probes with the given one-way delays (ms)
// and a server clock off by offset.
func echoes(ph int, up, down float64, n int, offset time.Duration) []sample {
	var ss []sample
	for i := range n {
		sent := int64(i) * int64(10*time.Millisecond)
		u, d := int64(up*1e6), int64(down*1e6)
		s := sample{phase: ph, kind: KindUDPEcho, answered: true, sent: sent}
		s.srvRecv = sent + u + int64(offset)
		s.srvSent = s.srvRecv + 1000
		s.recv = sent + u + 1000 + d
		s.rtt = time.Duration(u + d)
		ss = append(ss, s)
	}
	return ss
}

func TestSummaryOneWay(t *testing.T) {
	p := New(Config{})
	p.kind, p.tcpPort, p.udpPort, p.loadDir = KindUDPEcho, 5201, 5201, "down"
	p.samples = append(echoes(phaseIdle, 0.5, 0.5, 100, 7*time.Second), echoes(phaseLoad, 0.5, 96.5, 300, 7*time.Second)...)
	// One load probe lost.
	p.samples[150].answered = false
	l := p.summarise()
	if l.ClockOffsetNs == nil || *l.ClockOffsetNs != int64(7*time.Second) || *l.ClockOffsetErrorNs != int64(500*time.Microsecond) {
		t.Fatalf("clock offset %v ± %v, want 7 s ± 0.5 ms", l.ClockOffsetNs, l.ClockOffsetErrorNs)
	}
	lp := l.Loaded[0]
	if lp.Sent != 300 || lp.Received != 299 || lp.Up.P50Ns != 500000 || lp.Down.P50Ns != 96500000 {
		t.Fatalf("loaded %+v up %+v down %+v", lp, lp.Up, lp.Down)
	}
	if lp.Added.Ns != 96e6 || lp.AddedDown.Ns != 96e6 || lp.AddedUp.Ns != 0 {
		t.Errorf("added %+v, down %+v, up %+v: want 96 ms down only", lp.Added, lp.AddedDown, lp.AddedUp)
	}
	if lp.RPM.Value != 60/0.097 {
		t.Errorf("RPM %v, want 60 s / 97 ms", lp.RPM.Value)
	}
	// 100 ms bins: the idle phase's 100 probes in 10, the load's 300 in
	// 30 (its clock restarts at 0 in this made-up stream), the lost one
	// in the load's sixth.
	if l.BinNs != 1e8 || len(l.Series) != 40 || l.Series[0].Phase != "idle" || l.Series[10].Phase != "down" {
		t.Fatalf("series of %d bins of %d ns", len(l.Series), l.BinNs)
	}
	if pt := l.Series[15]; pt.Sent != 10 || pt.Lost != 1 || *pt.RTTNs != 97e6 {
		t.Errorf("bin %+v", pt)
	}
	// Every round trip is 1 ms idle (10^6 ns: bin 240 of 40 a decade)
	// and 97 ms loaded (log10(9.7e7)·40 = 319.47: bin 319).
	if h := l.Idle.RTTHistogram; h == nil || h.First != 240 || len(h.Counts) != 1 || h.Counts[0] != 100 {
		t.Errorf("idle histogram %+v", h)
	}
	if h := lp.RTTHistogram; h == nil || h.First != 319 || len(h.Counts) != 1 || h.Counts[0] != 299 {
		t.Errorf("loaded histogram %+v", h)
	}
	want := "the link added 96 ms under load in the download direction: a deep queue (bufferbloat) in front of the slowest hop"
	if l.Verdict != want {
		t.Errorf("verdict %q, want %q", l.Verdict, want)
	}
}

// TestHistogram: each round trip counts in the bin whose edges bound it,
// the span kept from the first non-empty bin to the last.
func TestHistogram(t *testing.T) {
	rtt := []int64{50e3, 50e3, 52e3, 1e8 - 1, 1e8}
	h := histogram(rtt)
	// log10(50e3)·40 = 187.96, log10(52e3)·40 = 188.64, just under
	// 10^8 is 319.99..., 10^8 is 320.
	if h.PerDecade != 40 || h.First != 187 || len(h.Counts) != 134 || h.Counts[0] != 2 || h.Counts[1] != 1 || h.Counts[132] != 1 || h.Counts[133] != 1 {
		t.Fatalf("histogram first %d, %d counts: %v", h.First, len(h.Counts), h.Counts)
	}
	total := 0
	for _, c := range h.Counts {
		total += c
	}
	if total != len(rtt) {
		t.Errorf("%d counted of %d", total, len(rtt))
	}
	for _, c := range []struct {
		ns  int64
		bin int
	}{{50e3, 0}, {52e3, 1}, {1e8, 133}} {
		if lo, hi := h.Edge(c.bin), h.Edge(c.bin+1); float64(c.ns) < lo*(1-1e-9) || float64(c.ns) >= hi {
			t.Errorf("%d ns in bin %d, from %v to %v", c.ns, c.bin, lo, hi)
		}
	}
	if histogram(nil) != nil {
		t.Error("a histogram of nothing")
	}
}

func TestSummaryAllLost(t *testing.T) {
	p := New(Config{})
	p.kind, p.tcpPort, p.udpPort, p.loadDir = KindUDPEcho, 5201, 40000, "up"
	p.samples = echoes(phaseIdle, 1, 1, 50, 0)
	for i := range p.samples {
		p.samples[i].answered = false
	}
	l := p.summarise()
	if want := "latency probes lost: the path drops UDP to port 40000"; l.Lost != want {
		t.Errorf("lost %q, want %q", l.Lost, want)
	}
	if l.Measured() || l.Idle.Loss != 1 || l.Idle.RTT != nil || l.Verdict != "" {
		t.Errorf("all lost: %+v", l.Idle)
	}
}

func TestVerdictSmall(t *testing.T) {
	l := &result.LoadLatency{Loaded: []result.LatencyPhase{{Phase: "up", Added: &result.Added{Ns: int64(LargeAdded) - 1}}}}
	if v := Verdict(l); v != "" {
		t.Errorf("verdict %q under %v added", v, LargeAdded)
	}
	l.Loaded[0].Added.Ns = int64(300 * time.Millisecond)
	l.Loaded[0].Phase = "bidir"
	if v := Verdict(l); !strings.HasPrefix(v, "the link added 300 ms under load with traffic both ways") {
		t.Errorf("bidir verdict %q", v)
	}
}
