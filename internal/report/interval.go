package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
)

// pm is " ±x" for a figure printed with one decimal, the interval's
// relative width applied to it; "" when the interval is unknown.
func pm(value float64, iv *result.Interval) string {
	h := iv.PlusMinus(value)
	if h <= 0 {
		return ""
	}
	prec := 1
	if h < 0.05 {
		prec = 2
	}
	return " ±" + strconv.FormatFloat(h, 'f', prec, 64)
}

// figureNote is what intervalNotes needs of one figure.
type figureNote struct {
	// what names the figure as its table does.
	what string
	iv   *result.Interval
	// rate prints a rate in bytes per second in the table's unit.
	rate func(float64) string
	// bps is the figure in bytes per second (both directions of a mixed
	// job): when it is the interval's mean the method cut the warm-up
	// (and with --sustained the start before a cliff) off the figure too,
	// not only off the interval.
	bps float64
	// elapsed is the step's measured span; 0 when its result does not
	// say.
	elapsed time.Duration
}

// isMean says whether the figure is the interval's mean.
func (f figureNote) isMean() bool {
	return f.iv != nil && f.iv.Mean > 0 && math.Abs(f.bps-f.iv.Mean) <= 1e-6*f.iv.Mean
}

// shortest is the span a step needs for an interval: MinWindows windows.
const shortest = stable.MinWindows * stable.DefaultWidth

// intervalNotes says in words what a figure's cell cannot: a cliff, with
// both rates and where it came; the start cut off as warm-up; a step that
// hit its bound before its interval was narrow enough; and a step too
// short to have an interval, whose cell has no ± to show it.
func intervalNotes(f figureNote) []note {
	iv := f.iv
	if iv == nil {
		if f.elapsed > 0 && f.elapsed < shortest {
			return []note{{Text: fmt.Sprintf("%s: too short for an interval (%s; it takes %s)", f.what, secs(f.elapsed), secs(shortest)),
				kind: fmt.Sprintf("too short for an interval, which takes %s", secs(shortest)), what: f.what + " " + secs(f.elapsed)}}
		}
		return nil
	}
	var out []note
	mean := f.isMean()
	if c := iv.Cliff; c != nil {
		s := fmt.Sprintf("%s: %s for the first %s, then %s", f.what, f.rate(c.Before), units.IEC(c.AtBytes), f.rate(c.After))
		switch {
		case iv.Sustained && mean:
			s += "; the figure is the rate after the drop (--sustained)"
		case iv.Sustained:
			s += "; the ± is of the rate after the drop (--sustained), the figure is the whole test's"
		default:
			s += "; --sustained measures only the rate after the drop"
		}
		out = append(out, note{Mark: "!", Text: s})
	}
	if iv.WarmupNs > 0 {
		cut := "as warm-up"
		if iv.Sustained {
			cut = "as warm-up and before the drop"
		}
		warm := secs(time.Duration(iv.WarmupNs))
		if mean {
			out = append(out, note{Mark: "", Text: fmt.Sprintf("%s: first %s discarded %s", f.what, warm, cut)})
		} else {
			out = append(out, note{Mark: "", Text: fmt.Sprintf("%s: the ± leaves out the first %s %s; the figure spans the whole phase", f.what, warm, cut)})
		}
	}
	span := f.elapsed
	if span <= 0 {
		span = time.Duration(int64(iv.Windows+iv.WarmupWindows) * iv.WindowNs)
	}
	switch {
	case iv.Target > 0 && !iv.Converged:
		width := "too few windows to tell"
		if iv.Known() {
			width = fmt.Sprintf("±%.1f%%", iv.Relative*100)
		}
		out = append(out, note{Mark: "!", Text: fmt.Sprintf("%s: not stable: %s after %s (wanted ±%g%%)", f.what, width, secs(span), iv.Target*100)})
	case !iv.Known():
		out = append(out, note{Text: fmt.Sprintf("%s: too short for an interval (%s, %d window(s) kept; it takes %d)", f.what, secs(span), iv.Windows, stable.MinWindows),
			kind: fmt.Sprintf("too short for an interval, which takes %d windows", stable.MinWindows), what: f.what + " " + secs(span)})
	}
	return out
}

// secs prints a span in seconds, to a tenth or, under a second, a
// hundredth.
func secs(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

// ciHeader are the CSV columns of a figure's interval: its half-width over
// the figure, the windows it came from, whether it reached the target
// (±2 % without one), and the seconds cut off its start as warm-up (and
// with --sustained before a cliff).
var ciHeader = []string{"ci_relative", "ci_windows", "ci_converged", "ci_warmup_s"}

func ciCells(iv *result.Interval) []string {
	if iv == nil {
		return []string{"", "", "", ""}
	}
	rel := ""
	if iv.Known() {
		rel = strconv.FormatFloat(iv.Relative, 'f', 5, 64)
	}
	return []string{rel, strconv.Itoa(iv.Windows), strconv.FormatBool(iv.Converged), strconv.FormatFloat(float64(iv.WarmupNs)/1e9, 'f', 3, 64)}
}
