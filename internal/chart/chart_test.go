package chart

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"

	"github.com/thruput/thruput/internal/fstest"
)

func init() { fstest.RoomyHeap() }

func doc(method string) *result.Document {
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	return &result.Document{
		FormatVersion: result.FormatVersion, ID: "20261121T060000Z-123456", Method: result.Method(method),
		StartedAt: t0, EndedAt: t0.Add(time.Minute), Status: result.StatusOK,
		Host:    result.Host{Hostname: "pi4"},
		Targets: []result.Target{{Path: "/mnt/ssd", FSType: "ext4"}},
	}
}

// sweepDoc has two targets, writes and reads at three block sizes, one
// read missing and the fast target a hundred times the slow one.
func sweepDoc() *result.Document {
	d := doc("disk.sweep")
	d.Targets = []result.Target{{Path: "/media/ext4", FSType: "ext4"}, {Path: "/tmp", FSType: "tmpfs"}}
	var steps []result.SweepStep
	for ti, scale := range []float64{1, 120} {
		for _, bs := range []int64{8, 4096, 1 << 20} {
			for _, ph := range []string{result.PhaseWrite, result.PhaseRead} {
				if ti == 1 && bs == 1<<20 && ph == result.PhaseRead {
					continue
				}
				mib := scale * float64(bs) / (float64(bs) + 512) * 22
				steps = append(steps, result.SweepStep{Target: ti, Phase: ph, BlockSize: bs, MiBPerSec: mib, Cache: result.CacheCold})
			}
		}
	}
	d.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: []int64{8, 4096, 1 << 20}, Write: true, Read: true}, Steps: steps}
	return d
}

func markDoc() *result.Document {
	d := doc("disk.mark")
	d.Mark = &result.Mark{MarkParameters: result.MarkParameters{Size: 1 << 30, DurationNs: 5e9}}
	for i, p := range []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"} {
		for j, ph := range []string{"read", "write"} {
			mb := 400.0 / float64(i+1) / float64(j+1)
			d.Mark.Results = append(d.Mark.Results, result.MarkResult{Preset: p, Phase: ph, MBPerSec: mb, MiBPerSec: mb / 1.048576, IOPS: mb * 1e6 / 4096})
		}
	}
	return d
}

func ioDoc() *result.Document {
	d := doc("disk.io")
	run := func(iops float64) result.IORun {
		return result.IORun{ElapsedNs: 5e9, Read: &result.IODirection{IOPS: iops, MiBPerSec: iops / 256},
			Write: &result.IODirection{IOPS: iops / 2, MiBPerSec: iops / 512}}
	}
	d.IO = &result.IO{Parameters: result.IOParameters{RW: "randrw", BlockSize: 4096, IODepth: 64, Jobs: 1}, Engine: "io_uring",
		Runs: []result.IORun{run(10100), run(10050)}}
	return d
}

// netDoc is TCP both ways with two streams each, over three intervals.
func netDoc() *result.Document {
	d := doc("net.client")
	d.Targets = nil
	n := &result.Net{Parameters: result.NetParameters{Role: "client", Protocol: "tcp", Streams: 2, Direction: "bidir"}}
	for k := range 3 {
		iv := result.NetInterval{StartNs: int64(k) * 1e9, EndNs: int64(k+1) * 1e9, Omitted: k == 0}
		for i, id := range []int64{1, 3, 4, 5} {
			dir := result.DirUp
			if i >= 2 {
				dir = result.DirDown
			}
			iv.Streams = append(iv.Streams, result.NetIntervalFlow{ID: id, Direction: dir, BitsPerSecond: 40e6 + float64(i*k)*1e6})
		}
		iv.Sums = []result.NetIntervalFlow{{Direction: result.DirUp, BitsPerSecond: 81e6 + float64(k)*1e6}, {Direction: result.DirDown, BitsPerSecond: 85e6 + float64(k)*2e6}}
		n.Intervals = append(n.Intervals, iv)
	}
	d.Net = n
	return d
}

