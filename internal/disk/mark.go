package disk

import (
	"context"
	"fmt"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// MarkConfig holds the parameters of the four desktop presets: those the
// result records, and how to run them.
type MarkConfig struct {
	result.MarkParameters
	// Engine is the one asked for; the result says which ran.
	Engine string
	// Stable is --until-stable and --sustained, for each preset.
	Stable stable.Options
}

// Validate checks the parameters that do not depend on a target.
func (c MarkConfig) Validate() error {
	switch {
	case c.Size < 1<<20:
		return usage.Invalidf("{Size} %s: the presets need at least 1 MiB", units.IEC(c.Size))
	case c.DurationNs <= 0:
		return usage.Invalidf("{DurationNs} must be positive")
	case c.Engine != EngineUring && c.Engine != EngineSync:
		return usage.Invalidf("{Engine} %q: use io_uring or sync", c.Engine)
	}
	return nil
}

// markPresets are CrystalDiskMark's default tests, in its order.
var markPresets = []struct {
	name  string
	rw    string // the read pattern; writes use the matching write one
	bs    int64
	depth int
}{
	{"SEQ1M Q8T1", "read", 1 << 20, 8},
	{"SEQ1M Q1T1", "read", 1 << 20, 1},
	{"RND4K Q32T1", "randread", 4 << 10, 32},
	{"RND4K Q1T1", "randread", 4 << 10, 1},
}

// Mark lays out one file in a scratch directory, named for runID, inside
// target and runs each preset on it for DurationNs, reads then writes,
// appending to out.Results in place as each ends.
func Mark(ctx context.Context, c MarkConfig, t result.Target, runID string, out *result.Mark, h progress.Hooks) error {
	if err := c.Validate(); err != nil {
		return err
	}
	*out = result.Mark{MarkParameters: c.MarkParameters, Results: []result.MarkResult{}}
	var direct *directCheck
	if c.Direct {
		direct = &directCheck{"the presets' block size", []int64{4 << 10}}
	}
	return inScratch(t, runID, c.Size, "{Size}", h, direct, func(s *Scratch) error {
		return mark(ctx, c, t, s, out, h)
	})
}

func mark(ctx context.Context, c MarkConfig, t result.Target, s *Scratch, out *result.Mark, h progress.Hooks) error {
	out.Engine, out.EngineNote = pickEngine(c.Engine, 32)
	base := IOConfig{IOParameters: result.IOParameters{RW: "read", Jobs: 1, Size: c.Size / (1 << 20) * (1 << 20), Direct: c.Direct,
		Engine: out.Engine, RuntimeNs: c.DurationNs, TimeBased: true, Repeat: 1}, Corrupt: -1, Stable: c.Stable}
	fds, err := layOut(ctx, s, base, h)
	defer closeAll(fds)
	if err != nil {
		return fmt.Errorf("%s: laying out the test file: %w", t.Path, err)
	}
	for _, p := range markPresets {
		for _, phase := range []string{result.PhaseRead, result.PhaseWrite} {
			ic := base
			ic.BlockSize, ic.IODepth, ic.RW = p.bs, p.depth, p.rw
			if phase == result.PhaseWrite {
				ic.RW = map[string]string{"read": "write", "randread": "randwrite"}[p.rw]
			}
			if !c.Direct {
				evictFDs(fds)
			}
			dev := startDeviceReads(t)
			run, err := runIO(ctx, ic, fds, h, fmt.Sprintf("%s %s %s", t.Label(), p.name, phase))
			d := run.Read
			if phase == result.PhaseWrite {
				d = run.Write
			}
			if d != nil {
				var share *result.DeviceShare
				if phase == result.PhaseRead {
					share = dev.share(d.Bytes, !c.Direct)
				}
				out.Results = append(out.Results, result.MarkResult{Preset: p.name, Phase: phase,
					MBPerSec: d.MiBPerSec * (1 << 20) / 1e6, MiBPerSec: d.MiBPerSec, IOPS: d.IOPS, Latency: d.Latency, ElapsedNs: run.ElapsedNs,
					Device: share, Interval: d.Interval})
			}
			if err != nil {
				return fmt.Errorf("%s: %s %s: %w", t.Path, p.name, phase, err)
			}
		}
	}
	return nil
}
