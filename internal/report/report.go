// Package report prints result documents for people and programs: a table
// for the terminal, JSON (the document itself), CSV (one row per step) and
// markdown ready to paste into a blog post. Every format is built from the
// result document alone, so a stored run prints exactly as it did live.
package report

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// Formats lists the output formats, in the order --help shows them.
var Formats = []string{"table", "json", "csv", "markdown"}

// FormatFor guesses a format from an output file's extension, "" if none fits.
func FormatFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".csv":
		return "csv"
	case ".md", ".markdown":
		return "markdown"
	case ".txt":
		return "table"
	case ".html", ".htm":
		return "html"
	case ".jsonl":
		return "jsonl"
	case ".prom":
		return "openmetrics"
	}
	return ""
}

// Extensions are the file extensions FormatFor knows formats by.
func Extensions(formats []string) []string {
	ext := map[string]string{"table": "txt", "json": "json", "csv": "csv", "markdown": "md", "html": "html", "jsonl": "jsonl", "openmetrics": "prom"}
	out := make([]string, 0, len(formats))
	for _, f := range formats {
		if e, ok := ext[f]; ok {
			out = append(out, e)
		}
	}
	return out
}

// Options choose how a document is printed.
type Options struct {
	// Format is one of Formats.
	Format string
	// Units is the page's one unit system (--units): "" or "mib" for
	// MiB/s of storage and Mbit/s of network, "mb" for MB/s (10^6 B/s) in
	// storage tables as CrystalDiskMark prints them, "both" to add MiB/s
	// beside Mbit/s in network tables.
	Units string
}

// Units values; see Options.Units.
const (
	UnitsMiB  = "mib"
	UnitsMB   = "mb"
	UnitsMbit = "mbit"
	UnitsBoth = "both"
)

// Write prints doc as o asks.
func Write(w io.Writer, doc *result.Document, o Options) error {
	format := o.Format
	switch format {
	case "json":
		return doc.Write(w)
	case "table", "markdown", "csv":
	default:
		return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(Formats, ", "))
	}
	if format == "csv" {
		return suspectCSV(w, doc, o)
	}
	if err := write(w, doc, o); err != nil || doc.Previous == nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", PreviousLine(doc.Previous))
	return err
}

