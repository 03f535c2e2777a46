package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sweepDoc is a two-target sweep with a cached read, a partly cached read, a
// step cut by the time bound and a step missing after a failure.
func sweepDoc() *result.Document { return readDoc("sweep") }

// checkGolden renders doc as o asks and compares it with
// testdata/NAME.FORMAT.golden, rewriting the file with -update.
func checkGolden(t *testing.T, name string, doc *result.Document, o Options) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, doc, o); err != nil {
		t.Fatalf("%s %s: %v", name, o.Format, err)
	}
	matchGolden(t, name+"."+o.Format, buf.Bytes())
}

// matchGolden compares got with testdata/NAME.golden, rewriting the file
// with -update.
func matchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) && !(strings.HasSuffix(name, ".json") && sameJSON(got, want)) {
		t.Errorf("%s differs from %s (go test -update to accept):\n%s", name, golden, got)
	}
}

// sameJSON is whether two JSON texts hold the same values, numbers equal
// to 1e-12 of their size. The JSON writer prints a float's shortest exact
// form, and math's functions may round the last bit differently on another
// processor (32-bit ARM gives 3.3398045655083157 where amd64 gives
// 3.339804565508315): a golden pins the figures, not the FPU.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return sameValue(x, y)
}

func sameValue(x, y any) bool {
	switch x := x.(type) {
	case float64:
		y, ok := y.(float64)
		return ok && math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y))
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	default:
		return x == y
	}
}

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		checkGolden(t, "sweep", sweepDoc(), Options{Format: format})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	want := sweepDoc()
	var buf bytes.Buffer
	if err := Write(&buf, want, Options{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	got, err := result.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := got.Write(&again); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	_ = want.Write(&first)
	if first.String() != again.String() {
		t.Errorf("round trip changed the document:\n%s\nvs\n%s", first.String(), again.String())
	}
	if *got.Sweep.Steps[7].CachedFraction != 1 || got.Targets[0].Partition != "sda3" {
		t.Errorf("fields lost in the round trip: %+v", got.Sweep.Steps[7])
	}
}

func TestReadRejects(t *testing.T) {
	for in, msg := range map[string]string{
		"not json":             "not a thruput result document",
		`{"format_version":9}`: "format version 9 is not supported",
		`{}`:                   "format version 0 is not supported",
	} {
		if _, err := result.Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Read(%q) = %v; want an error containing %q", in, err, msg)
		}
	}
}

func TestFormatFor(t *testing.T) {
	for in, want := range map[string]string{"a.json": "json", "b.CSV": "csv", "c.md": "markdown", "d.txt": "table", "e": "", "f.html": "html", "g.jsonl": "jsonl", "h.pdf": ""} {
		if got := FormatFor(in); got != want {
			t.Errorf("FormatFor(%q) = %q; want %q", in, got, want)
		}
	}
	if err := Write(&bytes.Buffer{}, sweepDoc(), Options{Format: "yaml"}); err == nil {
		t.Error("Write accepted format yaml")
	}
}

func TestSameJSON(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"needed": 3.339804565508315}`, `{"needed": 3.3398045655083157}`, true},
		{`{"needed": 3.3398}`, `{"needed": 3.3399}`, false},
		{`{"a": [1, 2]}`, `{"a": [1, 2, 3]}`, false},
		{`{"a": 1}`, `{"b": 1}`, false},
		{`{"a": "x"}`, `{"a": "y"}`, false},
		{`{"a": 0}`, `{"a": 1e-300}`, false},
	} {
		if got := sameJSON([]byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("sameJSON(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
