package chart

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// unitDocs is a run of every method with intervals, a cliff and repeats'
// spreads somewhere, so every kind of rate label a chart writes is drawn.
func unitDocs() []*result.Document {
	sweep := sweepDoc()
	for i := range sweep.Sweep.Steps {
		s := &sweep.Sweep.Steps[i]
		s.Interval = withInterval(s.MiBPerSec*(1<<20), 0.02, i == 1)
	}
	mark := markDoc()
	for i := range mark.Mark.Results {
		r := &mark.Mark.Results[i]
		r.Interval = withInterval(r.MiBPerSec*(1<<20), 0.02, i == 0)
	}
	io := ioDoc()
	one := ioDoc()
	one.IO.Runs = one.IO.Runs[:1]
	iv := withInterval(3*(1<<20), 0.01, true)
	one.IO.Runs[0].Read.Interval, one.IO.Runs[0].Write.Interval = iv, iv
	random := doc("disk.random")
	random.Random = &result.Random{Parameters: result.RandomParameters{Mode: "rndrw", BlockSize: 4096}, Reads: 1000, ReadsPerSec: 256, ReadMiBPerSec: 1,
		Writes: 500, WritesPerSec: 128, WriteMiBPerSec: 0.5, Interval: withInterval(1.5*(1<<20), 0.03, true)}
	net := netDoc()
	net.Net.Sums = []result.NetSum{
		{Direction: result.DirUp, Receiver: result.NetFigure{BitsPerSecond: 82e6}, Interval: withInterval(82e6/8, 0.02, true)},
		{Direction: result.DirDown, Receiver: result.NetFigure{BitsPerSecond: 87e6}, Interval: withInterval(87e6/8, 0.02, false)}}
	http := httpDoc()
	for i := range http.HTTP.Runs {
		h := &http.HTTP.Runs[i]
		h.MiBPerSec, h.Bytes = 10.5, 42<<20
		h.Interval = withInterval(10.5*(1<<20), 0.02, i == 1)
	}
	short := httpDoc()
	for i := range short.HTTP.Runs {
		h := &short.HTTP.Runs[i]
		h.Windows, h.MiBPerSec, h.Bytes = h.Windows[:1], 10, 10<<20
		h.Interval = withInterval(10*(1<<20), 0.05, true)
	}
	return []*result.Document{sweep, mark, io, one, random, net, http, short}
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
