package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/importer"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

func newResultsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "results",
		Short: "The history: list, show, export, import and delete stored runs",
		Long: `Every run of every method is kept in a SQLite file, the result store, unless
it was given --no-save. The store is $THRUPUT_DB, else
$XDG_DATA_HOME/thruput/results.db (~/.local/share/thruput/results.db); --db
names another. Runs are named by their id or any unique prefix of it (at
least 4 characters).`,
		Example: `  thruput results list --method disk. --label fs=ext4
  thruput results show 20261121T0530
  thruput results export --format csv -o history.csv
  thruput results import fio.json iperf3-lan.json sysbench.txt --label site=lab
  thruput results delete 20261121T0530Z-a1b2c3`,
	}
	c.AddCommand(newResultsListCmd(a), newResultsShowCmd(a), newResultsExportCmd(a),
		newResultsImportCmd(a), newResultsDeleteCmd(a))
	return c
}

// filterFlags select runs the way every history command does.
type filterFlags struct {
	method, host, status string
	labels               []string
	since, until         string
	limit                int
	// all is --all where the command hides runs that did not end ok.
	all *bool
}

func (f *filterFlags) add(fl *pflag.FlagSet, limit int) {
	fl.StringVar(&f.method, "method", "", "only this method (disk.sweep), or a family ending in a dot (disk.)")
	fl.StringVar(&f.host, "host", "", "only runs made on this hostname")
	fl.StringArrayVar(&f.labels, "label", nil, "only runs with this `key=value` label, or with the key at all; repeatable (all must match)")
	fl.StringVar(&f.since, "since", "", "only runs started at or after this time: 2026-11-21, 2026-11-21T13:00, or an age such as 24h or 7d")
	fl.StringVar(&f.until, "until", "", "only runs started before this time (same forms as --since)")
	fl.StringVar(&f.status, "status", "", "only runs that ended ok, partial (failed part-way), failed or interrupted")
	fl.IntVar(&f.limit, "limit", limit, "at most this many runs, the newest (0: all)")
}

func (f *filterFlags) filter(now time.Time) (store.Filter, error) {
	flt := store.Filter{Method: f.method, Host: f.host, Limit: f.limit}
	if f.limit < 0 {
		return flt, usage.Errorf("--limit %d: use 0 for all, or a positive count", f.limit)
	}
	switch f.status {
	case "", result.StatusOK, result.StatusPartial, result.StatusFailed, result.StatusInterrupted:
		flt.Status = f.status
	default:
		return flt, usage.Errorf("--status %q: use ok, partial, failed or interrupted", f.status)
	}
	if f.all != nil && !*f.all && flt.Status == "" {
		flt.Status = result.StatusOK
	}
	for _, l := range f.labels {
		q, err := store.ParseLabelQuery(l)
		if err != nil {
			return flt, usage.Errorf("--label: %w", err)
		}
		flt.Labels = append(flt.Labels, q)
	}
	var err error
	if flt.Since, err = parseWhen(f.since, now); err != nil {
		return flt, usage.Errorf("--since: %w", err)
	}
	if flt.Until, err = parseWhen(f.until, now); err != nil {
		return flt, usage.Errorf("--until: %w", err)
	}
	return flt, nil
}

