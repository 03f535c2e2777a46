package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// TestComparisonChartsDrawMeans: a column of repeats is drawn as the
// mean its table cell prints, with the repeats' standard deviation as
// the error bar; the chart once drew the column's first run only (table
// 1384.7 ± 773.7, chart 837.6).
func TestComparisonChartsDrawMeans(t *testing.T) {
	run := func(id string, read4k float64) *result.Document {
		return sweepRun(id, []result.Target{sdEXT4}, [][]float64{{20, read4k, 30, 40, 35, 45}})
	}
	a := compare.Group{Name: "card=a", Docs: []*result.Document{run("20261121T060000Z-aaaa01", 837.6), run("20261121T070000Z-aaaa02", 1931.8)}}
	b := compare.Group{Name: "card=b", Docs: []*result.Document{run("20261121T080000Z-bbbb01", 300), run("20261121T090000Z-bbbb02", 310)}}
	cmp, err := compare.New([]compare.Group{a, b}, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs := append(append([]*result.Document{}, a.Docs...), b.Docs...)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, docs, cmp, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "1384.7 ± 773.7") {
		t.Fatal("table has no 1384.7 ± 773.7 cell")
	}
	chart := page[strings.Index(page, `data-chart="sweep-read"`):]
	if !strings.Contains(chart, "card=a, read 4 KiB: 1384.7 MiB/s (mean of 2 runs ± 773.7 MiB/s, standard deviation)") {
		t.Errorf("the comparison chart's 4 KiB read of card=a is not the mean of its runs")
	}
	if !regexp.MustCompile(`class="ci"[^>]* data-kind="stddev" data-low="610\.98\d*" data-high="2158\.4\d*"`).MatchString(chart) {
		t.Errorf("no error bar of ± the standard deviation around 1384.7")
	}
}
