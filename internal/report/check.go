package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	views[result.MethodCheck] = &view{tables: func(d *result.Document, units string) []Table { return checkTables(d, storageOf(units)) }, csv: checkCSV}
}

// checkTables are the verdict's criteria, then every step of every run.
func checkTables(doc *result.Document, u storageUnit) []Table {
	c := doc.Check
	var out []Table
	if len(c.Criteria) > 0 || c.Verdict != "" {
		title := "Class verdict"
		if c.Preset == result.CheckRPiSD {
			title = fmt.Sprintf("Raspberry Pi's SD Card Speed Test (run %d of up to 3)", len(c.Runs))
		}
		if c.ClaimSource != "" && c.ClaimSource != result.CheckRPiSD {
			title += ", claim: " + c.ClaimSource
		}
		t := Table{Title: title}
		if len(c.Criteria) > 0 {
			t.Header = []string{"class", "criterion", "figure", "limit", "result"}
		}
		for _, cr := range c.Criteria {
			fig := number(cr.Value) + " " + cr.Metric
			if cr.HalfWidth > 0 {
				fig = number(cr.Value) + " ±" + number(cr.HalfWidth) + " " + cr.Metric
			}
			verdict := map[bool]string{true: "PASS", false: "FAIL"}[cr.Pass]
			if !cr.Pass && cr.CappedBy != "" {
				verdict = "FAIL (reader)"
			}
			t.Rows = append(t.Rows, []string{cr.Class, cr.What, fig, number(cr.Limit) + " " + cr.Metric, verdict})
		}
		seen := map[string]bool{}
		for _, cr := range c.Criteria {
			if !seen[cr.Step] {
				seen[cr.Step] = true
				t.Notes = append(t.Notes, note{Text: cr.Step + ": " + cr.Conditions})
			}
			if cr.CappedBy != "" {
				t.Notes = append(t.Notes, note{Mark: "!", Text: cr.Class + " " + cr.What + ": " + cr.CappedBy})
			}
		}
		if c.Verdict != "" {
			t.Notes = append(t.Notes, note{Text: c.Verdict})
		}
		out = append(out, t)
	}
	t := Table{Title: fmt.Sprintf("%s, %s file, O_DIRECT, %s", u.name, units.IEC(c.Size), c.Engine),
		Header: []string{"run", "step", "pattern", "IOPS", u.name, "clat ms: p50", "p99"}}
	for i, r := range c.Runs {
		for _, s := range r.Steps {
			p50, p99 := "-", "-"
			if s.Latency != nil {
				p50, p99 = ms(s.Latency.P50Ns), ms(s.Latency.P99Ns)
			}
			v := u.of(s.MiBPerSec)
			t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), s.Name, fmt.Sprintf("%s %s QD%d", units.IEC(s.BlockSize), s.RW, s.IODepth),
				number(s.IOPS) + pm(s.IOPS, s.Interval), f1(v) + pm(v, s.Interval), p50, p99})
			if s.Device != nil && s.Device.Cached {
				t.Notes = append(t.Notes, deviceNote(s.Name, s.Device)...)
			}
			t.Notes = append(t.Notes, intervalNotes(figureNote{fmt.Sprintf("run %d %s", i+1, s.Name), s.Interval, u.rate, s.MiBPerSec * (1 << 20), time.Duration(s.ElapsedNs)})...)
		}
	}
	if c.EngineNote != "" {
		t.Notes = append(t.Notes, note{Mark: "!", Text: c.EngineNote})
	}
	return append(out, t)
}

// number prints a verdict's figure: whole from 100, else one decimal.
func number(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return f1(v)
}

func ms(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 2, 64) }

func checkCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(append([]string{"run", "step", "rw", "block_size", "iodepth", "elapsed_ns", "ios", "bytes", "iops", "mib_per_s", "kib_per_s",
		"clat_min_ns", "clat_mean_ns", "clat_p50_ns", "clat_p95_ns", "clat_p99_ns", "clat_p99_9_ns", "clat_max_ns"}, ciHeader...))
	for i, r := range doc.Check.Runs {
		for _, s := range r.Steps {
			_ = cw.Write(append([]string{strconv.Itoa(i + 1), s.Name, s.RW, itoa(s.BlockSize), strconv.Itoa(s.IODepth), itoa(s.ElapsedNs), itoa(s.IOs), itoa(s.Bytes),
				f3(s.IOPS), f3(s.MiBPerSec), f3(s.KiBPerSec)}, append(latNs(s.Latency), ciCells(s.Interval)...)...))
		}
	}
	cw.Flush()
	return cw.Error()
}
