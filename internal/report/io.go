package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func ioMode(direct bool) string {
	if direct {
		return "O_DIRECT"
	}
	return "buffered, evicted before each run"
}

// runMode is ioMode for thruput's own runs; an imported run is buffered
// without the eviction only thruput does, or unknown when its output did
// not say.
func runMode(doc *result.Document, direct bool) string {
	switch {
	case doc.Imported == nil:
		return ioMode(direct)
	case direct:
		return "O_DIRECT"
	case doc.Imported.States("direct"):
		return "buffered"
	}
	return "O_DIRECT or buffered unknown"
}

func init() {
	views[result.MethodIO] = &view{tables: func(d *result.Document, units string) []Table { return ioTables(d, storageOf(units)) }, csv: ioCSV}
	views[result.MethodMark] = &view{tables: func(d *result.Document, units string) []Table { return markTables(d, storageOf(units)) }, csv: markCSV}
}

// ioTables is fio's summary: one row per run and direction, then the spread.
func ioTables(doc *result.Document, u storageUnit) []Table {
	r := doc.IO
	t := Table{Title: ioTitle(doc), Header: []string{"run", "dir", "IOPS", u.name, "clat ms: p50", "p95", "p99", "p99.9", "max"}}
	for i, run := range r.Runs {
		for _, d := range directions(run) {
			row := []string{strconv.Itoa(i + 1), d.name, f1(d.d.IOPS) + pm(d.d.IOPS, d.d.Interval), f1(u.of(d.d.MiBPerSec)) + pm(u.of(d.d.MiBPerSec), d.d.Interval)}
			row = append(row, latencyRow("", d.d.Latency)[4:]...)
			t.Rows = append(t.Rows, row)
		}
	}
	for i, run := range r.Runs {
		if run.Read != nil {
			t.Notes = append(t.Notes, deviceNote(fmt.Sprintf("run %d reads", i+1), run.Read.Device)...)
		}
		if d := directions(run); len(d) > 0 {
			// The interval is of both directions' bytes together.
			var mib float64
			for _, x := range d {
				mib += x.d.MiBPerSec
			}
			t.Notes = append(t.Notes, intervalNotes(figureNote{fmt.Sprintf("run %d", i+1), d[0].d.Interval, u.rate, mib * (1 << 20), time.Duration(run.ElapsedNs)})...)
		}
	}
	if r.EngineNote != "" {
		t.Notes = append(t.Notes, note{Mark: "!", Text: r.EngineNote})
	}
	out := []Table{t}
	if s := r.Summary; s != nil {
		sp := Table{Title: fmt.Sprintf("Over %d runs", len(r.Runs)), Header: []string{"", "mean ± stddev", "min", "max"}}
		for _, x := range []struct {
			name  string
			s     *result.Spread
			scale float64
		}{{"read IOPS", s.ReadIOPS, 1}, {"read " + u.name, s.ReadMiBPerSec, u.of(1)}, {"write IOPS", s.WriteIOPS, 1}, {"write " + u.name, s.WriteMiBPerSec, u.of(1)}} {
			if x.s != nil {
				sp.Rows = append(sp.Rows, []string{x.name, f1(x.s.Mean*x.scale) + " ± " + f1(x.s.Stddev*x.scale), f1(x.s.Min * x.scale), f1(x.s.Max * x.scale)})
			}
		}
		out = append(out, sp)
	}
	if v := r.Verify; v != nil {
		vt := Table{Title: "Verify", Header: []string{"blocks", "errors", "first bad offset"}}
		first := ""
		if v.FirstBadOffset != nil {
			first = fmt.Sprintf("%d (job %d): %s", *v.FirstBadOffset, v.FirstBadJob, v.Detail)
		}
		vt.Rows = [][]string{{itoa(v.Blocks), itoa(v.Errors), first}}
		out = append(out, vt)
	}
	return out
}

// ioTitle describes the job; what an imported output did not state is
// called unknown, and only thruput's own buffered runs evicted the page
// cache before each run.
func ioTitle(doc *result.Document) string {
	p := doc.IO.Parameters
	rw := p.RW
	if !doc.Imported.States("rw") {
		rw += " (sequential or random unknown)"
	}
	bs, depth := p.Shape(units.BlockLabel, "unknown")
	if p.BlockSize == 0 {
		bs = "block size unknown"
	}
	size := "size unknown"
	if p.Size > 0 {
		size = units.IEC(p.Size) + " per job"
	}
	parts := []string{rw + " " + bs, "iodepth " + depth, fmt.Sprintf("%d job(s)", p.Jobs), size, runMode(doc, p.Direct)}
	if doc.IO.Engine != "" {
		parts = append(parts, doc.IO.Engine)
	}
	if p.RampNs > 0 {
		parts = append(parts, fmt.Sprintf("first %s left out", time.Duration(p.RampNs)))
	}
	return strings.Join(parts, ", ")
}

