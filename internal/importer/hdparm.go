package importer

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

var (
	// hdparmTiming is one timing line: " Timing cached reads:   17034 MB
	// in  1.99 seconds = 8547.52 MB/sec" (-T), " Timing buffered disk
	// reads: 74 MB in  3.01 seconds =  24.59 MB/sec" (-t), and their
	// O_DIRECT forms under --direct. hdparm.c reads TIMING_BUF_MB (2) MiB
	// a read(): its MB is 2^20 bytes, its rate that count over the
	// seconds, and kB/sec (the rate times 1024) under 1 MB/s. Versions
	// before 6 (their -T line says "buffer-cache") read 1 MiB a read()
	// and are not read.
	hdparmTiming = pattern.Lazy(`Timing (O_DIRECT )?(cached|buffered disk|disk) reads:\s*(\d+) MB in\s+(\d+(?:\.\d+)?) seconds\s*=\s*(\d+(?:\.\d+)?) (MB|kB)/sec`)
	// hdparmDevice is the "/dev/sda:" hdparm prints before a device's
	// timings, on a line of its own or, pasted flat, before them.
	hdparmDevice = pattern.Lazy(`(?:^|\s)(/\S+):(?:\s|$)`)
)

// hdparmBlock is what hdparm reads a read() at a time (TIMING_BUF_BYTES).
const hdparmBlock = 2 << 20

const hdparmNote = "read from hdparm's timings: its MB is 2^20 bytes, read 2 MiB a read() one at a time; the rate (MiB/s) is as printed, the seconds to two decimals; -T reads the page cache, not the device"

// importHDParm converts hdparm -t and -T output into one sequential read
// run per timing, of the device named before it: -t reads the device
// after flushing its buffer cache for 3 seconds, -T rereads one 2 MiB
// block from the cache for 2, and is labelled so.
func importHDParm(data []byte, file string) ([]*result.Document, error) {
	var docs []*result.Document
	var bad error
	device := ""
	eachLine(data, func(n int, l string) {
		if bad != nil {
			return
		}
		devs := hdparmDevice().FindAllStringSubmatchIndex(l, -1)
		timings := hdparmTiming().FindAllStringSubmatchIndex(l, -1)
		for _, t := range timings {
			for len(devs) > 0 && devs[0][0] < t[0] {
				device = l[devs[0][2]:devs[0][3]]
				devs = devs[1:]
			}
			m := make([]string, len(t)/2)
			for i := range m {
				if t[2*i] >= 0 {
					m[i] = l[t[2*i]:t[2*i+1]]
				}
			}
			d, err := hdparmDoc(m, device, file)
			if err != nil {
				bad = fmt.Errorf("hdparm: line %d: %v", n, err)
				return
			}
			docs = append(docs, d)
		}
		for _, dv := range devs {
			device = l[dv[2]:dv[3]]
		}
	})
	if bad != nil {
		return nil, bad
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("hdparm: no timing line (\"Timing buffered disk reads: N MB in S seconds = R MB/sec\")")
	}
	identify(docs, data)
	return docs, nil
}

// hdparmDoc is one timing line's run; m is hdparmTiming's match.
func hdparmDoc(m []string, device, file string) (*result.Document, error) {
	mb, err1 := strconv.ParseInt(m[3], 10, 64)
	secs, err2 := strconv.ParseFloat(m[4], 64)
	rate, err3 := strconv.ParseFloat(m[5], 64)
	if err1 != nil || err2 != nil || err3 != nil || mb > math.MaxInt64>>20 || !finite(secs) || secs > maxSeconds || !finite(rate) {
		return nil, fmt.Errorf("%q is not a count, a time and a rate", clip(m[0]))
	}
	if m[6] == "kB" {
		rate /= 1024
	}
	d := newDoc(HDParm, "", file, result.MethodIO, time.Time{})
	d.Imported.Note = hdparmNote
	if device != "" {
		d.Targets = []result.Target{{Path: device}}
	}
	timing, bound := "disk", int64(3e9)
	if m[2] == "cached" {
		timing, bound = "cached", 2e9
	}
	p := result.IOParameters{RW: "read", BlockSize: hdparmBlock, IODepth: 1, Jobs: 1, RuntimeNs: bound, TimeBased: true, Direct: m[1] != "", Engine: "sync", Repeat: 1}
	bytes := mb << 20
	run := result.IORun{ElapsedNs: int64(math.Round(secs * 1e9)), Read: &result.IODirection{
		IOs: bytes / hdparmBlock, Bytes: bytes, IOPS: rate * (1 << 20) / hdparmBlock, MiBPerSec: rate}}
	d.IO = &result.IO{Parameters: p, Engine: p.Engine, Runs: []result.IORun{run}}
	setLabel(d, "hdparm.timing", timing)
	return d, nil
}
