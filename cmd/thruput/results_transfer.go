package main

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/report"
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
			s, err := a.Read()
			if err != nil {
				return err
			}
			// An id that names nothing is an error here as in show and
			// delete, not an empty export.
			for _, arg := range args {
				id, err := s.Resolve(arg)
				if err != nil {
					return err
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
