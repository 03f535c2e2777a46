package nettest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Rate is a throughput a tool measured, in bit/s, with what its own count
// resolves of it (Res, bit/s): a paced sender's figure is whole blocks over
// the test's time, so it cannot say its rate closer than one block of each
// stream each way over that time.
type Rate struct{ BPS, Res float64 }

// band is what references measured in the same window agree on: from the
// lowest, less its resolution, to the highest, plus its own, widened on
// both sides by how far apart the references are. Without that widening
// two references would be too few: a third run like them falls outside the
// range of two as often as not (2 in 3), as the fair-queue pacing of TCP
// showed, where two of iperf3's runs at --fq-rate 60M received 60.76 and
// 61.89 Mbit/s and a third one of thruput's 60.12.
func band(refs ...Rate) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	least, most := math.Inf(1), math.Inf(-1)
	for _, r := range refs {
		lo, hi = min(lo, r.BPS-r.Res), max(hi, r.BPS+r.Res)
		least, most = min(least, r.BPS), max(most, r.BPS)
	}
	return lo - (most - least), hi + (most - least)
}

// SameWindow holds a figure under test to references (peers such as
// iperf3 or curl) that measured the same limit on the same path in the same
// window, at the same time or just before and after: got, within its own
// resolution, must meet their band. The tolerance is the references'
// spread in that run, not a fixed share of the set rate, which a machine
// busy with other work makes the references miss too.
func SameWindow(t testing.TB, what string, got Rate, refs ...Rate) {
	t.Helper()
	if len(refs) == 0 || got.BPS <= 0 || slices.ContainsFunc(refs, func(r Rate) bool { return r.BPS <= 0 }) {
		t.Errorf("%s: %.3f Mbit/s against references %v: a figure is missing, nothing to judge", what, got.BPS/1e6, refs)
		return
	}
	lo, hi := band(refs...)
	seen := make([]string, len(refs))
	for i, r := range refs {
		seen[i] = fmt.Sprintf("%.3f ± %.3f", r.BPS/1e6, r.Res/1e6)
	}
	t.Logf("%s: %.3f ± %.3f Mbit/s; the references in the same window %s, so %.3f..%.3f", what, got.BPS/1e6, got.Res/1e6, strings.Join(seen, ", "), lo/1e6, hi/1e6)
	if got.BPS+got.Res < lo || got.BPS-got.Res > hi {
		t.Errorf("%s: %.3f ± %.3f Mbit/s, outside what the references measured in the same window, %.3f..%.3f", what, got.BPS/1e6, got.Res/1e6, lo/1e6, hi/1e6)
	}
}
