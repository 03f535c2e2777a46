package compare

import (
	"math"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// noise says whether the difference between two cells' samples may be
// chance, from what the repeats show of how much a figure wanders:
//
//   - repeats on both sides (n ≥ 2 each): Welch's t-test, two-sided at
//     95 %, which does not assume the two sides wander alike (a busy WiFi
//     channel wanders more than a quiet one). Few repeats make it cautious
//     on purpose: with 2 against 2 only a large gap counts.
//   - repeats on one side only: the single run is noise when it lies
//     within the repeated side's range, min to max. There is no spread
//     to test the single run with, so this asks only whether it could be
//     one more of the repeats.
//   - no repeats: never noise. Nothing shows how much the figure wanders,
//     and calling every difference real or every difference noise would
//     both be made up; the report says there were no repeats instead.
func noise(a, b []float64) bool {
	switch {
	case len(a) >= 2 && len(b) >= 2:
		return !welchDiffers(stats.Summarize(a), stats.Summarize(b))
	case len(a) >= 2 && len(b) == 1:
		return within(b[0], a)
	case len(b) >= 2 && len(a) == 1:
		return within(a[0], b)
	}
	return false
}

func within(x float64, xs []float64) bool {
	s := stats.Summarize(xs)
	return s.Min <= x && x <= s.Max
}

// welchDiffers is Welch's t-test at 95 %, two-sided.
func welchDiffers(a, b result.Spread) bool {
	va, vb := a.Stddev*a.Stddev/float64(a.N), b.Stddev*b.Stddev/float64(b.N)
	se2 := va + vb
	if se2 == 0 {
		// Both sides repeated the same figure exactly: any gap is real.
		return a.Mean != b.Mean
	}
	t := math.Abs(a.Mean-b.Mean) / math.Sqrt(se2)
	// Welch–Satterthwaite degrees of freedom; a side without variance
	// adds nothing to the denominator.
	df := se2 * se2 / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	return t > tCritical(df)
}

// t95 is Student's t at 0.975 for 1 to 30 degrees of freedom.
var t95 = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// tCritical rounds fractional degrees of freedom down, which errs towards
// calling a difference noise; beyond the table the normal 1.96 is close
// enough for the repeats anyone makes.
func tCritical(df float64) float64 {
	k := int(math.Floor(df))
	switch {
	case k < 1:
		return t95[0]
	case k <= len(t95):
		return t95[k-1]
	}
	return 1.96
}
