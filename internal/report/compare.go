package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/compare"
)

// markNoise flags a difference the repeats cannot tell from chance.
const markNoise = "~"

// WriteComparison prints c as o asks: for people a table per section with
// each column's figure, its ratio and difference to the baseline, for
// programs CSV (a line per row and column) or JSON (the Comparison).
func WriteComparison(w io.Writer, c *compare.Comparison, o Options) error {
	switch o.Format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	case "csv":
		return comparisonCSV(w, c)
	case "table", "markdown":
		return comparisonText(w, comparisonIn(c, o.Units), o.Format == "markdown")
	}
	return fmt.Errorf("unknown format %q (use %s)", o.Format, strings.Join(Formats, ", "))
}

func comparisonText(w io.Writer, c *compare.Comparison, md bool) error {
	ew := &errWriter{w: w}
	names := columnNames(c.Columns)
	ew.printf("thruput compare %s, baseline %s\n\n", c.Method, names[c.Baseline])
	ew.printf("Columns:\n")
	if md {
		ew.printf("\n")
	}
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for i, col := range c.Columns {
		d := describeColumn(col, names[i])
		if i == c.Baseline {
			d += "; the baseline"
		}
		d += suspectColumn(col)
		if md {
			ew.printf("- **%s**: %s\n", names[i], d)
		} else {
			ew.printf("  %-*s  %s\n", width, names[i], d)
		}
	}
	someCell := func(f func(compare.Cell) bool) bool {
		return slices.ContainsFunc(c.Rows, func(r compare.Row) bool { return slices.ContainsFunc(r.Cells, f) })
	}
	switch {
	case someCell(func(x compare.Cell) bool { return x.Spread != nil }):
	case someCell(func(x compare.Cell) bool { return x.HalfWidth > 0 }):
		ew.printf("\nNo column has repeats: a difference is judged by the runs' 95 %% intervals (±); a figure without one on both sides is never marked as noise.\n")
	default:
		ew.printf("\nNo column has repeats: nothing shows how much a figure wanders, so no difference is marked as noise.\n")
	}
	for _, t := range comparisonTables(c, names) {
		ew.printf("\n")
		ew.err = t.Print(ew, md)
	}
	suspectFootnote(ew, c)
	return ew.err
}

// columnNames are the names table headers use: a split run's columns all
// begin with the run's id, so they go by their target alone, the heading
// naming the run.
func columnNames(cols []compare.Column) []string {
	full := make([]string, len(cols))
	short := make([]string, len(cols))
	prefixes := map[string]bool{}
	for i, c := range cols {
		full[i], short[i] = c.Name, c.Target
		if p, ok := strings.CutSuffix(c.Name, " "+c.Target); ok && c.Target != "" {
			prefixes[p] = true
		} else {
			prefixes[""], prefixes[c.Name] = true, true
		}
	}
	if len(prefixes) != 1 || len(cols) < 2 {
		return full
	}
	return short
}

// describeColumn says which runs a column holds and what they share.
func describeColumn(c compare.Column, name string) string {
	ids := c.Runs
	if len(ids) > 4 {
		ids = []string{ids[0], "…", ids[len(ids)-1]}
	}
	runs := "runs"
	if len(c.Runs) == 1 {
		runs = "run"
	}
	s := fmt.Sprintf("%d %s: %s", len(c.Runs), runs, strings.Join(ids, ", "))
	if c.Target != "" && c.Target != name {
		s += "; target " + c.Target
	}
	if len(c.Labels) > 0 {
		var l []string
		for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
			l = append(l, k+"="+c.Labels[k])
		}
		s += "; labels " + strings.Join(l, ", ")
	}
	if len(c.Cached) > 0 {
		s += "; cached (the page cache's figures, not the device's): " + strings.Join(c.Cached, ", ")
	}
	return s
}

// comparisonTables makes a table per section. What all of a section's rows
// share, step or metric, goes in its title; the row label keeps the rest.
func comparisonTables(c *compare.Comparison, names []string) []Table {
	var out []Table
	for rows := range sectionRows(c.Rows) {
		steps, metrics := distinct(rows, func(r compare.Row) string { return r.Step }), distinct(rows, func(r compare.Row) string { return r.Metric })
		title, label := rows[0].Section, ""
		if len(steps) == 1 {
			title += ": " + steps[0]
		}
		if len(metrics) == 1 && len(steps) > 1 {
			title += ", " + metrics[0]
			label = "step"
		}
		t := Table{Title: title, Header: []string{label}}
		for i, n := range names {
			t.Header = append(t.Header, n)
			if i != c.Baseline {
				t.Header = append(t.Header, "ratio", "diff")
			}
		}
		used := map[string]bool{}
		var lower []string
		for _, r := range rows {
			var l []string
			if len(steps) > 1 {
				l = append(l, r.Step)
			}
			if len(metrics) > 1 || len(steps) == 1 {
				l = append(l, r.Metric)
			}
			t.Rows = append(t.Rows, append([]string{strings.Join(l, " ")}, comparisonCells(r, c.Baseline, used)...))
			if !r.HigherIsBetter && !slices.Contains(lower, r.Metric) {
				lower = append(lower, r.Metric)
			}
		}
		if used[markNoise] {
			t.Notes = append(t.Notes, note{Mark: markNoise, Text: "inside the noise: not significant in Welch's t-test at 95 % over the repeats of both sides, a single run within the other side's range, or single runs whose 95 % intervals (±) overlap"})
			t.Notes = append(t.Notes, neededNotes(rows, names, c.Baseline)...)
		}
		if used[markMissing] {
			t.Notes = append(t.Notes, note{Mark: markMissing, Text: "not measured in that column"})
		}
		if len(lower) > 0 {
			t.Notes = append(t.Notes, note{Mark: "", Text: "lower is better for " + strings.Join(lower, ", ") + ": there a ratio below 1x is the better figure"})
		}
		out = append(out, t)
	}
	return out
}

