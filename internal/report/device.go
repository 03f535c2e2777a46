package report

import (
	"fmt"
	"strconv"

	"github.com/thruput/thruput/internal/result"
)

// sharePct prints a device share; readahead can make it exceed all.
func sharePct(s float64) string {
	if s >= 0.995 {
		return "all"
	}
	if s < 0.01 {
		return strconv.FormatFloat(s*100, 'f', 2, 64) + " %"
	}
	return strconv.FormatFloat(s*100, 'f', 1, 64) + " %"
}

// deviceNote says what the device itself served of a read figure, and
// warns, with the remedy, when the page cache served most of it.
func deviceNote(what string, s *result.DeviceShare) []note {
	switch {
	case s == nil:
		return nil
	case s.Cached:
		return []note{{Mark: "!", Text: fmt.Sprintf("%s: the device served %s of the bytes read; the page cache served the rest, so the figure is memory's, not the device's: use --direct, or a data set larger than memory", what, sharePct(s.Share))}}
	}
	return []note{{Text: fmt.Sprintf("%s: the device served %s of the bytes read", what, sharePct(s.Share))}}
}

// sweepDeviceNotes sums up the device shares of a sweep's read steps per
// target: the lowest and highest, and a warning if any was cached.
func sweepDeviceNotes(doc *result.Document) []note {
	var out []note
	for ti, t := range doc.Targets {
		lo, hi, cached, n := 2.0, 0.0, 0, 0
		for _, s := range doc.Sweep.Steps {
			if s.Target != ti || s.Device == nil {
				continue
			}
			n++
			lo, hi = min(lo, s.Device.Share), max(hi, s.Device.Share)
			if s.Device.Cached {
				cached++
			}
		}
		if n == 0 {
			continue
		}
		span := sharePct(lo)
		if sharePct(hi) != span {
			span += " to " + sharePct(hi)
		}
		if cached > 0 {
			out = append(out, note{Mark: "!", Text: fmt.Sprintf("%s: the device served %s of the bytes read; %d step(s) came mostly from the page cache: use --direct, or --drop-caches (root)", t.Label(), span, cached)})
		} else {
			out = append(out, note{Mark: "", Text: fmt.Sprintf("%s: the device served %s of the bytes read", t.Label(), span)})
		}
	}
	return out
}
