package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// Entry is one line of `results list --json`; docs/result-json.md
// documents these names.
type Entry struct {
	ID        string            `json:"id"`
	Method    result.Method     `json:"method"`
	Host      string            `json:"host,omitempty"`
	StartedAt time.Time         `json:"started_at"`
	Status    string            `json:"status"`
	Target    string            `json:"target,omitempty"`
	FSType    string            `json:"fs_type,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Summary   string            `json:"summary,omitempty"`
	Imported  string            `json:"imported,omitempty"`
	// DeviceIDs are the hardware ids of what the run measured.
	DeviceIDs []string `json:"device_ids,omitempty"`
}

// WriteEntries prints the list of stored runs: a table, CSV or JSON. The
// table's figures are in units (Summary); CSV and JSON keep each summary
// as it was stored, for programs that read it.
func WriteEntries(w io.Writer, entries []Entry, format, units string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"id", "method", "host", "started_at", "status", "target", "fs_type", "labels", "summary", "imported", "device_ids"})
		for _, e := range entries {
			_ = cw.Write([]string{e.ID, string(e.Method), e.Host, e.StartedAt.UTC().Format(time.RFC3339), e.Status, e.Target, e.FSType, Labels(e.Labels), e.Summary, e.Imported, strings.Join(e.DeviceIDs, " ")})
		}
		cw.Flush()
		return cw.Error()
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no stored runs match")
		return err
	}
	t := Table{Header: []string{"ID", "STARTED", "METHOD", "HOST", "TARGET", "LABELS", "RESULT"}, Left: true}
	// The device column only where a run has an id: runs stored before
	// ids were kept, and loop devices, have none.
	devices := slices.ContainsFunc(entries, func(e Entry) bool { return len(e.DeviceIDs) > 0 })
	if devices {
		t.Header = slices.Insert(t.Header, 5, "DEVICE")
	}
	for _, e := range entries {
		res := Summary(e.Method, e.Summary, units)
		if e.Status != result.StatusOK {
			res = strings.TrimSpace(e.Status + " " + res)
		}
		if e.Imported != "" {
			res += " (from " + e.Imported + ")"
		}
		target := e.Target
		if e.FSType != "" {
			target = e.FSType + " " + target
		}
		started := "-"
		if !e.StartedAt.IsZero() {
			started = e.StartedAt.Local().Format("2006-01-02 15:04")
		}
		row := []string{e.ID, started, string(e.Method), e.Host, target, Labels(e.Labels), res}
		if devices {
			row = slices.Insert(row, 5, strings.Join(e.DeviceIDs, " "))
		}
		t.Rows = append(t.Rows, row)
	}
	return t.text(w)
}

// Labels prints labels sorted by key, as they are typed.
func Labels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ",")
}

// ExportCSV writes the figures compare aligns, one row each: a table that
// holds every method at once.
func ExportCSV(w io.Writer, docs []*result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "method", "started_at", "host", "labels", "target", "section", "step", "metric", "value"})
	for _, d := range docs {
		c, err := compare.New([]compare.Group{{Name: d.ID, Docs: []*result.Document{d}}}, 0)
		if err != nil {
			return err
		}
		for _, r := range c.Rows {
			for i, cell := range r.Cells {
				if !cell.Present {
					continue
				}
				_ = cw.Write([]string{d.ID, string(d.Method), d.StartedAt.UTC().Format(time.RFC3339), d.Host.Hostname, Labels(d.Labels),
					c.Columns[i].Target, r.Section, r.Step, r.Metric, strconv.FormatFloat(cell.Value, 'g', -1, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
