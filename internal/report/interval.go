package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
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

// mibRate prints a rate in bytes per second as MiB/s.
func mibRate(bps float64) string { return fmt.Sprintf("%.1f MiB/s", bps/(1<<20)) }

// mbitRate prints a rate in bytes per second as Mbit/s.
func mbitRate(bps float64) string { return fmt.Sprintf("%.1f Mbit/s", bps*8/1e6) }

// intervalNotes says in words what a figure's cell cannot: a cliff, with
// both rates and where it came, and a step that hit its bound before its
// interval was narrow enough.
func intervalNotes(what string, iv *result.Interval, rate func(float64) string) []note {
	if iv == nil {
		return nil
	}
	var out []note
	if c := iv.Cliff; c != nil {
		s := fmt.Sprintf("%s: %s for the first %s, then %s", what, rate(c.Before), units.IEC(c.AtBytes), rate(c.After))
		if iv.Sustained {
			s += "; the figure is the rate after the drop (--sustained)"
		} else {
			s += "; --sustained measures only the rate after the drop"
		}
		out = append(out, note{"!", s})
	}
	if iv.Target > 0 && !iv.Converged {
		width := "too few windows to tell"
		if iv.Known() {
			width = fmt.Sprintf("±%.1f%%", iv.Relative*100)
		}
		span := time.Duration(int64(iv.Windows+iv.WarmupWindows) * iv.WindowNs).Round(100 * time.Millisecond)
		out = append(out, note{"!", fmt.Sprintf("%s: not stable: %s after %s (wanted ±%g%%)", what, width, span, iv.Target*100)})
	}
	return out
}

// ciHeader are the CSV columns of a figure's interval: its half-width over
// the figure, the windows it came from, and whether it reached the
// target (±2 % without one).
var ciHeader = []string{"ci_relative", "ci_windows", "ci_converged"}

func ciCells(iv *result.Interval) []string {
	if iv == nil {
		return []string{"", "", ""}
	}
	rel := ""
	if iv.Known() {
		rel = strconv.FormatFloat(iv.Relative, 'f', 5, 64)
	}
	return []string{rel, strconv.Itoa(iv.Windows), strconv.FormatBool(iv.Converged)}
}
