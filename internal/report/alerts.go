package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/notify"
)

// WriteAlerts prints what `thruput alerts check` found: a row per rule
// and series (its state, the newest figure ±, the limit or baseline, since
// when), then the warnings; or the report as JSON.
func WriteAlerts(w io.Writer, rep *alert.Report, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	t := Table{Header: []string{"rule", "series", "state", "figure", "limit/baseline", "since"}, Left: true}
	for _, a := range rep.Alerts {
		t.Rows = append(t.Rows, AlertRow(a))
		if a.Note != "" {
			t.Notes = append(t.Notes, note{Mark: a.Rule, Text: a.Note})
		}
	}
	ew := &errWriter{w: w}
	if len(t.Rows) == 0 {
		ew.printf("no stored run matches any rule\n")
	} else if err := t.Print(w, format == "markdown"); err != nil {
		return err
	}
	if len(rep.Waiting) > 0 {
		q := Table{Title: "waiting in the alert spool", Header: []string{"receiver", "rule", "status", "attempts", "next try", "last error"}, Left: true}
		for _, x := range rep.Waiting {
			next := "refused"
			if !x.Refused {
				next = x.NextTry.UTC().Format("2006-01-02 15:04:05")
			}
			q.Rows = append(q.Rows, []string{x.Receiver, x.Rule, x.Status, strconv.Itoa(x.Attempts), next, x.LastError})
		}
		ew.printf("\n")
		if err := q.Print(w, format == "markdown"); err != nil {
			return err
		}
	}
	for _, s := range rep.Warnings {
		ew.printf("warning: %s\n", s)
	}
	if rep.Sent > 0 || rep.Flushed > 0 {
		ew.printf("sent %d notification(s), %d from the spool\n", rep.Sent, rep.Flushed)
	}
	return ew.err
}

// AlertRow is an alert as the table and the dashboard show it: rule,
// series, state (with its streak, and "(now)" when this check changed
// it), the newest figure ±, the limit or the baseline, since when.
func AlertRow(a alert.Alert) []string {
	state := a.State
	if a.State == alert.StatePending || a.State == alert.StateRecovering {
		state = fmt.Sprintf("%s %d/%d", a.State, a.Streak, a.For)
	}
	if a.Change != "" {
		state += " (now)"
	}
	limit := "-"
	switch {
	case a.Threshold != nil:
		limit = alert.FormatFigure(*a.Threshold)
	case a.Baseline != nil:
		limit = "median " + alert.FormatFigure(*a.Baseline)
	}
	since := "-"
	if !a.Since.IsZero() {
		since = a.Since.UTC().Format("2006-01-02 15:04")
	}
	fig := "-"
	if a.Figure != nil {
		fig = alert.FormatFigure(*a.Figure)
	}
	return []string{a.Rule, seriesName(a.Series), state, fig, limit, since}
}

// seriesName names a series in a cell: host, what it measured, direction
// and interface.
func seriesName(s notify.Series) string {
	parts := []string{s.Host}
	for _, p := range []string{s.Target, s.Direction, s.Interface} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
