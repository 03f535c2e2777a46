package compare

import (
	"encoding/json"
	"math"
	"reflect"

	"github.com/thruput/thruput/internal/result"
)

// Verdicts of Against.
const (
	WithinNoise = "within noise"
	Faster      = "faster beyond noise"
	Slower      = "slower beyond noise"
	Mixed       = "faster and slower beyond noise"
	// WhereJudged is within noise with some figures that had no interval
	// to judge them by.
	WhereJudged = "within noise where judged"
	NoInterval  = "no interval to judge by"
)

// Comparable says whether prev measured what now did: the same method,
// host and targets, and the same parameters, so that a ratio of the two
// means a change in the machine, not in the test.
func Comparable(now, prev *result.Document) bool {
	if now.Method != prev.Method || now.Host.Hostname != prev.Host.Hostname || len(now.Targets) != len(prev.Targets) {
		return false
	}
	for i := range now.Targets {
		if now.Targets[i].Path != prev.Targets[i].Path {
			return false
		}
	}
	return reflect.DeepEqual(parameters(now), parameters(prev))
}

// parameters are a document's method parameters as JSON values.
func parameters(d *result.Document) any {
	var p any
	switch {
	case d.Sweep != nil:
		p = d.Sweep.Parameters
	case d.Random != nil:
		p = d.Random.Parameters
	case d.IO != nil:
		p = d.IO.Parameters
	case d.Mark != nil:
		p = []any{d.Mark.Size, d.Mark.DurationNs, d.Mark.Direct}
	case d.Net != nil:
		p = d.Net.Parameters
	case d.HTTP != nil:
		p = d.HTTP.Parameters
	}
	b, _ := json.Marshal(p)
	var v any
	_ = json.Unmarshal(b, &v)
	// Who the client was (its port) and what the other end called
	// itself are not parameters of the test.
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"client", "peer_version", "interface"} {
			delete(m, k)
		}
	}
	return v
}

// Against sets now against prev over their headline rates: the
// geometric mean ratio of those both measured, and how many of them moved
// beyond their 95 % intervals (or their repeats' spread), each way. The
// verdict is "within noise" only when every figure could be judged and
// none moved; a figure without an interval on both sides enters the ratio
// but is counted as unjudged, never as noise.
func Against(now, prev *result.Document) *result.Previous {
	c, err := New([]Group{{Name: "previous", Docs: []*result.Document{prev}}, {Name: "now", Docs: []*result.Document{now}}}, 0)
	if err != nil {
		return nil
	}
	var logSum float64
	p := &result.Previous{ID: prev.ID, StartedAt: prev.StartedAt, Suspect: suspectSide(now, prev)}
	for _, r := range c.Rows {
		if !headline(r) || len(r.Cells) != 2 {
			continue
		}
		b, x := r.Cells[0], r.Cells[1]
		if x.Ratio == nil || *x.Ratio <= 0 {
			continue
		}
		logSum += math.Log(*x.Ratio)
		p.Figures++
		if !judgeable(b, x) {
			continue
		}
		p.Judged++
		switch {
		case x.Noise:
		case *x.Ratio > 1:
			p.Faster++
		case *x.Ratio < 1:
			p.Slower++
		}
	}
	if p.Figures == 0 {
		return nil
	}
	p.Ratio = math.Exp(logSum / float64(p.Figures))
	switch {
	case p.Faster > 0 && p.Slower > 0:
		p.Verdict = Mixed
	case p.Faster > 0:
		p.Verdict = Faster
	case p.Slower > 0:
		p.Verdict = Slower
	case p.Judged == 0:
		p.Verdict = NoInterval
	case p.Judged < p.Figures:
		p.Verdict = WhereJudged
	default:
		p.Verdict = WithinNoise
	}
	return p
}

// headline says whether a row is the rate a method's step measures, the
// one its interval is of. The rates derived from it (IOPS, a random
// mode's reads/s and MiB/s, the sender's end, each stream's share) would
// count the same change again; peaks and latencies are other questions.
func headline(r Row) bool {
	switch r.Section {
	case "random":
		return r.Metric == "requests/s"
	case "net up", "net down":
		return r.Step == "sum" && r.Metric == "receiver Mbit/s"
	}
	return r.Metric == "MiB/s"
}
