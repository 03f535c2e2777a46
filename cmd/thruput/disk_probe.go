package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/probe"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// probeFlags are disk check's flags for --probe.
type probeFlags struct {
	cfg     probe.Config
	restore string
}

func (pf *probeFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&pf.cfg.Device, "probe", "", "find where the real memory of this whole, unmounted block `DEVICE` ends, as f3probe does (fake-capacity cards)")
	fl.BoolVar(&pf.cfg.Destructive, "destructive", false, "with --probe: keep no backup; the blocks probed keep its stamps")
	fl.Var(units.NewSize(&pf.cfg.CacheFlush, probe.DefaultCacheFlush), "cache", "with --probe: bytes written after each pass's stamps to push them out of the card's write cache")
	fl.StringVar(&pf.restore, "restore", "", "with --probe: write back the blocks a killed probe left in backup `FILE`, and remove it")
}

// probeOwn are the flags --probe takes, besides the output's.
var probeOwn = map[string]bool{"probe": true, "destructive": true, "cache": true, "restore": true}

// runProbe is disk check --probe: the device's verdict as a table or
// JSON, or --restore's write-back.
func (a *app) runProbe(cmd *cobra.Command, pf *probeFlags, args []string) error {
	if len(args) > 0 {
		return usage.Errorf("--probe takes a device and no DIR (got %q)", args[0])
	}
	var other []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !probeOwn[f.Name] && cmd.InheritedFlags().Lookup(f.Name) == nil {
			other = append(other, "--"+f.Name)
		}
	})
	if len(other) > 0 {
		return usage.Errorf("%s: not for --probe, which measures no speed and keeps nothing in the history", strings.Join(other, ", "))
	}
	format, err := a.formatOf("table", "json", "markdown")
	if err != nil {
		return err
	}
	if pf.restore != "" {
		if pf.cfg.Destructive || cmd.Flags().Changed("cache") {
			return usage.Errorf("--restore writes a backup back and probes nothing: drop --destructive and --cache")
		}
		n, err := probe.Restore(pf.cfg.Device, pf.restore)
		if err != nil {
			return err
		}
		return a.write(func(w io.Writer) error {
			if format == "json" {
				return writeJSON(w, map[string]any{"device": pf.cfg.Device, "restored_bytes": n, "backup": pf.restore})
			}
			_, err := fmt.Fprintf(w, "%s: %s written back from %s, which is removed\n", pf.cfg.Device, units.IEC(n), pf.restore)
			return err
		})
	}
	line := a.progress()
	defer line.Clear()
	out, err := probe.Run(cmd.Context(), pf.cfg, a.diskHooks(cmd, line))
	line.Clear()
	if err != nil {
		return err
	}
	return a.write(func(w io.Writer) error {
		if format == "json" {
			return writeJSON(w, out)
		}
		return report.ProbeTable(out).Print(w, format == "markdown")
	})
}
