package sysinfo

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Counters reads how many bytes each disk (sectors read and written) and
// each network interface (received and sent) has moved since boot; two
// readings around a run tell which devices were busy during it.
func (fs FS) Counters() map[string]int64 {
	c := map[string]int64{}
	if ents, err := readDir(filepath.Join(fs.Sys, "block")); err == nil {
		for _, e := range ents {
			// /sys/block/X/stat: field 3 is sectors read, 7 sectors written,
			// always in 512-byte units.
			f := strings.Fields(readValue(filepath.Join(fs.Sys, "block", e.Name(), "stat")))
			if len(f) >= 7 {
				r, err1 := strconv.ParseInt(f[2], 10, 64)
				w, err2 := strconv.ParseInt(f[6], 10, 64)
				if err1 == nil && err2 == nil {
					c[e.Name()] = (r + w) * 512
				}
			}
		}
	}
	if ents, err := readDir(filepath.Join(fs.Sys, "class", "net")); err == nil {
		for _, e := range ents {
			dir := filepath.Join(fs.Sys, "class", "net", e.Name(), "statistics")
			rx, err1 := strconv.ParseInt(readValue(filepath.Join(dir, "rx_bytes")), 10, 64)
			tx, err2 := strconv.ParseInt(readValue(filepath.Join(dir, "tx_bytes")), 10, 64)
			if err1 == nil && err2 == nil {
				c[e.Name()] = rx + tx
				// What a loopback device sends it receives: each byte
				// once, not twice.
				if readValue(filepath.Join(fs.Sys, "class", "net", e.Name(), "type")) == arphrdLoopback {
					c[e.Name()] = tx
				}
			}
		}
	}
	return c
}

// arphrdLoopback is /sys/class/net/X/type of a loopback device.
const arphrdLoopback = "772"

// Activity is the traffic of each device that moved data between two
// Counters readings secs apart, by name; idle ones (a loop device, zram,
// an ifb nobody uses) are left out.
func Activity(before, after map[string]int64, secs float64) []result.DeviceActivity {
	if secs <= 0 {
		return nil
	}
	var out []result.DeviceActivity
	for name, b := range before {
		if a, ok := after[name]; ok && a > b {
			out = append(out, result.DeviceActivity{Device: name, BytesPerSec: float64(a-b) / secs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out
}
