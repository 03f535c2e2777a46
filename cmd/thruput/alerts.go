package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// alertsEnv names the rules file when --alerts does not; the timer's
// service sets it when /etc/thruput/alerts.yaml exists.
const alertsEnv = "THRUPUT_ALERTS"

// alerting is what the app keeps for the alert rules: --alerts, the file
// once read, and the run a rule asked to be retested.
type alerting struct {
	alertsPath string
	rules      *alert.File
	// retestOf is the id of the run a rule with retest: true wants run
	// again before it fires; canRetest says the running command can
	// (retestable wrapped it).
	retestOf  string
	canRetest bool
}

// loadAlerts reads the rules file (--alerts, else $THRUPUT_ALERTS) before
// anything is measured, so a bad file stops the command (exit 2) first.
func (a *app) loadAlerts() error {
	if a.rules != nil {
		return nil
	}
	path := a.alertsPath
	if path == "" {
		path = os.Getenv(alertsEnv)
	}
	if path == "" {
		return nil
	}
	f, err := alert.Load(path)
	if err != nil {
		return err
	}
	a.rules = f
	return nil
}

// alertOptions are where notices go: notify's spool and the state file
// beside it, by the store's key.
func (a *app) alertOptions() (alert.Options, error) {
	dir, err := notify.DefaultSpoolDir()
	if err != nil {
		return alert.Options{}, err
	}
	key, err := a.StoreKey()
	if err != nil {
		return alert.Options{}, err
	}
	return alert.Options{
		StatePath: alert.StateFile(dir), StoreKey: key,
		Send: func(ctx context.Context, r notify.Receiver, n notify.Notification) error {
			return notify.Send(ctx, dir, r, n)
		},
		Flush:   func(ctx context.Context, rs []notify.Receiver) (int, error) { return notify.Flush(ctx, dir, rs) },
		Pending: func() ([]notify.Queued, error) { return notify.Pending(dir) },
	}, nil
}

// alertTimeout bounds the notices of one saved run: a receiver that does
// not answer waits in the spool, and the command ends.
const alertTimeout = 30 * time.Second

// Save keeps a run (lifecycle.History.Save), then judges the rules that
// select it and sends what changed. An alert that fails (a receiver down,
// the state file unreadable) is a warning: the run is saved all the same.
func (a *app) Save(doc *result.Document) error {
	if err := a.History.Save(doc); err != nil || a.rules == nil || a.Store == nil {
		return err
	}
	o, err := a.alertOptions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "thruput: alerts: %v\n", err)
		return nil
	}
	o.Only, o.Retest = doc, a.canRetest
	ctx, cancel := context.WithTimeout(context.Background(), alertTimeout)
	defer cancel()
	rep, err := alert.Check(ctx, a.Store, a.rules, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "thruput: alerts: %v\n", err)
		return nil
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(os.Stderr, "thruput: alerts: %s\n", w)
	}
	if len(rep.Retest) > 0 {
		a.retestOf = doc.ID
	}
	return nil
}

// retestable wraps the RunE of every command that measures one step (the
// disk and net methods, but not a server, which cannot rerun its client's
// test): when a rule with retest: true asks, the step runs again at once,
// labelled retest=<first id>, and the rule fires only if the retest
// breaches too. A step is a command with --no-save of its own, looked up
// in Flags, not LocalFlags: the flags are not merged with their parents'
// yet, and LocalFlags builds a new set for every command, which was a
// twentieth of every start of the binary. (Flags holds a command's local
// flags only: a --no-save declared persistent would be missed.)
func (a *app) retestable(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		p := c.Parent()
		if c.RunE == nil || c.Flags().Lookup("no-save") == nil || p == nil || (p.Name() != "disk" && p.Name() != "net") || c.Name() == "server" {
			return
		}
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			a.canRetest = true
			err := run(cmd, args)
			id := a.retestOf
			if id == "" || err != nil {
				return err
			}
			a.retestOf = ""
			labels := a.labels
			a.labels = append(slices.Clone(labels), alert.RetestLabel+"="+id)
			fmt.Fprintf(os.Stderr, "thruput: alerts: run %s would fire a rule with retest: true; running the step again\n", id)
			err = run(cmd, args)
			a.labels = labels
			return err
		}
	}
	walk(root)
}

func newAlertsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "alerts",
		Short: "Alert rules over the history: check them, send what changed",
		Long: `Alert rules (a YAML file: --alerts FILE, else $THRUPUT_ALERTS) watch series
of stored runs: a method, host, target, direction, interface and labels.
A rule fires when the series' figure is below or above a limit (below: 80
Mbit/s, above: 50 ms, below: 500 IOPS), or has dropped against the median
of its own last runs beyond noise (drop: 25%, baseline: 10 runs or 7d), for:
N judged runs in a row; it resolves after N good runs in a row. Suspect runs
are never judged. Every command that saves a run judges the rules that select
it right after; alerts check judges them all. Each change is sent once to
the rule's receivers (a webhook, Alertmanager, ntfy, email); a receiver that
is down gets it later from the spool. See the README's "Alerts".`,
		Example: `  thruput alerts check --alerts /etc/thruput/alerts.yaml
  thruput alerts check --dry-run --json
  THRUPUT_ALERTS=~/alerts.yaml thruput net client 192.168.1.10 --label link=lan`,
	}
	c.AddCommand(newAlertsCheckCmd(a))
	return c
}

func newAlertsCheckCmd(a *app) *cobra.Command {
	var dryRun bool
	c := &cobra.Command{
		Use:   "check",
		Short: "Judge every rule over the store, print each alert's state, send what changed",
		Long: `check judges every rule over every series of the store it selects: a table
(rule, series, state, the newest figure ±, the limit or the baseline, since
when) or --json. Changes of state are sent to the rules' receivers once, and
what the alerts spool holds is sent again; --dry-run sends and records
nothing. A selector that matches no stored run is a warning.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := a.formatOf("table", "json", "markdown")
			if err != nil {
				return err
			}
			if err := a.loadAlerts(); err != nil {
				return err
			}
			if a.rules == nil {
				return usage.Errorf("no alert rules: give --alerts FILE or set %s", alertsEnv)
			}
			s, err := a.Read()
			if err != nil {
				return err
			}
			o, err := a.alertOptions()
			if err != nil {
				return err
			}
			o.DryRun = dryRun
			rep, err := alert.Check(cmd.Context(), s, a.rules, o)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error { return report.WriteAlerts(w, rep, format) })
		},
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "send nothing and record nothing: only show each alert's state")
	return c
}
