package chart

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// unitDocs is a run of every method with intervals, a cliff and repeats'
// spreads somewhere, so every kind of rate label a chart writes is drawn.
func unitDocs() []*result.Document {
	d := intervalDocs()
	return []*result.Document{d.sweep, d.mark, ioDoc(), d.io, d.random, d.net, d.http, d.short}
}

// rateUnits are the unit names a chart may write.
var rateUnits = []string{"MiB/s", "MB/s", "Mbit/s"}

// TestUnits: with each --units, every method's charts, of one run and of
// columns of repeats, name only the unit it picks on their axes, titles
// and tooltips: "" and "both" the method's own, which its tables print
// first (Mbit/s for a network test, MiB/s for the rest).
func TestUnits(t *testing.T) {
	for _, units := range []string{"", "mib", "mb", "mbit", "both"} {
		for _, d := range unitDocs() {
			want := UnitOf(units, drawerOf(d).native).Name
			if (units == "" || units == "both") && want != map[bool]string{true: "Mbit/s", false: "MiB/s"}[d.Net != nil] {
				t.Errorf("%s --units %q: drawn in %s", d.Method, units, want)
			}
			single, err := For([]*result.Document{d}, nil, units)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := ForColumns([][]*result.Document{{d, d}, {d}}, []string{"a", "b"}, units)
			if err != nil {
				t.Fatal(err)
			}
			drawn := 0
			for _, c := range append(single, cols...) {
				b, err := c.SVG()
				if err != nil {
					t.Fatal(err)
				}
				svg := string(b)
				// Counts and times have axes of their own.
				if count := c.Name == "http-ttfb" || strings.HasSuffix(c.Name, "-iops"); !count {
					drawn++
					if !strings.Contains(svg, ">"+want+"<") && !strings.Contains(svg, ">"+want+" (log scale)<") {
						t.Errorf("%s --units %q: %s has no %s axis", d.Method, units, c.Name, want)
					}
				}
				for _, u := range rateUnits {
					if u != want && strings.Contains(svg, u) {
						i := strings.Index(svg, u)
						t.Errorf("%s --units %q: %s names %s: %q", d.Method, units, c.Name, u, svg[max(0, i-80):i+len(u)])
					}
				}
			}
			if drawn == 0 {
				t.Errorf("%s: no rate chart", d.Method)
			}
		}
	}
}

// TestUnitFigures: a figure is converted, not relabelled: 22 MiB/s is
// 23.1 MB/s and 184.5 Mbit/s in a sweep's tooltip.
func TestUnitFigures(t *testing.T) {
	d := doc("disk.sweep")
	d.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: []int64{4096}, Write: true},
		Steps: []result.SweepStep{{Phase: result.PhaseWrite, BlockSize: 4096, MiBPerSec: 22}}}
	for units, want := range map[string]string{"mib": "22.0 MiB/s", "mb": "23.1 MB/s", "mbit": "184.5 Mbit/s"} {
		cs, err := For([]*result.Document{d}, nil, units)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cs[0].SVG()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("--units %s: no %q in the tooltip", units, want)
		}
	}
}
