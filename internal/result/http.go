package result

import (
	"fmt"
	"slices"
)

// HTTP is wget's method: GET one URL, throw the body away, and time it.
type HTTP struct {
	Parameters HTTPParameters `json:"parameters"`
	// Runs holds one entry per --repeat, in order; a run that failed is
	// kept with what it measured before the failure, and is the last.
	Runs []HTTPRun `json:"runs"`
	// Summary is the spread over the runs that ended well, when there are
	// two or more.
	Summary *HTTPSummary `json:"summary,omitempty"`
	// Interface is this end's network interface the body came in on.
	Interface string `json:"interface,omitempty"`
}

// HTTPParameters are the effective parameters of an HTTP download.
type HTTPParameters struct {
	// URL as given.
	URL string `json:"url"`
	// WindowNs is the span of the windows the peak rate is taken over.
	WindowNs int64 `json:"window_ns"`
	// TimeoutNs bounds connecting, waiting for the response headers and
	// any stall of the body.
	TimeoutNs int64 `json:"timeout_ns"`
	Repeat    int   `json:"repeat"`
	// BufferSize is the one buffer every read of the body goes into.
	BufferSize int `json:"buffer_size"`
	// Insecure is true when the server's TLS certificate was not checked.
	Insecure bool `json:"insecure,omitempty"`
}

// HTTPRun is one download.
type HTTPRun struct {
	// StatusCode of the final response; absent when none came.
	StatusCode int `json:"status_code,omitempty"`
	// Protocol of the final response, e.g. "HTTP/1.1".
	Protocol string `json:"protocol,omitempty"`
	// FinalURL is the URL the body came from, after Redirects redirects.
	FinalURL  string `json:"final_url,omitempty"`
	Redirects int    `json:"redirects,omitempty"`
	// RemoteAddr is the server's address the final response came from,
	// LocalAddr this end of that connection.
	RemoteAddr string `json:"remote_addr,omitempty"`
	LocalAddr  string `json:"local_addr,omitempty"`
	// ContentLength the server declared; absent when it declared none
	// (chunked or close-delimited bodies).
	ContentLength *int64 `json:"content_length,omitempty"`
	// Bytes of body received.
	Bytes int64 `json:"bytes"`
	// TTFBNs runs from the start of the request (name lookup and connect
	// included) to the first byte of the final response.
	TTFBNs int64 `json:"ttfb_ns,omitempty"`
	// TransferNs runs from that first byte to the last byte of the body:
	// the span the average rate is over.
	TransferNs int64 `json:"transfer_ns"`
	// TotalNs runs from the start of the request to the last byte.
	TotalNs int64 `json:"total_ns"`
	// MiBPerSec and BitsPerSecond are Bytes over TransferNs.
	MiBPerSec     float64 `json:"mib_per_s"`
	BitsPerSecond float64 `json:"bits_per_second"`
	// PeakMiBPerSec and PeakBitsPerSecond are the best window that lasted
	// at least half of WindowNs; the average when none did.
	PeakMiBPerSec     float64 `json:"peak_mib_per_s"`
	PeakBitsPerSecond float64 `json:"peak_bits_per_second"`
	// Windows are the consecutive spans of the transfer, WindowNs long but
	// the last.
	Windows []HTTPWindow `json:"windows"`
	// Interval is how well MiBPerSec is known.
	Interval *Interval `json:"interval,omitempty"`
	// Error says why this run failed; absent when it ended well.
	Error string `json:"error,omitempty"`
}

// HTTPWindow is one span of a transfer.
type HTTPWindow struct {
	// StartNs and EndNs count from the first byte of the response.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	Bytes   int64 `json:"bytes"`
	// MiBPerSec is Bytes over the window.
	MiBPerSec float64 `json:"mib_per_s"`
}

// HTTPSummary is the spread of each figure over the runs.
type HTTPSummary struct {
	MiBPerSec     Spread `json:"mib_per_s"`
	PeakMiBPerSec Spread `json:"peak_mib_per_s"`
	TTFBNs        Spread `json:"ttfb_ns"`
	TotalNs       Spread `json:"total_ns"`
}

// Measured is whether any download received a byte of body.
func (h *HTTP) Measured() bool {
	return slices.ContainsFunc(h.Runs, func(r HTTPRun) bool { return r.Bytes > 0 })
}

// httpRate is the gauge of a download's average rate, the mean of the
// repeats.
var httpRate = Gauge{Name: "thruput_http_bytes_per_second", Help: "HTTP download rate (wget's method), the mean of the latest run's repeats.", Trend: Trend{Title: "HTTP download"}}

// Figures take the downloads that ended well, as the run's own summary
// does: a failed one's rate is over a body cut short.
func (h *HTTP) Figures() []Figure {
	var out []Figure
	for i, r := range h.Runs {
		if r.Error != "" {
			continue
		}
		fig := Figure{Group: "http", Step: "download", Repeat: i + 1, HigherIsBetter: true}
		mib, peak := fig, fig
		mib.Metric, mib.Value, mib.Interval, mib.Headline = "MiB/s", r.MiBPerSec, r.Interval, "download"
		// An empty body has no rate to follow.
		if r.Bytes > 0 {
			mib.Series = httpRate.Sample(r.MiBPerSec * bytesPerMiB)
		}
		peak.Metric, peak.Value = "peak MiB/s", r.PeakMiBPerSec
		out = append(out, mib, peak)
		if r.TTFBNs > 0 {
			ttfb := fig
			ttfb.Metric, ttfb.Value, ttfb.HigherIsBetter = "TTFB ms", float64(r.TTFBNs)/1e6, false
			out = append(out, ttfb)
		}
	}
	return out
}

// Crossed is this end's network interface the body came in on.
func (h *HTTP) Crossed() string { return h.Interface }

// Params are the download's parameters.
func (h *HTTP) Params() any { return h.Parameters }

// Brief is the mean average rate of the downloads that ended well.
func (h *HTTP) Brief([]Target) string {
	var sum float64
	n := 0
	for _, r := range h.Runs {
		if r.Error == "" && r.TransferNs > 0 {
			sum += r.MiBPerSec
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%.1f MiB/s", sum)
	}
	return fmt.Sprintf("%.1f MiB/s (mean of %d)", sum/float64(n), n)
}
