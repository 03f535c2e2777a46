package units

import (
	"math"
	"strconv"
	"strings"
)

// Millis prints nanoseconds as milliseconds with about three significant
// figures: 0.084, 1.23, 96.1. Loopback and LAN round trips are tens of
// microseconds, which one decimal would print as 0.0. A figure that
// rounds to nothing prints as 0.000, never -0.000.
func Millis(ns int64) string { return millis(ns, false) }

// SignedMillis is Millis with the sign of a difference: +0.084, -1.23,
// and 0.000 for one that rounds to nothing.
func SignedMillis(ns int64) string { return millis(ns, true) }

func millis(ns int64, signed bool) string {
	ms := float64(ns) / 1e6
	prec := 1
	switch a := math.Abs(ms); {
	case a < 1:
		prec = 3
	case a < 10:
		prec = 2
	}
	s := strconv.FormatFloat(ms, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		return strconv.FormatFloat(0, 'f', prec, 64)
	}
	if signed && ms > 0 {
		s = "+" + s
	}
	return s
}
