package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// capacityNames are the flags that set the fields disk.CapacityConfig's
// messages name.
var capacityNames = map[string]string{"StartAt": "--start-at", "EndAt": "--end-at", "DropCaches": "--drop-caches"}

// capacityFlags are disk check --capacity's flags.
type capacityFlags struct {
	on  bool
	cfg disk.CapacityConfig
}

func (c *capacityFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&c.on, "capacity", false, "fill the free space with f3's N.h2w files and read them back: is the card as large as it claims?")
	fl.BoolVar(&c.cfg.VerifyOnly, "verify-only", false, "with --capacity: read back the .h2w files already in DIR (f3write's, or a --keep run's), writing nothing")
	fl.IntVar(&c.cfg.StartAt, "start-at", 1, "with --capacity: first N.h2w file (f3's --start-at)")
	fl.IntVar(&c.cfg.EndAt, "end-at", 0, "with --capacity: last N.h2w file (f3's --end-at; 0: until the filesystem is full)")
	fl.BoolVar(&c.cfg.DropCaches, "drop-caches", false, "with --capacity: also drop all clean caches before the read back (root), for a FUSE filesystem on the card (fusefat) that reads it through the device's cache")
	fl.BoolVar(&c.cfg.Keep, "keep", false, "with --capacity: leave the files written in DIR (for f3read, or to go on with --start-at)")
}

// check refuses a capacity flag without --capacity, and a class or
// rpi-sd flag with it.
func (c *capacityFlags) check(cmd *cobra.Command) error {
	fl := cmd.Flags()
	if c.on {
		for _, n := range []string{"preset", "size", "time", "claim", "engine"} {
			if fl.Changed(n) {
				return usage.Errorf("--%s is for the class verdict and rpi-sd, not --capacity", n)
			}
		}
		return nil
	}
	for _, n := range []string{"verify-only", "start-at", "end-at", "keep", "drop-caches"} {
		if fl.Changed(n) {
			return usage.Errorf("--%s goes with --capacity", n)
		}
	}
	return nil
}

// run measures the capacity of the filesystem under the one DIR.
func (c *capacityFlags) run(a *app, cmd *cobra.Command, args []string, format string) error {
	if err := c.cfg.Validate(); err != nil {
		return usage.Named(err, capacityNames)
	}
	var judged *result.Capacity
	err := a.runDisk(cmd, result.MethodCapacity, args, format, capacityNames, func(doc *result.Document, h progress.Hooks) error {
		doc.Capacity = &result.Capacity{}
		judged = doc.Capacity
		return disk.Capacity(cmd.Context(), c.cfg, doc.Targets[0], doc.Capacity, h)
	})
	if err != nil || judged == nil {
		return err
	}
	return verdictErr(judged.Pass)
}
