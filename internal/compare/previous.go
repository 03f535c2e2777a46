package compare

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Verdicts of Against.
const (
	WithinNoise = "within noise"
	Faster      = "faster beyond noise"
	Slower      = "slower beyond noise"
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

// Against sets now against prev: the geometric mean ratio of the rates
// both measured (higher is better, per second), and whether any of them
// differs beyond the two runs' 95 % intervals.
func Against(now, prev *result.Document) *result.Previous {
	c, err := New([]Group{{Name: "previous", Docs: []*result.Document{prev}}, {Name: "now", Docs: []*result.Document{now}}}, 0)
	if err != nil {
		return nil
	}
	var logSum float64
	n, judged, beyond := 0, 0, false
	for _, r := range c.Rows {
		if !r.HigherIsBetter || !strings.HasSuffix(r.Metric, "/s") || len(r.Cells) != 2 {
			continue
		}
		b, x := r.Cells[0], r.Cells[1]
		if x.Ratio == nil || *x.Ratio <= 0 {
			continue
		}
		logSum += math.Log(*x.Ratio)
		n++
		if b.HalfWidth > 0 && x.HalfWidth > 0 {
			judged++
			beyond = beyond || !x.Noise
		}
	}
	if n == 0 {
		return nil
	}
	p := &result.Previous{ID: prev.ID, StartedAt: prev.StartedAt, Ratio: math.Exp(logSum / float64(n)), Figures: n}
	switch {
	case judged == 0:
		p.Verdict = NoInterval
	case !beyond:
		p.Verdict = WithinNoise
	case p.Ratio < 1:
		p.Verdict = Slower
	default:
		p.Verdict = Faster
	}
	return p
}