// parseWhen reads a point in time as people type it: a date, a date and
// time (local time unless a zone is given), or an age counted back from now
// in Go durations plus days ("36h", "7d"). Empty is the zero time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 36500 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: an age is not negative", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if err == nil {
			break
		}
		t, err = time.ParseInLocation(layout, s, time.Local)
	}
	if err == nil {
		// The store keeps nanoseconds since 1970 in 64 bits.
		if t.Year() < 1970 || t.Year() > 2200 {
			return time.Time{}, fmt.Errorf("%q: a year from 1970 to 2200", s)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: use a date (2026-11-21), a date and time (2026-11-21T13:00), or an age (24h, 7d)", s)
}

// entryJSON is one line of `results list --json`; docs/result-json.md
// documents these names.
type entryJSON struct {
	ID        string            `json:"id"`
	Method    string            `json:"method"`
	Host      string            `json:"host,omitempty"`
	StartedAt time.Time         `json:"started_at"`
	Status    string            `json:"status"`
	Target    string            `json:"target,omitempty"`
	FSType    string            `json:"fs_type,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Summary   string            `json:"summary,omitempty"`
	Imported  string            `json:"imported,omitempty"`
}

func newResultsListCmd(a *app) *cobra.Command {
	var f filterFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first, with their headline figures",
		Args:  cobra.NoArgs,
		Example: `  thruput results list
  thruput results list --method net. --since 7d
  thruput results list --label channel --label site=home --json`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := a.listFormat()
			if err != nil {
				return err
			}
			flt, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			s, err := a.readStore()
			if err != nil {
				return err
			}
			entries, err := s.List(flt)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error { return writeEntries(w, entries, format) })
		},
	}
	f.add(c.Flags(), 50)
	f.all = c.Flags().Bool("all", false, "also the runs that did not end ok (partial, failed, interrupted), which are left out otherwise")
	return c
}

// listFormat is outputFormat for the commands whose output is a list of
// runs, which has no markdown form of its own: markdown gets the table.
func (a *app) listFormat() (string, error) {
	format, err := a.outputFormat()
	if format == "markdown" {
		format = "table"
	}
	return format, err
}

func entriesJSON(entries []store.Entry) []entryJSON {
	out := make([]entryJSON, len(entries))
	for i, e := range entries {
		out[i] = entryJSON{e.ID, e.Method, e.Host, e.StartedAt.UTC(), e.Status, e.Target, e.FSType, e.Labels, e.Summary, e.Imported}
	}
	return out
}

func writeEntries(w io.Writer, entries []store.Entry, format string) error {
	switch format {
	case "json":
		return writeJSON(w, entriesJSON(entries))
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"id", "method", "host", "started_at", "status", "target", "fs_type", "labels", "summary", "imported"})
		for _, e := range entries {
			_ = cw.Write([]string{e.ID, e.Method, e.Host, e.StartedAt.UTC().Format(time.RFC3339), e.Status, e.Target, e.FSType, labelString(e.Labels), e.Summary, e.Imported})
		}
		cw.Flush()
		return cw.Error()
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no stored runs match")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMETHOD\tHOST\tTARGET\tLABELS\tRESULT")
	for _, e := range entries {
		res := e.Summary
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, started, e.Method, e.Host, target, labelString(e.Labels), res)
	}
	return tw.Flush()
}

// labelString prints labels sorted by key, as they are typed.
func labelString(m map[string]string) string {
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

func newResultsShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run as it printed when it ran (table, json, csv, markdown)",
		Args:  cobra.ExactArgs(1),
		Example: `  thruput results show 20261121T0530
  thruput results show 20261121T0530 --json > run.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			s, err := a.readStore()
			if err != nil {
				return err
			}
			doc, err := s.Get(args[0])
			if err != nil {
				return usage.Wrap(err)
			}
			return a.emit(doc, format)
		},
	}
}

