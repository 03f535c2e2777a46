package disk

import (
	"context"
	"os"
	"time"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
)

// LayoutRate writes one file in a scratch directory named for runID
// inside t, as disk random lays out its file set (1 MiB writes of
// incompressible data, then fsync), until it holds size bytes or d has
// passed, and returns the bytes written and the rate they took, fsync
// included: a quick probe of what files cost to lay out on t. The rate
// holds for files up to the bytes written; a larger file may outgrow a
// write cache the probe fitted in.
func LayoutRate(ctx context.Context, t result.Target, runID string, size int64, d time.Duration) (written int64, rate float64, err error) {
	err = inScratch(t, runID, size, "file", progress.Hooks{}, nil, func(s *Scratch) error {
		buf, err := newBuffer(1 << 20)
		if err != nil {
			return err
		}
		defer buf.free()
		buf.fillRandom()
		f, err := os.OpenFile(s.Path("probe"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		// At least one write, however short d.
		start := time.Now()
		for {
			n, err := f.Write(buf[:min(int64(len(buf)), size-written)])
			written += int64(n)
			if err != nil {
				return err
			}
			if written >= size || time.Since(start) >= d || ctx.Err() != nil {
				break
			}
		}
		if err := f.Sync(); err != nil {
			return err
		}
		rate = float64(written) / time.Since(start).Seconds()
		return ctx.Err()
	})
	return written, rate, err
}
