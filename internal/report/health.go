package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// health prints the run's health in one short block after the
// bottlenecks, and, for a suspect run, the footnote its mark refers to.
func health(ew *errWriter, doc *result.Document, md bool) {
	lines := HealthLines(doc.Health)
	if len(lines) == 0 {
		return
	}
	if md {
		ew.printf("\n**Health**\n\n")
		for _, l := range lines {
			ew.printf("- %s\n", l)
		}
	} else {
		ew.printf("\nHealth during the run:\n")
		for _, l := range lines {
			ew.printf("  %s\n", l)
		}
	}
	if doc.Suspect() {
		ew.printf("\n%s %s\n", result.SuspectMark, SuspectFootnote(doc))
	}
}

// SuspectFootnote is the footnote of a suspect figure: the reasons, when
// each began, and that the figure may not be the machine's own.
func SuspectFootnote(doc *result.Document) string {
	if !doc.Suspect() {
		return ""
	}
	return "The figures are " + doc.SuspectNote() + "; they may not be what this machine does when healthy."
}

// HealthLines says what the CPUs, clocks, temperatures, throttling, other
// processes and the kernel did during the run, one fact a line, "unknown"
// for what could not be read; nil without a health section.
func HealthLines(h *result.Health) []string {
	if h == nil {
		return nil
	}
	var out []string
	if len(h.CPUs) > 0 {
		var parts []string
		for _, c := range h.CPUs {
			s := fmt.Sprintf("CPU %d %.0f %%", c.CPU, c.Busy)
			if c.IRQ+c.Softirq >= 1 {
				s += fmt.Sprintf(" (irq+softirq %.0f %%)", c.IRQ+c.Softirq)
			}
			parts = append(parts, s)
		}
		out = append(out, "busy: "+strings.Join(parts, ", "))
	}
	if len(h.Interrupts) > 0 {
		i := h.Interrupts[0]
		out = append(out, fmt.Sprintf("busiest interrupt: %s (%s), %d times, %.0f %% on CPU %d", i.IRQ, i.Name, i.Count, i.TopShare*100, i.TopCPU))
	}
	var cpu []string
	if h.OwnCPUs != nil {
		cpu = append(cpu, fmt.Sprintf("thruput %.2f CPUs", *h.OwnCPUs))
	}
	if h.OthersCPUs != nil {
		cpu = append(cpu, fmt.Sprintf("other processes %.2f CPUs", *h.OthersCPUs))
	}
	if q := h.Cgroup; q != nil && (q.QuotaCPUs > 0 || q.NrThrottled > 0) {
		cpu = append(cpu, fmt.Sprintf("cgroup quota %.2f CPUs, throttled %d times for %.1f s", q.QuotaCPUs, q.NrThrottled, float64(q.ThrottledMicros)/1e6))
	}
	if len(cpu) > 0 {
		out = append(out, "CPU time: "+strings.Join(cpu, ", "))
	}
	for _, c := range h.Clocks {
		s := fmt.Sprintf("clock %s (CPUs %s, %s): ", c.Policy, orUnknown(c.CPUs), orUnknown(c.Governor))
		if c.MeanMHz > 0 {
			s += fmt.Sprintf("mean %.0f MHz", c.MeanMHz)
		} else {
			s += fmt.Sprintf("%.0f-%.0f MHz asked", c.MinSeenMHz, c.MaxSeenMHz)
		}
		out = append(out, s+fmt.Sprintf(" of %.0f MHz", c.MaxMHz))
	}
	if f := h.FirmwareClock; f != nil {
		out = append(out, fmt.Sprintf("ARM clock the firmware measured: %.0f-%.0f MHz, mean %.0f MHz", f.MinMHz, f.MaxMHz, f.MeanMHz))
	}
	if len(h.Temperatures) > 0 {
		var parts []string
		for _, t := range h.Temperatures {
			parts = append(parts, fmt.Sprintf("%s max %.1f °C at %.1f s", orUnknown(t.Type), t.MaxC, t.MaxAtS))
		}
		out = append(out, "temperature: "+strings.Join(parts, ", "))
	}
	if t := h.Throttled; t != nil {
		s := fmt.Sprintf("get_throttled: %s at the start, %s at the end", t.Start, t.End)
		for _, e := range t.Events {
			if !e.AtStart {
				s += fmt.Sprintf("; %s from %.1f s", e.Meaning, e.FirstSeenS)
			}
		}
		out = append(out, s)
	}
	if h.WiFi != nil {
		out = append(out, wifiLine(h.WiFi))
	}
	if k := h.Kernel; k != nil {
		s := fmt.Sprintf("kernel log: %d new line(s), %d matching an error pattern", k.New, len(k.Matched))
		var notes []string
		for _, m := range k.Matched {
			if m.Scope == "other device" {
				notes = append(notes, m.Line)
			}
		}
		if len(notes) > 0 {
			s += fmt.Sprintf(" (%d of another device, not the one tested: %s)", len(notes), strings.Join(notes, "; "))
		}
		if k.Lost {
			s += " (some lost before they were read)"
		}
		out = append(out, s)
	}
	if len(h.Unknown) > 0 {
		out = append(out, "unknown: "+strings.Join(h.Unknown, ", "))
	}
	return out
}

