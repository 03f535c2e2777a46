package importer

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

// TestRenderImported renders every run of the real corpus the way results
// show, report, compare, export and serve's metrics do, in every format:
// what an import stores must never crash or refuse a renderer (runs of fio
// before 3.18 once had no latency and crashed show and report).
func TestRenderImported(t *testing.T) {
	byKind := map[string][]*result.Document{}
	var all []*result.Document
	eachCorpusFile(t, func(name string, data []byte) {
		docs, err := Import(data, name)
		if err != nil {
			return // the refusals the corpus test checks
		}
		for _, d := range docs {
			all = append(all, d)
			byKind[compare.Kind(d.Method)] = append(byKind[compare.Kind(d.Method)], d)
		}
	})
	if len(all) < 100 {
		t.Fatalf("%d runs imported from the corpus, want over 100", len(all))
	}
	// Drawing is most of this test: the runs draw beside each other.
	for _, d := range all {
		t.Run(d.ID, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			for _, format := range report.Formats {
				if err := report.Write(&out, d, report.Options{Format: format}); err != nil {
					t.Errorf("%s (%s) as %s: %v", d.ID, d.Imported.File, format, err)
				}
			}
			if err := report.WriteHTML(&out, []*result.Document{d}, nil, report.HTMLOptions{}); err != nil {
				t.Errorf("%s (%s) as HTML: %v", d.ID, d.Imported.File, err)
			}
			out.WriteString("\n" + d.Summary())
			noFalseZero(t, d, out.String())
		})
	}
	// Each run against the first of its kind, as compare and a report of
	// two ids line them up. The comparison page draws both runs' charts
	// again: under -short only the first pair of a kind draws it, and
	// every pair's comparison is still written in every other format.
	for kind, docs := range byKind {
		for i, d := range docs[1:] {
			cmp, err := compare.New([]compare.Group{{Name: "a", Docs: docs[:1]}, {Name: "b", Docs: []*result.Document{d}}}, 0)
			if err != nil {
				t.Errorf("%s: comparing %s with %s: %v", kind, docs[0].ID, d.ID, err)
				continue
			}
			for _, format := range report.Formats {
				if err := report.WriteComparison(io.Discard, cmp, report.Options{Format: format}); err != nil {
					t.Errorf("%s: comparison as %s: %v", kind, format, err)
				}
			}
			if i > 0 && testing.Short() {
				continue
			}
			if err := report.WriteHTML(io.Discard, []*result.Document{docs[0], d}, cmp, report.HTMLOptions{}); err != nil {
				t.Errorf("%s: comparison page: %v", kind, err)
			}
		}
	}
	if err := report.ExportCSV(io.Discard, all); err != nil {
		t.Errorf("export csv: %v", err)
	}
	if err := report.WriteMetrics(io.Discard, all); err != nil {
		t.Errorf("metrics: %v", err)
	}
}

// unsaid are what renderers once printed for a parameter an imported
// output did not state (fio 2.1 prints no job options): a zero, or the
// page-cache eviction only thruput's own runs do.
var unsaid = regexp.MustCompile(`iodepth 0\b|\b0 B per job|\bQ0T|\bQD 0\b|^0 B |evicted`)

// unsaidHints holds a literal of each of unsaid's alternatives: a line
// with none of them cannot match, and such lines are nearly all of a
// rendering, which the regexp took seconds to go through line by line.
var unsaidHints = []string{"iodepth 0", "0 B ", "Q0T", "QD 0", "evicted"}

// noFalseZero checks that what the file did not say reads as unknown in
// every rendering of d, never as zero.
func noFalseZero(t *testing.T, d *result.Document, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !slices.ContainsFunc(unsaidHints, func(h string) bool { return strings.Contains(line, h) }) {
			continue
		}
		if m := unsaid.FindString(line); m != "" {
			t.Errorf("%s (%s) prints %q, which its output did not say: %q", d.ID, d.Imported.File, m, line)
		}
	}
	r := d.Random
	if d.Imported.Tool != Sysbench || r == nil || r.Parameters.Threads < 2 || !strings.HasPrefix(d.Imported.Version, "0.4") {
		return
	}
	// sysbench 0.4 prints the mean and deviation of several threads, not
	// their extremes.
	if f := r.Fairness; f == nil || f.Requests.Min != nil || f.Requests.Max != nil || f.ElapsedNs.Min != nil || f.ElapsedNs.Max != nil {
		t.Errorf("%s (%s): fairness min/max %+v, which sysbench 0.4 does not print", d.ID, d.Imported.File, f)
	}
	if !regexp.MustCompile(`(?m)^\s*requests\s+\S+\s+\S+\s+-\s+-\s*$`).MatchString(out) {
		t.Errorf("%s (%s): the fairness table does not show min and max as unknown:\n%s", d.ID, d.Imported.File, out)
	}
}
