package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/atomicfile"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// app is what every command shares: the command line and the output flags.
type app struct {
	argv   []string
	format string
	json   bool
	output string
	quiet  bool
	// units is --units: the one unit system of every page (report.Units).
	units string
	// stdout replaces standard output when set: the suite's runs print
	// nowhere, their documents go to the report.
	stdout io.Writer
	health healthFlags
	history
	alerting
}

func (a *app) out() io.Writer {
	if a.stdout != nil {
		return a.stdout
	}
	return os.Stdout
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "thruput",
		Short: "Measure how fast this machine moves data through its storage and network",
		Long: `thruput measures storage and network throughput, explains the figure against
the ceiling of the part it crosses, and keeps the history.

Exit status: 0 when the run succeeded, 1 when a measurement failed or was
interrupted (the figures gathered so far are still printed), 2 for bad usage
(nothing was measured or written), 3 when disk check's verdict is FAIL (a card
below its class or Raspberry Pi's test, a fake, lost data), as f3probe
exits apart for a fake.`,
		Example: `  thruput suite                                  # every method, briefly, here; then an HTML report
  thruput disk sweep --target /mnt/usb --target /mnt/sd --label card=sandisk
  thruput disk sweep --bs 4k-1M --file-size 256M --format markdown
  thruput net client 192.168.1.10 -P 4 -t 30
  thruput results list
  thruput compare card=sandisk card=kingston
  thruput report`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints what `thruput version` prints.
		Version: toolVersion(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.DBSet = a.DBSet || cmd.Flags().Changed("db")
			switch a.units {
			case "", report.UnitsMiB, report.UnitsMB, report.UnitsMbit, report.UnitsBoth:
				return nil
			}
			return usage.Errorf("--units %q: use mib, mb, mbit or both", a.units)
		},
	}
	f := root.PersistentFlags()
	f.StringVar(&a.format, "format", "", "output format: "+strings.Join(report.Formats, ", ")+" (default table, or from the -o file's extension)")
	f.BoolVar(&a.json, "json", false, "same as --format json")
	f.StringVarP(&a.output, "output", "o", "", "write the output to `FILE` instead of standard output")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "no progress line on stderr")
	f.StringVar(&a.units, "units", "", "one unit system for the page: mib (MiB/s, storage's default), mb (MB/s, 10^6 B/s, as CrystalDiskMark prints), mbit (Mbit/s, networks' default) or both (MiB/s beside Mbit/s)")
	f.StringVar(&a.alertsPath, "alerts", "", "alert rules `FILE` (YAML) judged after each saved run and by alerts check (default $THRUPUT_ALERTS)")
	f.StringVar(&a.DB, "db", "", "the result store: a SQLite file, or PostgreSQL as a postgres:// URL or a libpq string such as 'host=db.lab dbname=thruput' (default $THRUPUT_DB, else $XDG_DATA_HOME/thruput/results.db)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage.Wrap(err) })
	root.AddCommand(newVersionCmd(a), newDiskCmd(a), newNetCmd(a),
		newSysinfoCmd(a), newFleetCmd(a), newResultsCmd(a), newCompareCmd(a), newReportCmd(a), newSuiteCmd(a), newServeCmd(a), newAlertsCmd(a), newManCmd())
	a.retestable(root)
	root.SetVersionTemplate(versionLine() + "\n")
	markUsageErrors(root)
	return root
}

// outputFormat settles the format from --json, --format and -o.
func (a *app) outputFormat() (string, error) { return a.formatOf(report.Formats...) }

// formatOf settles --json, --format and -o's extension among the formats
// a command writes; the first is the default.
func (a *app) formatOf(formats ...string) (string, error) {
	f := a.format
	if a.json {
		if f != "" && f != "json" {
			return "", usage.Errorf("--json and --format %s contradict each other", f)
		}
		f = "json"
	}
	fromFile := false
	if f == "" {
		f = report.FormatFor(a.output)
		fromFile = f != ""
		// An extension no format has (x.xlsx) would get a text table
		// under a name that promises something else.
		if ext := filepath.Ext(a.output); f == "" && ext != "" {
			return "", usage.Errorf("-o %s: no format writes %s files; name the file for one (.%s) or give --format", a.output, ext, strings.Join(report.Extensions(formats), ", ."))
		}
	}
	if f == "" {
		return formats[0], nil
	}
	if slices.Contains(formats, f) {
		return f, nil
	}
	if fromFile {
		return "", usage.Errorf("-o %s: this command writes %s; name the file for one of them (.%s) or give --format", a.output, strings.Join(formats, ", "), strings.Join(report.Extensions(formats), ", ."))
	}
	return "", usage.Errorf("--format %q: use one of %s", f, strings.Join(formats, ", "))
}

// emit prints doc in the chosen format to -o FILE or standard output.
func (a *app) emit(doc *result.Document, format string) error {
	return a.write(func(w io.Writer) error { return report.Write(w, doc, report.Options{Format: format, Units: a.units}) })
}

// write hands render -o FILE or standard output.
// Renderers write a line at a time, so the output is buffered: a list
// of 10,000 runs is one write, not 10,000.
func (a *app) write(render func(io.Writer) error) error {
	if a.output == "" {
		bw := bufio.NewWriter(a.out())
		return errors.Join(render(bw), bw.Flush())
	}
	f, err := os.Create(a.output)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	bw := bufio.NewWriter(f)
	return errors.Join(render(bw), bw.Flush(), f.Close())
}

// writeAtomic is write for files others read while they change (a
// node_exporter textfile): -o FILE is written under a temporary name
// beside it and renamed into place.
func (a *app) writeAtomic(render func(io.Writer) error) error {
	if a.output == "" {
		return a.write(render)
	}
	return atomicfile.Write(a.output, 0o644, render)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) progress() *progress.Line { return progress.New(a.quiet) }
