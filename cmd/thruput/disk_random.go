package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

type randomFlags struct {
	cfg    disk.RandomConfig
	stable stableFlags
}

func newDiskRandomCmd(a *app) *cobra.Command {
	var f randomFlags
	c := &cobra.Command{
		Use:   "random [DIR]",
		Short: "Random file I/O on a prepared file set, as sysbench fileio",
		Long: `Prepare a set of files of incompressible data in DIR (untimed), evict it from
the page cache, then run a timed mix of reads, writes and periodic fsyncs at
random block-aligned offsets (or sequentially): sysbench fileio's method, with
latency percentiles from an HDR histogram, per-kind latency and thread
fairness. Periodic fsync counts writes over all threads, so it works with
--threads above 1. The files live in a .thruput-<run id> directory that is
removed at the end, on error and on Ctrl-C.`,
		Example: `  # sysbench fileio's classic run: 128 files, 5 GiB, random read/write 1.5:1, 16 KiB, fsync every 100, 300 s
  thruput disk random /mnt/usb

  # a short look with 4 threads
  thruput disk random /mnt/usb --size 512M -t 30s --threads 4

  # random reads only, uncached, 10000 requests
  thruput disk random /mnt/ssd --mode rndrd --direct --bs 4k --requests 10000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			cfg := f.cfg
			cfg.Stable = f.stable.options()
			if cmd.Flags().Changed("requests") && !cmd.Flags().Changed("time") {
				cfg.TimeNs = 0
			}
			if err := cfg.Validate(); err != nil {
				return usage.Named(err, randomNames)
			}
			return a.runDisk(cmd, result.MethodRandom, args, format, randomNames, func(doc *result.Document, h progress.Hooks) error {
				doc.Random = &result.Random{}
				return disk.Random(cmd.Context(), cfg, doc.Targets[0], doc.ID, doc.Random, h)
			})
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	f.stable.add(fl)
	fl.IntVar(&f.cfg.Files, "files", 128, "number of files in the set")
	fl.Var(units.NewSize(&f.cfg.TotalSize, 5<<30), "size", "size of the whole file set")
	oldNames(fl, map[string]string{"total-size": "size"})
	fl.StringVar(&f.cfg.Mode, "mode", "rndrw", "seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw")
	fl.Float64Var(&f.cfg.RWRatio, "rw-ratio", 1.5, "reads per write in rndrw")
	fl.Var(units.NewSize(&f.cfg.BlockSize, 16<<10), "bs", "block size of every request")
	fl.IntVar(&f.cfg.FsyncEvery, "fsync-every", 100, "fsync the file just written after every N writes (0 = never)")
	fl.BoolVar(&f.cfg.FsyncEnd, "fsync-end", true, "fsync every file at the end, inside the timed span")
	fl.BoolVar(&f.cfg.FsyncAll, "fsync-all", false, "each periodic fsync flushes every file of the set, as sysbench does")
	fl.StringVar(&f.cfg.FsyncMode, "fsync-mode", "fsync", "fsync or fdatasync")
	fl.IntVar(&f.cfg.Threads, "threads", 1, "worker threads")
	fl.VarP(units.NewDuration((*time.Duration)(&f.cfg.TimeNs), 300*time.Second), "time", "t", "length of the timed phase (with --requests alone: no time bound)")
	fl.Int64Var(&f.cfg.Requests, "requests", 0, "stop after this many requests over all threads (0 = no limit)")
	fl.BoolVar(&f.cfg.Direct, "direct", false, "O_DIRECT for the timed phase (--bs must be a multiple of the logical block size)")
	return c
}

// randomNames are the flags that set the fields disk.RandomConfig's
// messages name.
var randomNames = map[string]string{"Files": "--files", "TotalSize": "--size", "Mode": "--mode", "RWRatio": "--rw-ratio",
	"BlockSize": "--bs", "FsyncEvery": "--fsync-every", "FsyncMode": "--fsync-mode", "Threads": "--threads",
	"TimeNs": "--time", "Requests": "--requests", "Direct": "--direct"}
