package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table is a titled grid of cells; the first column is a left-aligned row
// label, the others right-aligned figures, as in the seed posts.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Notes explain the markers used in the cells.
	Notes []note
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

func (t table) widths() []int {
	w := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			w[i] = max(w[i], utf8.RuneCountInString(c))
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
func (t table) text(w io.Writer) error {
	ew := &errWriter{w: w}
	widths := t.widths()
	line := func(row []string) {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = pad(c, widths[i], i == 0)
		}
		ew.printf("%s\n", strings.TrimRight(strings.Join(cells, "  "), " "))
	}
	ew.printf("%s\n", t.Title)
	line(t.Header)
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
func (t table) markdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("**%s**\n\n", t.Title)
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(strings.TrimSpace(c), "|", `\|`)
		}
		ew.printf("| %s |\n", strings.Join(esc, " | "))
	}
	row(t.Header)
	align := make([]string, len(t.Header))
	for i := range align {
		align[i] = "---:"
	}
	align[0] = ":---"
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

// print writes the table as markdown when md is set, else as text.
func (t table) print(w io.Writer, md bool) error {
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
