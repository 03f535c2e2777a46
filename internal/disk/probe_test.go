package disk

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLayoutRate: the probe writes size bytes, or stops at its time after
// one write at least, leaves nothing in the target, and refuses a target
// without room for it before writing.
func TestLayoutRate(t *testing.T) {
	dir := t.TempDir()
	tg, err := Target(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{{time.Minute, 3 << 20}, {0, 1 << 20}} {
		n, rate, err := LayoutRate(t.Context(), tg, "probe-test", 3<<20, tc.d)
		if err != nil || n != tc.want || rate <= 0 {
			t.Errorf("in %v: %d B at %.0f B/s, %v; want %d B", tc.d, n, rate, err, tc.want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("the probe left %v", left)
		}
	}
	tg.FreeBytes = 1 << 20
	if _, _, err := LayoutRate(t.Context(), tg, "probe-test", 3<<20, time.Second); err == nil || !strings.Contains(err.Error(), "not enough free space") {
		t.Errorf("1 MiB free for a 3 MiB probe: %v", err)
	}
}
