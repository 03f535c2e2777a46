package main

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// checkNames are the flags that set the fields disk.CheckConfig's
// messages name.
var checkNames = map[string]string{"Preset": "--preset", "Size": "--size", "RandomNs": "-t", "Engine": "--engine", "Claim": "--claim", "Direct": "O_DIRECT"}

func newDiskCheckCmd(a *app) *cobra.Command {
	var cfg disk.CheckConfig
	var claim string
	var pf probeFlags
	c := &cobra.Command{
		Use:   "check [DIR] | --probe DEVICE",
		Short: "Is this card what it claims? Its SD classes judged, or Raspberry Pi's SD Card Speed Test",
		Long: `Judge the card (or disk) under DIR by what it measures, in a file of --size
in a fresh .thruput-<run id> directory, removed at the end. Nothing else on
the card is touched; the file is written over several times, which wears
a card as much as copying that much data would.

The class verdict (the default, --preset class) measures what the SD
Association's classes promise: sustained sequential write in 4 MiB blocks
(a card's usual allocation unit) after a first pass over the file has
filled the card's cache, looping for -t, the figure being the rate after
any drop (speed class C2/C4/C6/C10: 2-10 MB/s, UHS U1/U3: 10/30 MB/s,
video V6-V90: 6-90 MB/s); and 4 KiB random read and write at queue depth
32 for -t each (A1: 1,500 and 500 IOPS, A2: 4,000 and 2,000 IOPS, both with
10 MB/s sustained sequential write). MB here is 10^6 bytes, the SD
Association's. The card is judged against the classes its SD Status
register claims (thruput sysinfo shows them), or those --claim names;
each criterion is PASS or FAIL with its figure, its ±, the limit and how
it was measured. Where the reader carries less than a limit asks (a Pi 4's
DDR50 at 50 MHz, a USB 2.0 reader) or the figure reached the reader's
ceiling, the verdict says the reader, not the card, set it. A card whose
registers cannot be read is measured, and the verdict lists the classes its
figures reach. A USB stick or an SSD has no class: it is judged against
its link and bridge instead. A directory on tmpfs has nothing behind it to
judge: exit 2.

--preset rpi-sd runs Raspberry Pi OS's SD Card Speed Test (agnostics'
sd_bench.fio and sdtest.sh) as it runs: a 256 MiB file, O_DIRECT, queue
depth 32; a prepare pass in 512 KiB blocks, sequential write and read in
4 MiB blocks, then 10 s each of 4 KiB random write and read. It passes with
sequential write >= 10,000 KB/s (fio's KB, 1024 bytes), random write >=
500 IOPS and random read >= 1,500 IOPS (A1's), and follows its rule: up
to three runs, passing on the first run that passes.

--probe DEVICE asks whether a card holds the memory it announces, as
f3probe does, in seconds to minutes: on a whole block device (/dev/sdb,
/dev/mmcblk0, not a partition), with nothing of it mounted, it writes
stamped blocks (each carrying its own offset and a tag drawn for the run)
at chosen offsets, then --cache bytes more to push them out of the card's
write cache, reads them back with O_DIRECT, and narrows down the first
block that did not keep its stamp, to the device's logical block. The
verdict is genuine, fake (usable of announced bytes; writes past the end
wrap onto the start or are dropped) or damaged (blocks losing data below
the end), with the parted command that makes one partition of the usable
size: printed, never run. It never writes the first MiB (the partition
table). It refuses, with exit 2, a partition, a file, a read-only device,
a device with anything mounted, swapped on or built on it, and the one
holding the running system.
Risk: it overwrites a few thousand scattered blocks and --cache bytes
after the first MiB. By default it first copies each into a backup file
($XDG_STATE_HOME/thruput/probe, else ~/.local/state/thruput/probe), synced
before the writes, and writes them all back at the end, also on Ctrl-C or
SIGTERM; a probe killed outright (SIGKILL, power loss) leaves the file,
named on stderr when the probe starts, for --restore FILE. --destructive
keeps no backup: the data on the card is damaged where the probe wrote.`,
		Example: `  # the card under /home against the classes it claims
  thruput disk check /home

  # Raspberry Pi's SD Card Speed Test, with thruput's ± beside each figure
  thruput disk check /var/tmp --preset rpi-sd

  # a card whose registers cannot be read, judged as a C10 A1 card
  thruput disk check /mnt/sd --claim C10,A1 --json

  # is the card in the USB reader a fake? (unmount it first)
  thruput disk check --probe /dev/sdb

  # write back what a probe killed with SIGKILL left
  thruput disk check --probe /dev/sdb --restore ~/.local/state/thruput/probe/sdb-20261128T211500.000Z.bak`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pf.cfg.Device != "" {
				return a.runProbe(cmd, &pf, args)
			}
			for _, f := range []string{"destructive", "cache", "restore"} {
				if cmd.Flags().Changed(f) {
					return usage.Errorf("--%s is for --probe DEVICE", f)
				}
			}
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			if claim != "" {
				for _, cl := range strings.Split(claim, ",") {
					cl = strings.ToUpper(strings.TrimSpace(cl))
					if !slices.Contains(ceiling.Classes, cl) {
						return usage.Errorf("--claim %q: use SD classes from %s", cl, strings.Join(ceiling.Classes, ", "))
					}
					cfg.Claim = append(cfg.Claim, cl)
				}
			}
			if err := cfg.Validate(); err != nil {
				return usage.Named(err, checkNames)
			}
			return a.runDisk(cmd, result.MethodCheck, args, format, checkNames, func(doc *result.Document, h progress.Hooks) error {
				doc.Check = &result.Check{}
				return disk.Check(cmd.Context(), cfg, doc.Targets[0], doc.ID, doc.Check, h)
			})
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.StringVar(&cfg.Preset, "preset", result.CheckClass, "class (judge the card against its SD classes) or rpi-sd (Raspberry Pi's SD Card Speed Test)")
	fl.Var(units.NewSize(&cfg.Size, 256<<20), "size", "test file, a whole number of 4 MiB blocks (rpi-sd's is 256 MiB)")
	fl.VarP(units.NewDuration((*time.Duration)(&cfg.RandomNs), 10*time.Second), "time", "t", "bound on each random step and the class verdict's sustained write (rpi-sd's runtime=10)")
	fl.StringVar(&claim, "claim", "", "judge against these classes instead of the card's registers: a list of "+strings.Join(ceiling.Classes, ","))
	fl.StringVar(&cfg.Engine, "engine", disk.EngineUring, "io_uring (as fio's libaio, queue depth kept) or sync")
	pf.add(c)
	return c
}
