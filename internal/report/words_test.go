package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/thruput/thruput/internal/browsertest"
	"github.com/thruput/thruput/internal/result"
)

// TestNoBrokenWords opens a page of every method and a comparison in
// Chromium at a lab screen's 1400 px and a laptop's 800 px: no word of a
// table is split across lines. With THRUPUT_SCREENSHOTS=DIR it leaves a
// screenshot of each page and width there, to look at.
func TestNoBrokenWords(t *testing.T) {
	var docs []*result.Document
	for _, name := range []string{"random", "io", "mark", "net", "net-udp"} {
		docs = append(docs, methodDocs()[name])
	}
	docs = append(docs, sweepDoc(), httpDoc(), hostileDoc())
	for i, d := range docs {
		d.ID = d.ID + "-" + string(rune('a'+i))
	}
	var suite bytes.Buffer
	if err := WriteHTML(&suite, docs, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	cmpPage, _ := browserPage(t)
	dir := t.TempDir()
	bctx := browsertest.New(t, 1400, 900)
	for name, page := range map[string][]byte{"every-method": suite.Bytes(), "comparison": cmpPage} {
		path := filepath.Join(dir, name+".html")
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		browsertest.HeaderWords(t, bctx, "file://"+path, name)
	}
}
