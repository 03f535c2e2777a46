package suite

import (
	"context"
	"time"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/sysinfo"
)

// The probe lays out at most the quick plan's largest file set, and for
// at most a second: a fraction of a second on most disks, 20 MiB on a
// slow SD card (the rate then holds for files up to that).
const (
	probeSize = 128 << 20
	probeTime = time.Second
)

// Rates measures, for a budget's estimate (Options.Rates), how fast files
// are laid out in each directory of dirs: as the newest disk random run
// there from this host that ended ok in s laid out its file set (s may be
// nil), else as a probe does (disk.LayoutRate). A directory that can be
// neither read from the history nor probed is left out, for the plan's
// own estimate.
func Rates(ctx context.Context, s store.Store, dirs []string) map[string]Rate {
	rates := map[string]Rate{}
	host := sysinfo.Default().Host().Hostname
	for _, d := range dirs {
		t, err := disk.Target(d)
		if err != nil {
			continue
		}
		if r, ok := storedRate(s, host, t.Path); ok {
			rates[d] = r
		} else if n, r, err := disk.LayoutRate(ctx, t, lifecycle.NewID(), probeSize, probeTime); err == nil {
			rates[d] = Rate{PerSec: r, Size: n}
		}
	}
	return rates
}

// storedRate is the layout rate of the newest disk random run on path by
// host that ended ok in s. A store that fails here costs the estimate
// nothing: the probe measures instead.
func storedRate(s store.Store, host, path string) (Rate, bool) {
	if s == nil {
		return Rate{}, false
	}
	es, _ := s.List(store.Filter{Method: string(result.MethodRandom), Host: host, Status: result.StatusOK, Limit: 50})
	for _, e := range es {
		if e.Target != path {
			continue
		}
		if d, err := s.Get(e.ID); err == nil && d.Random != nil && d.Random.PrepareNs > 0 {
			size := d.Random.Parameters.TotalSize
			return Rate{PerSec: float64(size) / (float64(d.Random.PrepareNs) / 1e9), Size: size}, true
		}
	}
	return Rate{}, false
}
