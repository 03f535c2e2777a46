package chart

import (
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

var pointFill = regexp.MustCompile(`class="point" d="[^"]*" style="fill:(#[0-9A-Fa-f]{6})"><title>([^<]*)</title>`)

// TestReadWriteColours: read and write bars are drawn in colours of their
// own, on a chart of one series (disk io's read and write of one run) as
// on disk mark's, where read and write are two series. Both once drew
// every bar in one colour.
func TestReadWriteColours(t *testing.T) {
	for _, c := range []struct {
		name  string
		doc   *result.Document
		chart string
	}{
		{"io", ioDoc(), "io-mibps"},
		{"mark", markDoc(), "mark-mibps"},
	} {
		charts, err := For([]*result.Document{c.doc}, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		var svg []byte
		for _, ch := range charts {
			if ch.Name == c.chart {
				if svg, err = ch.SVG(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if svg == nil {
			t.Fatalf("%s: no chart %s", c.name, c.chart)
		}
		fills := map[string]map[string]bool{}
		for _, m := range pointFill.FindAllStringSubmatch(string(svg), -1) {
			phase := "read"
			if strings.Contains(m[2], "write") {
				phase = "write"
			}
			if fills[phase] == nil {
				fills[phase] = map[string]bool{}
			}
			fills[phase][m[1]] = true
		}
		if len(fills["read"]) == 0 || len(fills["write"]) == 0 {
			t.Fatalf("%s: bars of read %v and of write %v", c.name, fills["read"], fills["write"])
		}
		for f := range fills["read"] {
			if fills["write"][f] {
				t.Errorf("%s: a read bar and a write bar share the colour %s", c.name, f)
			}
		}
	}
}
