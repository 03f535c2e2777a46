package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is a grid of cells, the one way thruput draws a table: a run's
// figures, a comparison, the list of stored runs, sysinfo's sections and
// fleet's hosts and matrix. Text lines it up for a terminal (cells two
// spaces apart), markdown makes it ready to paste into a post, and the
// HTML page draws it as a <table>.
type Table struct {
	// Title is a line of its own above the table; none when empty.
	Title string
	// Header names the columns; a table of facts may have none.
	Header []string
	Rows   [][]string
	// Notes explain the markers used in the cells.
	Notes []note
	// Left aligns every column on the left, for tables of words (sysinfo,
	// fleet's hosts); else the first column is a left-aligned label and
	// the others right-aligned figures. In a Left table the last cell of
	// a row runs on as far as it needs without widening its column, as a
	// line of free text below a heading does.
	Left bool
}

// note explains a marker set beside figures. A note that says the same of
// many figures (a sweep's steps too short for an interval) has a kind and
// names its figure in what; collapse makes one line of those.
type note struct {
	Mark, Text string
	kind, what string
}

// collapse gives each kind of note one line naming every figure it is
// about, where that kind came up more than once: one small sweep once
// printed 48 "too short for an interval" lines.
func collapse(notes []note) []note {
	count := map[string]int{}
	for _, n := range notes {
		if n.kind != "" {
			count[n.kind]++
		}
	}
	var out []note
	at := map[string]int{}
	for _, n := range notes {
		if n.kind == "" || count[n.kind] < 2 {
			out = append(out, n)
			continue
		}
		if i, ok := at[n.kind]; ok {
			out[i].what += ", " + n.what
			continue
		}
		at[n.kind] = len(out)
		out = append(out, n)
	}
	for i, n := range out {
		if n.kind != "" && count[n.kind] > 1 {
			out[i].Text = fmt.Sprintf("%s (%d figures): %s", n.kind, count[n.kind], n.what)
		}
	}
	return out
}

func (t Table) widths() []int {
	var w []int
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i == len(w) {
				w = append(w, 0)
			}
			if !t.Left || i < len(row)-1 {
				w[i] = max(w[i], utf8.RuneCountInString(c))
			}
		}
	}
	return w
}

func pad(s string, w int, left bool) string {
	fill := strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
	if left {
		return s + fill
	}
	return fill + s
}

// text prints the table for a terminal.
func (t Table) text(w io.Writer) error {
	ew := &errWriter{w: w}
	widths := t.widths()
	line := func(row []string) {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = pad(c, widths[i], i == 0 || t.Left)
		}
		ew.printf("%s\n", strings.TrimRight(strings.Join(cells, "  "), " "))
	}
	if t.Title != "" {
		ew.printf("%s\n", t.Title)
	}
	if len(t.Header) > 0 {
		line(t.Header)
	}
	for _, r := range t.Rows {
		line(r)
	}
	for _, n := range collapse(t.Notes) {
		if n.Mark == "" {
			ew.printf("  %s\n", n.Text)
			continue
		}
		ew.printf("  %s %s\n", n.Mark, n.Text)
	}
	return ew.err
}

// markdown prints the table ready to paste into a post.
func (t Table) markdown(w io.Writer) error {
	ew := &errWriter{w: w}
	if t.Title != "" {
		ew.printf("**%s**\n\n", t.Title)
	}
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(strings.TrimSpace(c), "|", `\|`)
		}
		ew.printf("| %s |\n", strings.Join(esc, " | "))
	}
	row(t.Header)
	// A Left table leaves the alignment to markdown, which aligns left.
	align := make([]string, len(t.Header))
	for i := range align {
		switch {
		case t.Left:
			align[i] = "---"
		case i == 0:
			align[i] = ":---"
		default:
			align[i] = "---:"
		}
	}
	ew.printf("|%s|\n", strings.Join(align, "|"))
	for _, r := range t.Rows {
		row(r)
	}
	if len(t.Notes) > 0 {
		ew.printf("\n")
		for _, n := range collapse(t.Notes) {
			if n.Mark == "" {
				ew.printf("- %s\n", n.Text)
				continue
			}
			ew.printf("- `%s` %s\n", n.Mark, n.Text)
		}
	}
	return ew.err
}

// Print writes the table as markdown when md is set, else as text.
func (t Table) Print(w io.Writer, md bool) error {
	if md {
		return t.markdown(w)
	}
	return t.text(w)
}

// errWriter keeps the first write error so renderers can print freely and
// check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}
