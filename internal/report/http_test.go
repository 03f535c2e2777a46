package report

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// httpDoc is three downloads of 100 MiB over a Pi's 100 Mbit/s Ethernet,
// through one redirect.
func httpDoc() *result.Document { return readDoc("http") }

// httpFailedDoc is a download cut short: the server declared 10 MiB and
// closed after 3.
func httpFailedDoc() *result.Document { return readDoc("http-failed") }

func TestHTTPGolden(t *testing.T) {
	for name, doc := range map[string]*result.Document{"http": httpDoc(), "http-failed": httpFailedDoc()} {
		for _, format := range []string{"table", "csv", "markdown"} {
			checkGolden(t, name, doc, Options{Format: format})
		}
	}
}
