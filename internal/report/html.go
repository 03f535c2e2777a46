package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/atomicfile"
	"github.com/thruput/thruput/internal/chart"
	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// HTMLOptions choose how WriteHTML renders a page.
type HTMLOptions struct {
	// Title heads the page; empty gives one naming the method and host.
	Title string
	// Units is the page's unit system, as in Options.
	Units string
}

// WriteHTML writes one self-contained page to publish runs as a review
// does: per document its heading, charts, the tables the text report
// prints, the bottleneck verdicts and the machine it ran on; with cmp, a
// comparison of the runs first, its charts drawing one series per column.
//
// The page loads nothing: the style is inline, the charts are inline SVG
// without fonts or links, there is no script, and a Content-Security-Policy
// makes the browser refuse any load a future change might slip in. It
// opens the same from a file, an e-mail or a web server.
func WriteHTML(w io.Writer, docs []*result.Document, cmp *compare.Comparison, o HTMLOptions) error {
	page, err := buildPage(docs, cmp, o)
	if err != nil {
		return err
	}
	// Render whole before writing, so a template error leaves no half page.
	var buf bytes.Buffer
	if err := htmlTemplate().ExecuteTemplate(&buf, "page", page); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// buildPage lays out the page: the comparison first, then each run.
func buildPage(docs []*result.Document, cmp *compare.Comparison, o HTMLOptions) (htmlPage, error) {
	page := htmlPage{Title: o.Title}
	if len(docs) > 0 {
		page.Generator = strings.TrimSpace(docs[0].Tool.Name + " " + docs[0].Tool.Version)
	}
	if cmp != nil {
		c, err := htmlComparisonOf(docs, cmp, o.Units)
		if err != nil {
			return page, err
		}
		page.Comparison = c
		page.Nav = append(page.Nav, htmlLink{Anchor: "comparison", Text: "Comparison"})
	}
	anchors := map[string]int{}
	for i, d := range docs {
		hd, err := htmlDocOf(d, i, anchors, o)
		if err != nil {
			return page, err
		}
		page.Docs = append(page.Docs, hd)
		page.Nav = append(page.Nav, htmlLink{Anchor: hd.Anchor, Text: hd.Heading + ", " + d.ID})
	}
	if len(docs) > 1 {
		page.Nav = nil // the summary links every run
		page.Summary = summaryTable(docs, page.Docs, o.Units)
		page.Matrix = matrixOf(docs, page.Docs)
		page.Machines = machinesOnce(docs, page.Docs)
	}
	if len(page.Nav) < 2 {
		page.Nav = nil
	}
	if page.Title == "" {
		page.Title = defaultTitle(docs, cmp)
	}
	return page, nil
}

// summaryTable lists the page's runs, each linked to its section, with
// its headline figures in the units each run's own page prints.
func summaryTable(docs []*result.Document, hds []htmlDoc, units string) *htmlTable {
	t := &htmlTable{Title: "Runs on this page", Header: []string{"run", "host", "target", "figures", "status"}, Text: true}
	for i, d := range docs {
		var ts []string
		for _, tg := range d.Targets {
			ts = append(ts, describe(tg))
		}
		target := strings.Join(ts, "; ")
		t.Rows = append(t.Rows, []htmlCell{{Text: hds[i].Heading, Link: hds[i].Anchor}, {Text: orUnknown(d.Host.Hostname)},
			{Text: target}, {Text: Summary(d.SectionMethod(), d.Summary(), units)}, {Text: d.Status}})
	}
	return t
}

// machinesOnce gives each machine of the page one section of its own and
// leaves each run only the context that is the run's: on a suite's page
// of six runs the hardware was printed six times.
func machinesOnce(docs []*result.Document, hds []htmlDoc) []htmlMachine {
	var out []htmlMachine
	index := map[string]int{}
	for i, d := range docs {
		name := orUnknown(d.Host.Hostname)
		j, ok := index[name]
		if !ok {
			j = len(out)
			index[name] = j
			out = append(out, htmlMachine{Anchor: "machine-" + anchorSafe(name), Name: name, Facts: hds[i].Facts, System: hds[i].System})
			if out[j].System != nil {
				sys := *out[j].System
				sys.Traffic = nil
				out[j].System = &sys
			}
		}
		hd := &hds[i]
		hd.Machine, hd.MachineName = out[j].Anchor, name
		if hd.System != nil {
			hd.Traffic = hd.System.Traffic
		}
		hd.Facts, hd.System = nil, nil
	}
	return out
}

// WritePNGs writes every chart of the page WriteHTML makes of docs and
// cmp, as dir/<prefix>-<chart id>.png (without the dash when prefix is
// empty), and returns the paths: the same charts, from the same data, as
// the page's SVGs.
func WritePNGs(dir, prefix string, docs []*result.Document, cmp *compare.Comparison, o HTMLOptions) ([]string, error) {
	page, err := buildPage(docs, cmp, o)
	if err != nil {
		return nil, err
	}
	var charts []htmlChart
	if page.Comparison != nil {
		charts = append(charts, page.Comparison.Charts...)
	}
	for _, d := range page.Docs {
		charts = append(charts, d.Charts...)
	}
	var paths []string
	for _, c := range charts {
		if c.chart == nil {
			continue
		}
		b, err := c.chart.PNG()
		if err != nil {
			return paths, fmt.Errorf("%s: %w", c.ID, err)
		}
		name := c.ID + ".png"
		if prefix != "" {
			name = prefix + "-" + name
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, 0o644, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// html prints the table as an HTML <table>, the figures right-aligned and
// the notes in a list below it.
func (t Table) html(w io.Writer) error {
	return htmlTemplate().ExecuteTemplate(w, "table", htmlTableOf(t, nil))
}

type htmlPage struct {
	Title, Generator string
	Nav              []htmlLink
	// Summary is every run's figures at a glance, with links, on a page
	// of several runs.
	Summary    *htmlTable
	Comparison *htmlComparison
	// Matrix is the host x host network heat map of fleet net's runs.
	Matrix   *htmlMatrix
	Docs     []htmlDoc
	Machines []htmlMachine
}

type htmlLink struct{ Anchor, Text string }

type htmlComparison struct {
	Method, Baseline string
	Columns          []htmlColumn
	NoRepeats        bool
	Charts           []htmlChart
	Tables           []htmlTable
}

type htmlColumn struct {
	Name, Description string
	Baseline          bool
}

type htmlDoc struct {
	Anchor, Heading, ID string
	Started, Duration   string
	Command             string
	Status, Error       string
	Imported            string
	Labels              []string
	Charts              []htmlChart
	Tables              []htmlTable
	Bottlenecks         []htmlBottleneck
	// Suspect is a suspect run's footnote, Health its health lines.
	Suspect string
	Health  []string
	Facts   []htmlFact
	Targets *htmlTable
	System  *htmlSystem
	// Machine, when set, is the anchor of the page's one description of
	// the machine the run was made on; the run shows only what is its own
	// (command, targets, traffic).
	Machine, MachineName string
	Traffic              *htmlTable
}

type htmlChart struct {
	ID, Title string
	// SVG is chart.SVG's output: vgsvg escapes every text it draws and
	// chart escapes the titles it adds, so it goes into the page as is.
	SVG template.HTML
	// chart is what SVG was drawn from, for the PNG of the same chart.
	chart *chart.Chart
}

type htmlTable struct {
	Title  string
	Header []string
	Rows   [][]htmlCell
	Notes  []note
	// Text is set for a table of words (paths, models, drivers): its
	// columns align left.
	Text bool
}

type htmlCell struct{ Text, Class, Link string }

type htmlBottleneck struct {
	Figure, Verdict string
	Hops            []htmlHop
	SharedWith      []string
}

type htmlHop struct {
	Text  string
	Limit bool
}

type htmlFact struct{ Name, Value string }

type htmlSystem struct {
	Summary string
	CPU     string
	Tables  []htmlTable
	// Traffic is what the run's own devices moved: it belongs to the run,
	// not to the machine.
	Traffic *htmlTable
}

// htmlMachine is a machine's context, shown once on a page of several of
// its runs.
type htmlMachine struct {
	Anchor, Name string
	Facts        []htmlFact
	System       *htmlSystem
}

// htmlTableOf converts a table, classes giving per row and cell a CSS
// class to add (nil for none).
func htmlTableOf(t Table, classes [][]string) htmlTable {
	h := htmlTable{Title: t.Title, Header: t.Header, Notes: collapse(t.Notes), Text: t.Left}
	for i, r := range t.Rows {
		row := make([]htmlCell, len(r))
		for j, c := range r {
			row[j].Text = c
			if i < len(classes) && j < len(classes[i]) {
				row[j].Class = classes[i][j]
			}
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// docTables are the tables the text report prints for doc.
func docTables(doc *result.Document, units string) []Table {
	if v := viewOf(doc); v != nil {
		return v.tables(doc, units)
	}
	return nil
}

func defaultTitle(docs []*result.Document, cmp *compare.Comparison) string {
	switch {
	case cmp != nil:
		return "thruput: " + strings.ReplaceAll(cmp.Method, ".", " ") + " compared"
	case len(docs) == 1:
		return "thruput " + docs[0].Method.Command() + " on " + orUnknown(docs[0].Host.Hostname)
	}
	return fmt.Sprintf("thruput: %d runs", len(docs))
}

// svgCharts renders charts for the page, their ids prefixed to keep them
// unique among the page's anchors. A chart that cannot be drawn fails the
// page: a page with a hole where a chart should be gets published as it
// is.
func svgCharts(prefix string, charts []*chart.Chart) ([]htmlChart, error) {
	var out []htmlChart
	for _, c := range charts {
		b, err := c.SVG()
		if err != nil {
			return nil, err
		}
		out = append(out, htmlChart{ID: prefix + "-" + c.Name, Title: c.Title, chart: c, SVG: template.HTML(b)})
	}
	return out, nil
}

func htmlComparisonOf(docs []*result.Document, cmp *compare.Comparison, units string) (*htmlComparison, error) {
	names := columnNames(cmp.Columns)
	hc := &htmlComparison{Method: strings.ReplaceAll(cmp.Method, ".", " ")}
	if cmp.Baseline >= 0 && cmp.Baseline < len(names) {
		hc.Baseline = names[cmp.Baseline]
	}
	for i, col := range cmp.Columns {
		hc.Columns = append(hc.Columns, htmlColumn{Name: names[i], Description: describeColumn(col, names[i]), Baseline: i == cmp.Baseline})
	}
	hc.NoRepeats = !slices.ContainsFunc(cmp.Rows, func(r compare.Row) bool {
		return slices.ContainsFunc(r.Cells, func(x compare.Cell) bool { return x.Spread != nil })
	})
	tables := comparisonTables(comparisonIn(cmp, units), names)
	i := 0
	for rows := range sectionRows(cmp.Rows) {
		if i >= len(tables) {
			break
		}
		hc.Tables = append(hc.Tables, htmlTableOf(tables[i], diffClasses(tables[i], rows)))
		i++
	}
	for ; i < len(tables); i++ {
		hc.Tables = append(hc.Tables, htmlTableOf(tables[i], nil))
	}
	charts, err := chart.ForColumns(columnDocs(docs, cmp), names, units)
	if err != nil {
		return nil, err
	}
	hc.Charts, err = svgCharts("comparison", charts)
	return hc, err
}

// diffClasses colours the diff cells of a comparison table: better, worse,
// or grey inside the noise, given which way is better for each row. It
// reads the cells the table already has, so the page shows exactly what the
// text report does.
func diffClasses(t Table, rows []compare.Row) [][]string {
	if len(t.Rows) != len(rows) {
		return nil
	}
	out := make([][]string, len(rows))
	for i, r := range t.Rows {
		out[i] = make([]string, len(r))
		for j, cell := range r {
			if j >= len(t.Header) || t.Header[j] != "diff" {
				continue
			}
			f := strings.Fields(cell)
			if len(f) == 0 {
				continue
			}
			d, err := strconv.ParseFloat(f[0], 64)
			switch {
			case err != nil:
			case strings.HasSuffix(strings.TrimSpace(cell), markNoise):
				out[i][j] = "num noise"
			case d > 0 == rows[i].HigherIsBetter && d != 0:
				out[i][j] = "num better"
			case d != 0:
				out[i][j] = "num worse"
			}
		}
	}
	return out
}

// columnDocs are the documents of each comparison column, cut down to
// the column's target when a run had several: a column of repeats is
// drawn as their mean, as its table cell prints it.
func columnDocs(docs []*result.Document, cmp *compare.Comparison) [][]*result.Document {
	byID := map[string]*result.Document{}
	for _, d := range docs {
		if _, ok := byID[d.ID]; !ok {
			byID[d.ID] = d
		}
	}
	out := make([][]*result.Document, len(cmp.Columns))
	for i, col := range cmp.Columns {
		for _, id := range col.Runs {
			if d := byID[id]; d != nil {
				out[i] = append(out[i], narrow(d, col.Target))
			}
		}
	}
	return out
}

// narrow returns doc with only the target at path, when it has several.
func narrow(doc *result.Document, path string) *result.Document {
	ti := slices.IndexFunc(doc.Targets, func(t result.Target) bool { return t.Path == path })
	if len(doc.Targets) < 2 || ti < 0 {
		return doc
	}
	d := *doc
	d.Targets = []result.Target{doc.Targets[ti]}
	if doc.Sweep != nil {
		s := *doc.Sweep
		s.Steps = nil
		for _, st := range doc.Sweep.Steps {
			if st.Target == ti {
				st.Target = 0
				s.Steps = append(s.Steps, st)
			}
		}
		d.Sweep = &s
	}
	return &d
}

func htmlDocOf(d *result.Document, i int, anchors map[string]int, o HTMLOptions) (htmlDoc, error) {
	anchor := "run-" + strconv.Itoa(i+1)
	if d.ID != "" {
		anchor = "run-" + anchorSafe(d.ID)
	}
	if anchors[anchor]++; anchors[anchor] > 1 {
		anchor += "-" + strconv.Itoa(anchors[anchor])
	}
	hd := htmlDoc{
		Anchor:  anchor,
		Heading: d.Method.Command() + " on " + orUnknown(d.Host.Hostname),
		ID:      d.ID,
		Started: d.StartedAt.UTC().Format(time.DateTime) + " UTC",
		Status:  d.Status,
		Error:   endedBy(d),
		Command: strings.Join(d.Argv, " "),
	}
	if !d.EndedAt.IsZero() && d.EndedAt.After(d.StartedAt) {
		hd.Duration = d.EndedAt.Sub(d.StartedAt).Round(time.Second).String()
	}
	if im := d.Imported; im != nil {
		hd.Imported = strings.TrimSpace(im.Tool + " " + im.Version)
		if im.File != "" {
			hd.Imported += ", " + im.File
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d.Labels)) {
		hd.Labels = append(hd.Labels, k+"="+d.Labels[k])
	}
	charts, err := chart.For([]*result.Document{d}, []string{d.ID}, o.Units)
	if err != nil {
		return hd, err
	}
	charts = append(charts, chart.Latency(d)...)
	if hd.Charts, err = svgCharts(anchor, charts); err != nil {
		return hd, err
	}
	for _, t := range docTables(d, o.Units) {
		hd.Tables = append(hd.Tables, htmlTableOf(t, nil))
	}
	u := pageUnit(d, o.Units)
	for _, b := range d.Bottlenecks {
		hb := htmlBottleneck{Figure: u.verdict(b.Figure, b), Verdict: u.verdict(b.Verdict, b), SharedWith: b.SharedWith}
		for j, h := range b.Hops {
			hb.Hops = append(hb.Hops, htmlHop{Text: hopText(h, u), Limit: j == b.Limit})
		}
		hd.Bottlenecks = append(hd.Bottlenecks, hb)
	}
	hd.Suspect, hd.Health = SuspectFootnote(d), HealthLines(d.Health)
	hd.Facts = hostFacts(d)
	if len(d.Targets) > 0 {
		t := targetsTable(d.Targets)
		hd.Targets = &t
	}
	hd.System = systemOf(d.System, u)
	return hd, nil
}

// anchorSafe keeps an id usable in a fragment link.
func anchorSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

// hopText is one link of a bottleneck chain, as the text report words it.
func hopText(h result.Hop, u storageUnit) string {
	ceil := "ceiling unknown"
	if h.CeilingBytesPerSec > 0 {
		ceil = u.ceiling(h.CeilingBytesPerSec)
	}
	s := fmt.Sprintf("%s: %s, %s", h.Name, orUnknown(h.Link), ceil)
	if h.Basis != "" {
		s += " (" + h.Basis + ")"
	}
	return s
}

// hostFacts is what the run says about the machine and the program.
func hostFacts(d *result.Document) []htmlFact {
	h := d.Host
	var out []htmlFact
	add := func(name, v string) {
		if v != "" {
			out = append(out, htmlFact{name, v})
		}
	}
	add("Host", h.Hostname)
	add("Board", h.Board)
	add("SoC", h.SoC)
	cpu := cpuName(h)
	switch {
	case h.CPUCores == 1:
		cpu += ", 1 core"
	case h.CPUCores > 1:
		cpu += fmt.Sprintf(", %d cores", h.CPUCores)
	}
	add("CPU", strings.TrimPrefix(cpu, ", "))
	if h.MemoryBytes > 0 {
		add("Memory", units.IEC(h.MemoryBytes))
	}
	add("OS", h.OS)
	kernel := h.Kernel
	if kernel != "" && h.Arch != "" {
		kernel += ", " + h.Arch
	}
	add("Kernel", kernel)
	if h.UserlandArch != "" && (h.UserlandArch != h.Arch || h.UserlandBits == 32) {
		add("Userland", fmt.Sprintf("%s, %d-bit", h.UserlandArch, h.UserlandBits))
	}
	add("Governor", h.CPUGovernor)
	add("Inferred", inferredLine(h))
	t := d.Tool
	add("Measured with", strings.TrimSpace(strings.Join([]string{t.Name, t.Version, t.Platform, t.GoVersion}, " ")))
	return out
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "yes"
	}
	return "no"
}

func sizeOrEmpty(n int64) string {
	if n <= 0 {
		return ""
	}
	return units.IEC(n)
}

func targetsTable(targets []result.Target) htmlTable {
	t := Table{Title: "Targets", Header: []string{"target", "path", "filesystem", "mount", "device", "model", "rotational", "free"}}
	labels := result.TargetLabels(targets)
	for i, x := range targets {
		dev := x.Device
		if x.Partition != "" {
			dev = x.Partition
		}
		if dev == "" && x.MountSource != x.FSType {
			dev = x.MountSource
		}
		fs := x.FSType
		if x.Compression != "" {
			fs += ", " + x.Compression
		}
		mount := x.MountPoint
		if x.MountOptions != "" {
			mount += " (" + x.MountOptions + ")"
		}
		t.Rows = append(t.Rows, []string{labels[i], x.Path, fs, mount, dev, x.DeviceModel, yesNo(x.Rotational), sizeOrEmpty(x.FreeBytes)})
		if x.LoopBackingFile != "" {
			t.Notes = append(t.Notes, note{Mark: "", Text: fmt.Sprintf("%s: loop device backed by %s", labels[i], x.LoopBackingFile)})
		}
	}
	ht := htmlTableOf(t, nil)
	ht.Text = true
	return ht
}

// systemOf summarises the hardware the data crossed, as thruput sysinfo
// prints it: disks and their links, the USB tree, network interfaces and
// what each moved during the run, in the page's unit u.
func systemOf(s *result.System, u storageUnit) *htmlSystem {
	if s == nil {
		return nil
	}
	hs := &htmlSystem{Summary: fmt.Sprintf("%d disk(s), %d USB device(s), %d network interface(s)", len(s.BlockDevices), len(s.USB), len(s.NetInterfaces))}
	c := s.CPU
	var cpu []string
	if c.CurKHz > 0 {
		cpu = append(cpu, result.MHz(c.CurKHz)+" now")
	}
	if c.MinKHz > 0 || c.MaxKHz > 0 {
		cpu = append(cpu, result.MHz(c.MinKHz)+" to "+result.MHz(c.MaxKHz))
	}
	if c.Governor != "" {
		cpu = append(cpu, "governor "+c.Governor)
	}
	if c.Throttled != "" {
		t := "throttled " + c.Throttled
		if c.ThrottledNow != nil && *c.ThrottledNow {
			t += " (capped or under-voltage now)"
		}
		if len(c.ThrottledBits) > 0 {
			t += ": " + strings.Join(c.ThrottledBits, ", ")
		}
		cpu = append(cpu, t)
	}
	for _, z := range c.Temperatures {
		cpu = append(cpu, fmt.Sprintf("%s %.1f °C", cmp.Or(z.Type, z.Zone), z.Celsius))
	}
	hs.CPU = strings.Join(cpu, ", ")
	speeds := map[string]float64{}
	for _, u := range s.USB {
		speeds[u.Path] = u.SpeedMbps
	}
	text := func(t Table) htmlTable {
		ht := htmlTableOf(t, nil)
		ht.Text = true
		return ht
	}
	if len(s.BlockDevices) > 0 {
		t := Table{Title: "Disks", Header: []string{"name", "model", "size", "bus", "driver", "link", "rotational", "scheduler"}}
		for _, d := range s.BlockDevices {
			t.Rows = append(t.Rows, []string{d.Name, strings.TrimSpace(d.Vendor + " " + d.Model), sizeOrEmpty(d.SizeBytes), d.Bus, d.Driver,
				d.LinkText(speeds), yesNo(d.Rotational), d.Scheduler})
			if d.DeviceID != "" {
				t.Notes = append(t.Notes, note{Text: d.Name + " id: " + d.DeviceID})
			}
			if d.Card != nil {
				t.Notes = append(t.Notes, note{Text: d.Name + " card: " + d.Card.Text()})
			}
			for _, l := range d.PCIePath {
				if l.Downgraded {
					t.Notes = append(t.Notes, note{Text: fmt.Sprintf("%s PCIe %s: %g GT/s x%d, downgraded from %g GT/s x%d %s", d.Name, l.Slot, l.GTs, l.Width, l.MaxGTs, l.MaxWidth, l.Hint)})
				}
			}
		}
		hs.Tables = append(hs.Tables, text(t))
	}
	if len(s.USB) > 0 {
		t := Table{Title: "USB", Header: []string{"device", "speed", "class", "product", "drivers"}}
		depth := map[string]int{}
		for _, u := range s.USB {
			d := 0
			if u.Parent != "" {
				d = depth[u.Parent] + 1
			}
			depth[u.Path] = d
			speed := ""
			if u.SpeedMbps > 0 {
				speed = strconv.FormatFloat(u.SpeedMbps, 'f', -1, 64) + " Mbit/s"
			}
			class := u.Class
			switch {
			case u.Ports == 1:
				class += ", 1 port"
			case u.Ports > 1:
				class += fmt.Sprintf(", %d ports", u.Ports)
			}
			product := usbProduct(u)
			if u.VendorID == "" {
				// The table names a device without ids by its product
				// string, which the lsusb-style tree leaves out.
				product = strings.TrimSpace(u.Product) + product
			}
			if warn := u.SlowerThanDeclared(); warn != "" {
				t.Notes = append(t.Notes, note{Text: u.Path + ": " + warn})
			}
			t.Rows = append(t.Rows, []string{strings.Repeat("\u00a0\u00a0\u00a0", d) + u.Path, speed, strings.TrimPrefix(class, ", "), product, strings.Join(u.Drivers, ", ")})
		}
		hs.Tables = append(hs.Tables, text(t))
	}
	if len(s.NetInterfaces) > 0 {
		t := Table{Title: "Network interfaces", Header: []string{"name", "driver", "bus", "at", "carrier", "link", "MTU", "WiFi"}}
		for _, n := range s.NetInterfaces {
			at := n.USBPath + n.PCISlot
			if n.USBPath != "" && speeds[n.USBPath] > 0 {
				at += fmt.Sprintf(" (%s Mbit/s)", strconv.FormatFloat(speeds[n.USBPath], 'f', -1, 64))
			}
			link, mtu := "", ""
			if n.SpeedMbps > 0 {
				link = strings.TrimSpace(fmt.Sprintf("%d Mbit/s %s", n.SpeedMbps, n.Duplex))
			}
			if n.MTU > 0 {
				mtu = strconv.Itoa(n.MTU)
			}
			t.Rows = append(t.Rows, []string{n.Name, n.Driver, n.Bus, at, yesNo(n.Carrier), link, mtu, n.WiFi.Text()})
		}
		hs.Tables = append(hs.Tables, text(t))
	}
	if len(s.Activity) > 0 {
		t := Table{Title: "Traffic during the run", Header: []string{"device", u.name}}
		for _, a := range s.Activity {
			t.Rows = append(t.Rows, []string{a.Device, strconv.FormatFloat(u.of(a.BytesPerSec/(1<<20)), 'f', 2, 64)})
		}
		tt := htmlTableOf(t, nil)
		hs.Traffic = &tt
	}
	return hs
}

// htmlTemplate is parsed on first use, not at start-up: every run of the
// binary would pay for it, and only the HTML report needs it.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"first": func(i int) bool { return i == 0 },
		"statusOK": func(s string) bool {
			return s == result.StatusOK
		},
		"words": words,
	}).Parse(htmlPageTemplate))
})

// words keeps each word of a header on one line: a browser breaks a
// narrow column after a hyphen ("2026-/11-01", "usb-/storage") as readily
// as at a space, and only the spaces are meant as places to wrap.
func words(s string) template.HTML {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = `<span class="w">` + template.HTMLEscapeString(w) + `</span>`
	}
	return template.HTML(strings.Join(f, " "))
}

// htmlPageTemplate is the page, kept in page.html.tmpl. The CSP in its
// head is the safety net behind "loads nothing": default-src 'none'
// refuses every fetch (images, fonts, frames, scripts, connections) but
// inline style, which the page and its charts use, and data: images.
//
//go:embed page.html.tmpl
var htmlPageTemplate string
