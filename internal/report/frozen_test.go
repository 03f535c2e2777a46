package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/result/resulttest"

	"github.com/thruput/thruput/internal/fstest"
)

func init() { fstest.RoomyHeap() }

// frozenDocs are the frozen documents of every method, by file name.
func frozenDocs(t *testing.T) map[string]*result.Document { return resulttest.Frozen(t) }

// TestRenderFrozen prints every frozen document in every format and unit
// system, and all of them on one HTML page, in the metrics and in the
// export's CSV: a document thruput once wrote must still print.
func TestRenderFrozen(t *testing.T) {
	docs := frozenDocs(t)
	var all []*result.Document
	for name, d := range docs {
		all = append(all, d)
		for _, format := range Formats {
			for _, units := range []string{"", UnitsMiB, UnitsMB, UnitsBoth} {
				var b bytes.Buffer
				if err := Write(&b, d, Options{Format: format, Units: units}); err != nil {
					t.Errorf("%s as %s, units %q: %v", name, format, units, err)
					continue
				}
				if b.Len() == 0 {
					t.Errorf("%s as %s, units %q: nothing printed", name, format, units)
				}
			}
		}
		var Table bytes.Buffer
		if err := Write(&Table, d, Options{Format: "table"}); err == nil && !strings.Contains(Table.String(), "/s") {
			t.Errorf("%s: its table holds no rate:\n%s", name, Table.String())
		}
		var page bytes.Buffer
		if err := WriteHTML(&page, []*result.Document{d}, nil, HTMLOptions{}); err != nil || !strings.Contains(page.String(), d.ID) {
			t.Errorf("%s as HTML: %v, or the page does not name the run", name, err)
		}
	}
	var page, metrics, csv bytes.Buffer
	if err := WriteHTML(&page, all, nil, HTMLOptions{}); err != nil {
		t.Errorf("every frozen document on one page: %v", err)
	}
	if err := WriteMetrics(&metrics, all); err != nil || !strings.HasSuffix(metrics.String(), "# EOF\n") {
		t.Errorf("metrics of the frozen documents: %v\n%s", err, metrics.String())
	}
	if err := ExportCSV(&csv, all); err != nil || strings.Count(csv.String(), "\n") < len(all) {
		t.Errorf("CSV export of the frozen documents: %v\n%s", err, csv.String())
	}
}
