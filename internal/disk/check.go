package disk

import (
	"context"
	"fmt"
	"os"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// CheckConfig holds the parameters of disk check: those the result
// records, and the engine asked for.
type CheckConfig struct {
	result.CheckParameters
	Engine string
}

// checkBlock is the largest block of either preset (4 MiB, Raspberry
// Pi's sequential steps and an SD card's usual allocation unit): the file
// is a whole number of them.
const checkBlock = 4 << 20

// Validate checks the parameters that do not depend on a target.
func (c CheckConfig) Validate() error {
	switch {
	case c.Preset != result.CheckClass && c.Preset != result.CheckRPiSD:
		return usage.Invalidf("{Preset} %q: use class or rpi-sd", c.Preset)
	case c.Size < checkBlock || c.Size%checkBlock != 0:
		return usage.Invalidf("{Size} %s: must be a whole number of 4 MiB blocks", units.IEC(c.Size))
	case c.RandomNs <= 0:
		return usage.Invalidf("{RandomNs} must be positive")
	case c.Engine != EngineUring && c.Engine != EngineSync:
		return usage.Invalidf("{Engine} %q: use io_uring or sync", c.Engine)
	case len(c.Claim) > 0 && c.Preset == result.CheckRPiSD:
		return usage.Invalidf("{Claim} is for the class verdict: rpi-sd has its own thresholds")
	}
	return nil
}

// checkStep is one step of a preset.
type checkStep struct {
	name, rw string
	bs       int64
	depth    int
	// timed steps end after RandomNs; time-based ones loop over the file
	// until then; a sustained one's figure is the rate after a cliff.
	timed, timeBased, sustained bool
}

// checkPlans are each preset's steps, in order. rpi-sd is Raspberry Pi
// OS's sd_bench.fio (raspberrypi-ui/agnostics, since 2024-07): every job
// at queue depth 32 on one file, the sequential ones a pass over it, the
// random ones a pass or runtime=10, whichever ends first. The class
// verdict measures what the SD Association's classes promise: writes in
// allocation-unit-sized blocks sustained after the file's first pass
// filled the card's cache, and A1/A2's 4 KiB random figures, each looping
// over the file for RandomNs.
var checkPlans = map[string][]checkStep{
	result.CheckRPiSD: {
		{result.StepPrepare, "write", 512 << 10, 32, false, false, false},
		{result.StepSeqWrite, "write", 4 << 20, 32, false, false, false},
		{result.StepSeqRead, "read", 4 << 20, 32, false, false, false},
		{result.StepRandWrite, "randwrite", 4 << 10, 32, true, false, false},
		{result.StepRandRead, "randread", 4 << 10, 32, true, false, false},
	},
	result.CheckClass: {
		{result.StepPrepare, "write", 4 << 20, 4, false, false, false},
		{result.StepSeqWrite, "write", 4 << 20, 4, true, true, true},
		{result.StepSeqRead, "read", 4 << 20, 4, false, false, false},
		{result.StepRandWrite, "randwrite", 4 << 10, 32, true, true, false},
		{result.StepRandRead, "randread", 4 << 10, 32, true, true, false},
	},
}

// rpiRuns is sdtest.sh's loop: up to three runs, passing on the first
// that passes.
const rpiRuns = 3

// Check runs the preset in a scratch directory, named for runID, inside
// target, appending each step to out as it ends. A directory on a memory
// filesystem has no card behind it: it is refused.
func Check(ctx context.Context, c CheckConfig, t result.Target, runID string, out *result.Check, h progress.Hooks) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if t.FSType == "tmpfs" || t.FSType == "ramfs" {
		return usage.Errorf("%s is on %s: its files are in memory, with no card or disk behind them, so there is nothing to judge", t.Path, t.FSType)
	}
	*out = result.Check{CheckParameters: c.CheckParameters, Runs: []result.CheckRun{}}
	direct := &directCheck{"the steps' block size", []int64{4 << 10}}
	return inScratch(t, runID, c.Size, "{Size}", h, direct, func(s *Scratch) error {
		out.Engine, out.EngineNote = pickEngine(c.Engine, 32)
		c.Engine = out.Engine
		runs := 1
		if c.Preset == result.CheckRPiSD {
			runs = rpiRuns
			out.ClaimSource = result.CheckRPiSD
		}
		for i := range runs {
			out.Runs = append(out.Runs, result.CheckRun{Steps: []result.CheckStep{}})
			run := &out.Runs[i]
			if err := checkRun(ctx, c, t, s, run, fmt.Sprintf("%s run %d", t.Label(), i+1), h); err != nil {
				return err
			}
			if c.Preset == result.CheckRPiSD {
				run.Criteria = rpiCriteria(*run)
				pass := allPass(run.Criteria)
				run.Pass = &pass
				out.Criteria, out.Pass = run.Criteria, run.Pass
				out.Verdict = out.RPiVerdict()
				if pass {
					break
				}
			}
		}
		return nil
	})
}

