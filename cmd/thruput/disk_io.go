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

func newDiskIOCmd(a *app) *cobra.Command {
	var cfg disk.IOConfig
	var stable stableFlags
	c := &cobra.Command{
		Use:   "io [DIR]",
		Short: "Queue-depth I/O with O_DIRECT and io_uring, as fio",
		Long: `Lay out a file per job in DIR, then read and/or write it at a block size with
--iodepth requests in flight (the io_uring engine, one thread per job) or one
at a time (the sync engine, like fio's psync). Reports IOPS, bandwidth and
completion-latency percentiles per direction; --repeat runs the job several
times and adds mean, standard deviation, min and max. O_DIRECT is the default,
so the page cache plays no part; with --direct=false the file is evicted
before each run and the result says it was buffered. --verify writes blocks
that carry their offset and a checksum and reads them all back.`,
		Example: `  # fio's classic test: sequential write, then read, of 4 GiB at 4 KiB, queue depth 64, four times
  thruput disk io /mnt/sd --rw write --bs 4k --iodepth 64 --size 4G --repeat 4
  thruput disk io /mnt/sd --rw read --bs 4k --iodepth 64 --size 4G --repeat 4

  # random 4 KiB reads at QD32 for 30 s after a 5 s ramp
  thruput disk io /mnt/ssd --rw randread --iodepth 32 --size 1G -t 30s --ramp 5s --time-based

  # 70/30 random mix, 4 jobs; then a data check
  thruput disk io /mnt/ssd --rw randrw --mix 70 --jobs 4 --size 256M
  thruput disk io /mnt/usb --rw randwrite --verify --size 64M`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			cfg.Stable = stable.options()
			if cfg.Stable.Target > 0 {
				// Until the figure is known, over and over the file,
				// bounded by -t (a minute when it is not given).
				cfg.TimeBased = true
				if cfg.RuntimeNs == 0 {
					cfg.RuntimeNs = int64(time.Minute)
				}
			}
			if err := cfg.Validate(); err != nil {
				return usage.Named(err, ioNames)
			}
			return a.runDisk(cmd, result.MethodIO, args, format, ioNames, func(doc *result.Document, h progress.Hooks) error {
				doc.IO = &result.IO{}
				return disk.IO(cmd.Context(), cfg, doc.Targets[0], doc.ID, doc.IO, h)
			})
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.StringVar(&cfg.RW, "rw", "read", "read, write, randread, randwrite or randrw")
	fl.IntVar(&cfg.MixRead, "mix", 50, "read percentage of randrw")
	fl.Var(units.NewSize(&cfg.BlockSize, 4<<10), "bs", "block size of every request")
	fl.IntVar(&cfg.IODepth, "iodepth", 1, "requests in flight per job (io_uring engine)")
	fl.IntVar(&cfg.Jobs, "jobs", 1, "parallel jobs, each on a file of its own")
	fl.Var(units.NewSize(&cfg.Size, 1<<30), "size", "file size per job; a run ends after one pass unless -t ends it first")
	fl.VarP(units.NewDuration((*time.Duration)(&cfg.RuntimeNs), 0), "time", "t", "bound on each run after the ramp, as fio's runtime (0 = one pass over the file)")
	oldNames(fl, map[string]string{"runtime": "time"})
	fl.Var(units.NewDuration((*time.Duration)(&cfg.RampNs), 0), "ramp", "run this long before counting (left out of the figures)")
	fl.BoolVar(&cfg.TimeBased, "time-based", false, "loop over the file until -t ends it")
	fl.BoolVar(&cfg.Direct, "direct", true, "O_DIRECT (--direct=false for buffered I/O, evicted before each run)")
	fl.StringVar(&cfg.Engine, "engine", disk.EngineUring, "io_uring (falls back to sync where the kernel refuses it) or sync")
	fl.IntVar(&cfg.Repeat, "repeat", 1, "run the job this many times and report the spread")
	fl.BoolVar(&cfg.Verify, "verify", false, "write blocks carrying their offset and checksum, read them all back and check")
	stable.add(fl)
	fl.Int64Var(&cfg.Corrupt, "corrupt-at", -1, "with --verify: flip the byte at this offset of the first file on disk before checking, to see the check catch it")
	return c
}

// ioNames are the flags that set the fields disk.IOConfig's messages name.
var ioNames = map[string]string{"RW": "--rw", "MixRead": "--mix", "BlockSize": "--bs", "IODepth": "--iodepth",
	"Jobs": "--jobs", "Size": "--size", "RuntimeNs": "-t", "RampNs": "--ramp", "TimeBased": "--time-based",
	"Direct": "--direct", "Engine": "--engine", "Repeat": "--repeat", "Verify": "--verify", "Corrupt": "--corrupt-at"}

// markNames are the flags that set the fields disk.MarkConfig's messages
// name.
var markNames = map[string]string{"Size": "--size", "DurationNs": "-t", "Direct": "--direct", "Engine": "--engine"}

func newDiskMarkCmd(a *app) *cobra.Command {
	var cfg disk.MarkConfig
	var markStable stableFlags
	c := &cobra.Command{
		Use:   "mark [DIR]",
		Short: "CrystalDiskMark's four presets: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1",
		Long: `Run the four tests CrystalDiskMark made familiar, each read then write, on one
file for -t each: sequential 1 MiB at queue depth 8 and 1, random
4 KiB at queue depth 32 and 1, one thread, O_DIRECT. The table prints MiB/s
like every storage figure of thruput, or MB/s (10^6 bytes, as
CrystalDiskMark prints) with --units mb; the JSON has both, and IOPS and
latency.`,
		Example: `  thruput disk mark /mnt/usb
  thruput disk mark /mnt/ssd --size 4G -t 10s --units mb`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			cfg.Stable = markStable.options()
			return a.runDisk(cmd, result.MethodMark, args, format, markNames, func(doc *result.Document, h progress.Hooks) error {
				doc.Mark = &result.Mark{}
				return disk.Mark(cmd.Context(), cfg, doc.Targets[0], doc.ID, doc.Mark, h)
			})
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.Var(units.NewSize(&cfg.Size, 1<<30), "size", "test file size")
	fl.VarP(units.NewDuration((*time.Duration)(&cfg.DurationNs), 5*time.Second), "time", "t", "length of each of the eight tests")
	markStable.add(fl)
	oldNames(fl, map[string]string{"duration": "time"})
	fl.BoolVar(&cfg.Direct, "direct", true, "O_DIRECT (--direct=false for buffered I/O, evicted before each test)")
	fl.StringVar(&cfg.Engine, "engine", disk.EngineUring, "io_uring or sync")
	return c
}
