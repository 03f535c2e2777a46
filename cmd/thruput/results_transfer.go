package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/importer"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

func newResultsExportCmd(a *app) *cobra.Command {
	var f filterFlags
	c := &cobra.Command{
		Use:   "export [ID...]",
		Short: "Write stored runs as JSON lines (one document a line), CSV (one figure a row) or Prometheus metrics",
		Long: `JSON lines hold each run's whole result document, oldest first; 'thruput
results import' on another machine takes them back. CSV has one row per
figure (run, target, section, step, metric, value), the long form that
spreadsheets and pandas pivot; the same figures 'thruput compare' lines up.
--format openmetrics writes the figures of the newest run that ended ok of
every host, method and target as Prometheus gauges in base units, for node_exporter's
textfile collector: with -o the file is written beside and renamed into
place, so the collector never reads half of it.`,
		Example: `  thruput results export > all.jsonl
  thruput results export --label site=lab -o lab.jsonl
  thruput results export --method disk.sweep --format csv -o sweeps.csv
  thruput results export --format openmetrics -o /var/lib/node_exporter/textfile/thruput.prom`,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.formatOf("jsonl", "json", "csv", "openmetrics")
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
			if format == "openmetrics" {
				// The newest run of each host, method and target, as
				// serve's /metrics shows them.
				docs, err := s.Latest(flt)
				if err != nil {
					return err
				}
				return a.writeAtomic(func(w io.Writer) error { return report.WriteMetrics(w, docs) })
			}
			docs, err := s.Documents(flt)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error {
				if format == "csv" {
					return report.ExportCSV(w, docs)
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

func newResultsImportCmd(a *app) *cobra.Command {
	var host string
	c := &cobra.Command{
		Use:   "import FILE...",
		Short: "Bring in runs: thruput exports, fio JSON, iperf3 -J JSON, sysbench fileio output",
		Long: `Each file is recognised by its content: a thruput result document or JSON lines
of them (from 'thruput results export'), fio --output-format=json, iperf3 -J
(client or server), or the text sysbench fileio run prints. Runs already in
the store (same id) are skipped. Imported runs carry "imported" in their
documents; --host says where they ran (fio's output names no host, and iperf3's
names the machine that wrote the file, which may not be the one measured).`,
		Example: `  thruput results import lab.jsonl
  fio --output-format=json job.fio > fio.json && thruput results import fio.json --label device=sandisk
  iperf3 -c pi4 -J > lan.json && thruput results import lan.json --host desktop --label channel=6`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, a, args, host)
		},
	}
	c.Flags().StringVar(&host, "host", "", "record `HOST` as the machine every imported run was made on, replacing what the file says")
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
		if host != "" {
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
