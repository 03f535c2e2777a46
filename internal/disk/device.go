package disk

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// deviceReads counts what a target's block device reads during a phase,
// from its sector counts: a buffered read phase that the device hardly
// served measured the page cache, and says so.
type deviceReads struct {
	stat  string
	start int64
}

// startDeviceReads begins counting for target t; nil when t has no block
// device (tmpfs, most FUSE and network filesystems), whose share is not
// known and never claimed.
func startDeviceReads(t result.Target) *deviceReads {
	name := t.Partition
	if name == "" {
		name = t.Device
	}
	if name == "" {
		return nil
	}
	d := &deviceReads{stat: filepath.Join(sysinfo.Default().Sys, "class", "block", name, "stat")}
	n, ok := d.read()
	if !ok {
		return nil
	}
	d.start = n
	return d
}

func (d *deviceReads) read() (int64, bool) {
	b, err := os.ReadFile(d.stat)
	if err != nil {
		return 0, false
	}
	return sectorsRead(string(b))
}

// sectorsRead reads the bytes read from a /sys/class/block/X/stat line:
// its third field is sectors read, always in 512-byte units.
func sectorsRead(line string) (int64, bool) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 || n > 1<<53 {
		return 0, false
	}
	return n * 512, true
}

// share is what the device served of readBytes since the start; nil when
// it cannot be told. buffered says the page cache could have served the
// rest, so a low share marks the phase cached.
func (d *deviceReads) share(readBytes int64, buffered bool) *result.DeviceShare {
	if d == nil || readBytes <= 0 {
		return nil
	}
	n, ok := d.read()
	if !ok || n < d.start {
		return nil
	}
	s := &result.DeviceShare{ReadBytes: n - d.start, Share: float64(n-d.start) / float64(readBytes)}
	s.Cached = buffered && s.Share < result.CachedBelow
	return s
}
