package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/thruput/thruput/internal/browsertest"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// TestLayoutInChromium renders pages in Debian's Chromium, driven over the
// DevTools protocol, and measures them as a reader sees them: no table,
// cell or paragraph wider than its box (a Targets table used to cut
// "rotational" short), and a legend on every chart of more than one
// series.
func TestLayoutInChromium(t *testing.T) {
	suitePage := func() []byte {
		var docs []*result.Document
		for _, name := range []string{"random", "io", "mark", "net", "net-udp"} {
			docs = append(docs, methodDocs()[name])
		}
		docs = append(docs, hostileDoc(), httpDoc())
		for i, d := range docs {
			d.ID = d.ID + "-" + string(rune('a'+i))
		}
		var buf bytes.Buffer
		if err := WriteHTML(&buf, docs, nil, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	cmpPage, _ := browserPage(t)
	dir := t.TempDir()
	bctx := browsertest.New(t, 1024, 800)
	const measure = `(() => {
		const over = [];
		for (const el of document.querySelectorAll('main, section, .tablewrap, table, td, th, p, li, dd, figure')) {
			if (el.scrollWidth > el.clientWidth + 1) over.push(el.tagName + ' ' + (el.className || '') + ': ' + el.textContent.trim().slice(0, 60));
		}
		const noLegend = [];
		for (const svg of document.querySelectorAll('svg.chart')) {
			if (Number(svg.dataset.series) > 1 && !svg.dataset.legend) noLegend.push(svg.dataset.chart);
			for (const name of (svg.dataset.legend || '').split('|').filter(Boolean)) {
				if (!svg.textContent.includes(name)) noLegend.push(svg.dataset.chart + ' lacks ' + name);
			}
		}
		return {over, noLegend, charts: document.querySelectorAll('svg.chart').length, height: document.body.scrollHeight};
	})()`
	for name, page := range map[string][]byte{"suite": suitePage(), "comparison": cmpPage} {
		path := filepath.Join(dir, name+".html")
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		type layout struct {
			Over, NoLegend []string
			Charts, Height int
		}
		if _, err := chromedp.Run(bctx, chromedp.Navigate("file://"+path)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[layout](measure))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Charts == 0 {
			t.Errorf("%s: no chart rendered", name)
		}
		if len(got.Over) > 0 {
			t.Errorf("%s: %d elements wider than their box:\n%s", name, len(got.Over), strings.Join(got.Over, "\n"))
		}
		if len(got.NoLegend) > 0 {
			t.Errorf("%s: charts without their legend: %v", name, got.NoLegend)
		}
		t.Logf("%s page: %d charts, %d px tall", name, got.Charts, got.Height)
	}
}

// chartSVG is a chart's drawing in a page; goldens keep its name and
// series and leave the drawing to the chart package's own tests.
var chartSVG = regexp.MustCompile(`(?s)<svg [^>]*data-chart="([^"]*)" data-series="([^"]*)" data-legend="([^"]*)">.*?</svg>`)

// TestHTMLGoldens holds the HTML of a suite page, a comparison and each
// method's page against golden files (go test -update to accept).
func TestHTMLGoldens(t *testing.T) {
	page := func(docs []*result.Document, cmp *compare.Comparison) []byte {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, docs, cmp, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		return chartSVG.ReplaceAll(buf.Bytes(), []byte(`<svg data-chart="$1" data-series="$2" data-legend="$3"/>`))
	}
	var suite []*result.Document
	for _, name := range []string{"random", "io", "mark", "net", "net-udp", "http"} {
		d := methodDocs()[name]
		if d == nil {
			continue
		}
		matchGolden(t, "html-"+name, page([]*result.Document{d}, nil))
		d.ID += "-" + name
		suite = append(suite, d)
	}
	matchGolden(t, "html-sweep", page([]*result.Document{sweepDoc()}, nil))
	matchGolden(t, "html-http", page([]*result.Document{httpDoc()}, nil))
	matchGolden(t, "html-suite", page(suite, nil))
	docs, cmp := browserInput(t)
	matchGolden(t, "html-comparison", page(docs, cmp))
}

// TestMatrix: fleet net's runs (labelled from= and to=) make a host x
// host heat map, each cell linked to its run and shaded by its rate.
func TestMatrix(t *testing.T) {
	var docs []*result.Document
	for i, p := range [][2]string{{"pi1", "pi2"}, {"pi2", "pi1"}, {"pi1", "pi3"}} {
		d := netDoc()
		d.ID = fmt.Sprintf("20261125T040000Z-%06d", i)
		d.Labels = map[string]string{"from": p[0], "to": p[1], "fleet": "f1"}
		docs = append(docs, d)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, docs, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"Network between hosts", `<th scope="row">pi1</th>`, `style="background:rgba(0,114,178,`, `href="#run-20261125T040000Z-000002"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "ZgotmplZ") {
		t.Error("the template refused a cell's style")
	}
}
