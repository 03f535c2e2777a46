package result

import (
	"fmt"
	"math"

	"github.com/thruput/thruput/internal/units"
)

// LoadLatency is latency under load: a stream of small probes at a fixed
// interval through an idle phase and through a network test's load (see
// internal/latency). The name Latency is the HDR summary of per-request
// latencies; this is the section a network test carries beside Net.
type LoadLatency struct {
	// Probe is the kind of probe: "udp-echo" (a thruput server echoed UDP
	// probes, one-way delays known) or "tcp-connect" (TCP handshakes to
	// the server's port, a stock iperf3 server; round trips only).
	Probe string `json:"probe"`
	// Port is the server port the probes went to: the echo's UDP port,
	// or the test's TCP port.
	Port int `json:"port"`
	// IntervalNs is the time between probes (under the load, when
	// IdleIntervalNs is set: the idle phase's, where it differs); IdleNs
	// the longest idle phase asked for (it ends once its median is known).
	IntervalNs     int64 `json:"interval_ns"`
	IdleIntervalNs int64 `json:"idle_interval_ns,omitempty"`
	IdleNs         int64 `json:"idle_ns"`
	// IdleAfter is set when the idle phase came after the load (handshake
	// probes: a stock iperf3 server refuses them only while it holds the
	// test) instead of before it.
	IdleAfter bool `json:"idle_after,omitempty"`
	// ClockOffsetNs is the server's probe clock minus the client's, from
	// the idle probes with the shortest round trips (NTP's estimate,
	// which takes the idle path as symmetric); ClockOffsetErrorNs bounds
	// its error: half the shortest idle round trip. Only with udp-echo.
	ClockOffsetNs      *int64 `json:"clock_offset_ns,omitempty"`
	ClockOffsetErrorNs *int64 `json:"clock_offset_error_ns,omitempty"`
	// Idle is the idle phase; Loaded the load, one phase per direction
	// the test ran ("up", "down" or "bidir"), the omitted start (-O)
	// left out.
	Idle   *LatencyPhase  `json:"idle,omitempty"`
	Loaded []LatencyPhase `json:"loaded,omitempty"`
	// Lost says why probes got no answer when a whole kind of probe was
	// lost ("latency probes lost: the path drops UDP to port 5201").
	Lost string `json:"lost,omitempty"`
	// Verdict explains a large added latency in words.
	Verdict string `json:"verdict,omitempty"`
	// Series is the round trip over time, for charts: the probes of the
	// idle phase and the load in bins of BinNs.
	BinNs  int64          `json:"bin_ns,omitempty"`
	Series []LatencyPoint `json:"series,omitempty"`
	// LoadStartNs is when the load started on the probe stream's clock:
	// the test's time zero, from which its intervals count, so Series
	// can be drawn on the throughput's time axis. Absent in documents
	// from before it was kept.
	LoadStartNs int64 `json:"load_start_ns,omitempty"`
}

// LatencyPoint is one bin of probes: sent from AtNs (from the probe
// stream's start) for BinNs, in Phase; the median round trip of those
// answered (absent when none was), and how many were sent and lost.
type LatencyPoint struct {
	AtNs  int64  `json:"at_ns"`
	Phase string `json:"phase"`
	RTTNs *int64 `json:"rtt_ns,omitempty"`
	Sent  int    `json:"sent"`
	Lost  int    `json:"lost"`
}

// LatencyPhase is one phase's probes.
type LatencyPhase struct {
	// Phase is "idle", or the load's direction: "up", "down", "bidir".
	Phase string `json:"phase"`
	// StartNs and EndNs bound the phase, from the probe stream's start.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Sent probes, Received answers, Loss the share lost (0 to 1).
	Sent     int     `json:"sent"`
	Received int     `json:"received"`
	Loss     float64 `json:"loss"`
	// RTT is the round trip; Up and Down the one-way delays (udp-echo
	// only), client to server and back.
	RTT  *Delays `json:"rtt,omitempty"`
	Up   *Delays `json:"up,omitempty"`
	Down *Delays `json:"down,omitempty"`
	// Added is the loaded median minus the idle median, round trip and
	// each way; loaded phases only.
	Added     *Added `json:"added,omitempty"`
	AddedUp   *Added `json:"added_up,omitempty"`
	AddedDown *Added `json:"added_down,omitempty"`
	// RPM is round trips per minute at the phase's median round trip:
	// 60 s over it.
	RPM *RPM `json:"rpm,omitempty"`
	// RTTHistogram counts the round trips in log-spaced bins: the
	// whole distribution, which five quantiles do not draw.
	RTTHistogram *LatencyHistogram `json:"rtt_histogram,omitempty"`
}

