package compare

import (
	"math"

	"github.com/thruput/thruput/internal/stats"
)

// Noise says whether the difference between two cells' samples may be
// chance (a comparison's cells, an alert rule's baseline against the runs
// it judges), from what the repeats show of how much a figure wanders:
//
//   - repeats on both sides (n ≥ 2 each): Welch's t-test, two-sided at
//     95 %, which does not assume the two sides wander alike (a busy WiFi
//     channel wanders more than a quiet one). Few repeats make it cautious
//     on purpose: with 2 against 2 only a large gap counts.
//   - repeats on one side only: the single run is noise when it lies
//     within the repeated side's range, min to max. There is no spread
//     to test the single run with, so this asks only whether it could be
//     one more of the repeats.
//   - single runs on both sides, each with its 95 % interval (how well
//     the run knew its own rate, from its windows): noise when the
//     intervals overlap.
//   - no repeats and no intervals: never noise. Nothing shows how much
//     the figure wanders, and calling every difference real or every
//     difference noise would both be made up; the report says there were
//     no repeats instead.
func Noise(ca, cb Cell) bool {
	a, b := ca.Samples, cb.Samples
	switch {
	case len(a) == 1 && len(b) == 1 && ca.HalfWidth > 0 && cb.HalfWidth > 0:
		return math.Abs(a[0]-b[0]) <= ca.HalfWidth+cb.HalfWidth
	case len(a) >= 2 && len(b) >= 2:
		return !welchDiffers(stats.Summarize(a), stats.Summarize(b))
	case len(a) >= 2 && len(b) == 1:
		return within(b[0], a)
	case len(b) >= 2 && len(a) == 1:
		return within(a[0], b)
	}
	return false
}

// judgeable says whether noise has anything to judge a ratio by: an
// interval on both sides or repeats on at least one. Without, Noise says
// false, which is "not shown to be noise", not "beyond noise".
func judgeable(a, b Cell) bool {
	switch {
	case len(a.Samples) == 1 && len(b.Samples) == 1:
		return a.HalfWidth > 0 && b.HalfWidth > 0
	case len(a.Samples) == 0 || len(b.Samples) == 0:
		return false
	}
	return true
}

func within(x float64, xs []float64) bool {
	s := stats.Summarize(xs)
	return s.Min <= x && x <= s.Max
}

// welchDiffers is Welch's t-test at 95 %, two-sided, with the
// Welch–Satterthwaite degrees of freedom as they come, fractional.
func welchDiffers(a, b stats.Spread) bool {
	return stats.WelchTest(a, b).Significant(0.05)
}
