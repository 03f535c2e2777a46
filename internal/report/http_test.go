package report

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func httpRun(mib, peak float64, ttfbMs int64) result.HTTPRun {
	cl := int64(100 << 20)
	return result.HTTPRun{StatusCode: 200, Protocol: "HTTP/1.1", FinalURL: "http://192.168.1.10:8080/big", RemoteAddr: "192.168.1.10:8080",
		Redirects: 1, ContentLength: &cl, Bytes: cl, TTFBNs: ttfbMs * 1e6, TransferNs: int64(100 / mib * 1e9), TotalNs: int64(100/mib*1e9) + ttfbMs*1e6,
		MiBPerSec: mib, BitsPerSecond: mib * 8388608, PeakMiBPerSec: peak, PeakBitsPerSecond: peak * 8388608,
		Windows: []result.HTTPWindow{{StartNs: 0, EndNs: 1e9, Bytes: int64(peak * (1 << 20)), MiBPerSec: peak}}}
}

// httpDoc is three downloads of 100 MiB over a Pi's 100 Mbit/s Ethernet,
// through one redirect.
func httpDoc() *result.Document {
	d := baseDoc("net.http")
	d.Targets = []result.Target{}
	d.HTTP = &result.HTTP{
		Parameters: result.HTTPParameters{URL: "http://192.168.1.10:8080/", WindowNs: 1e9, TimeoutNs: 30e9, Repeat: 3, BufferSize: 262144},
		Runs:       []result.HTTPRun{httpRun(11.2, 11.4, 2), httpRun(11.25, 11.38, 1), httpRun(11.1, 11.41, 3)},
		Summary: &result.HTTPSummary{MiBPerSec: result.Spread{N: 3, Mean: 11.183, Stddev: 0.076, Min: 11.1, Max: 11.25},
			PeakMiBPerSec: result.Spread{N: 3, Mean: 11.397, Stddev: 0.015, Min: 11.38, Max: 11.41},
			TTFBNs:        result.Spread{N: 3, Mean: 2e6, Stddev: 1e6, Min: 1e6, Max: 3e6},
			TotalNs:       result.Spread{N: 3, Mean: 8.944e9, Stddev: 0.06e9, Min: 8.89e9, Max: 9.01e9}},
	}
	return d
}

// httpFailedDoc is a download cut short: the server declared 10 MiB and
// closed after 3.
func httpFailedDoc() *result.Document {
	d := baseDoc("net.http")
	d.Targets = []result.Target{}
	d.Status, d.Error = result.StatusFailed, "connection closed after 3145728 of 10485760 bytes (Content-Length)"
	cl := int64(10 << 20)
	d.HTTP = &result.HTTP{
		Parameters: result.HTTPParameters{URL: "https://nas.local/f", WindowNs: 5e8, TimeoutNs: 30e9, Repeat: 1, BufferSize: 262144, Insecure: true},
		Runs: []result.HTTPRun{{StatusCode: 200, Protocol: "HTTP/1.1", FinalURL: "https://nas.local/f", RemoteAddr: "192.168.1.5:443", ContentLength: &cl,
			Bytes: 3 << 20, TTFBNs: 12e6, TransferNs: 3e8, TotalNs: 3.12e8, MiBPerSec: 10, BitsPerSecond: 83886080, PeakMiBPerSec: 10, PeakBitsPerSecond: 83886080,
			Windows: []result.HTTPWindow{{StartNs: 0, EndNs: 3e8, Bytes: 3 << 20, MiBPerSec: 10}}, Error: d.Error}},
	}
	return d
}

func TestHTTPGolden(t *testing.T) {
	for name, doc := range map[string]*result.Document{"http": httpDoc(), "http-failed": httpFailedDoc()} {
		for _, format := range []string{"table", "csv", "markdown"} {
			checkGolden(t, name, doc, Options{Format: format})
		}
	}
}
