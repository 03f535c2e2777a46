package disk

import (
	"context"
	"fmt"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/steady"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// MarkConfig holds the parameters of the four desktop presets.
type MarkConfig struct {
	Size     int64
	Duration time.Duration
	Direct   bool
	Engine   string
	// Steady is --until-stable and --sustained, for each preset.
	Steady steady.Options
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

// Mark lays out one file and runs each preset on it for Duration, reads
// then writes.
func Mark(ctx context.Context, c MarkConfig, doc *result.Document, h Hooks) error {
	if c.Size < 1<<20 {
		return usage.Errorf("--size %s: the presets need at least 1 MiB", units.IEC(c.Size))
	}
	if c.Duration <= 0 {
		return usage.Errorf("-t must be positive")
	}
	if c.Engine != EngineUring && c.Engine != EngineSync {
		return usage.Errorf("--engine %q: use io_uring or sync", c.Engine)
	}
	t := doc.Targets[0]
	doc.Mark = &result.Mark{Size: c.Size, DurationNs: int64(c.Duration), Direct: c.Direct, Results: []result.MarkResult{}}
	var direct *directCheck
	if c.Direct {
		direct = &directCheck{"the presets' block size", []int64{4 << 10}}
	}
	return inScratch(t, doc.ID, c.Size, h, direct, func(s *Scratch) error {
		return mark(ctx, c, s, doc, h)
	})
}

func mark(ctx context.Context, c MarkConfig, s *Scratch, doc *result.Document, h Hooks) error {
	t := doc.Targets[0]
	doc.Mark.Engine, doc.Mark.EngineNote = pickEngine(c.Engine, 32)
	base := IOConfig{RW: "read", Jobs: 1, Size: c.Size / (1 << 20) * (1 << 20), Direct: c.Direct, Engine: doc.Mark.Engine,
		Runtime: c.Duration, TimeBased: true, Repeat: 1, Corrupt: -1, Steady: c.Steady}
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
				doc.Mark.Results = append(doc.Mark.Results, result.MarkResult{Preset: p.name, Phase: phase,
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