// LatencyHistogram counts delays in log-spaced bins, PerDecade of them to
// a power of ten: Counts[i] holds those from Edge(i) up to Edge(i+1)
// nanoseconds. Only the span from the first to the last non-empty bin is
// kept, First naming where it starts.
type LatencyHistogram struct {
	PerDecade int   `json:"per_decade"`
	First     int   `json:"first"`
	Counts    []int `json:"counts"`
}

// Edge is the lower edge of Counts[i], nanoseconds: 10^((First+i)/PerDecade).
// The sum is taken in float64: First comes from a document, and on 32-bit
// ARM a damaged one's First near 2^31 would wrap around to a small edge.
func (h *LatencyHistogram) Edge(i int) float64 {
	return math.Pow(10, (float64(h.First)+float64(i))/float64(h.PerDecade))
}

// Delays are the quantiles of a phase's delays, nanoseconds. P50LowNs and
// P50HighNs are the 95 % interval of the median from order statistics
// (which take the probes as independent; probes 10 ms apart through one
// queue are not, so it is narrower than the truth).
type Delays struct {
	Samples   int   `json:"samples"`
	MinNs     int64 `json:"min_ns"`
	P50Ns     int64 `json:"p50_ns"`
	P90Ns     int64 `json:"p90_ns"`
	P99Ns     int64 `json:"p99_ns"`
	MaxNs     int64 `json:"max_ns"`
	P50LowNs  int64 `json:"p50_low_ns"`
	P50HighNs int64 `json:"p50_high_ns"`
}

// Added is the latency the load added, with its 95 % interval (the
// loaded median's interval less the idle median's), nanoseconds.
type Added struct {
	Ns     int64 `json:"ns"`
	LowNs  int64 `json:"low_ns"`
	HighNs int64 `json:"high_ns"`
}

// RPM is round trips per minute with its 95 % interval.
type RPM struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Measured is whether any probe was answered.
func (l *LoadLatency) Measured() bool {
	if l == nil {
		return false
	}
	if l.Idle != nil && l.Idle.Received > 0 {
		return true
	}
	for _, p := range l.Loaded {
		if p.Received > 0 {
			return true
		}
	}
	return false
}

// The gauges of latency under load, per phase (idle, then each loaded
// direction).
var (
	latencyRTT   = Gauge{Name: "thruput_net_latency_rtt_seconds", Help: "Round trip of the latency probes (UDP echo or TCP handshake) at a percentile, idle or under a network test's load in a direction, the latest run's."}
	latencyAdded = Gauge{Name: "thruput_net_latency_added_seconds", Help: "Latency a network test's load added in a direction: the loaded median round trip less the idle one, the latest run's."}
	latencyLoss  = Gauge{Name: "thruput_net_latency_probe_loss_ratio", Help: "Share of latency probes without an answer (0 to 1), idle or under load, the latest run's."}
	latencyRPM   = Gauge{Name: "thruput_net_latency_rpm", Help: "Round trips per minute under a network test's load in a direction: 60 s over the loaded median round trip, the latest run's."}
)

