package chart

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/thruput/thruput/internal/result"
)

// svgText is a <text> vgsvg wrote: the rotation of the group it is in,
// its start on the baseline in that frame, its size and its words.
var svgText = regexp.MustCompile(`(?:<g transform="rotate\(([-\d.]+)\)">\s*)?<text x="([-\d.e]+)" y="([-\d.e]+)" transform="scale\(1, -1\)"\s*style="[^"]*font-size:([\d.]+)px">([^<]*)</text>`)

// box is a text's extent in the frame of its rotation.
type box struct {
	rot, x0, x1, y0, y1 float64
	// cx is its centre in the font gonum measured it with.
	cx   float64
	text string
}

// xTickBoxes measures the x tick labels of c's SVG with the font gonum
// lays them out with, widened by a fifth as draw widens the legend for a
// browser's fallback font.
func xTickBoxes(t *testing.T, c *Chart) []box {
	t.Helper()
	var want []string
	for _, tk := range c.plot.X.Tick.Marker.Ticks(c.plot.X.Min, c.plot.X.Max) {
		want = append(want, strings.Split(tk.Label, "\n")...)
	}
	b, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	var out []box
	for _, m := range svgText.FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(want, m[5]) {
			continue
		}
		var v [4]float64
		for i, s := range []string{m[1], m[2], m[3], m[4]} {
			if s == "" {
				continue
			}
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		face := font.DefaultCache.Lookup(sansFont, vg.Length(v[3]))
		ext := face.Extents()
		w := float64(face.Width(m[5]))
		out = append(out, box{rot: v[0], x0: v[1], x1: v[1] + w*6/5, y0: v[2] - float64(ext.Ascent), y1: v[2] + float64(ext.Descent), cx: v[1] + w/2, text: m[5]})
	}
	return out
}

// TestTickLabelsApart: no two x tick labels of a chart overlap, for a
// sweep of 18 block sizes, one of 20 runs, the disk mark's presets for
// 20 runs and a network chart of 20 runs' sums.
func TestTickLabelsApart(t *testing.T) {
	sweep := doc("disk.sweep")
	var bs []int64
	var steps []result.SweepStep
	for i := range 18 {
		bs = append(bs, int64(512)<<i)
		for _, ph := range []string{result.PhaseWrite, result.PhaseRead} {
			steps = append(steps, result.SweepStep{Phase: ph, BlockSize: bs[i], MiBPerSec: 20 + float64(i)})
		}
	}
	sweep.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: bs, Write: true, Read: true}, Steps: steps}
	many := func(d *result.Document) []*result.Document {
		var out []*result.Document
		for i := range 20 {
			x := *d
			x.ID = fmt.Sprintf("run-%02d", i)
			x.StartedAt = d.StartedAt.Add(time.Duration(i) * time.Hour)
			out = append(out, &x)
		}
		return out
	}
	for name, docs := range map[string][]*result.Document{
		"sweep of 18 sizes": {sweep}, "20 sweeps": many(sweep), "20 marks": many(markDoc()), "20 network tests": many(netDoc()),
	} {
		charts, err := For(docs, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range charts {
			boxes := xTickBoxes(t, c)
			if len(boxes) < 2 {
				t.Errorf("%s, %s: %d x tick labels found", name, c.Name, len(boxes))
			}
			for i, a := range boxes {
				for _, b := range boxes[i+1:] {
					// The lines of one label share their centre.
					oneLabel := math.Abs(a.cx-b.cx) < 0.5
					if a.rot == b.rot && !oneLabel && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
						t.Errorf("%s, %s: tick labels %q and %q overlap: %v %v", name, c.Name, a.text, b.text, a, b)
					}
				}
			}
		}
	}
}
