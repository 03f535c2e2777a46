package chart

import (
	"fmt"
	"testing"
	"time"
)

// TestManySeries: a chart draws every series it is given, 1 to 20 of
// them, as lines and as bars, in SVG and PNG; each series' markers are
// all there. The seventh palette colour once escaped the SVG's marker
// count and a trend of seven hosts answered 500.
func TestManySeries(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	for n := 1; n <= 20; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel() // drawing PNGs is most of this package's time
			manySeries(t, t0, n, !testing.Short() || pngInShort(n))
		})
	}
}

// pngInShort says which series counts draw a PNG under -short too: the
// PNG is what takes this test's time, and it takes the same path for
// every count but one series, the whole palette, the palette begun
// again, and the most. Every count draws its SVG, whose markers are
// counted, either way.
func pngInShort(n int) bool { return n == 1 || n == len(palette) || n == len(palette)+1 || n == 20 }

// manySeries draws a trend and a bar chart of n series as SVG, and as PNG
// with withPNG.
func manySeries(t *testing.T, t0 time.Time, n int, withPNG bool) {
	var lines []TrendLine
	var bs []*bars
	for i := range n {
		l := TrendLine{Name: fmt.Sprintf("host %d", i)}
		b := &bars{Name: fmt.Sprintf("run %d", i)}
		for k := range 3 {
			v := float64(10*i + k + 1)
			l.Points = append(l.Points, TrendPoint{Time: t0.Add(time.Duration(k) * time.Hour), Value: v, Label: fmt.Sprint(v)})
			b.Values = append(b.Values, v)
			b.Labels = append(b.Labels, fmt.Sprint(v))
		}
		lines = append(lines, l)
		bs = append(bs, b)
	}
	for _, c := range []*Chart{
		Trend("trend", "Trend", "MiB/s", lines),
		barChart("bars", "Bars", "MiB/s", []string{"a", "b", "c"}, bs),
	} {
		name := fmt.Sprintf("%s of %d", c.Name, n)
		svg, err := c.SVG()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := len(svgCheck(t, name, svg)); got != 3*n {
			t.Errorf("%s: %d points, want %d", name, got, 3*n)
		}
		if !withPNG {
			continue
		}
		png, err := c.PNG()
		if err != nil {
			t.Fatalf("%s: PNG: %v", name, err)
		}
		pngCheck(t, name, png)
	}
}
