package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// rateFigure is a figure with its rate unit, as any page prints it.
// A unit alone heads a column of figures.
var rateFigure = regexp.MustCompile(`(?:\d+(?:\.\d+)? )?\b(MiB/s|MB/s|Mbit/s)`)

// strayFigure is the first figure of page, or column headed by a unit,
// in a unit other than want (or also, a second unit the page prints
// beside it), with the text before it, "" when there is none. Mbit/s is the unit links are sold in, so a
// Mbit/s figure is let through where a link's ceiling is given: after
// the ceiling in the page's unit ("429.2 MiB/s, 3600 Mbit/s"), beside a
// figure under --units both ("2.3 MiB/s (19.3 Mbit/s)"), and in a link's
// name ("Ethernet 1000 Mbit/s") among docs' bottlenecks.
func strayFigure(page, want, also string, docs ...*result.Document) string {
	var links []string
	for _, d := range docs {
		for _, b := range d.Bottlenecks {
			for _, h := range b.Hops {
				if strings.Contains(h.Link, "Mbit/s") {
					links = append(links, h.Link)
				}
			}
		}
	}
	inLink := func(at int) bool {
		for _, l := range links {
			for i := 0; ; {
				j := strings.Index(page[i:], l)
				if j < 0 {
					break
				}
				if i+j <= at && at < i+j+len(l) {
					return true
				}
				i += j + 1
			}
		}
		return false
	}
	for _, m := range rateFigure.FindAllStringSubmatchIndex(page, -1) {
		unit := page[m[2]:m[3]]
		if unit == want || unit == also {
			continue
		}
		before := page[max(0, m[0]-20):m[0]]
		if unit == "Mbit/s" && (strings.HasSuffix(before, want+", ") || strings.HasSuffix(before, want+" (") || inLink(m[0])) {
			continue
		}
		return page[max(0, m[0]-80):m[1]]
	}
	return ""
}

// TestStorageUnits: every storage page, in every text format and in
// HTML (tables, verdicts, notes and charts), prints its rates in the unit
// --units names: mbit converts them, as mb does; both keeps MiB/s and
// gives each rate of a sentence its Mbit/s beside it. Links' ceilings
// are in Mbit/s besides, the unit links are sold in.
func TestStorageUnits(t *testing.T) {
	for _, name := range []string{"sweep", "random", "io", "mark"} {
		for units, want := range map[string]string{UnitsMiB: "MiB/s", UnitsMB: "MB/s", UnitsMbit: "Mbit/s", UnitsBoth: "MiB/s"} {
			pages := map[string]string{}
			for _, format := range []string{"table", "markdown"} {
				var buf bytes.Buffer
				if err := Write(&buf, readDoc(name), Options{Format: format, Units: units}); err != nil {
					t.Fatal(err)
				}
				pages[format] = buf.String()
			}
			var buf bytes.Buffer
			if err := WriteHTML(&buf, []*result.Document{readDoc(name)}, nil, HTMLOptions{Units: units}); err != nil {
				t.Fatal(err)
			}
			pages["html"] = buf.String()
			for format, page := range pages {
				if stray := strayFigure(page, want, "", readDoc(name)); stray != "" {
					t.Errorf("%s %s --units %s: a figure in another unit than %s: %q", name, format, units, want, stray)
				}
				if !strings.Contains(page, want) {
					t.Errorf("%s %s --units %s: no figure in %s", name, format, units, want)
				}
			}
		}
	}
}

// TestVerdictUnits: a storage verdict, kept in the document as it was
// written in MiB/s, is printed in Mbit/s with --units mbit and with its
// Mbit/s beside it with both, in the text and the HTML page.
func TestVerdictUnits(t *testing.T) {
	doc := readDoc("random")
	if !strings.HasPrefix(doc.Bottlenecks[0].Verdict, "2.3 MiB/s is only 6 %") {
		t.Fatalf("the fixture's verdict changed: %q", doc.Bottlenecks[0].Verdict)
	}
	for units, want := range map[string][]string{
		"":        {"2.3 MiB/s is only 6 %", "ceiling of 40.1 MiB/s at sda"},
		UnitsMB:   {"2.4 MB/s is only 6 %", "ceiling of 42.0 MB/s at sda"},
		UnitsMbit: {"19.3 Mbit/s is only 6 %", "ceiling of 336.4 Mbit/s at sda"},
		UnitsBoth: {"2.3 MiB/s (19.3 Mbit/s) is only 6 %", "ceiling of 40.1 MiB/s (336.4 Mbit/s) at sda"},
	} {
		var text, page bytes.Buffer
		if err := Write(&text, readDoc("random"), Options{Format: "table", Units: units}); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&page, []*result.Document{readDoc("random")}, nil, HTMLOptions{Units: units}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(text.String(), w) || !strings.Contains(page.String(), w) {
				t.Errorf("--units %q: no %q in the verdict:\n%s", units, w, text.String())
			}
		}
	}
	if v := storageOf(UnitsBoth).text("9.0 MiB/s (75.5 Mbit/s) then 1.0 MiB/s"); v != "9.0 MiB/s (75.5 Mbit/s) then 1.0 MiB/s (8.4 Mbit/s)" {
		t.Errorf("both said a Mbit/s twice or not at all: %q", v)
	}
	if v := storageOf(UnitsMbit).text("9.0 MiB/s (75.5 Mbit/s)"); v != "75.5 Mbit/s" {
		t.Errorf("mbit said a Mbit/s twice: %q", v)
	}
}

