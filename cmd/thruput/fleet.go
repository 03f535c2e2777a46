package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/fleet"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// fleetFlags are what every fleet command takes: which hosts, and how to
// reach them.
type fleetFlags struct {
	hosts       []string
	inventory   string
	group       string
	knownHosts  []string
	sshConfig   string
	acceptNew   bool
	parallel    int
	hostTimeout time.Duration
	binaries    string
}

func (f *fleetFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.hosts, "hosts", nil, "hosts as `[user@]host[:port],...` or @FILE (one per line); repeatable")
	fl.StringVar(&f.inventory, "inventory", "", "inventory `FILE` (YAML: hosts, user, port, identity, labels, groups)")
	fl.StringVar(&f.group, "group", "", "only the inventory's group `NAME`")
	fl.StringArrayVar(&f.knownHosts, "known-hosts", nil, "known_hosts `FILE` checked besides ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts; new keys go to the first given; repeatable")
	fl.StringVarP(&f.sshConfig, "ssh-config", "F", "", "ssh configuration `FILE` (default ~/.ssh/config)")
	fl.BoolVar(&f.acceptNew, "accept-new-host-keys", false, "record host keys never seen before instead of refusing the host (a changed key is always refused)")
	fl.IntVar(&f.parallel, "parallel", 0, "at most `N` hosts (fleet net: tests) at once (default all)")
	fl.Var(units.NewDuration(&f.hostTimeout, 0), "host-timeout", "give up on a host after this long (default no limit)")
	fl.StringVar(&f.binaries, "binaries", "", "`DIR` holding make dist's thruput-linux-* binaries for the hosts' platforms (default: beside this binary, then ./dist)")
}

// open settles the hosts and the SSH settings before anything is contacted.
func (f *fleetFlags) open(a *app, progress io.Writer) (*fleet.Fleet, []fleet.Host, error) {
	var inv *fleet.Inventory
	if f.inventory != "" {
		data, err := os.ReadFile(f.inventory)
		if err != nil {
			return nil, nil, usage.Errorf("--inventory: %w", err)
		}
		if inv, err = fleet.ParseInventory(data); err != nil {
			return nil, nil, usage.Errorf("%s: %w", f.inventory, err)
		}
	}
	hosts, err := fleet.Select(f.hosts, inv, f.group)
	if err != nil {
		return nil, nil, usage.Wrap(err)
	}
	if f.parallel < 0 {
		return nil, nil, usage.Errorf("--parallel %d: a number of hosts, 0 for all", f.parallel)
	}
	fl, err := fleet.New(fleet.Options{
		SSH:         fleet.SSHOptions{ConfigFile: f.sshConfig, KnownHosts: f.knownHosts, AcceptNew: f.acceptNew},
		Binaries:    &fleet.Binaries{Dir: f.binaries},
		Version:     toolVersion(),
		Parallel:    f.parallel,
		HostTimeout: f.hostTimeout,
		Progress:    progress,
	})
	if err != nil {
		return nil, nil, usage.Wrap(err)
	}
	return fl, hosts, nil
}

func newFleetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "fleet",
		Short: "Measure many machines, and the network between them, over SSH",
		Long: `fleet runs thruput on many hosts at once over SSH, with nothing installed
on them beforehand and nothing left running after: it copies the static
thruput binary for each host's platform into a per-user cache there
(~/.cache/thruput, keyed by version and SHA-256, so a second run copies
nothing), runs the measurement, and saves each host's runs here, labelled
host=NAME and with the inventory's labels. ~/.ssh/config, the agent and
known_hosts are used as ssh would; unknown host keys are refused unless
--accept-new-host-keys. Exit status 1 when any host failed (the others'
runs are saved), 2 for bad input.`,
	}
	c.AddCommand(newFleetRunCmd(a), newFleetNetCmd(a), newFleetSysinfoCmd(a), newFleetSuiteCmd(a), newFleetCleanCmd(a), newFleetExecCmd())
	return c
}

// fleetCommand completes a fleet subcommand: the shared flags, and a run
// that settles the hosts and the SSH settings (and, when it saves, the
// store) before any host is contacted, calls do, saves the runs it
// brought back, prints its outcome, and exits 1 when a host failed.
func fleetCommand(a *app, c *cobra.Command, saves bool, do func(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, args []string) (fleet.Outcome, error)) *cobra.Command {
	var f fleetFlags
	f.add(c.Flags())
	if saves {
		a.addSaveFlags(c.Flags())
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := a.formatOf("table", "json", "markdown")
		if err != nil {
			return err
		}
		if saves {
			if err := a.openHistory(os.Stderr); err != nil {
				return err
			}
		}
		fl, hosts, err := f.open(a, a.progressOut())
		if err != nil {
			return err
		}
		out, err := do(cmd.Context(), fl, hosts, args)
		if err != nil {
			return err
		}
		saveErr := a.saveAll(out.Runs())
		werr := a.write(func(w io.Writer) error { return out.Write(w, format) })
		return errors.Join(saveErr, werr, out.Failed())
	}
	return c
}

