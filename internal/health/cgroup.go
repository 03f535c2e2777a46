package health

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupCPU is where thruput's own cgroup keeps its CPU controller's
// figures, as /proc/self/cgroup names it: on cgroup v2 the "0::" line's
// group under the unified mount, on v1 the group of the hierarchy that
// carries the cpu controller.
type cgroupCPU struct {
	version int
	path    string // the group, as /proc/self/cgroup names it
	dir     string // its directory under Sys
}

// findCgroup reads /proc/self/cgroup. A v1 "cpu" (or "cpu,cpuacct")
// hierarchy wins over the v2 line, which a hybrid system also lists
// without a cpu controller.
func findCgroup(r io.Reader, sys string) (cgroupCPU, bool) {
	var v1, v2 cgroupCPU
	_ = scanLines(r, func(line string) {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			return
		}
		if f[0] == "0" && f[1] == "" {
			v2 = cgroupCPU{2, f[2], ""}
			for _, mnt := range []string{"fs/cgroup", "fs/cgroup/unified"} {
				d := filepath.Join(sys, mnt, f[2])
				if v2.dir == "" && readValue(filepath.Join(d, "cpu.stat")) != "" {
					v2.dir = d
				}
			}
			return
		}
		for c := range strings.SplitSeq(f[1], ",") {
			if c == "cpu" {
				for _, mnt := range []string{f[1], "cpu", "cpu,cpuacct"} {
					d := filepath.Join(sys, "fs/cgroup", mnt, f[2])
					if v1.dir == "" && readValue(filepath.Join(d, "cpu.stat")) != "" {
						v1 = cgroupCPU{1, f[2], d}
					}
				}
			}
		}
	})
	if v1.dir != "" {
		return v1, true
	}
	return v2, v2.dir != ""
}

// cgroupStat is the throttling counters of cpu.stat: nr_throttled, and
// the time throttled in microseconds (v2 throttled_usec; v1 writes
// throttled_time in nanoseconds).
type cgroupStat struct {
	nrThrottled, throttledUs int64
}

func (c cgroupCPU) stat() (cgroupStat, bool) {
	var s cgroupStat
	seen := false
	_ = eachLine(filepath.Join(c.dir, "cpu.stat"), func(line string) {
		f := strings.Fields(line)
		if len(f) != 2 {
			return
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return
		}
		switch f[0] {
		case "nr_throttled":
			s.nrThrottled, seen = v, true
		case "throttled_usec":
			s.throttledUs = v
		case "throttled_time":
			s.throttledUs = v / 1000
		}
	})
	return s, seen
}

// quota is the group's CPU quota in CPUs, 0 when there is none: v2's
// cpu.max "20000 100000" (or "max 100000"), v1's cpu.cfs_quota_us over
// cpu.cfs_period_us (-1 for none).
func (c cgroupCPU) quota() float64 {
	var q, p string
	if c.version == 2 {
		f := strings.Fields(readValue(filepath.Join(c.dir, "cpu.max")))
		if len(f) == 2 {
			q, p = f[0], f[1]
		}
	} else {
		q, p = readValue(filepath.Join(c.dir, "cpu.cfs_quota_us")), readValue(filepath.Join(c.dir, "cpu.cfs_period_us"))
	}
	qv, err1 := strconv.ParseFloat(q, 64)
	pv, err2 := strconv.ParseFloat(p, 64)
	if err1 != nil || err2 != nil || qv <= 0 || pv <= 0 {
		return 0
	}
	return qv / pv
}