func httpDoc() *result.Document {
	d := doc("net.http")
	d.Targets = nil
	h := &result.HTTP{Parameters: result.HTTPParameters{URL: "http://192.168.1.10:8080/big", WindowNs: 1e9}}
	for r := range 2 {
		var ws []result.HTTPWindow
		for w := range 4 {
			ws = append(ws, result.HTTPWindow{StartNs: int64(w) * 1e9, EndNs: int64(w+1) * 1e9, MiBPerSec: 10 + float64(r+w)/4})
		}
		h.Runs = append(h.Runs, result.HTTPRun{StatusCode: 200, Windows: ws})
	}
	d.HTTP = h
	return d
}

// svgCheck parses an SVG, counts its data points and returns their titles;
// it fails on anything that would make the browser fetch something.
func svgCheck(t *testing.T, name string, b []byte) []string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("<svg ")) {
		t.Errorf("%s: does not start with <svg: %.40q", name, b)
	}
	for _, bad := range []string{"url(", "href", "@import", "<image", "<script", "@font-face", "Liberation Serif"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("%s: SVG contains %q", name, bad)
		}
	}
	if n := bytes.Count(b, []byte("://")); n != bytes.Count(b, []byte(`xmlns="http://www.w3.org/2000/svg"`)) {
		t.Errorf("%s: SVG names a URL other than its namespace", name)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var titles []string
	inPoint, depth := false, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG does not parse as XML: %v", name, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 && e.Name.Local != "svg" {
				t.Errorf("%s: root element %s", name, e.Name.Local)
			}
			for _, a := range e.Attr {
				if a.Name.Local == "class" && a.Value == "point" {
					inPoint = true
					titles = append(titles, "")
				}
			}
		case xml.CharData:
			if inPoint {
				titles[len(titles)-1] += string(e)
			}
		case xml.EndElement:
			depth--
			if e.Name.Local == "path" {
				inPoint = false
			}
		}
	}
	return titles
}

func pngCheck(t *testing.T, name string, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: PNG does not decode: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < 900 || r.Dy() < 500 || r.Dx() < r.Dy() {
		t.Errorf("%s: PNG is %v, want about 945x531", name, r)
	}
	if oneColour(img) {
		t.Errorf("%s: PNG is blank", name)
	}
}

func oneColour(img image.Image) bool {
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		docs   []*result.Document
		charts map[string]int // chart name → data points
	}{
		// Writes at 3 sizes on 2 targets, reads at 3 and 2.
		{"sweep", []*result.Document{sweepDoc()}, map[string]int{"sweep-write": 6, "sweep-read": 5}},
		{"mark", []*result.Document{markDoc()}, map[string]int{"mark-mibps": 8, "mark-iops": 8}},
		{"io", []*result.Document{ioDoc()}, map[string]int{"io-mibps": 2, "io-iops": 2}},
		// 4 streams and 2 sums over 3 intervals.
		{"net", []*result.Document{netDoc()}, map[string]int{"net": 18}},
		{"http", []*result.Document{httpDoc()}, map[string]int{"http": 8}},
		// Two runs: every figure twice; net adds a chart of both runs' sums.
		{"sweep2", []*result.Document{sweepDoc(), sweepDoc()}, map[string]int{"sweep-write": 12, "sweep-read": 10}},
		{"mark2", []*result.Document{markDoc(), markDoc()}, map[string]int{"mark-mibps": 16, "mark-iops": 16}},
		{"net2", []*result.Document{netDoc(), netDoc()}, map[string]int{"net": 12, "net-a": 18, "net-b": 18}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			names := []string{"a", "b"}[:len(tc.docs)]
			charts, err := For(tc.docs, names, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(charts) != len(tc.charts) {
				t.Errorf("%d charts, want %d", len(charts), len(tc.charts))
			}
			for _, c := range charts {
				want, ok := tc.charts[c.Name]
				if !ok {
					t.Errorf("unexpected chart %q", c.Name)
					continue
				}
				svg, err := c.SVG()
				if err != nil {
					t.Fatal(err)
				}
				titles := svgCheck(t, c.Name, svg)
				if len(titles) != want {
					t.Errorf("%s: %d data points in the SVG, want %d", c.Name, len(titles), want)
				}
				for _, ti := range titles {
					if !strings.ContainsAny(ti, "0123456789") {
						t.Errorf("%s: point title %q has no figure", c.Name, ti)
					}
				}
				p, err := c.PNG()
				if err != nil {
					t.Fatal(err)
				}
				pngCheck(t, c.Name, p)
				if dir := os.Getenv("THRUPUT_CHART_OUT"); dir != "" {
					_ = os.WriteFile(filepath.Join(dir, tc.name+"-"+c.Name+".svg"), svg, 0o644)
					_ = os.WriteFile(filepath.Join(dir, tc.name+"-"+c.Name+".png"), p, 0o644)
				}
			}
		})
	}
}

