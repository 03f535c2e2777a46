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

// note explains a marker set beside figures.
type note struct{ Mark, Text string }

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
	for _, n := range t.Notes {
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
		for _, n := range t.Notes {
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