// neededNotes say, for each difference Welch's test found inside the
// noise, how many runs each side had and how large a difference those
// runs would have shown to be real.
func neededNotes(rows []compare.Row, names []string, baseline int) []note {
	var out []note
	for _, r := range rows {
		base := r.Cells[baseline]
		for i, c := range r.Cells {
			if i == baseline || !c.Noise || c.Needed <= 0 {
				continue
			}
			dec := decimals(c.Needed, false)
			out = append(out, note{Mark: "", Text: fmt.Sprintf("%s, %s: %d runs against %d of %s; with these spreads only a difference beyond %s (%s) would be significant",
				strings.TrimSpace(r.Step+" "+r.Metric), names[i], len(c.Samples), len(base.Samples), names[baseline],
				strconv.FormatFloat(c.Needed, 'f', dec, 64), pct(c.Needed, base.Value))})
		}
	}
	return out
}

// pct is part as a percentage of whole, "?" when whole is 0.
func pct(part, whole float64) string {
	if whole == 0 {
		return "?"
	}
	return strconv.FormatFloat(100*part/math.Abs(whole), 'f', 0, 64) + " %"
}

// sectionRows yields the runs of rows that share a section; compare puts
// a section's rows together.
func sectionRows(rows []compare.Row) func(yield func([]compare.Row) bool) {
	return func(yield func([]compare.Row) bool) {
		for start := 0; start < len(rows); {
			end := start + 1
			for end < len(rows) && rows[end].Section == rows[start].Section {
				end++
			}
			if !yield(rows[start:end]) {
				return
			}
			start = end
		}
	}
}

func distinct(rows []compare.Row, f func(compare.Row) string) []string {
	var out []string
	for _, r := range rows {
		if s := f(r); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// comparisonCells are a row's cells: per column the mean (± the stddev of
// its repeats), and beside each column but the baseline its ratio and
// difference to it, marked when inside the noise.
func comparisonCells(r compare.Row, baseline int, used map[string]bool) []string {
	whole := !slices.ContainsFunc(r.Cells, func(c compare.Cell) bool { return c.Value != math.Trunc(c.Value) })
	var out []string
	for i, c := range r.Cells {
		v := markMissing
		if c.Present {
			dec := decimals(c.Value, whole)
			v = strconv.FormatFloat(c.Value, 'f', dec, 64)
			if c.Spread != nil {
				v += " ± " + strconv.FormatFloat(c.Spread.Stddev, 'f', dec, 64)
			} else if c.HalfWidth > 0 {
				// A single run's own 95 % interval, written as the
				// method's tables write it.
				v += " ±" + strconv.FormatFloat(c.HalfWidth, 'f', dec, 64)
			}
		} else {
			used[markMissing] = true
		}
		out = append(out, v)
		if i == baseline {
			continue
		}
		ratio, diff := "", ""
		if c.Ratio != nil {
			ratio, diff = ratioLabel(*c.Ratio), diffLabel(*c.Diff)
		}
		if c.Noise {
			used[markNoise] = true
			diff += " " + markNoise
		} else if diff != "" {
			diff += strings.Repeat(" ", 1+len(markNoise))
		}
		out = append(out, ratio, diff)
	}
	return out
}

// decimals gives a figure three significant digits, so that the 1.06 MiB/s
// of an SD card keeps the digit that makes a 26.7x; counts (a row of whole
// numbers) get none.
func decimals(x float64, whole bool) int {
	switch x = math.Abs(x); {
	case whole:
		return 0
	case x >= 10:
		return 1
	case x >= 1:
		return 2
	}
	return 3
}

// ratioLabel prints a ratio as reviews print them: 1.35x, 26.7x.
func ratioLabel(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64) + "x"
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "x"
	case r >= 0.01:
		return strconv.FormatFloat(r, 'f', 2, 64) + "x"
	}
	return strconv.FormatFloat(r, 'g', 2, 64) + "x"
}

func diffLabel(d float64) string {
	if math.Abs(d) >= 10 {
		return fmt.Sprintf("%+.0f %%", d*100)
	}
	return fmt.Sprintf("%+.1f %%", d*100)
}

// comparisonCSV is one line per row and column, full precision, empty
// fields where a figure is missing.
func comparisonCSV(w io.Writer, c *compare.Comparison) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"section", "step", "metric", "column", "value", "n", "stddev", "half_width", "ratio", "diff", "noise"})
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'f', 4, 64)
	}
	for _, r := range c.Rows {
		for i, cell := range r.Cells {
			value, stddev := "", ""
			if cell.Present {
				value = f3(cell.Value)
			}
			if cell.Spread != nil {
				stddev = f3(cell.Spread.Stddev)
			}
			hw := ""
			if cell.HalfWidth > 0 {
				hw = f3(cell.HalfWidth)
			}
			_ = cw.Write([]string{r.Section, r.Step, r.Metric, c.Columns[i].Name, value, strconv.Itoa(len(cell.Samples)), stddev, hw,
				opt(cell.Ratio), opt(cell.Diff), strconv.FormatBool(cell.Noise)})
		}
	}
	cw.Flush()
	return cw.Error()
}