// TestComparisonUnits: a comparison's table, markdown and HTML page give
// its storage rates in the page's unit, converted, with the same ratios;
// its JSON keeps MiB/s.
func TestComparisonUnits(t *testing.T) {
	c := comparisons(t)["sweep-runs"]
	docs := []*result.Document{sweepRun("20261120T210000Z-d4e5f6", []result.Target{sdEXT4}, [][]float64{{0.8, 12.3, 1.1, 21.5, 1.06, -1}}),
		sweepRun("20261121T061500Z-0a0b0c", []result.Target{usbFAT32}, [][]float64{fat32MiB})}
	for units, want := range map[string][]string{
		UnitsMB:   {"sweep write, MB/s", "10.3", "12.2x"},
		UnitsMbit: {"sweep write, Mbit/s", "82.2", "12.2x"},
	} {
		pages := comparisonPages(t, c, docs, units)
		for format, page := range pages {
			for _, w := range want {
				if !strings.Contains(page, w) {
					t.Errorf("%s --units %s: no %q:\n%s", format, units, w, page)
				}
			}
			if strings.Contains(page, "MiB/s") {
				t.Errorf("%s --units %s: a figure in MiB/s", format, units)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, c, Options{Format: "json", Units: UnitsMbit}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"metric": "MiB/s"`) {
		t.Errorf("the JSON's metric is no longer MiB/s:\n%.600s", buf.String())
	}
}

// TestNetworkPageUnits: a network run's page in report or serve with
// --units mib draws its charts and its tables in MiB/s, so the charts'
// unit is the tables' too; both adds MiB/s beside Mbit/s in its tables;
// mbit and none keep Mbit/s alone.
func TestNetworkPageUnits(t *testing.T) {
	for units, mib := range map[string]bool{"": false, UnitsMbit: false, UnitsMiB: true, UnitsBoth: true} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, []*result.Document{readDoc("net")}, nil, HTMLOptions{Units: units}); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if got := strings.Contains(page, `<span class="w">MiB/s</span></th>`); got != mib {
			t.Errorf("--units %q: a MiB/s column %v, want %v", units, got, mib)
		}
		axis := map[bool]string{true: ">MiB/s<", false: ">Mbit/s<"}[units == UnitsMiB]
		if !strings.Contains(page, axis) {
			t.Errorf("--units %q: no %s axis", units, axis)
		}
	}
}

// TestMarkTitleWithoutEngine: a stored mark run that names no engine
// gets a table title without a dangling comma (seen on the dashboard).
func TestMarkTitleWithoutEngine(t *testing.T) {
	d := readDoc("mark")
	d.Mark.Engine = ""
	title := markTables(d, storageOf(""))[0].Title
	if strings.HasSuffix(strings.TrimSpace(title), ",") || !strings.HasPrefix(title, "MiB/s, ") {
		t.Errorf("title %q", title)
	}
}

// netWithVerdict is readDoc("net") with the verdict internal/ceiling
// writes for its upload over a gigabit Ethernet link, whose name holds a
// Mbit/s that no unit changes.
func netWithVerdict() *result.Document {
	d := readDoc("net")
	hops := []result.Hop{{Name: "eth0", Link: "Ethernet 1000 Mbit/s", CeilingBytesPerSec: ceiling.EthernetGoodput(1000, 1500), Basis: "negotiated link speed"}}
	d.Bottlenecks = []result.Bottleneck{ceiling.Judge("net up via eth0", d.Net.Sums[0].Receiver.BitsPerSecond/8, hops, nil, true)}
	return d
}

// TestNetworkUnits: a network test's page (client and server, TCP and
// UDP) and a download's, in every text format and in HTML, print every
// rate in the unit --units names: its tables, live interval lines, cap,
// notes, verdicts and charts. A network page is in Mbit/s by default and
// with mbit, in MiB/s or MB/s with mib or mb; with both its tables add
// MiB/s beside the Mbit/s. A download prints MiB/s beside Mbit/s unless
// one unit is named. Links keep their names ("Ethernet 1000 Mbit/s") and
// ceilings their Mbit/s. net client, net server and net http once
// refused every unit but Mbit/s or both.
func TestNetworkUnits(t *testing.T) {
	frozen := frozenDocs(t)
	docs := map[string]func() *result.Document{
		"net":        netWithVerdict,
		"net-udp":    func() *result.Document { return readDoc("net-udp") },
		"net.client": func() *result.Document { return frozen["net.client.json"] },
		"net.server": func() *result.Document { return frozen["net.server.json"] },
		"net.http":   func() *result.Document { return frozen["net.http.json"] },
	}
	for name, doc := range docs {
		download := doc().HTTP != nil
		for _, units := range []string{"", UnitsMiB, UnitsMB, UnitsMbit, UnitsBoth} {
			want, also := map[string]string{UnitsMiB: "MiB/s", UnitsMB: "MB/s"}[units], ""
			switch {
			case want != "":
			case download && units != UnitsMbit:
				want, also = "MiB/s", "Mbit/s"
			case units == UnitsBoth:
				want, also = "Mbit/s", "MiB/s"
			default:
				want = "Mbit/s"
			}
			pages := map[string]string{}
			for _, format := range []string{"table", "markdown"} {
				var buf bytes.Buffer
				if err := Write(&buf, doc(), Options{Format: format, Units: units}); err != nil {
					t.Fatal(err)
				}
				pages[format] = buf.String()
			}
			var buf bytes.Buffer
			if err := WriteHTML(&buf, []*result.Document{doc()}, nil, HTMLOptions{Units: units}); err != nil {
				t.Fatal(err)
			}
			pages["html"] = buf.String()
			for format, page := range pages {
				if stray := strayFigure(page, want, also, doc()); stray != "" {
					t.Errorf("%s %s --units %q: a figure in another unit than %s: %q", name, format, units, want, stray)
				}
				if !strings.Contains(page, want) {
					t.Errorf("%s %s --units %q: no figure in %s", name, format, units, want)
				}
			}
		}
	}
	// The verdict's figures are converted, the link's name is not.
	var buf bytes.Buffer
	if err := Write(&buf, netWithVerdict(), Options{Format: "table", Units: UnitsMiB}); err != nil {
		t.Fatal(err)
	}
	if w := "net up via eth0: 11.1 MiB/s is only 10 % of the Ethernet 1000 Mbit/s ceiling of 112.2 MiB/s at eth0"; !strings.Contains(buf.String(), w) {
		t.Errorf("--units mib: no %q in\n%s", w, buf.String())
	}
	// A UDP test's cap is a rate like any other.
	buf.Reset()
	if err := Write(&buf, readDoc("net-udp"), Options{Format: "table", Units: UnitsMB}); err != nil {
		t.Fatal(err)
	}
	if w := "capped at 11.88 MB/s per stream"; !strings.Contains(buf.String(), w) {
		t.Errorf("--units mb: no %q in\n%s", w, buf.String())
	}
}

// TestNetworkComparisonUnits: a comparison of network runs gives its
// rates in Mbit/s by default and with mbit or both, as a network test's
// page does, and in MiB/s or MB/s when --units names them, in the table,
// markdown and HTML page alike, with the same ratios and the noise
// test's threshold converted; its JSON keeps Mbit/s.
func TestNetworkComparisonUnits(t *testing.T) {
	c := comparisons(t)["net"]
	var docs []*result.Document
	for _, ch := range []string{"6", "11"} {
		for i := range 3 {
			docs = append(docs, readDoc(fmt.Sprintf("compare-channel%s-%d", ch, i+1)))
		}
	}
	for units, x := range map[string]struct {
		unit string
		want []string
	}{
		"":        {"Mbit/s", []string{"sum receiver Mbit/s", "46.9 ± 1.4", "beyond 3.34 (8 %)"}},
		UnitsMbit: {"Mbit/s", []string{"sum receiver Mbit/s", "46.9 ± 1.4", "beyond 3.34 (8 %)"}},
		UnitsBoth: {"Mbit/s", []string{"sum receiver Mbit/s", "46.9 ± 1.4", "beyond 3.34 (8 %)"}},
		UnitsMiB:  {"MiB/s", []string{"sum receiver MiB/s", "5.60 ± 0.17", "beyond 0.398 (8 %)"}},
		UnitsMB:   {"MB/s", []string{"sum receiver MB/s", "5.87 ± 0.18", "beyond 0.417 (8 %)"}},
	} {
		pages := comparisonPages(t, c, docs, units)
		for format, page := range pages {
			want := x.want
			if format == "html" {
				want = []string{x.want[0], "0.68x"}
			}
			for _, w := range append(want, "0.68x") {
				if !strings.Contains(page, w) {
					t.Errorf("%s --units %q: no %q:\n%s", format, units, w, page)
				}
			}
			if stray := strayFigure(page, x.unit, ""); stray != "" {
				t.Errorf("%s --units %q: a figure in another unit than %s: %q", format, units, x.unit, stray)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, c, Options{Format: "json", Units: UnitsMiB}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"metric": "receiver Mbit/s"`) {
		t.Errorf("the JSON's metric is no longer receiver Mbit/s:\n%.600s", buf.String())
	}
}

// TestSummaryUnits: a stored run's headline figures, as results list,
// suite and the dashboard's index print them, follow --units by the
// rules of the run's own page: a network test's are in Mbit/s unless mib
// or mb is named, a storage run's in MiB/s unless another unit is.
func TestSummaryUnits(t *testing.T) {
	net, sweep := readDoc("net"), readDoc("sweep")
	ns, ss := net.Summary(), sweep.Summary()
	for units, want := range map[string][2]string{
		"":        {ns, ss},
		UnitsMbit: {ns, storageOf(UnitsMbit).text(ss)},
		UnitsBoth: {ns, storageOf(UnitsBoth).text(ss)},
		UnitsMiB:  {"", ss},
		UnitsMB:   {"", storageOf(UnitsMB).text(ss)},
	} {
		unit := map[string]string{"": "Mbit/s", UnitsMbit: "Mbit/s", UnitsBoth: "Mbit/s", UnitsMiB: "MiB/s", UnitsMB: "MB/s"}[units]
		got := Summary(net.Method, ns, units)
		if want[0] != "" && got != want[0] {
			t.Errorf("--units %q: net summary %q, want %q", units, got, want[0])
		}
		if stray := strayFigure(got, unit, ""); stray != "" || !strings.Contains(got, unit) {
			t.Errorf("--units %q: net summary %q not in %s", units, got, unit)
		}
		if got := Summary(sweep.Method, ss, units); got != want[1] {
			t.Errorf("--units %q: sweep summary %q, want %q", units, got, want[1])
		}
		var list bytes.Buffer
		entries := []Entry{{ID: net.ID, Method: net.Method, Status: result.StatusOK, Summary: ns}}
		if err := WriteEntries(&list, entries, "table", units); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(list.String(), got) {
			t.Errorf("--units %q: the list has no %q:\n%s", units, got, list.String())
		}
		var page bytes.Buffer
		if err := WriteHTML(&page, []*result.Document{net, sweep}, nil, HTMLOptions{Units: units}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page.String(), ">"+got+"<") {
			t.Errorf("--units %q: the page's runs table has no %q", units, got)
		}
	}
	if got := Summary(net.Method, ns, UnitsMiB); got == ns || !strings.Contains(got, " MiB/s") {
		t.Errorf("mib left the net summary %q as it was: %q", ns, got)
	}
	var csv bytes.Buffer
	if err := WriteEntries(&csv, []Entry{{ID: net.ID, Method: net.Method, Status: result.StatusOK, Summary: ns}}, "csv", UnitsMiB); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), ns) {
		t.Errorf("the CSV changed the stored summary %q:\n%s", ns, csv.String())
	}
}

// comparisonPages draws comparison c in units as a table, in markdown and
// on an HTML page (up to the first run's section), keyed by format.
func comparisonPages(t *testing.T, c *compare.Comparison, docs []*result.Document, units string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	for _, format := range []string{"table", "markdown"} {
		var buf bytes.Buffer
		if err := WriteComparison(&buf, c, Options{Format: format, Units: units}); err != nil {
			t.Fatal(err)
		}
		pages[format] = buf.String()
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, docs, c, HTMLOptions{Units: units}); err != nil {
		t.Fatal(err)
	}
	cmp, _, _ := strings.Cut(buf.String(), `id="run-`)
	pages["html"] = cmp
	return pages
}
