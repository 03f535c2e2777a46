package chart

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/result/resulttest"
)

// TestChartContext: every chart of every method says what it shows, the
// host, the path, filesystem and device measured (the server of a
// network test, the address of a download) and the date, in its title,
// in the text its SVG draws and in its PNG, so a chart pasted alone into
// a post still says it. Single-series charts once named none of these.
// The documents are the frozen ones internal/result keeps, as thruput
// wrote them.
func TestChartContext(t *testing.T) {
	for name, d := range resulttest.Frozen(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chartContext(t, name, d)
		})
	}
}

// pngContextInShort are the frozen documents whose PNG titles are checked
// under -short too.
var pngContextInShort = map[string]bool{"disk.sweep.json": true, "net.client.json": true}

// chartContext checks the charts of one frozen document, file f.
func chartContext(t *testing.T, f string, d *result.Document) {
	// What the file says, read by hand from it: the host, the day,
	// and what was measured.
	want := []string{d.Host.Hostname, d.StartedAt.UTC().Format("2006-01-02")}
	for _, tg := range d.Targets {
		want = append(want, tg.Path)
		if tg.FSType != "" {
			want = append(want, tg.FSType)
		}
		if tg.Device != "" {
			want = append(want, tg.Device)
		}
	}
	switch {
	case d.Net != nil:
		want = append(want, d.Net.Parameters.Server)
	case d.HTTP != nil:
		// The address without its scheme, which says nothing.
		_, addr, _ := strings.Cut(d.HTTP.Parameters.URL, "://")
		want = append(want, addr)
	}
	charts, err := For([]*result.Document{d}, nil, "")
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	if len(charts) == 0 {
		t.Fatalf("%s: no chart", f)
	}
	for i, c := range charts {
		name := f + " " + c.Name
		for _, w := range want {
			if w == "" {
				t.Fatalf("%s: the document names no host, date or subject", name)
			}
			if !strings.Contains(c.Title, w) {
				t.Errorf("%s: title %q does not name %q", name, c.Title, w)
			}
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		drawn := drawnText(t, svg)
		for _, w := range want {
			if !strings.Contains(drawn, w) {
				t.Errorf("%s: the SVG's drawn text %q does not name %q", name, drawn, w)
			}
		}
		// A PNG holds no text to read back: its title must take
		// more lines than the same chart's without the context. One
		// chart a document: the PNG draws the same plot as the SVG.
		// Under -short, one disk and one network document: the title
		// is drawn the same way for every method, and the PNGs are
		// most of this test's time.
		if i > 0 || testing.Short() && !pngContextInShort[f] {
			continue
		}
		full, err := c.PNG()
		if err != nil {
			t.Fatal(err)
		}
		bare := *c
		p := *c.plot
		bare.plot = &p
		bare.plot.Title.Text = strings.SplitN(c.Title, "\n", 2)[0]
		without, err := bare.PNG()
		if err != nil {
			t.Fatal(err)
		}
		if inkRows(t, full) <= inkRows(t, without) {
			t.Errorf("%s: the PNG draws no more title lines with its context than without", name)
		}
	}
}

// drawnText is the text an SVG draws, its <text> elements joined by spaces
// (the title wraps over several).
func drawnText(t *testing.T, svg []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []string
	in := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			in = e.Name.Local == "text"
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				out = append(out, string(e))
			}
		}
	}
	return strings.Join(out, " ")
}

// inkRows counts the rows of a PNG's top third holding dark pixels: the
// lines of the title.
func inkRows(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Min.Y+r.Dy()/3; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr+cg+cb < 3*0x4000 {
				n++
				break
			}
		}
	}
	return n
}
