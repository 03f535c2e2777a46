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

// parameters are a document's parameters as JSON values: what decodes
// alike compares alike.
func parameters(d *result.Document) any {
	var p any
	if s := d.Section(); s != nil {
		p = s.Params()
	}
	b, _ := json.Marshal(p)
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// Against sets now against prev over their headline rates (see
// result.Figure.Headline): the
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
		if !r.headline || len(r.Cells) != 2 {
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
