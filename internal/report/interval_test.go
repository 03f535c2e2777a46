package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// ivOf is an interval of ±rel around mib MiB/s over windows of 100 ms,
// warm seconds cut off its start.
func ivOf(mib, rel float64, windows int, warm float64) *result.Interval {
	m := mib * (1 << 20)
	iv := &result.Interval{Mean: m, HalfWidth: rel * m, Low: m - rel*m, High: m + rel*m, Relative: rel, Windows: windows, WindowNs: 1e8,
		EffectiveWindows: float64(windows) / 2, WarmupWindows: int(warm * 10), WarmupNs: int64(warm * 1e9), Converged: rel > 0 && rel <= result.DefaultStable}
	if rel == 0 {
		iv.Low, iv.High = 0, 0
	}
	return iv
}

// stableDocs are runs whose figures carry intervals
// (testdata/docs/stable-*.json): a sweep with a step measured past its
// cliff (--sustained), one whose warm-up was cut off its figure, one that
// hit its bound before it was stable and one too short for an interval; a
// disk io run whose figure spans its warm-up; a net client test past a
// cliff, whose figure is the whole test's, its download stopped by its
// bound at ±3 %.
func stableDocs() map[string]*result.Document {
	return map[string]*result.Document{"stable-sweep": readDoc("stable-sweep"), "stable-io": readDoc("stable-io"), "stable-net": readDoc("stable-net")}
}

func TestIntervalGolden(t *testing.T) {
	for name, doc := range stableDocs() {
		for _, format := range []string{"table", "csv", "markdown"} {
			checkGolden(t, name, doc, Options{Format: format})
		}
	}
}

// TestIntervalWords pins what each case says, in the table and in the
// markdown alike.
func TestIntervalWords(t *testing.T) {
	docs := stableDocs()
	for name, want := range map[string][]string{
		"stable-sweep": {
			"10.4 ±0.2", "23.6 ±0.9", "1250.0 ±12.5",
			"ext4 4k: 41.7 MiB/s for the first 80.0 MiB, then 10.4 MiB/s; the figure is the rate after the drop (--sustained)",
			"ext4 4k: first 2.0 s discarded as warm-up and before the drop",
			"ext4 4k: not stable: ±4.0% after 6.0 s (wanted ±2%)",
			"ext4 4k: the ± leaves out the first 0.80 s as warm-up; the figure spans the whole phase",
			"ext4 1M: too short for an interval (1.0 s, 5 window(s) kept; it takes 8)",
			"tmpfs 4k: first 0.50 s discarded as warm-up",
			"tmpfs 8: too short for an interval (0.05 s; it takes 0.80 s)",
		},
		"stable-io": {"39.5 ±0.4", "run 1: the ± leaves out the first 0.50 s as warm-up; the figure spans the whole phase"},
		"stable-net": {
			"; the ± is of the rate after the drop (--sustained), the figure is the whole test's",
			"up: the ± leaves out the first 3.0 s as warm-up and before the drop; the figure spans the whole phase",
			"down: not stable: ±3.0% after 10.0 s (wanted ±2%)",
		},
	} {
		for _, format := range []string{"table", "markdown"} {
			var buf bytes.Buffer
			if err := Write(&buf, docs[name], Options{Format: format}); err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("%s %s lacks %q:\n%s", name, format, w, buf.String())
				}
			}
			if name == "stable-net" && strings.Contains(buf.String(), "the figure is the rate after the drop") {
				t.Errorf("net's figure is the whole test's, yet:\n%s", buf.String())
			}
		}
	}
}

// TestIntervalCSV: every method's CSV has the interval's columns, filled
// where the figure has one.
func TestIntervalCSV(t *testing.T) {
	docs := stableDocs()
	for name, want := range map[string]map[string]string{
		"stable-sweep": {"ci_relative": "0.01500", "ci_windows": "40", "ci_converged": "true", "ci_warmup_s": "2.000"},
		"stable-io":    {"ci_relative": "0.01000", "ci_windows": "45", "ci_converged": "true", "ci_warmup_s": "0.500"},
		"stable-net":   {"ci_relative": "0.01000", "ci_windows": "60", "ci_converged": "true", "ci_warmup_s": "3.000"},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, docs[name], Options{Format: "csv"}); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		found := false
		for _, r := range recs[1:] {
			if r[col["ci_windows"]] != want["ci_windows"] {
				continue
			}
			found = true
			for k, v := range want {
				if i, ok := col[k]; !ok || r[i] != v {
					t.Errorf("%s: %s is %q, want %q: %v", name, k, r[i], v, r)
				}
			}
		}
		if !found {
			t.Errorf("%s: no row with the interval:\n%v", name, recs)
		}
	}
}

// TestIntervalHTML: the page shows the ± and the notes the text does.
func TestIntervalHTML(t *testing.T) {
	docs := stableDocs()
	for name, want := range map[string][]string{
		"stable-sweep": {"10.4 ±0.2", "then 10.4 MiB/s; the figure is the rate after the drop (--sustained)", "not stable: ±4.0% after 6.0 s", "too short for an interval"},
		"stable-io":    {"39.5 ±0.4", "the ± leaves out the first 0.50 s as warm-up"},
		"stable-net":   {"93.60 ±0.9", "the ± is of the rate after the drop (--sustained)"},
	} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, []*result.Document{docs[name]}, nil, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: the page lacks %q", name, w)
			}
		}
	}
}

// TestComparisonOfIntervals: two single disk io runs are judged by their
// intervals, and the page says so rather than that nothing can be.
func TestComparisonOfIntervals(t *testing.T) {
	run := func(id string, mib float64) *result.Document {
		d := methodDocs()["io"]
		d.ID = id
		d.IO.Runs, d.IO.Summary, d.IO.Parameters.Repeat = d.IO.Runs[:1], nil, 1
		r := d.IO.Runs[0].Read
		r.MiBPerSec, r.IOPS = mib, mib*256
		r.Interval = ivOf(mib, 0.01, 40, 0)
		return d
	}
	c, err := compare.New([]compare.Group{{Name: "a", Docs: []*result.Document{run("a", 40)}}, {Name: "b", Docs: []*result.Document{run("b", 40.2)}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, c, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"judged by the runs' 95 % intervals (±)", "40.0 ±0.4", "40.2 ±0.4"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("the comparison lacks %q:\n%s", w, buf.String())
		}
	}
	if strings.Contains(buf.String(), "so no difference is marked as noise") {
		t.Errorf("the comparison says nothing can be judged:\n%s", buf.String())
	}
}
