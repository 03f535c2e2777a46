package store

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestEveryTarget: a run over two targets names both in the list's
// columns and gives each one's figures; the list once showed the first.
func TestEveryTarget(t *testing.T) {
	d := &result.Document{Method: "disk.sweep", Targets: []result.Target{{Path: "/media/ext4", FSType: "ext4"}, {Path: "/tmp", FSType: "tmpfs"}},
		Sweep: &result.Sweep{Steps: []result.SweepStep{
			{Target: 0, Phase: result.PhaseRead, BlockSize: 4096, MiBPerSec: 40},
			{Target: 1, Phase: result.PhaseRead, BlockSize: 4096, MiBPerSec: 4000, Cache: result.CacheCached},
			{Target: 1, Phase: result.PhaseWrite, BlockSize: 4096, MiBPerSec: 900},
		}}}
	c := DeriveColumns(d)
	if c.Target != "/media/ext4, /tmp" || c.FSType != "ext4, tmpfs" {
		t.Errorf("columns %q %q", c.Target, c.FSType)
	}
	if want := "ext4: read 40.0 MiB/s (max); tmpfs: read 4000.0 MiB/s cached, write 900.0 MiB/s (max)"; c.Summary != want {
		t.Errorf("summary %q, want %q", c.Summary, want)
	}
}