// PreviousLine is the line after a run's tables that sets it against the
// last comparable run.
// It counts the figures behind the verdict, so that a ratio carried by
// figures without an interval is not read as judged.
func PreviousLine(p *result.Previous) string {
	s := fmt.Sprintf("%.2fx the last run (%s, %s) over %d figure(s): %s", p.Ratio, p.StartedAt.UTC().Format(time.DateOnly), p.ID, p.Figures, p.Verdict)
	var parts []string
	if p.Faster > 0 {
		parts = append(parts, fmt.Sprintf("%d faster", p.Faster))
	}
	if p.Slower > 0 {
		parts = append(parts, fmt.Sprintf("%d slower", p.Slower))
	}
	if still := p.Judged - p.Faster - p.Slower; still > 0 && len(parts) > 0 {
		parts = append(parts, fmt.Sprintf("%d within noise", still))
	}
	if rest := p.Figures - p.Judged; rest > 0 && p.Judged > 0 {
		parts = append(parts, fmt.Sprintf("%d without an interval, by ratio alone", rest))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s + suspectPrevious(p)
}

// A view prints one method's documents. views holds one per method,
// each registered in the method's own file, and looked up by the method
// whose section a document holds (result.Document.SectionMethod).
type view struct {
	// tables are the method's tables in the page's units (Options.Units),
	// for the table, markdown and HTML views.
	tables func(doc *result.Document, units string) []Table
	// text prints the table and markdown views; nil prints the heading,
	// the target legend, the tables and what follows them (tables).
	text func(w io.Writer, doc *result.Document, o Options, md bool) error
	// csv prints the CSV view.
	csv func(w io.Writer, doc *result.Document) error
}

var views = map[result.Method]*view{}

// viewOf is the view of doc's method, nil when it has none.
func viewOf(doc *result.Document) *view { return views[doc.SectionMethod()] }

func write(w io.Writer, doc *result.Document, o Options) error {
	md := o.Format == "markdown"
	switch v := viewOf(doc); {
	case v == nil:
	case o.Format == "csv":
		return v.csv(w, doc)
	case v.text != nil:
		return v.text(w, doc, o, md)
	default:
		return tables(w, doc, v.tables(doc, o.Units), md, o.Units)
	}
	return fmt.Errorf("no %s view of a %s result; use --format json", o.Format, doc.Method)
}

// tables prints the heading, the target legend, the tables and the run's
// status.
func tables(w io.Writer, doc *result.Document, ts []Table, md bool, units string) error {
	ew := &errWriter{w: w}
	preamble(ew, doc, md)
	body(ew, doc, ts, md, units)
	return ew.err
}

// body prints the tables, the bottleneck verdicts and the run's status:
// what follows the heading in every method's view.
func body(ew *errWriter, doc *result.Document, ts []Table, md bool, units string) {
	for i, t := range ts {
		if i > 0 {
			ew.printf("\n")
		}
		if md {
			ew.err = t.markdown(ew)
		} else {
			ew.err = t.text(ew)
		}
	}
	bottlenecks(ew, doc, md, pageUnit(doc, units))
	health(ew, doc, md)
	status(ew, doc)
}

func init() {
	views[result.MethodSweep] = &view{tables: sweepTables, csv: sweepCSV}
}

func sweepTables(doc *result.Document, units string) []Table {
	var ts []Table
	for _, phase := range []string{result.PhaseWrite, result.PhaseRead, result.PhaseUnknown} {
		if t := sweepTable(doc, phase, storageOf(units)); t != nil {
			ts = append(ts, *t)
		}
	}
	return ts
}

// preamble says what ran where: the heading and the target legend.
func preamble(ew *errWriter, doc *result.Document, md bool) {
	ew.printf("%s\n\n", heading(doc))
	if md {
		ew.printf("Targets:\n\n")
	} else {
		ew.printf("Targets:\n")
	}
	labels := result.TargetLabels(doc.Targets)
	width := 0
	for _, l := range labels {
		width = max(width, len(l))
	}
	for i, l := range labels {
		if md {
			ew.printf("- **%s**: %s\n", l, describe(doc.Targets[i]))
		} else {
			ew.printf("  %-*s  %s\n", width, l, describe(doc.Targets[i]))
		}
	}
	ew.printf("\n")
}

// status closes a run that did not end well.
func status(ew *errWriter, doc *result.Document) {
	if doc.Status != result.StatusOK {
		what := string(doc.Status)
		if e := endedBy(doc); e != "" {
			what += ": " + e
		}
		ew.printf("\nRun %s. The figures above were measured before that.\n", what)
	}
}

// endedBy is the error that ended doc in a reader's words: an interrupt
// is recorded as Go's "context canceled", which the status "interrupted"
// already says, and says in words a user knows.
func endedBy(doc *result.Document) string {
	e := strings.ReplaceAll(doc.Error, context.Canceled.Error(), "interrupted")
	if e == "interrupted" && doc.Status == result.StatusInterrupted {
		return ""
	}
	return e
}

// Write lets an errWriter be the destination of a nested renderer.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// cpuName is the processor's model with its core where the model does
// not name it ("ARMv7 Processor rev 4 (v7l)" on a Cortex-A53), or the
// core alone where cpuinfo has no model (64-bit Raspberry Pi kernels).
func cpuName(h result.Host) string {
	switch {
	case h.CPUModel == "":
		return h.CPUCore
	case h.CPUCore == "" || strings.Contains(h.CPUModel, h.CPUCore):
		return h.CPUModel
	}
	return h.CPUModel + " (" + h.CPUCore + ")"
}

// heading says in one line what was measured where.
func heading(doc *result.Document) string {
	h := doc.Host
	var ctx []string
	for _, s := range []string{h.Board, cpuName(h)} {
		if s != "" {
			ctx = append(ctx, s)
		}
	}
	if h.Kernel != "" {
		ctx = append(ctx, "Linux "+h.Kernel)
	}
	if h.CPUGovernor != "" {
		ctx = append(ctx, "governor "+h.CPUGovernor)
	}
	s := "thruput " + doc.Method.Command() + " on " + orUnknown(h.Hostname)
	if len(ctx) > 0 {
		s += " (" + strings.Join(ctx, ", ") + ")"
	}
	return s + ", " + doc.StartedAt.UTC().Format(time.DateTime) + " UTC"
}

// describe says where a target is and what is under it.
func describe(t result.Target) string {
	s := t.Path
	var dev []string
	if t.Device != "" {
		d := t.Device
		if t.Partition != "" {
			d = t.Partition
		}
		if t.DeviceModel != "" {
			d += " " + t.DeviceModel
		}
		dev = append(dev, d)
	} else if t.MountSource != "" && t.MountSource != t.FSType {
		dev = append(dev, t.MountSource)
	}
	if t.LoopBackingFile != "" {
		dev = append(dev, "backed by "+t.LoopBackingFile)
	}
	if t.Compression != "" {
		dev = append(dev, "compressed: "+t.Compression)
	}
	if len(dev) > 0 {
		s += " (" + strings.Join(dev, ", ") + ")"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Markers set beside a figure, explained under the table.
const (
	markCached    = "*"
	markPartial   = "~"
	markBounded   = "+"
	markUncertain = "?"
	markMissing   = "-"
)

func sweepTable(doc *result.Document, phase string, u storageUnit) *Table {
	p := doc.Sweep.Parameters
	if (phase == result.PhaseWrite && !p.Write) || (phase == result.PhaseRead && !p.Read) ||
		(phase == result.PhaseUnknown && !slices.ContainsFunc(doc.Sweep.Steps, func(s result.SweepStep) bool { return s.Phase == phase })) {
		return nil
	}
	io := "buffered"
	if p.Direct {
		io = "O_DIRECT"
	}
	var title string
	switch {
	case doc.Imported != nil:
		// Another tool's steps: no file size, time bound, eviction or
		// fsync of thruput's is theirs.
		title = importedSweepTitle(phase, u.name, doc.Imported.Tool, p)
	case phase == result.PhaseRead:
		title = "Read, " + u.name + ": page cache evicted before each step"
	default:
		title = "Write, " + u.name + ": fsync included"
	}
	if doc.Imported == nil {
		bound := time.Duration(p.MaxTimeNs).String()
		if tg := sweepTarget(doc); tg > 0 {
			bound += fmt.Sprintf(" or stable to ±%g %%", tg*100)
		}
		title += fmt.Sprintf(" (%s per step or %s, %s data, %s)", units.IEC(p.FileSize), bound, p.Data, io)
	}

	t := &Table{Title: title, Header: append([]string{"block"}, result.TargetLabels(doc.Targets)...)}
	used := map[string]bool{}
	sizes := p.BlockSizes
	// An imported step whose output did not give its block size (dd run
	// by a script that printed only its summary) has a row of its own.
	if slices.ContainsFunc(doc.Sweep.Steps, func(s result.SweepStep) bool { return s.Phase == phase && s.BlockSize == 0 }) {
		sizes = append(slices.Clone(sizes), 0)
	}
	for _, bs := range sizes {
		label := units.BlockLabel(bs)
		if bs == 0 {
			label = "unknown"
		}
		row := []string{label}
		for ti := range doc.Targets {
			row = append(row, sweepCell(doc.Sweep.Steps, ti, phase, bs, used, u))
		}
		t.Rows = append(t.Rows, row)
	}
	alignMarks(t.Rows)
	if phase == result.PhaseRead {
		t.Notes = append(t.Notes, sweepDeviceNotes(doc)...)
	}
	labels := result.TargetLabels(doc.Targets)
	for _, st := range doc.Sweep.Steps {
		if st.Phase == phase {
			t.Notes = append(t.Notes, intervalNotes(figureNote{labels[st.Target] + " " + units.BlockLabel(st.BlockSize), st.Interval, u.rate, st.MiBPerSec * (1 << 20), time.Duration(st.ElapsedNs)})...)
		}
	}

	for _, n := range []note{
		{Mark: markCached, Text: "read from the page cache, not the device (tmpfs, a filesystem that keeps its cache, or the device served under 90 % of the bytes): a memory figure"},
		{Mark: markPartial, Text: "part of the file was still cached: the figure mixes cache and device"},
		{Mark: markUncertain, Text: "loop device or FUSE: the image below may still be cached; --drop-caches (root) evicts it too"},
		{Mark: markBounded, Text: "stopped at --max-time; the rate is over the bytes moved by then"},
		{Mark: markMissing, Text: "not measured (the run ended before this step)"},
	} {
		if used[n.Mark] {
			t.Notes = append(t.Notes, n)
		}
	}
	return t
}

// importedSweepTitle heads an imported sweep's table with what its
// output said: the direction, "unknown" where it did not say, the data
// and O_DIRECT when its commands named them.
func importedSweepTitle(phase, unit, tool string, p result.SweepParameters) string {
	title := map[string]string{result.PhaseWrite: "Write", result.PhaseRead: "Read"}[phase]
	if title == "" {
		title = "Read or write (the output did not say)"
	}
	title += ", " + unit + ": as " + tool + " printed it"
	var said []string
	if p.Data != "" {
		said = append(said, p.Data+" data")
	}
	if p.Direct {
		said = append(said, "O_DIRECT")
	}
	if len(said) > 0 {
		title += " (" + strings.Join(said, ", ") + ")"
	}
	return title
}

// sweepTarget is --until-stable's target the steps ran to, 0 for none.
func sweepTarget(doc *result.Document) float64 {
	for _, st := range doc.Sweep.Steps {
		if st.Interval != nil && st.Interval.Target > 0 {
			return st.Interval.Target
		}
	}
	return 0
}

// alignMarks pads figures without a marker so the digits of a column line
// up whether or not a marker follows them.
func alignMarks(rows [][]string) {
	isMark := func(r rune) bool { return strings.ContainsRune(markCached+markPartial+markUncertain+markBounded, r) }
	width := 0
	for _, r := range rows {
		for _, c := range r[1:] {
			width = max(width, len(c)-len(strings.TrimRightFunc(c, isMark)))
		}
	}
	for _, r := range rows {
		for i := 1; i < len(r); i++ {
			marks := len(r[i]) - len(strings.TrimRightFunc(r[i], isMark))
			r[i] += strings.Repeat(" ", width-marks)
		}
	}
}

func sweepCell(steps []result.SweepStep, ti int, phase string, bs int64, used map[string]bool, u storageUnit) string {
	i := slices.IndexFunc(steps, func(s result.SweepStep) bool {
		return s.Target == ti && s.Phase == phase && s.BlockSize == bs
	})
	if i < 0 {
		used[markMissing] = true
		return markMissing
	}
	s := steps[i]
	cell := strconv.FormatFloat(u.of(s.MiBPerSec), 'f', 1, 64) + pm(u.of(s.MiBPerSec), s.Interval)
	mark := func(m string) {
		used[m] = true
		cell += m
	}
	switch {
	case s.Device != nil && s.Device.Cached:
		mark(markCached)
	case s.Cache == result.CacheCached:
		mark(markCached)
	case s.Cache == result.CachePartial:
		mark(markPartial)
	case s.Cache == result.CacheUncertain:
		mark(markUncertain)
	}
	if s.Truncated {
		mark(markBounded)
	}
	return cell
}

var csvHeader = []string{"target", "path", "fs_type", "mount_point", "phase", "block_size", "bytes", "ops", "elapsed_ns", "fsync_ns", "mib_per_s", "truncated", "cache", "cached_fraction"}

func sweepCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(append(slices.Clone(csvHeader), ciHeader...))
	for _, s := range doc.Sweep.Steps {
		t := doc.Targets[s.Target]
		frac := ""
		if s.CachedFraction != nil {
			frac = strconv.FormatFloat(*s.CachedFraction, 'f', 4, 64)
		}
		_ = cw.Write(append([]string{
			strconv.Itoa(s.Target), t.Path, t.FSType, t.MountPoint, s.Phase,
			strconv.FormatInt(s.BlockSize, 10), strconv.FormatInt(s.Bytes, 10), strconv.FormatInt(s.Ops, 10),
			strconv.FormatInt(s.ElapsedNs, 10), strconv.FormatInt(s.FsyncNs, 10),
			strconv.FormatFloat(s.MiBPerSec, 'f', 3, 64), strconv.FormatBool(s.Truncated), s.Cache, frac,
		}, ciCells(s.Interval)...))
	}
	cw.Flush()
	return cw.Error()
}