func newFleetRunCmd(a *app) *cobra.Command {
	return fleetCommand(a, &cobra.Command{
		Use:   "run [flags] -- THRUPUT-COMMAND [ARGS...]",
		Short: "Run one thruput measurement on every host at once",
		Example: `  thruput fleet run --hosts pi1,pi2,user@pi3:2222 -- disk sweep /mnt/usb --bs 4k,1M
  thruput fleet run --inventory lab.yaml --group shelf1 -- disk random --mode rndrd`,
		Args: cobra.MinimumNArgs(1),
	}, true, runOnHosts)
}

func newFleetSuiteCmd(a *app) *cobra.Command {
	return fleetCommand(a, &cobra.Command{
		Use:     "suite [flags] [-- SUITE-ARGS...]",
		Short:   "Run the suite on every host",
		Example: "  thruput fleet suite --hosts pi1,pi2\n  thruput fleet suite --inventory lab.yaml -- --disk /mnt/usb --quick",
	}, true, func(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, args []string) (fleet.Outcome, error) {
		return runOnHosts(ctx, fl, hosts, append([]string{"suite"}, args...))
	})
}

// runOnHosts runs a thruput command on every host; the runs come back
// here, so the command may not send them elsewhere.
func runOnHosts(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, args []string) (fleet.Outcome, error) {
	if _, err := checkRemote(args); err != nil {
		return nil, err
	}
	return fleet.HostRuns(fl.Run(ctx, hosts, args)), nil
}

// checkRemote parses a command meant for the hosts against this
// binary's own command tree (a fresh one: parsing sets flag variables)
// without running it, so that a typo is refused here, before any host
// is contacted, rather than by every host. It gives the command with its
// flags parsed.
func checkRemote(args []string) (*cobra.Command, error) {
	root := newRoot(&app{})
	c, rest, err := root.Find(args)
	if err != nil {
		return nil, usage.Errorf("the hosts' command: %v", err)
	}
	if c == root {
		return nil, usage.Errorf("the hosts' command %q names no thruput command", strings.Join(args, " "))
	}
	for p := c; p != nil; p = p.Parent() {
		if p.Name() == "fleet" && p.Parent() == root {
			return nil, usage.Errorf("the hosts' command: %s cannot run on the hosts", c.CommandPath())
		}
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		return nil, usage.Errorf("the hosts' command %s: %v", c.CommandPath(), err)
	}
	if err := errors.Join(c.ValidateArgs(c.Flags().Args()), c.ValidateRequiredFlags(), c.ValidateFlagGroups()); err != nil {
		return nil, usage.Errorf("the hosts' command %s: %v", c.CommandPath(), err)
	}
	for _, name := range []string{"db", "no-save"} {
		if c.Flags().Changed(name) {
			return nil, usage.Errorf("--%s cannot be passed to the hosts: the runs come back here", name)
		}
	}
	return c, nil
}

// saveAll keeps runs brought back from hosts, with the command's labels.
func (a *app) saveAll(docs []*result.Document) error {
	var errs []error
	for _, d := range docs {
		for k, v := range a.labelMap {
			d.Labels[k] = v
		}
		errs = append(errs, a.Save(d))
	}
	return errors.Join(errs...)
}

// progressOut is where fleet's per-host state lines go: stderr unless -q.
func (a *app) progressOut() io.Writer {
	if a.quiet {
		return nil
	}
	return os.Stderr
}

func newFleetSysinfoCmd(a *app) *cobra.Command {
	return fleetCommand(a, &cobra.Command{
		Use:     "sysinfo [flags]",
		Short:   "Collect every host's machine context (model, SoC, storage, NICs) in one table",
		Example: "  thruput fleet sysinfo --hosts pi1,pi2,pi3\n  thruput fleet sysinfo --inventory lab.yaml --json",
		Args:    cobra.NoArgs,
	}, false, func(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, _ []string) (fleet.Outcome, error) {
		return fleet.Infos(fl.Sysinfo(ctx, hosts)), nil
	})
}

func newFleetCleanCmd(a *app) *cobra.Command {
	return fleetCommand(a, &cobra.Command{
		Use:     "clean [flags]",
		Short:   "Remove thruput's cache (the copied binaries) from every host",
		Example: "  thruput fleet clean --hosts pi1,pi2",
		Args:    cobra.NoArgs,
	}, false, func(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, _ []string) (fleet.Outcome, error) {
		return fleet.HostRuns(fl.Clean(ctx, hosts)), nil
	})
}
