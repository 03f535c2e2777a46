package report

import (
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

func TestPreviousLine(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, x := range []struct {
		p    result.Previous
		want string
	}{
		{result.Previous{ID: "r1", StartedAt: at, Ratio: 1.39, Figures: 4, Judged: 1, Verdict: "within noise where judged"},
			"1.39x the last run (2026-11-24, r1) over 4 figure(s): within noise where judged (3 without an interval, by ratio alone)"},
		{result.Previous{ID: "r1", StartedAt: at, Ratio: 1.05, Figures: 4, Judged: 3, Faster: 1, Slower: 1, Verdict: "faster and slower beyond noise"},
			"1.05x the last run (2026-11-24, r1) over 4 figure(s): faster and slower beyond noise (1 faster, 1 slower, 1 within noise, 1 without an interval, by ratio alone)"},
		{result.Previous{ID: "r1", StartedAt: at, Ratio: 1, Figures: 2, Judged: 2, Verdict: "within noise"},
			"1.00x the last run (2026-11-24, r1) over 2 figure(s): within noise"},
		{result.Previous{ID: "r1", StartedAt: at, Ratio: 1.5, Figures: 2, Verdict: "no interval to judge by"},
			"1.50x the last run (2026-11-24, r1) over 2 figure(s): no interval to judge by"},
	} {
		if got := PreviousLine(&x.p); got != x.want {
			t.Errorf("got  %s\nwant %s", got, x.want)
		}
	}
}
