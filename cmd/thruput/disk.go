package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

func newDiskCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "disk",
		Short: "Measure storage: block-size sweep, random file I/O, queue-depth I/O, presets, card check, cleanup",
		Example: `  thruput disk sweep --target /mnt/usb
  thruput disk random /mnt/usb --time 60s
  thruput disk io /mnt/usb --rw randread --iodepth 32
  thruput disk mark /mnt/usb
  thruput disk check /mnt/sd --preset rpi-sd
  thruput disk clean /mnt/usb`,
	}
	c.AddCommand(newDiskSweepCmd(a), newDiskRandomCmd(a), newDiskIOCmd(a), newDiskMarkCmd(a), newDiskCheckCmd(a), newDiskCleanCmd(a))
	return c
}

type sweepFlags struct {
	targets        []string
	sizes          string
	fileSize       int64
	maxTime        time.Duration
	writeOnly      bool
	readOnly       bool
	data           string
	direct         bool
	dropCaches     bool
	skipSpaceCheck bool
	stable         stableFlags
}

func newDiskSweepCmd(a *app) *cobra.Command {
	var f sweepFlags
	c := &cobra.Command{
		Use:   "sweep [DIR...]",
		Short: "Write and read a file at each block size from 8 B to 1 MiB, as a dd loop would",
		Long: `For each block size, write a file with that block size (the final fsync is
inside the timed span), evict it from the page cache, then read it back with
the same block size: the loop people run by hand with dd (dd bs=4k
count=..., conv=fsync, then dd of the file back), in one command. Each step is bounded
by --max-time; a step that hits the bound reports the bytes it moved. With
--until-stable a step ends as soon as its rate is known to ±2 % (95 %
interval over 100 ms windows, warm-up cut off); every figure carries its
interval either way, and a rate that drops and stays down is reported as
both rates and where it dropped.

Targets are directories on mounted filesystems, given as arguments or with
--target. Test files live in a fresh .thruput-<run id> directory inside each
target and are removed at the end, on error and on Ctrl-C; one left by a
killed run is removed by the next run there, or by 'thruput disk clean'.
Block devices are never opened.`,
		Example: `  # a dd-style sweep on four filesystems of one disk
  thruput disk sweep --target /media/ext2 --target /media/ext3 --target /media/ext4 --target /media/vfat

  # a quick look: 4 KiB to 1 MiB, 256 MiB files, 10 s per step, as markdown
  thruput disk sweep /mnt/usb --bs 4k-1M --file-size 256M --max-time 10s --format markdown

  # reads only, uncached, with O_DIRECT
  sudo thruput disk sweep /mnt/ssd --read-only --direct --bs 4k,64k,1M -o ssd.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, a, f, append(f.targets, args...))
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.StringArrayVar(&f.targets, "target", nil, "directory to test in (repeatable; default the current directory)")
	oldNames(fl, map[string]string{"sizes": "bs"})
	fl.StringVar(&f.sizes, "bs", "8-1M", "block sizes, one step each: a list and ranges with k/M/G or KiB/MiB/GiB suffixes, e.g. 512,4k-1M (a range doubles)")
	fl.Var(units.NewSize(&f.fileSize, 1<<30), "file-size", "bytes to write and read per step")
	fl.Var(units.NewDuration(&f.maxTime, 30*time.Second), "max-time", "bound on each step; a step that reaches it reports the bytes moved so far")
	fl.BoolVar(&f.writeOnly, "write-only", false, "only the write steps")
	fl.BoolVar(&f.readOnly, "read-only", false, "only the read steps (the file is laid out once, untimed)")
	fl.StringVar(&f.data, "data", "random", "what to write: random (incompressible) or zero (like dd if=/dev/zero)")
	fl.BoolVar(&f.direct, "direct", false, "open files with O_DIRECT (block sizes must be multiples of the device's logical block size)")
	fl.BoolVar(&f.dropCaches, "drop-caches", false, "also drop all clean caches before each read (root)")
	fl.BoolVar(&f.skipSpaceCheck, "skip-space-check", false, "start even if free space looks too small (for filesystems that misreport it)")
	f.stable.add(fl)
	return c
}

func runSweep(cmd *cobra.Command, a *app, f sweepFlags, dirs []string) error {
	format, err := a.outputFormat()
	if err != nil {
		return err
	}
	cfg := disk.SweepConfig{SweepParameters: result.SweepParameters{
		FileSize: f.fileSize, MaxTimeNs: int64(f.maxTime), Write: !f.readOnly, Read: !f.writeOnly, Data: f.data,
		Direct: f.direct, DropCaches: f.dropCaches,
	}, SkipSpaceCheck: f.skipSpaceCheck, Stable: f.stable.options()}
	if cfg.BlockSizes, err = units.ParseSizeList(f.sizes); err != nil {
		return usage.Errorf("--bs: %w", err)
	}
	if f.writeOnly && f.readOnly {
		return usage.Errorf("--write-only and --read-only exclude each other")
	}
	if err := cfg.Validate(); err != nil {
		return usage.Named(err, sweepNames)
	}
	return a.runDisk(cmd, result.MethodSweep, dirs, format, sweepNames, func(doc *result.Document, h progress.Hooks) error {
		doc.Sweep = &result.Sweep{}
		return disk.Sweep(cmd.Context(), cfg, doc.Targets, doc.ID, doc.Sweep, h)
	})
}

// sweepNames are the flags that set the fields disk.SweepConfig's
// messages name. Read is off exactly when --write-only is given.
var sweepNames = map[string]string{"BlockSizes": "--bs", "FileSize": "--file-size", "MaxTimeNs": "--max-time",
	"Data": "--data", "Direct": "--direct", "DropCaches": "--drop-caches", "Read": "--write-only"}

// runDisk is the frame every disk method shares: describe the targets
// (refusing bad ones before anything is written), run the engine with a
// progress line and notes on stderr, then print what was measured, also
// when the engine failed part-way. The engine's refusals name its config's
// fields; names gives the flags that set them.
func (a *app) runDisk(cmd *cobra.Command, method result.Method, dirs []string, format string, names map[string]string, run func(*result.Document, progress.Hooks) error) error {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	doc := a.newDocument(method)
	counters := a.begin(cmd.Context())
	seen := map[string]bool{}
	for _, d := range dirs {
		t, err := disk.Target(d)
		if err != nil {
			return err
		}
		if seen[t.Path] {
			return usage.Errorf("target %s given twice", t.Path)
		}
		seen[t.Path] = true
		doc.Targets = append(doc.Targets, t)
	}
	if err := a.openHistory(cmd.ErrOrStderr()); err != nil {
		return err
	}
	// Find out now, not after a five-minute run, that -o cannot be written.
	if a.output != "" {
		f, err := os.OpenFile(a.output, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return usage.Errorf("-o %s: %w", a.output, errors.Unwrap(err))
		}
		f.Close()
	}
	line := a.progress()
	runErr := run(doc, a.diskHooks(cmd, line))
	line.Clear()
	if usage.Is(runErr) {
		return usage.Named(runErr, names)
	}
	return a.deliver(doc, runErr, counters, func() error { return a.emit(doc, format) })
}

// diskHooks shows a disk method's progress on line and its notes on
// stderr, each on a line of its own.
func (a *app) diskHooks(cmd *cobra.Command, line *progress.Line) progress.Hooks {
	h := progress.Hooks{
		Note: func(s string) {
			line.Clear()
			fmt.Fprintln(cmd.ErrOrStderr(), "thruput: "+s)
		},
	}
	// Without a progress line (-q, or stderr not a terminal) nobody reads
	// the reports: formatting each took 8 % of a throttled sweep's CPU.
	if line != nil {
		h.Progress = func(p progress.Report) { line.Set(p.String()) }
	}
	return h
}

func newDiskCleanCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "clean DIR...",
		Short: "Remove test directories left in DIR by runs that were killed",
		Long: `A run removes its .thruput-<run id> directory when it ends, fails or is
interrupted; only a run killed outright (SIGKILL, power loss) leaves one, and
the next run in that directory removes it. This does the same on demand.
Directories of runs still in progress, or made on another host sharing the
filesystem, are left alone and listed.`,
		Example: "  thruput disk clean /mnt/usb /media/ext4",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			type cleaned struct {
				Dir     string `json:"dir"`
				Removed bool   `json:"removed"`
				Why     string `json:"why"`
			}
			out := []cleaned{}
			for _, d := range args {
				t, err := disk.Target(d)
				if err != nil {
					return err
				}
				found, err := disk.CleanLeftovers(t.Path)
				for _, l := range found {
					out = append(out, cleaned{Dir: l.Dir, Removed: l.Stale, Why: l.Why})
				}
				if err != nil {
					return err
				}
			}
			return a.write(func(w io.Writer) error {
				if format == "json" {
					return writeJSON(w, out)
				}
				if len(out) == 0 {
					_, err := fmt.Fprintln(w, "nothing to clean")
					return err
				}
				for _, c := range out {
					verb := "kept   "
					if c.Removed {
						verb = "removed"
					}
					if _, err := fmt.Fprintf(w, "%s %s (%s)\n", verb, c.Dir, c.Why); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}
