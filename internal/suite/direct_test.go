package suite

import (
	"context"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
)

// TestRandomDirect: the suite's random-I/O step reads a directory on a
// device with --direct, quick and full, since its file set fits in free
// memory and buffered it timed the page cache; on a tmpfs, which is
// memory and refuses O_DIRECT, it does not, and the headline of what it
// measures there says the figure is cached rather than passing it off as
// a disk's.
func TestRandomDirect(t *testing.T) {
	mem := fstest.Tmpfs(t, 32<<20)
	dev := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dev, &st); err != nil {
		t.Fatal(err)
	}
	if uint32(st.Type) == unix.TMPFS_MAGIC || uint32(st.Type) == unix.RAMFS_MAGIC {
		t.Skipf("%s is in memory: no device-backed directory to plan for", dev)
	}
	for _, full := range []bool{false, true} {
		steps, err := Plan(Options{Disks: []string{dev, mem}, Full: full})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, s := range steps {
			if s.Method != result.MethodRandom {
				continue
			}
			dir := s.Args[2]
			seen[dir] = true
			if got, want := slices.Contains(s.Args, "--direct"), dir == dev; got != want {
				t.Errorf("full=%v: %s: %v; want --direct only on the device", full, dir, s.Args)
			}
		}
		if !seen[dev] || !seen[mem] {
			t.Errorf("full=%v: random steps for %v; want %s and %s", full, seen, dev, mem)
		}
	}

	tg, err := disk.Target(mem)
	if err != nil {
		t.Fatal(err)
	}
	doc := &result.Document{Method: result.MethodRandom, Targets: []result.Target{tg}, Random: &result.Random{}}
	c := disk.RandomConfig{RandomParameters: result.RandomParameters{Files: 4, TotalSize: 1 << 20, Mode: "rndrd", RWRatio: 1,
		BlockSize: 16 << 10, FsyncMode: "fsync", Threads: 1, Requests: 200}}
	if err := disk.Random(context.Background(), c, tg, "20260101T000000Z-abcdef", doc.Random, progress.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if h := doc.Summary(); !strings.Contains(h, "read") || !strings.Contains(h, "cached") {
		t.Errorf("headline of a buffered random read on tmpfs %q: want its read marked cached", h)
	}
}