func newResultsExportCmd(a *app) *cobra.Command {
	var f filterFlags
	c := &cobra.Command{
		Use:   "export [ID...]",
		Short: "Write stored runs as JSON lines (one document a line) or CSV (one figure a row)",
		Long: `JSON lines hold each run's whole result document, oldest first; 'thruput
results import' on another machine takes them back. CSV has one row per
figure (run, target, section, step, metric, value), the long form that
spreadsheets and pandas pivot; the same figures 'thruput compare' lines up.`,
		Example: `  thruput results export > all.jsonl
  thruput results export --label site=lab -o lab.jsonl
  thruput results export --method disk.sweep --format csv -o sweeps.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.formatOf("jsonl", "json", "csv")
			if err != nil {
				return err
			}
			if format == "json" {
				format = "jsonl"
			}
			flt, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			s, err := a.readStore()
			if err != nil {
				return err
			}
			// An id that names nothing is an error here as in show and
			// delete, not an empty export.
			for _, arg := range args {
				id, err := s.Resolve(arg)
				if err != nil {
					return usage.Wrap(err)
				}
				flt.IDs = append(flt.IDs, id)
			}
			docs, err := s.Documents(flt)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error {
				if format == "csv" {
					return exportCSV(w, docs)
				}
				bw := bufio.NewWriter(w)
				enc := json.NewEncoder(bw)
				for _, d := range docs {
					if err := enc.Encode(d); err != nil {
						return err
					}
				}
				return bw.Flush()
			})
		},
	}
	f.add(c.Flags(), 0)
	return c
}

// exportCSV writes the figures compare aligns, one row each: a table that
// holds every method at once.
func exportCSV(w io.Writer, docs []*result.Document) error {
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
				_ = cw.Write([]string{d.ID, d.Method, d.StartedAt.UTC().Format(time.RFC3339), d.Host.Hostname, labelString(d.Labels),
					c.Columns[i].Target, r.Section, r.Step, r.Metric, strconv.FormatFloat(cell.Value, 'g', -1, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func newResultsImportCmd(a *app) *cobra.Command {
	var host string
	c := &cobra.Command{
		Use:   "import FILE...",
		Short: "Bring in runs: thruput exports, fio JSON, iperf3 -J JSON, sysbench fileio output",
		Long: `Each file is recognised by its content: a thruput result document or JSON lines
of them (from 'thruput results export'), fio --output-format=json, iperf3 -J
(client or server), or the text sysbench fileio run prints. Runs already in
the store (same id) are skipped. Imported runs carry "imported" in their
documents; fio's output names no host, so --host says where it ran.`,
		Example: `  thruput results import lab.jsonl
  fio --output-format=json job.fio > fio.json && thruput results import fio.json --label device=sandisk
  iperf3 -c pi4 -J > lan.json && thruput results import lan.json --host desktop --label channel=6`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, a, args, host)
		},
	}
	c.Flags().StringVar(&host, "host", "", "hostname to record on runs whose file names none")
	c.Flags().StringArrayVar(&a.labels, "label", nil, "tag every imported run with `key=value`, replacing a label of that key the file gave; repeatable")
	return c
}

func runImport(cmd *cobra.Command, a *app, files []string, host string) error {
	format, err := a.listFormat()
	if err != nil {
		return err
	}
	labels, err := result.ParseLabels(a.labels)
	if err != nil {
		return usage.Errorf("--label: %w", err)
	}
	// Every file is read and converted once before the store is touched,
	// so a bad file imports nothing (and makes no store); the second pass
	// saves, one run at a time, so memory holds one run, not an export.
	tag := func(d *result.Document) {
		if host != "" && d.Host.Hostname == "" {
			d.Host.Hostname = host
		}
		if len(labels) > 0 && d.Labels == nil {
			d.Labels = map[string]string{}
		}
		for k, v := range labels {
			d.Labels[k] = v
		}
	}
	var lines []string
	for _, f := range files {
		n := 0
		tool, err := importer.EachFile(f, func(*result.Document) error { n++; return nil })
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return usage.Wrap(err)
			}
			return usage.Errorf("%s: %w", f, err)
		}
		lines = append(lines, fmt.Sprintf("%s: %d %s run(s)", f, n, tool))
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	var ids []string
	saved, skipped, err := s.SaveEach(func(save func(*result.Document) error) error {
		for _, f := range files {
			_, err := importer.EachFile(f, func(d *result.Document) error {
				tag(d)
				ids = append(ids, d.ID)
				return save(d)
			})
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return a.write(func(w io.Writer) error {
		if format == "json" {
			return writeJSON(w, map[string]any{"saved": saved, "skipped": skipped, "ids": ids})
		}
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		_, err := fmt.Fprintf(w, "saved %d, skipped %d already in %s\n", saved, skipped, s.Path())
		return err
	})
}

func newResultsDeleteCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID...",
		Short:   "Remove runs from the store",
		Example: "  thruput results delete 20261121T0530Z-a1b2c3 20261121T0612",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.readStore()
			if err != nil {
				return err
			}
			// Every id must name a run before any is deleted.
			ids := make([]string, len(args))
			for i, arg := range args {
				if ids[i], err = s.Resolve(arg); err != nil {
					return usage.Wrap(err)
				}
			}
			n, err := s.Delete(ids...)
			if err != nil {
				return err
			}
			if !a.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "thruput: deleted %d run(s) from %s\n", n, s.Path())
			}
			return nil
		},
	}
}