// Figures are the idle round trip, then for each loaded phase its round
// trip quantiles, the added latency, the loss and RPM, in milliseconds.
// The idle phase's other quantiles and its loss are series alone: a
// comparison judges the idle path by its median.
func (l *LoadLatency) Figures() []Figure {
	if l == nil {
		return nil
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	s := func(ns int64) float64 { return float64(ns) / 1e9 }
	var out []Figure
	// hw is the wider side of an interval [lo, hi] around v: compare
	// takes a figure's interval as symmetric, and the wider side keeps
	// two runs whose intervals overlap inside the noise.
	hw := func(v, lo, hi float64) float64 { return max(v-lo, hi-v, 0) }
	phase := func(p *LatencyPhase, rank float64, idle bool) {
		g, kv := "latency "+p.Phase, []string{"phase", p.Phase}
		add := func(step string, rank float64, metric string, higher bool, v, half float64, series *Series) {
			out = append(out, Figure{Group: g, Step: step, Rank: rank, Metric: metric, HigherIsBetter: higher, Value: v, HalfWidth: half,
				Series: series, SeriesOnly: idle && step != "rtt p50"})
		}
		// "quantile" is a summary's label; promtool refuses it on a gauge.
		rtt := func(pct string, ns int64) *Series { return latencyRTT.Sample(s(ns), append(kv, "percentile", pct)...) }
		if d := p.RTT; d != nil {
			add("rtt p50", rank, "ms", false, ms(d.P50Ns), hw(ms(d.P50Ns), ms(d.P50LowNs), ms(d.P50HighNs)), rtt("50", d.P50Ns))
			add("rtt p90", rank+1, "ms", false, ms(d.P90Ns), 0, rtt("90", d.P90Ns))
			add("rtt p99", rank+2, "ms", false, ms(d.P99Ns), 0, rtt("99", d.P99Ns))
		}
		if a := p.Added; a != nil {
			add("added", 4, "ms", false, ms(a.Ns), hw(ms(a.Ns), ms(a.LowNs), ms(a.HighNs)), latencyAdded.Sample(s(a.Ns), kv...))
		}
		if p.Sent > 0 {
			add("probe loss", 5, "%", false, 100*p.Loss, 0, latencyLoss.Sample(p.Loss, kv...))
		}
		if m := p.RPM; m != nil {
			add("RPM", 6, "RPM", true, m.Value, hw(m.Value, m.Low, m.High), latencyRPM.Sample(m.Value, kv...))
		}
	}
	if l.Idle != nil {
		phase(l.Idle, 0, true)
	}
	for i := range l.Loaded {
		phase(&l.Loaded[i], 1, false)
	}
	return out
}

// Slowest is the loaded phase with the longest median round trip (the
// direction whose queue filled most), nil when no loaded probe was
// answered.
func (l *LoadLatency) Slowest() *LatencyPhase {
	if l == nil {
		return nil
	}
	var out *LatencyPhase
	for i, p := range l.Loaded {
		if p.RTT != nil && (out == nil || p.RTT.P50Ns > out.RTT.P50Ns) {
			out = &l.Loaded[i]
		}
	}
	return out
}

// Brief is the slowest direction's loaded median round trip and what
// the load added to it.
func (l *LoadLatency) Brief([]Target) string {
	p := l.Slowest()
	if p == nil {
		return ""
	}
	s := "loaded RTT " + units.Millis(p.RTT.P50Ns) + " ms"
	if p.Added != nil {
		s += " (" + units.SignedMillis(p.Added.Ns) + " ms over idle)"
	}
	return s
}

// LatencyParameters are what must match for two runs' latencies to
// compare: the kind of probe and how often it went.
type LatencyParameters struct {
	Probe          string `json:"probe"`
	IntervalNs     int64  `json:"interval_ns"`
	IdleIntervalNs int64  `json:"idle_interval_ns,omitempty"`
}

// Params are the probe kind and interval.
func (l *LoadLatency) Params() any {
	if l == nil {
		return LatencyParameters{}
	}
	return LatencyParameters{Probe: l.Probe, IntervalNs: l.IntervalNs, IdleIntervalNs: l.IdleIntervalNs}
}

// String names the probe for a heading: "UDP echo to port 5201".
func (l *LoadLatency) String() string {
	switch l.Probe {
	case "udp-echo":
		return fmt.Sprintf("UDP echo to port %d", l.Port)
	case "tcp-connect":
		return fmt.Sprintf("TCP handshakes to port %d", l.Port)
	}
	return l.Probe
}

var _ Section = (*LoadLatency)(nil)
