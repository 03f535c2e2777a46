package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/importer"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

func newResultsImportCmd(a *app) *cobra.Command {
	var host string
	var allOrNothing bool
	c := &cobra.Command{
		Use:   "import FILE|DIR...",
		Short: "Bring in runs: thruput exports, fio, iperf3, sysbench, iozone, hdparm and disk mark output, dd, wget and curl transcripts",
		Long: `Each file is recognised by its content: a thruput result document or JSON lines
of them (from 'thruput results export'), fio --output-format=json (2.0 to 3.x,
json+ and --client output too), iperf3 -J or --json-stream (client or server,
3.0 to 3.21), the text sysbench fileio run prints (0.4, 0.5, 1.0, 1.1; a log
of many runs gives a run each), iozone's -a or -i table (a run per file
size, record size and test), hdparm -t and -T timings, a KDiskMark or
CrystalDiskMark text report, PiBenchmarks' result table, or a transcript of dd runs (a block-size
sweep) or of wget or curl downloads. A directory stands for every file in it
and below. Runs already in the store are skipped: a run's id comes from the
output's bytes, so the same output imported again, from a copy or another
checkout, is stored once. Every good file is imported and every bad one named
with its reason (exit status 1); with --all-or-nothing one bad file stops the
import before anything is stored. fio's output names no host, so --host says
where it ran. See docs/import.md for every format and unit.`,
		Example: `  thruput results import lab.jsonl
  thruput results import ~/old-benchmarks/ --label site=home
  fio --output-format=json job.fio > fio.json && thruput results import fio.json --label device=sandisk
  iperf3 -c pi4 -J > lan.json && thruput results import lan.json --host desktop --label channel=6`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, a, args, host, allOrNothing)
		},
	}
	c.Flags().StringVar(&host, "host", "", "record `HOST` as the machine every imported run was made on, replacing what the file says (iperf3's names the machine that wrote the file, which may not be the one measured)")
	c.Flags().StringArrayVar(&a.labels, "label", nil, "tag every imported run with `key=value`, replacing a label of that key the file gave; repeatable")
	c.Flags().BoolVar(&allOrNothing, "all-or-nothing", false, "refuse the whole import if any file is bad, storing nothing")
	return c
}

// importFiles expands the arguments: a directory stands for the regular
// files in it and below, in name order, leaving out hidden ones (.git).
func importFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil || !fi.IsDir() {
			files = append(files, arg)
			continue
		}
		var in []string
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != arg && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				in = append(in, p)
			}
			return nil
		})
		if err != nil {
			return nil, usage.Wrap(err)
		}
		if len(in) == 0 {
			return nil, usage.Errorf("%s: no file in the directory", arg)
		}
		slices.Sort(in)
		files = append(files, in...)
	}
	return files, nil
}

// badFile is a file that could not be imported, and why.
type badFile struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func runImport(cmd *cobra.Command, a *app, args []string, host string, allOrNothing bool) error {
	format, err := a.listFormat()
	if err != nil {
		return err
	}
	labels, err := result.ParseLabels(a.labels)
	if err != nil {
		return usage.Errorf("--label: %w", err)
	}
	files, err := importFiles(args)
	if err != nil {
		return err
	}
	// Every file is read and converted once before the store is touched,
	// so a bad file is named before anything is stored (and with
	// --all-or-nothing, nothing is); the second pass saves, one run at a
	// time, so memory holds one run, not an export.
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
	var good []string
	bad := []badFile{}
	for _, f := range files {
		n := 0
		out, err := importer.EachFile(f, func(*result.Document) error { n++; return nil })
		if err != nil {
			if allOrNothing || len(files) == 1 {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
					return usage.Wrap(err)
				}
				return usage.Errorf("%s: %w", f, err)
			}
			bad = append(bad, badFile{f, err.Error()})
			continue
		}
		good = append(good, f)
		lines = append(lines, fmt.Sprintf("%s: %d %s run(s)", f, n, out.Tool))
		for _, note := range out.Notes {
			lines = append(lines, "  "+note)
		}
	}
	if len(good) == 0 {
		// Nothing to store: the same refusal as for one bad file, each
		// file named.
		for _, b := range bad[:len(bad)-1] {
			fmt.Fprintf(cmd.ErrOrStderr(), "thruput: %s: %s\n", b.File, b.Error)
		}
		last := bad[len(bad)-1]
		return usage.Errorf("%s: %s", last.File, last.Error)
	}
	s, err := a.Open()
	if err != nil {
		return err
	}
	var ids []string
	saved, skipped, err := s.SaveEach(func(save func(*result.Document) error) error {
		for _, f := range good {
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
	err = a.write(func(w io.Writer) error {
		if format == "json" {
			return writeJSON(w, map[string]any{"saved": saved, "skipped": skipped, "ids": ids, "refused": bad})
		}
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		_, err := fmt.Fprintf(w, "saved %d, skipped %d already in %s\n", saved, skipped, s.Path())
		return err
	})
	if err != nil || len(bad) == 0 {
		return err
	}
	for _, b := range bad {
		fmt.Fprintf(cmd.ErrOrStderr(), "thruput: %s: %s\n", b.File, b.Error)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "thruput: %d of %d files could not be imported\n", len(bad), len(files))
	return exitStatus(exitFailed)
}
