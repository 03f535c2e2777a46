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

// TestShortNotesCollapse: steps too short for an interval share one
// note line per table, naming each step, in text and HTML alike; a small
// sweep once printed a line per step, 48 in two formats.
func TestShortNotesCollapse(t *testing.T) {
	d := sweepRun("20261121T060000Z-short1", []result.Target{usbFAT32, usbNTFS},
		[][]float64{{900, 950, 990, 995, 999, 1000}, {800, 850, 890, 895, 899, 900}})
	for _, f := range []string{"table", "markdown"} {
		var buf bytes.Buffer
		if err := Write(&buf, d, Options{Format: f}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if n := strings.Count(out, "too short for an interval"); n != 2 {
			t.Errorf("%s: %d too-short lines, want one per table:\n%s", f, n, out)
		}
		if !strings.Contains(out, "too short for an interval, which takes 0.80 s (6 figures): vfat 4k 0.28 s, vfat 64k 0.26 s,") {
			t.Errorf("%s: the collapsed note does not name the steps:\n%s", f, out)
		}
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*result.Document{d}, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "too short for an interval"); n != 2 {
		t.Errorf("html: %d too-short lines, want 2", n)
	}
}

// TestUnknownFarSide: an interrupted client never heard the server's
// count, so its receiver figures are unknown, not 0.00 Mbit/s.
func TestUnknownFarSide(t *testing.T) {
	d := netDoc()
	d.Status, d.Error = result.StatusInterrupted, "interrupted"
	for i := range d.Net.Sums {
		if d.Net.Sums[i].Direction == result.DirUp {
			d.Net.Sums[i].Receiver = result.NetFigure{}
		}
	}
	for i := range d.Net.Streams {
		if d.Net.Streams[i].Local == "sender" {
			d.Net.Streams[i].Receiver = result.NetFigure{}
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, d, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if regexp.MustCompile(`receiver +0\.00`).MatchString(out) || !regexp.MustCompile(`sum +up +receiver +unknown +unknown`).MatchString(out) {
		t.Errorf("an unknown receiver figure printed as a number:\n%s", out)
	}
}