func TestForErrors(t *testing.T) {
	if _, err := For([]*result.Document{sweepDoc(), markDoc()}, nil, ""); err == nil {
		t.Error("For drew a sweep and a mark together")
	}
	if _, err := For([]*result.Document{sweepDoc()}, []string{"a", "b"}, ""); err == nil {
		t.Error("For accepted two names for one document")
	}
	empty := doc("disk.sweep")
	if cs, err := For([]*result.Document{empty}, nil, ""); err != nil || len(cs) != 0 {
		t.Errorf("a document without figures gave %d charts, %v", len(cs), err)
	}
}

// TestSVGEscapes: names come from the user and documents; they must not
// break out of the SVG.
func TestSVGEscapes(t *testing.T) {
	d := markDoc()
	cs, err := For([]*result.Document{d, markDoc()}, []string{`<b>"x"&y</b>`, "z"}, "")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := cs[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte("<b>")) {
		t.Error("a name went into the SVG unescaped")
	}
	svgCheck(t, "escape", svg)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"fs=ext4 /mnt/x": "fs-ext4-mnt-x", "20261121T060000Z-abc": "20261121t060000z-abc", "//": "run", "Ünï": "n"} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestForEdges: figures that trip a plotting library up, a single block
// size of one byte (a log axis around it) and nothing but zeros, still
// draw.
func TestForEdges(t *testing.T) {
	d := doc("disk.sweep")
	d.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: []int64{1}, Write: true},
		Steps: []result.SweepStep{{Phase: result.PhaseWrite, BlockSize: 1}}}
	n := netDoc()
	n.Net.Intervals = nil
	for _, docs := range [][]*result.Document{{d}, {n}} {
		cs, err := For(docs, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			svg, err := c.SVG()
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if got := len(svgCheck(t, c.Name, svg)); got != 1 {
				t.Errorf("%s: %d points, want 1", c.Name, got)
			}
		}
		if docs[0] == n && len(cs) != 0 {
			t.Errorf("a net run without intervals gave %d charts", len(cs))
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 2526.5, "0 500 1000 1500 2000 2500"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 0.3, "0 0.05 0.1 0.15 0.2 0.25 0.3"},
		{10, 95, "20 40 60 80"},
	} {
		var labels []string
		for _, tk := range niceTicks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("niceTicks(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// TestShortDownloads: transfers too short for a time axis are drawn as
// each repeat's rate and time to first byte.
func TestShortDownloads(t *testing.T) {
	d := httpDoc()
	for i := range d.HTTP.Runs {
		d.HTTP.Runs[i].Windows = d.HTTP.Runs[i].Windows[:1]
		d.HTTP.Runs[i].MiBPerSec, d.HTTP.Runs[i].Bytes, d.HTTP.Runs[i].TTFBNs = 11.2, 100<<20, int64(3e6+i*1e6)
	}
	charts, err := For([]*result.Document{d}, []string{"a"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		if _, err := c.SVG(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if strings.Join(names, " ") != "http-mibps http-ttfb" {
		t.Errorf("charts %v, want the rate and TTFB per repeat", names)
	}
}

// TestErrorBars: repeats draw their spread over the bar, and the axis
// holds the highest repeat.
func TestErrorBars(t *testing.T) {
	d := ioDoc()
	if len(d.IO.Runs) < 2 {
		t.Fatalf("ioDoc has %d runs; the test needs repeats", len(d.IO.Runs))
	}
	charts, err := For([]*result.Document{d}, []string{"a"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		// An error bar per direction, each the range of the repeats.
		if n := strings.Count(string(svg), `class="ci"`); n != 2 || strings.Count(string(svg), `data-kind="range"`) != 2 {
			t.Errorf("%s: %d error bars, want the 2 directions' ranges:\n%s", c.Name, n, svg)
		}
	}
}

// withInterval is a 95 % interval of ±rel around bps bytes per second,
// with a cliff from twice the rate when cliff is set.
func withInterval(bps, rel float64, cliff bool) *result.Interval {
	iv := &result.Interval{Mean: bps, HalfWidth: rel * bps, Relative: rel, Windows: 40, WindowNs: 1e8, Converged: true}
	if cliff {
		iv.Cliff = &result.Cliff{AtNs: 15e8, AtBytes: 64 << 20, Before: 2 * bps, After: bps}
		iv.Sustained = true
	}
	return iv
}

// ciAttrs are an SVG's error bars and cliff lines, as their data
// attributes and titles say them.
var (
	ciPath    = regexp.MustCompile(`<path class="ci" [^>]*data-kind="(\w+)" data-low="([^"]*)" data-high="([^"]*)"><title>([^<]*)</title>`)
	cliffPath = regexp.MustCompile(`<path class="cliff" [^>]*data-(?:before|at)="([^"]*)"><title>([^<]*)</title>`)
)

// withIntervals are a run of every method whose figures carry 95 %
// intervals, some with a cliff: io's of a single run, http's of repeats
// long enough for a time axis, short's too short for one.
type withIntervals struct{ mark, io, random, net, http, short, sweep *result.Document }

func intervalDocs() withIntervals {
	mark := markDoc()
	for i := range mark.Mark.Results {
		r := &mark.Mark.Results[i]
		r.Interval = withInterval(r.MiBPerSec*(1<<20), 0.02, i == 0)
	}
	io := ioDoc()
	io.IO.Runs = io.IO.Runs[:1]
	rd, wr := io.IO.Runs[0].Read, io.IO.Runs[0].Write
	iv := withInterval((rd.MiBPerSec+wr.MiBPerSec)*(1<<20), 0.01, true)
	rd.Interval, wr.Interval = iv, iv
	random := doc("disk.random")
	random.Random = &result.Random{Parameters: result.RandomParameters{Mode: "rndrd", BlockSize: 4096}, Reads: 1000, ReadsPerSec: 256, ReadMiBPerSec: 1,
		Interval: withInterval(1<<20, 0.03, false)}
	net := netDoc()
	net.Net.Parameters.OmitNs = 1e9
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
		h.Interval = withInterval(10*(1<<20), 0.05, false)
	}
	sweep := sweepDoc()
	for i := range sweep.Sweep.Steps {
		s := &sweep.Sweep.Steps[i]
		s.Interval = withInterval(s.MiBPerSec*(1<<20), 0.02, i == 1)
	}
	return withIntervals{mark, io, random, net, http, short, sweep}
}

// TestIntervalBars: every method's chart draws a figure's 95 % interval
// as an error bar around it and a cliff as a dashed line, each with its
// figures in data attributes and its words in a title.
func TestIntervalBars(t *testing.T) {
	d := intervalDocs()
	mark, io, random, net, http, short, sweep := d.mark, d.io, d.random, d.net, d.http, d.short, d.sweep
	for _, x := range []struct {
		doc *result.Document
		// intervals and cliffs per chart, by name
		intervals, cliffs map[string]int
		// words a title of each kind holds
		ciWords, cliffWords string
	}{
		{mark, map[string]int{"mark-mibps": 8, "mark-iops": 8}, map[string]int{"mark-mibps": 1, "mark-iops": 1}, "(95 % interval)", "read, SEQ1M Q8T1: "},
		{io, map[string]int{"io-mibps": 2, "io-iops": 2}, map[string]int{"io-mibps": 2, "io-iops": 2}, "(95 % interval)", "for the first 64.0 MiB, then"},
		{random, map[string]int{"random-mibps": 1, "random-iops": 1}, map[string]int{}, " (95 % interval)", ""},
		// A network test's ± is the table's, not drawn on its last
		// interval's point, where it read as that interval's spread.
		{net, map[string]int{"net": 0}, map[string]int{"net": 1}, "", "up, sum: 164.0 Mbit/s for the first 64.0 MiB, then 82.0 Mbit/s"},
		{http, map[string]int{"http": 2}, map[string]int{"http": 1}, "the download: 10.5 ±0.2 MiB/s (95 % interval)", "run 2: 21.0 MiB/s for the first 64.0 MiB, then 10.5 MiB/s"},
		{short, map[string]int{"http-mibps": 2, "http-ttfb": 0}, map[string]int{}, "10.0 MiB/s, ±0.50 MiB/s (95 % interval)", ""},
		{sweep, map[string]int{"sweep-write": 6, "sweep-read": 5}, map[string]int{"sweep-read": 1, "sweep-write": 0}, "±", "before the drop"},
	} {
		charts, err := For([]*result.Document{x.doc}, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range charts {
			b, err := c.SVG()
			if err != nil {
				t.Fatal(err)
			}
			svgCheck(t, c.Name, b)
			svg := string(b)
			cis, cliffs := ciPath.FindAllStringSubmatch(svg, -1), cliffPath.FindAllStringSubmatch(svg, -1)
			if len(cis) != x.intervals[c.Name] || len(cliffs) != x.cliffs[c.Name] {
				t.Errorf("%s: %d intervals and %d cliffs, want %d and %d", c.Name, len(cis), len(cliffs), x.intervals[c.Name], x.cliffs[c.Name])
			}
			for _, m := range cis {
				lo, _ := strconv.ParseFloat(m[2], 64)
				hi, _ := strconv.ParseFloat(m[3], 64)
				if m[1] != "interval" || !(lo > 0 && hi > lo) || !strings.Contains(m[4], x.ciWords) {
					t.Errorf("%s: error bar %q", c.Name, m[0])
				}
			}
			for _, m := range cliffs {
				if v, _ := strconv.ParseFloat(m[1], 64); !(v > 0) || !strings.Contains(m[2], x.cliffWords) {
					t.Errorf("%s: cliff %q", c.Name, m[0])
				}
			}
		}
	}
}

// TestRewritePaths: each <path d="…" style="…"/> vgsvg writes, whatever
// the space before its end, is handed over with its d and style, in
// order; anything else, and an element the function keeps, is left as
// it is.
func TestRewritePaths(t *testing.T) {
	swap := func(d, style []byte) []byte {
		if string(style) == "keep" {
			return nil
		}
		return []byte("[" + string(d) + "|" + string(style) + "]")
	}
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{`<path d="M0,0" style="s" />`, "[M0,0|s]"},
		{"a<path d=\"M1\" style=\"s\"/>b<path d=\"M2\" style=\"t\"\n\t/>c", "a[M1|s]b[M2|t]c"},
		{`<path d="M1" style="keep" /><path d="M2" style="s" />`, `<path d="M1" style="keep" />[M2|s]`},
		{`<path d="M1" style="s"></path>`, `<path d="M1" style="s"></path>`},
		{`<path d="M1" fill="s" />`, `<path d="M1" fill="s" />`},
		{`<path class="point" d="M1" style="s" />`, `<path class="point" d="M1" style="s" />`},
		{`<path d="M1" style="s`, `<path d="M1" style="s`},
		{`<path d="M1`, `<path d="M1`},
	} {
		if got := string(rewritePaths([]byte(c.in), swap)); got != c.want {
			t.Errorf("rewritePaths(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
