package compare

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// iv is an interval of ±rel around mib MiB/s.
func iv(mib, rel float64) *result.Interval {
	m := mib * (1 << 20)
	return &result.Interval{Mean: m, HalfWidth: rel * m, Relative: rel, Windows: 30, WindowNs: 1e8, Converged: true}
}

// steps is a sweep of writes at 4k, 64k, 1M ... whose MiB/s are mib and
// intervals ±rel (none where rel is 0).
func steps(id string, mib []float64, rel []float64) *result.Document {
	d := &result.Document{ID: id, Method: "disk.sweep", Targets: []result.Target{{Path: "/mnt"}}, Sweep: &result.Sweep{}}
	for i, x := range mib {
		s := result.SweepStep{Phase: result.PhaseWrite, BlockSize: 4096 << (4 * i), MiBPerSec: x}
		if rel[i] > 0 {
			s.Interval = iv(x, rel[i])
		}
		d.Sweep.Steps = append(d.Sweep.Steps, s)
	}
	return d
}

func TestAgainst(t *testing.T) {
	ioWith := func(id string, mib float64) *result.Document {
		d := ioRun(id, mib*256)
		d.IO.Runs[0].Read.Interval = iv(mib, 0.02)
		return d
	}
	httpWith := func(id string, mib float64) *result.Document {
		return &result.Document{ID: id, Method: "net.http", HTTP: &result.HTTP{Runs: []result.HTTPRun{{MiBPerSec: mib, PeakMiBPerSec: 2 * mib, Interval: iv(mib, 0.02)}}}}
	}
	rndrd := func(id string, rps float64) *result.Document {
		return &result.Document{ID: id, Method: "disk.random", Random: &result.Random{
			Parameters: result.RandomParameters{Mode: "rndrd", BlockSize: 4096},
			Reads:      int64(rps), RequestsPerSec: rps, ReadsPerSec: rps, ReadMiBPerSec: rps / 256,
			Interval: iv(rps/256, 0.02)}}
	}
	for _, x := range []struct {
		name                            string
		prev, now                       *result.Document
		verdict                         string
		figures, judged, faster, slower int
	}{
		// The case the review saw: the judged step held still, the
		// ratio came from steps without intervals.
		{"unjudged carry the ratio", steps("a", []float64{100, 100, 100}, []float64{0.02, 0, 0}), steps("b", []float64{101, 150, 150}, []float64{0.02, 0, 0}),
			WhereJudged, 3, 1, 0, 0},
		{"all within", steps("a", []float64{100, 100}, []float64{0.02, 0.02}), steps("b", []float64{101, 99}, []float64{0.02, 0.02}),
			WithinNoise, 2, 2, 0, 0},
		// The overall ratio is up, but the one figure that moved beyond
		// its interval went down.
		{"slower against the ratio", steps("a", []float64{100, 100}, []float64{0.02, 0}), steps("b", []float64{80, 200}, []float64{0.02, 0}),
			Slower, 2, 1, 0, 1},
		{"both ways", steps("a", []float64{100, 100, 100}, []float64{0.02, 0.02, 0.02}), steps("b", []float64{130, 70, 100}, []float64{0.02, 0.02, 0.02}),
			Mixed, 3, 3, 1, 1},
		{"faster", steps("a", []float64{100, 100}, []float64{0.02, 0.02}), steps("b", []float64{130, 100}, []float64{0.02, 0.02}),
			Faster, 2, 2, 1, 0},
		{"no intervals", steps("a", []float64{100}, []float64{0}), steps("b", []float64{150}, []float64{0}),
			NoInterval, 1, 0, 0, 0},
		{"disk io", ioWith("a", 100), ioWith("b", 101), WithinNoise, 1, 1, 0, 0},
		{"disk io beyond", ioWith("a", 100), ioWith("b", 90), Slower, 1, 1, 0, 1},
		{"net http", httpWith("a", 10), httpWith("b", 10.1), WithinNoise, 1, 1, 0, 0},
		// reads/s and read MiB/s are requests/s again: one figure.
		{"random", rndrd("a", 1000), rndrd("b", 1300), Faster, 1, 1, 1, 0},
	} {
		p := Against(x.now, x.prev)
		if p == nil {
			t.Errorf("%s: nil", x.name)
			continue
		}
		if p.Verdict != x.verdict || p.Figures != x.figures || p.Judged != x.judged || p.Faster != x.faster || p.Slower != x.slower {
			t.Errorf("%s: %+v; want %q over %d, %d judged, %d faster, %d slower", x.name, *p, x.verdict, x.figures, x.judged, x.faster, x.slower)
		}
	}
}
