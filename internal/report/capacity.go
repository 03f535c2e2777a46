package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	views[result.MethodCapacity] = &view{tables: func(d *result.Document, units string) []Table { return capacityTables(d, storageOf(units)) }, csv: capacityCSV}
}

// capacityTables are the verdict with the sector counts, then each file.
func capacityTables(doc *result.Document, u storageUnit) []Table {
	c := doc.Capacity
	title := "Capacity: the free space filled with f3's .h2w files and read back"
	if c.VerifyOnly {
		title = "Capacity: .h2w files read back (--verify-only)"
	}
	s := c.Sectors
	v := Table{Title: title, Header: []string{"sectors", "count", "bytes"}}
	for _, r := range []struct {
		name string
		n    int64
	}{{"ok", s.OK}, {"corrupted", s.Corrupted}, {"changed", s.Changed}, {"overwritten", s.Overwritten}} {
		v.Rows = append(v.Rows, []string{r.name, strconv.FormatInt(r.n, 10), units.IEC(r.n * 512)})
	}
	if !c.VerifyOnly {
		v.Notes = append(v.Notes, note{Text: "free space before the fill: " + units.IEC(c.FreeBytes)})
	}
	v.Notes = append(v.Notes, note{Text: "usable (read back intact): " + units.IEC(c.UsableBytes)})
	for _, a := range c.Aliases {
		v.Notes = append(v.Notes, note{Mark: "!", Text: fmt.Sprintf("%d sectors at %s of the fill hold what was written at %s", a.Sectors, units.IEC(a.At), units.IEC(a.Holds))})
	}
	if c.MoreAliases > 0 {
		v.Notes = append(v.Notes, note{Mark: "!", Text: fmt.Sprintf("%d more runs of overwritten sectors (see --json)", c.MoreAliases)})
	}
	if c.Verdict != "" {
		v.Notes = append(v.Notes, note{Text: c.Verdict})
	}
	if c.Kept {
		v.Notes = append(v.Notes, note{Text: "the .h2w files are left in " + targetPath(doc)})
	}
	f := Table{Title: "Files, " + u.name, Header: []string{"file", "size", "write", "read", "ok", "lost"}}
	for _, fl := range c.Files {
		f.Rows = append(f.Rows, []string{strconv.Itoa(fl.Number) + ".h2w", units.IEC(fl.Bytes), rate(u, fl.WriteMiBPerSec), rate(u, fl.ReadMiBPerSec),
			strconv.FormatInt(fl.Sectors.OK, 10), strconv.FormatInt(fl.Sectors.Lost(), 10)})
		if fl.ReadError != "" {
			f.Notes = append(f.Notes, note{Mark: "!", Text: fmt.Sprintf("%d.h2w not read to its end: %s", fl.Number, fl.ReadError)})
		}
	}
	for i, p := range []*result.CapacityPhase{c.Write, c.Read} {
		if p == nil {
			continue
		}
		phase := []string{"write", "read"}[i]
		f.Rows = append(f.Rows, []string{"all, " + phase, units.IEC(p.Bytes), "", "", "", ""})
		f.Rows[len(f.Rows)-1][2+i] = rate(u, p.MiBPerSec)
		if len(p.OverTime) > 1 {
			lo, hi := p.OverTime[0].MiBPerSec, p.OverTime[0].MiBPerSec
			for _, s := range p.OverTime {
				lo, hi = min(lo, s.MiBPerSec), max(hi, s.MiBPerSec)
			}
			f.Notes = append(f.Notes, note{Text: fmt.Sprintf("%s over time: %s to %s %s in %d spans of about a second (each in --json's over_time)",
				phase, f1(u.of(lo)), f1(u.of(hi)), u.name, len(p.OverTime))})
		}
	}
	return []Table{v, f}
}

// rate is a MiB/s figure in the page's unit, "-" when not measured.
func rate(u storageUnit, mib float64) string {
	if mib == 0 {
		return "-"
	}
	return f1(u.of(mib))
}

// targetPath is the run's directory.
func targetPath(doc *result.Document) string {
	if len(doc.Targets) == 0 {
		return "the directory"
	}
	return doc.Targets[0].Path
}

func capacityCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"file", "bytes", "write_mib_per_s", "read_mib_per_s", "ok", "corrupted", "changed", "overwritten", "read_error"})
	for _, f := range doc.Capacity.Files {
		s := f.Sectors
		_ = cw.Write([]string{strconv.Itoa(f.Number), itoa(f.Bytes), f3(f.WriteMiBPerSec), f3(f.ReadMiBPerSec), itoa(s.OK), itoa(s.Corrupted), itoa(s.Changed), itoa(s.Overwritten), f.ReadError})
	}
	cw.Flush()
	return cw.Error()
}
