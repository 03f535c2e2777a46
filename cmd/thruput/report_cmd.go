package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/atomicfile"
	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

func newReportCmd(a *app) *cobra.Command {
	var sel selectFlags
	var png bool
	c := &cobra.Command{
		Use:   "report [ID|LABELS ...]",
		Short: "Write one self-contained HTML page (or markdown) with charts for runs or a comparison",
		Long: `With no argument, reports the newest stored run; with one run id, that run;
with several arguments (as 'thruput compare' takes them), a comparison of
them first, then each run; with suite=ID, the page of that suite again. The HTML page needs nothing else to be viewed:
styles and charts (inline SVG) are in the file, and it loads nothing from
the network. It holds the tables, the charts (a sweep's MiB/s against
block size, IOPS as grouped bars, a network test's Mbit/s per interval per
stream), the bottleneck verdicts and the machine context.

The page goes to -o FILE, else to thruput-report-<id>.html in the current
directory; its path is printed. --format markdown prints the tables ready
to paste into a post instead. --png also writes each chart as a PNG file
beside the page.`,
		Example: `  thruput report
  thruput report 20261121T0530 -o sd-card.html --png
  thruput report fs=ext4 fs=vfat --method disk.sweep
  thruput report 20261121T0530 --format markdown > post.md
  thruput report suite=20261121T0530Z-a1b2c3`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, a, args, sel, png)
		},
	}
	fl := c.Flags()
	sel.add(fl)
	fl.BoolVar(&png, "png", false, "also write every chart as a PNG file beside the page")
	return c
}

func runReport(cmd *cobra.Command, a *app, args []string, sel selectFlags, png bool) error {
	format, err := a.formatOf("html", "markdown")
	if err != nil {
		return err
	}
	if png && format != "html" {
		return usage.Errorf("--png goes with the HTML page, not --format %s", format)
	}
	s, err := a.Read()
	if err != nil {
		return err
	}
	docs, cmp, err := store.Select(s, args, store.Selection(sel))
	if err != nil {
		return err
	}
	if format == "markdown" {
		return a.write(func(w io.Writer) error { return markdownReport(w, docs, cmp, a.units) })
	}
	path := a.output
	if path == "" {
		name := docs[0].ID
		if cmp != nil {
			name = "compare-" + name
		}
		path = "thruput-report-" + name + ".html"
	}
	if err := writeHTMLFile(path, docs, cmp, a.units); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintln(out, path)
	if png {
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		paths, err := report.WritePNGs(filepath.Dir(path), base, docs, cmp, report.HTMLOptions{Units: a.units})
		for _, p := range paths {
			fmt.Fprintln(out, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeHTMLFile writes the page through a temporary file renamed into
// place, so a failure never leaves half a page behind; a FIFO, a device
// or /dev/stdout is written as it is.
func writeHTMLFile(path string, docs []*result.Document, cmp *compare.Comparison, units string) error {
	err := atomicfile.Write(path, 0o666, func(w io.Writer) error {
		return report.WriteHTML(w, docs, cmp, report.HTMLOptions{Units: units})
	})
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "open" {
		return usage.Errorf("-o %s: %w", path, pe.Err)
	}
	return err
}

// markdownReport is the paste-ready form: the comparison, then each run's
// tables as the run printed them.
func markdownReport(w io.Writer, docs []*result.Document, cmp *compare.Comparison, units string) error {
	o := report.Options{Format: "markdown", Units: units}
	if cmp != nil {
		if err := report.WriteComparison(w, cmp, o); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for i, d := range docs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := report.Write(w, d, o); err != nil {
			return err
		}
	}
	return nil
}

// listLines are stored runs as results list and suite print them.
func listLines(entries []store.Entry) []report.Entry {
	out := make([]report.Entry, len(entries))
	for i, e := range entries {
		out[i] = report.Entry{ID: e.ID, Method: e.Method, Host: e.Host, StartedAt: e.StartedAt.UTC(), Status: e.Status, Target: e.Target,
			FSType: e.FSType, Labels: e.Labels, Summary: e.Summary, Imported: e.Imported, DeviceIDs: e.DeviceIDs}
	}
	return out
}