// checkRun lays out a fresh file, as the job file's prepare step does
// (sdtest.sh removes it after each run), and runs the steps on it.
func checkRun(ctx context.Context, c CheckConfig, t result.Target, s *Scratch, run *result.CheckRun, label string, h progress.Hooks) error {
	base := IOConfig{IOParameters: result.IOParameters{RW: "write", Jobs: 1, Size: c.Size, Direct: true, Engine: c.Engine, Repeat: 1}, Corrupt: -1,
		EndFsync: c.Preset == result.CheckRPiSD}
	fds, err := layOut(ctx, s, base, h)
	defer func() {
		closeAll(fds)
		os.Remove(s.Path("job.0"))
	}()
	if err != nil {
		return fmt.Errorf("%s: laying out the test file: %w", t.Path, err)
	}
	for _, p := range checkPlans[c.Preset] {
		ic := base
		ic.RW, ic.BlockSize, ic.IODepth = p.rw, p.bs, p.depth
		if p.timed {
			ic.RuntimeNs, ic.TimeBased = c.RandomNs, p.timeBased
		}
		if p.sustained {
			ic.Stable = stable.Options{Sustained: true}
		}
		dev := startDeviceReads(t)
		r, err := runIO(ctx, ic, fds, h, label+" "+p.name)
		d := r.Write
		if r.Read != nil {
			d = r.Read
			d.Device = dev.share(d.Bytes, false)
		}
		if d != nil {
			run.Steps = append(run.Steps, result.CheckStep{Name: p.name, RW: p.rw, BlockSize: p.bs, IODepth: p.depth, TimeBased: p.timeBased,
				ElapsedNs: r.ElapsedNs, IOs: d.IOs, Bytes: d.Bytes, KiBPerSec: d.MiBPerSec * 1024, MiBPerSec: d.MiBPerSec, IOPS: d.IOPS,
				Latency: d.Latency, Device: d.Device, Interval: d.Interval})
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", t.Path, p.name, err)
		}
	}
	return nil
}

// rpiCriteria are sdtest.sh's three thresholds on one run: sequential
// write 10000 KB/s (fio's KB, 1024 bytes), random write 500 IOPS and
// random read 1500 IOPS, A1's figures. The sequential read is measured
// and not judged, as there.
func rpiCriteria(run result.CheckRun) []result.Criterion {
	var out []result.Criterion
	for _, j := range []struct {
		step, what, metric string
		limit              float64
	}{
		{result.StepSeqWrite, "sequential write", "KB/s", 10000},
		{result.StepRandWrite, "random write", "IOPS", 500},
		{result.StepRandRead, "random read", "IOPS", 1500},
	} {
		if s := run.Step(j.step); s != nil {
			out = append(out, s.Judge(result.CheckRPiSD, j.what, j.metric, j.limit))
		}
	}
	return out
}

func allPass(cs []result.Criterion) bool {
	for _, c := range cs {
		if !c.Pass {
			return false
		}
	}
	return len(cs) > 0
}
