package httpget

import (
	"time"

	"github.com/thruput/thruput/internal/result"
)

// sample is the body's byte count at an instant, counted from the first
// byte of the response.
type sample struct {
	at    time.Duration
	bytes int64
}

// windows turns samples taken every window (the last at the end of the
// transfer) into consecutive windows, and picks the peak rate among those
// that lasted at least half a window: the short tail of a transfer holds
// too few bytes for its rate to mean anything, and one read landing in it
// early or late would swing it. When no window qualifies (the transfer
// was shorter than that) the peak is the average: the only rate there is.
//
// Samples are taken by a ticker, so a window lasts as long as the ticker
// let it, not exactly window; each rate is over the window's own span.
func windows(samples []sample, window time.Duration) (ws []result.HTTPWindow, peakMiB float64) {
	var prev sample
	peak, qualified := 0.0, false
	for _, s := range samples {
		if s.at <= prev.at {
			continue
		}
		w := result.HTTPWindow{StartNs: int64(prev.at), EndNs: int64(s.at), Bytes: s.bytes - prev.bytes}
		w.MiBPerSec = result.MiBPerSec(w.Bytes, w.EndNs-w.StartNs)
		ws = append(ws, w)
		if 2*(s.at-prev.at) >= window {
			peak, qualified = max(peak, w.MiBPerSec), true
		}
		prev = s
	}
	if !qualified {
		peak = result.MiBPerSec(prev.bytes, int64(prev.at))
	}
	return ws, peak
}

// mibToBits converts MiB/s to bits/s.
func mibToBits(mib float64) float64 { return mib * (1 << 20) * 8 }
