package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// rateFigure is a figure with its rate unit, as any page prints it.
var rateFigure = regexp.MustCompile(`\d (MiB/s|MB/s|Mbit/s)`)

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
				for _, m := range rateFigure.FindAllStringSubmatchIndex(page, -1) {
					if unit := page[m[2]:m[3]]; unit != want && unit != "Mbit/s" {
						t.Errorf("%s %s --units %s: a figure in %s: %q", name, format, units, unit, page[max(0, m[0]-60):m[1]])
						break
					}
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
// --units mib draws its charts in MiB/s and adds MiB/s beside Mbit/s in
// its tables, so the charts' unit is the tables' too; mbit and none
// keep Mbit/s alone.
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