type direction struct {
	name string
	d    *result.IODirection
}

// directions lists the directions a run did, read first.
func directions(run result.IORun) []direction {
	var out []direction
	if run.Read != nil {
		out = append(out, direction{"read", run.Read})
	}
	if run.Write != nil {
		out = append(out, direction{"write", run.Write})
	}
	return out
}

// ioCSV prints one row per run and direction.
func ioCSV(w io.Writer, doc *result.Document) error {
	r := doc.IO
	cw := csv.NewWriter(w)
	// A block size or depth an imported output did not state is an
	// empty cell, as a latency it did not give is.
	bs, depth := r.Parameters.Shape(func(n int64) string { return itoa(n) }, "")
	_ = cw.Write([]string{"run", "direction", "rw", "block_size", "iodepth", "jobs", "engine", "elapsed_ns", "ios", "bytes", "iops", "mib_per_s",
		"clat_min_ns", "clat_mean_ns", "clat_p50_ns", "clat_p95_ns", "clat_p99_ns", "clat_p99_9_ns", "clat_max_ns",
		ciHeader[0], ciHeader[1], ciHeader[2], ciHeader[3]})
	for i, run := range r.Runs {
		for _, d := range directions(run) {
			_ = cw.Write(append([]string{strconv.Itoa(i + 1), d.name, r.Parameters.RW, bs, depth, strconv.Itoa(r.Parameters.Jobs), r.Engine, itoa(run.ElapsedNs),
				itoa(d.d.IOs), itoa(d.d.Bytes), f3(d.d.IOPS), f3(d.d.MiBPerSec)}, append(latNs(d.d.Latency), ciCells(d.d.Interval)...)...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// markTables is the familiar 4x2 grid.
func markTables(doc *result.Document, u storageUnit) []Table {
	m := doc.Mark
	size, each := units.IEC(m.Size)+" file", time.Duration(m.DurationNs).String()+" each"
	if m.Size == 0 {
		size = "file size unknown"
	}
	if !doc.Imported.States("duration_ns") {
		each = "time per test unknown"
	}
	title := fmt.Sprintf("%s, %s, %s, %s", u.name, size, each, runMode(doc, m.Direct))
	// A run imported or stored without its engine has none to name.
	if m.Engine != "" {
		title += ", " + m.Engine
	}
	t := Table{Title: title, Header: []string{"test", "Read", "Write"}}
	var order []string
	cells := map[string][]string{}
	for _, r := range m.Results {
		if cells[r.Preset] == nil {
			order = append(order, r.Preset)
			cells[r.Preset] = []string{r.Preset, "-", "-"}
		}
		// MB/s as the run measured it, not rounded through MiB/s.
		v := u.of(r.MiBPerSec)
		if u.name == "MB/s" {
			v = r.MBPerSec
		}
		col := 1
		if r.Phase == result.PhaseWrite {
			col = 2
		}
		cells[r.Preset][col] = f1(v) + pm(v, r.Interval)
	}
	for _, p := range order {
		t.Rows = append(t.Rows, cells[p])
	}
	for _, r := range m.Results {
		if r.Device != nil && r.Device.Cached {
			t.Notes = append(t.Notes, deviceNote(r.Preset+" read", r.Device)...)
		}
		t.Notes = append(t.Notes, intervalNotes(figureNote{r.Preset + " " + r.Phase, r.Interval, u.rate, r.MiBPerSec * (1 << 20), time.Duration(r.ElapsedNs)})...)
	}
	if m.EngineNote != "" {
		t.Notes = append(t.Notes, note{Mark: "!", Text: m.EngineNote})
	}
	return []Table{t}
}

func markCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"preset", "phase", "mb_per_s", "mib_per_s", "iops", "clat_min_ns", "clat_mean_ns", "clat_p50_ns", "clat_p95_ns", "clat_p99_ns", "clat_p99_9_ns", "clat_max_ns",
		ciHeader[0], ciHeader[1], ciHeader[2], ciHeader[3]})
	for _, r := range doc.Mark.Results {
		_ = cw.Write(append([]string{r.Preset, r.Phase, f3(r.MBPerSec), f3(r.MiBPerSec), f3(r.IOPS)}, append(latNs(r.Latency), ciCells(r.Interval)...)...))
	}
	cw.Flush()
	return cw.Error()
}
