package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/suite"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

type suiteFlags struct {
	disks       []string
	netHost     string
	bind, dev   string
	httpURL     string
	quick, full bool
	repeat      int
	every       time.Duration
	stable      stableFlags
	budget      time.Duration
}

func newSuiteCmd(a *app) *cobra.Command {
	var f suiteFlags
	c := &cobra.Command{
		Use:   "suite",
		Short: "Run every method (sweep, random, mark, network, HTTP) and write one report",
		Long: `With no flags, a short version of every method runs on this machine: the
block-size sweep, random file I/O and the four presets in the current
directory, the network test and the HTTP download over loopback (against a
server the suite starts and stops itself). That takes a minute or two and
says whether the tool and the machine work; loopback figures measure the
CPU and memory, not a network.

With --disk, --net or --http, the full method runs on what they name
instead (--quick shortens it): the sweep from 8 B to 1 MiB with 1 GiB
files, sysbench's 300 s random read/write mix on 5 GiB, fio's queue-depth
64 sequential write and read of 4 GiB repeated 4 times, the presets; 10
TCP streams for 65 s (5 s omitted) up, down and both at once, and one
stream capped at 40 Mbit/s, against an iperf3 or thruput server; the HTTP
download three times.

Every run is saved with the label suite=<id> (and round=N, time=HH:MM with
--repeat), then one HTML report of them all is written (-o FILE, else
thruput-suite-<id>.html beside the result store) and its path printed.
--repeat N --every 8h runs it N times, as a WiFi survey over a day does at
13:00, 21:00 and 05:00; 'thruput compare time=13:00 time=21:00' then sets
the rounds side by side. The package's thruput-suite.timer runs it on the
schedule and against the targets /etc/default/thruput names.

--budget fits a round in a time, estimating files to lay out at the rate
the target's last disk random run laid them out, else a 1 s probe's; a
budget as long as the plain round is accepted.`,
		Example: `  thruput suite
  thruput suite --disk /mnt/usb --disk /media/sd --net 192.168.1.10 --http http://192.168.1.10:8080/
  thruput suite --net 192.168.1.10 --quick --repeat 3 --every 8h --label channel=6
  thruput suite --net 192.168.1.10 --bind-dev eth0 --label link=lan --quick --budget 1m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSuite(cmd, a, f) },
	}
	fl := c.Flags()
	fl.StringArrayVar(&f.disks, "disk", nil, "directory to run the disk methods in (repeatable)")
	fl.StringVar(&f.netHost, "net", "", "iperf3 or thruput server to run the network test against (host or host:port)")
	fl.StringVar(&f.bind, "bind", "", "with --net, send the network test from this local `address`")
	fl.StringVar(&f.dev, "bind-dev", "", "with --net, send the network test through this network `device` (SO_BINDTODEVICE), e.g. eth0 with wlan0 also up")
	fl.StringVar(&f.httpURL, "http", "", "URL to download for the HTTP test")
	fl.BoolVar(&f.quick, "quick", false, "the short version of each method (the default with no --disk, --net or --http)")
	fl.BoolVar(&f.full, "full", false, "the full method of each tool (the default with --disk, --net or --http)")
	fl.IntVar(&f.repeat, "repeat", 1, "run the whole suite this many times")
	fl.Var(units.NewDuration(&f.every, 0), "every", "with --repeat, start a round this long after the previous one started (default: right after)")
	f.stable.add(fl)
	fl.Var(units.NewDuration(&f.budget, 0), "budget", "fit a round in this long: each phase runs until stable (--until-stable, 2 % by default), bounded by its share of what is left once files to lay out and omitted starts are set aside (never above the plan's own bound); the figures that did not get there are named")
	a.addSaveFlags(fl)
	return c
}

func runSuite(cmd *cobra.Command, a *app, f suiteFlags) error {
	if a.output != "" && strings.ToLower(filepath.Ext(a.output)) != ".html" {
		return usage.Errorf("-o %s: the suite writes an HTML report; name it .html", a.output)
	}
	// -o names the report, not the list of runs: its extension says
	// nothing of the list's format.
	html := a.output
	a.output = ""
	format, err := a.listFormat()
	a.output = html
	if err != nil {
		return err
	}
	if f.quick && f.full {
		return usage.Errorf("--quick and --full contradict each other")
	}
	if f.repeat < 1 {
		return usage.Errorf("--repeat %d: at least 1", f.repeat)
	}
	if f.every < 0 || (f.every > 0 && f.repeat == 1) {
		return usage.Errorf("--every goes with --repeat N (N > 1), as a positive duration")
	}
	local := len(f.disks) == 0 && f.netHost == "" && f.httpURL == ""
	full := f.full || (!local && !f.quick)
	if local {
		f.disks = []string{"."}
	}
	for _, d := range f.disks {
		if _, err := disk.Target(d); err != nil {
			return err
		}
	}
	if f.netHost != "" {
		if _, _, err := iperf3.ParseServer(f.netHost); err != nil {
			return usage.Errorf("--net: %w", err)
		}
	}
	for _, l := range a.labels {
		if k, _, _ := strings.Cut(l, "="); k == "suite" || k == "round" || k == "time" {
			return usage.Errorf("--label %s: the suite sets %q itself", l, k)
		}
	}
	if f.httpURL != "" && !strings.HasPrefix(f.httpURL, "http://") && !strings.HasPrefix(f.httpURL, "https://") {
		return usage.Errorf("--http %q: an http:// or https:// URL", f.httpURL)
	}
	if a.noSave {
		return usage.Errorf("the suite keeps its runs in the store for its report; --no-save does not apply")
	}
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	netAddr, httpURL := f.netHost, f.httpURL
	if local {
		stop, nAddr, hURL, err := suite.Loopback(ctx)
		if err != nil {
			return err
		}
		defer stop()
		netAddr, httpURL = nAddr, hURL
	}
	suiteID := lifecycle.NewID()
	var docs []*result.Document
	so := f.stable.options()
	// Prepared, not created: a refused budget leaves no new store behind;
	// one that exists holds the layout rates a budget estimates with.
	if err := a.openHistory(cmd.ErrOrStderr()); err != nil {
		return err
	}
	o := suite.Options{Disks: f.disks, Net: netAddr, HTTP: httpURL, Bind: f.bind, BindDev: f.dev, Full: full, UntilStable: so.Target * 100, Sustained: so.Sustained, Budget: f.budget}
	if f.budget > 0 {
		o.Rates = suite.Rates(ctx, a.Store, f.disks)
	}
	plan, err := suite.Plan(o)
	if err != nil {
		return usage.Wrap(err)
	}
	if _, err := a.Open(); err != nil {
		return err
	}
	var log io.Writer
	if !a.quiet {
		log = stderr
	}
	failed := suite.Run(ctx, plan, suite.Rounds{ID: suiteID, Repeat: f.repeat, Every: f.every, Labels: a.labels, Quiet: a.quiet, Log: log, Budget: f.budget},
		func(ctx context.Context, args []string) error { return a.runChild(ctx, args, &docs, local) },
		func(name string, err error) { fmt.Fprintf(stderr, "thruput suite: %s: %v\n", name, err) })
	if len(docs) == 0 {
		return errors.Join(ctx.Err(), errors.New("the suite measured nothing"))
	}
	path := a.output
	if path == "" {
		// Beside a SQLite store; a PostgreSQL one has no directory, so
		// the report goes where the suite was started.
		path = "thruput-suite-" + suiteID + ".html"
		if a.Loc != nil && a.Loc.URL == "" {
			path = filepath.Join(filepath.Dir(a.Store.Path()), path)
		}
	}
	if err := writeHTMLFile(path, docs, nil, a.units); err != nil {
		return err
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	entries, err := a.Store.List(store.Filter{IDs: ids})
	if err != nil {
		return err
	}
	// -o names the report; the list of runs goes to standard output.
	w := a.out()
	var werr error
	if format == "json" {
		werr = writeJSON(w, map[string]any{"suite": suiteID, "report": path, "runs": listLines(entries)})
	} else if werr = report.WriteEntries(w, listLines(entries), format, a.units); werr == nil {
		_, werr = fmt.Fprintf(w, "\nReport: %s\n", path)
	}
	// With a target, the figures that did not get there are named.
	if so.Target > 0 || f.budget > 0 {
		for _, l := range suite.Unsettled(docs) {
			fmt.Fprintf(stderr, "thruput suite: not stable: %s\n", l)
		}
	}
	if ctx.Err() != nil {
		return errors.Join(ctx.Err(), werr)
	}
	if len(failed) > 0 {
		return errors.Join(fmt.Errorf("%d of the suite's runs failed: %s", len(failed), strings.Join(failed, ", ")), werr)
	}
	return werr
}

// runChild runs one thruput command in this process, sharing the open
// store, and collects the documents it concludes.
func (a *app) runChild(ctx context.Context, args []string, docs *[]*result.Document, loopback bool) error {
	child := &app{argv: append([]string{a.argv[0]}, args...), quiet: a.quiet, units: a.units, stdout: io.Discard}
	child.Store, child.rules = a.Store, a.rules
	child.collect = func(d *result.Document) {
		// The loopback server runs in this process: its CPU figure is
		// the client's. Marked before the run is printed and saved.
		if loopback && d.Net != nil {
			d.Net.CPU.OneProcess = true
		}
		*docs = append(*docs, d)
	}
	root := newRoot(child)
	root.SetArgs(args)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return root.ExecuteContext(ctx)
}