// wifiLine says what the WiFi station did over the run: the range of
// each rate and MCS, the signal, the retries and power save, each fact
// left out when no reading had it.
func wifiLine(w *result.WiFiStation) string {
	var tx, rx, sig, txMCS, rxMCS span
	for _, x := range w.Samples {
		tx.add(x.TxMbps, x.TxMbps > 0)
		rx.add(x.RxMbps, x.RxMbps > 0)
		sig.add(float64(x.SignalDBm), x.SignalDBm != 0)
		if x.TxMCS != nil {
			txMCS.add(float64(*x.TxMCS), true)
		}
		if x.RxMCS != nil {
			rxMCS.add(float64(*x.RxMCS), true)
		}
	}
	var parts []string
	if tx.n > 0 {
		parts = append(parts, "tx "+tx.String("%.1f")+" Mbit/s"+txMCS.label(" (MCS ", ")"))
	}
	if rx.n > 0 {
		parts = append(parts, "rx "+rx.String("%.1f")+" Mbit/s"+rxMCS.label(" (MCS ", ")"))
	}
	if sig.n > 0 {
		parts = append(parts, "signal "+sig.String("%.0f")+" dBm")
	}
	if w.TxRetries != nil && w.TxFailed != nil {
		parts = append(parts, fmt.Sprintf("%d tx retries, %d failed", *w.TxRetries, *w.TxFailed))
	}
	switch {
	case w.PowerSave == nil:
		parts = append(parts, "power save unknown")
	case *w.PowerSave:
		parts = append(parts, "power save on")
	default:
		parts = append(parts, "power save off")
	}
	return "WiFi " + w.Interface + ": " + strings.Join(parts, ", ")
}

// span is the least and most of the values seen.
type span struct {
	lo, hi float64
	n      int
}

func (s *span) add(v float64, ok bool) {
	if !ok {
		return
	}
	if s.n == 0 || v < s.lo {
		s.lo = v
	}
	if s.n == 0 || v > s.hi {
		s.hi = v
	}
	s.n++
}

// String is "lo" or "lo to hi" in format f.
func (s span) String(f string) string {
	if s.lo == s.hi {
		return fmt.Sprintf(f, s.lo)
	}
	return fmt.Sprintf(f+" to "+f, s.lo, s.hi)
}

// label is the span between pre and post, "" when nothing was seen.
func (s span) label(pre, post string) string {
	if s.n == 0 {
		return ""
	}
	return pre + s.String("%.0f") + post
}

// suspectCSV prints the method's CSV with a last column, suspect, that
// holds the reasons of a suspect run (the same on every row: the whole
// run was measured under them; the JSON has the facts behind them) and
// is empty otherwise. A run without a
// health section (imported, or made before thruput sampled it) has no
// such column: whether it was suspect is unknown, not "no".
func suspectCSV(w io.Writer, doc *result.Document, o Options) error {
	if doc.Health == nil {
		return write(w, doc, o)
	}
	var buf bytes.Buffer
	if err := write(&buf, doc, o); err != nil {
		return err
	}
	cr := csv.NewReader(&buf)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return err
	}
	note := doc.SuspectReasons()
	cw := csv.NewWriter(w)
	for i, r := range rows {
		if i == 0 {
			r = append(r, "suspect")
		} else {
			r = append(r, note)
		}
		_ = cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}

// suspectPrevious says, after the line setting a run against the last
// one, that a faster or slower there may be the machine's health.
func suspectPrevious(p *result.Previous) string {
	if p.Suspect == "" {
		return ""
	}
	return "; " + result.SuspectMark + " " + p.Suspect + " suspect: faster or slower may be the machine's health, not the change"
}

// suspectColumn marks a comparison column that holds suspect runs.
func suspectColumn(c compare.Column) string {
	if len(c.Suspect) == 0 {
		return ""
	}
	return "; " + result.SuspectMark + " suspect: " + strings.Join(c.Suspect, "; ")
}

// suspectFootnote closes a comparison with suspect columns: their ratios
// are not plain faster or slower.
func suspectFootnote(ew *errWriter, c *compare.Comparison) {
	var names []string
	for _, col := range c.Columns {
		if len(col.Suspect) > 0 {
			names = append(names, col.Name)
		}
	}
	if len(names) > 0 {
		ew.printf("\n%s %s measured under suspect conditions (see Columns): a figure there that reads faster or slower may be the machine's health, not the change.\n",
			result.SuspectMark, strings.Join(names, ", "))
	}
}
