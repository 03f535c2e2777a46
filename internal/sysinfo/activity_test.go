package sysinfo

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestActivity: loopback traffic counts each byte once, and only devices
// that moved data are listed.
func TestActivity(t *testing.T) {
	sys := t.TempDir()
	put := func(rel, v string) {
		p := filepath.Join(sys, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := func(lo, eth, sda int64) {
		put("class/net/lo/type", "772")
		put("class/net/lo/statistics/rx_bytes", itoa(lo))
		put("class/net/lo/statistics/tx_bytes", itoa(lo))
		put("class/net/eth0/type", "1")
		put("class/net/eth0/statistics/rx_bytes", itoa(eth))
		put("class/net/eth0/statistics/tx_bytes", "0")
		put("class/net/ifb0/type", "1")
		put("class/net/ifb0/statistics/rx_bytes", "0")
		put("class/net/ifb0/statistics/tx_bytes", "0")
		put("block/sda/stat", "1 0 "+itoa(sda)+" 0 0 0 0 0 0 0 0")
		put("block/zram0/stat", "0 0 0 0 0 0 0 0 0 0 0")
	}
	fs := FS{Sys: sys}
	state(0, 0, 0)
	before := fs.Counters()
	state(10<<20, 1<<20, 2048)
	got := map[string]float64{}
	for _, a := range Activity(before, fs.Counters(), 2) {
		got[a.Device] = a.BytesPerSec
	}
	want := map[string]float64{"lo": 5 << 20, "eth0": 1 << 19, "sda": 2048 * 512 / 2}
	if len(got) != len(want) {
		t.Errorf("devices %v, want only those that moved data: %v", got, want)
	}
	for d, w := range want {
		if got[d] != w {
			t.Errorf("%s: %v B/s, want %v", d, got[d], w)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
