package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"

	"github.com/thruput/thruput/internal/fstest"
)

func init() { fstest.RoomyHeap() }

// frozenDocs reads the frozen documents of every method that
// internal/result keeps (its testdata/frozen/README.md says how each was
// made).
func frozenDocs(t *testing.T) map[string]*result.Document {
	t.Helper()
	files, err := filepath.Glob("../result/testdata/frozen/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no frozen documents: %v", err)
	}
	docs := map[string]*result.Document{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := result.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		docs[filepath.Base(f)] = d
	}
	return docs
}

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
