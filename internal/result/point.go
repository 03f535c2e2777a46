package result

import "time"

// SeriesKey says which series of runs a run belongs to, the one notion of
// a series the store's newest runs (/metrics), the alert rules and their
// notices share: the host, the method, what it measured (Target: the
// run's Subject, except for a network server, whose target is only the
// address it listened on and whose series are its clients, by Peer), and
// for a link the direction (up, down, bidir) and the interface the data
// crossed. A suite tests a server up, then down: two series, neither
// hiding the other.
type SeriesKey struct {
	Method    Method
	Host      string
	Target    string
	Direction string
	Interface string
}

// SeriesKey is the series d belongs to.
func (d *Document) SeriesKey() SeriesKey {
	k := SeriesKey{Method: d.Method, Host: d.Host.Hostname, Target: d.Subject(), Interface: d.Crossed()}
	if d.Net != nil {
		k.Direction = d.Net.Parameters.Direction
		if d.Method == MethodNetServer {
			k.Target = d.Net.Parameters.Peer()
		}
	}
	return k
}

// Point is a run as one point of its series: what judging its figures
// against the runs before needs (an alert rule), a few hundred bytes
// where the document takes kilobytes. The store keeps it beside every
// run, so that a check over thousands of runs decodes no document. ID,
// StartedAt, Series and Labels are the store's columns; the rest is the
// JSON it keeps.
type Point struct {
	ID        string            `json:"-"`
	StartedAt time.Time         `json:"-"`
	Series    SeriesKey         `json:"-"`
	Labels    map[string]string `json:"-"`
	// Figures are the section's figures a series is watched by: every
	// headline rate, and the operation rates and medians (IOPS,
	// requests/s, p50 µs), each repeat of them.
	Figures []PointFigure `json:"figures,omitempty"`
	// Loaded are the loaded phases' round trips of a latency under load
	// (the phases without one left out).
	Loaded []PointRTT `json:"loaded,omitempty"`
	// Suspect are the health's suspect reasons, without the facts behind
	// them.
	Suspect []Suspect `json:"suspect,omitempty"`
}

// PointFigure is a Figure as a Point keeps it.
type PointFigure struct {
	Group    string  `json:"group,omitempty"`
	Step     string  `json:"step,omitempty"`
	Metric   string  `json:"metric"`
	Headline string  `json:"headline,omitempty"`
	Value    float64 `json:"value"`
	// Interval is the half-width of the figure's Interval, bytes per
	// second, when the interval is Known (0 for a converged one); nil
	// when not.
	Interval *float64 `json:"interval,omitempty"`
	// HalfWidth is Figure.HalfWidth.
	HalfWidth float64 `json:"half_width,omitempty"`
}

// PointRTT is a loaded phase's median round trip and its 95 % interval,
// nanoseconds.
type PointRTT struct {
	Phase     string `json:"phase"`
	P50Ns     int64  `json:"p50_ns"`
	P50LowNs  int64  `json:"p50_low_ns"`
	P50HighNs int64  `json:"p50_high_ns"`
}

// Metrics of the figures a Point keeps besides the headline rates.
const (
	MetricIOPS     = "IOPS"
	MetricRequests = "requests/s"
	MetricP50      = "p50 µs"
)

// Point is d as a point of its series.
func (d *Document) Point() Point {
	p := Point{ID: d.ID, StartedAt: d.StartedAt, Series: d.SeriesKey(), Labels: d.Labels}
	if sec := d.Section(); sec != nil {
		for _, f := range sec.Figures() {
			if f.Headline == "" && f.Metric != MetricIOPS && f.Metric != MetricRequests && f.Metric != MetricP50 {
				continue
			}
			pf := PointFigure{Group: f.Group, Step: f.Step, Metric: f.Metric, Headline: f.Headline, Value: f.Value, HalfWidth: f.HalfWidth}
			if f.Interval.Known() {
				h := f.Interval.HalfWidth
				pf.Interval = &h
			}
			p.Figures = append(p.Figures, pf)
		}
	}
	if d.LoadLatency != nil {
		for _, ph := range d.LoadLatency.Loaded {
			if ph.RTT != nil {
				p.Loaded = append(p.Loaded, PointRTT{Phase: ph.Phase, P50Ns: ph.RTT.P50Ns, P50LowNs: ph.RTT.P50LowNs, P50HighNs: ph.RTT.P50HighNs})
			}
		}
	}
	if d.Health != nil {
		for _, s := range d.Health.Suspect {
			p.Suspect = append(p.Suspect, Suspect{Reason: s.Reason, AtS: s.AtS})
		}
	}
	return p
}

// SuspectReasons are the point's suspect reasons as Document's words them.
func (p *Point) SuspectReasons() string { return suspectReasons(p.Suspect) }
