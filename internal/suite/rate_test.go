package suite

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store/sqlite"
	"github.com/thruput/thruput/internal/sysinfo"
)

// TestRates: a directory's layout rate is its last disk random run's on
// this host (the file set over its preparation), else a probe's, which
// leaves nothing behind in the directory.
func TestRates(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	probed := Rates(t.Context(), s, []string{dir})
	if r := probed[dir]; r.PerSec <= 0 || r.Size < 1<<20 || r.Size > probeSize {
		t.Fatalf("probe: %+v", probed)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %v", left)
	}

	at := time.Now().UTC()
	d := &result.Document{ID: "r1", Method: result.MethodRandom, Status: result.StatusOK, StartedAt: at, EndedAt: at.Add(10 * time.Second)}
	d.Host.Hostname = sysinfo.Default().Host().Hostname
	d.Targets = []result.Target{{Path: dir}}
	// 128 MiB laid out in 2 s: 64 MiB/s.
	d.Random = &result.Random{PrepareNs: 2e9, Parameters: result.RandomParameters{Files: 16, TotalSize: 128 << 20}}
	if err := s.Save(d); err != nil {
		t.Fatal(err)
	}
	if got := Rates(t.Context(), s, []string{dir})[dir]; math.Abs(got.PerSec-64<<20) > 1 || got.Size != 128<<20 {
		t.Errorf("stored rate %+v, want %d B/s on 128 MiB", got, 64<<20)
	}
	// Neither stored nor probed: left to the plan's estimate.
	if got := Rates(t.Context(), nil, []string{filepath.Join(dir, "absent")}); len(got) != 0 {
		t.Errorf("an absent directory: %v", got)
	}
}
