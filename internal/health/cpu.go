package health

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/thruput/thruput/internal/kfile"
)

// fwBehind is how far below cpufreq's clock the firmware's measured one
// must read for the firmware to be throttling behind cpufreq: the
// measurement counts cycles over a short window and lands within a few
// percent of the clock set.
const fwBehind = 0.9

// firmwareClock reads the ARM clock the firmware measures and compares
// it with the clock cpufreq says it set (scaling_cur_freq, read just
// before): when the firmware runs the cores clearly slower, cpufreq's
// figures are not what ran.
func (s *Sampler) firmwareClock(at float64) {
	hz, ok := s.fw()
	if !ok || hz == 0 {
		return
	}
	m := float64(hz) / 1e6
	if s.fwN == 0 || m < s.fwMin {
		s.fwMin = m
	}
	s.fwMax = max(s.fwMax, m)
	s.fwSum += m
	s.fwN++
	var asked float64
	for _, p := range s.policies {
		asked = max(asked, p.cur)
	}
	if asked > 0 && m < fwBehind*asked/1000 {
		s.suspect("firmware clock below cpufreq", at, fmt.Sprintf("the firmware measured the ARM at %.0f MHz while scaling_cur_freq said %s: the firmware throttles behind cpufreq", m, mhz(asked)))
	}
}

// cpuBusy reads /proc/stat and adds each CPU's busy share since the last
// reading to its series. A reading closer than a quarter interval to
// the last (the end, just after a tick) is left out: a few ticks give
// no share worth a point.
func (s *Sampler) cpuBusy(at float64) {
	if n := len(s.busyAt); n > 0 && at-s.busyAt[n-1] < s.cfg.Interval.Seconds()/4 {
		return
	}
	b, ok := readInto(filepath.Join(s.cfg.Proc, "stat"), s.statBuf)
	s.statBuf = b
	if !ok {
		return
	}
	clear(s.statNow)
	parseStatBytes(b, s.statNow)
	if len(s.statNow) == 0 {
		return
	}
	if len(s.busyAt) > 0 {
		for c, now := range s.statNow {
			before, ok := s.statPrev[c]
			if !ok {
				continue
			}
			d := now.sub(before)
			v := 0.0
			if t := d.total(); t > 0 {
				v = round1(float64(d.busy()) * 100 / float64(t))
			}
			s.busy[c] = append(s.busy[c], v)
		}
	}
	s.busyAt = append(s.busyAt, at)
	s.statPrev, s.statNow = s.statNow, s.statPrev
}

// busySeries is cpu's series over the load, nil when it has a gap (the
// CPU came online during the run).
func (s *Sampler) busySeries(cpu int) []float64 {
	if len(s.busyAt) < 2 {
		return nil
	}
	series := s.busy[cpu]
	if len(series) != len(s.busyAt)-1 {
		return nil
	}
	return series[s.loadIdx:]
}

// maxStatFile bounds /proc/stat: a line per CPU, a few kilobytes more.
const maxStatFile = 16 << 20

// readInto reads a whole file into buf, grown as needed, and returns it.
func readInto(path string, buf []byte) ([]byte, bool) {
	f, err := kfile.Open(path)
	if err != nil {
		return buf[:0], false
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, true
		case err != nil || len(buf) > maxStatFile:
			return buf[:0], false
		}
	}
}

// parseStatBytes reads the per-CPU lines of /proc/stat into dst, as
// parseStat does, without allocating: it runs every second.
func parseStatBytes(b []byte, dst map[int]cpuTicks) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) < 4 || !bytes.HasPrefix(line, []byte("cpu")) || line[3] < '0' || line[3] > '9' {
			continue
		}
		// The CPU's number, then up to eight counters.
		var v [9]uint64
		n, rest, ok := 0, line[3:], true
		for n < len(v) && ok {
			rest = bytes.TrimLeft(rest, " \t")
			if len(rest) == 0 {
				break
			}
			j, x := 0, uint64(0)
			for ; j < len(rest) && rest[j] != ' ' && rest[j] != '\t'; j++ {
				c := rest[j]
				if c < '0' || c > '9' || x > (math.MaxUint64-9)/10 {
					ok = false
					break
				}
				x = x*10 + uint64(c-'0')
			}
			v[n], rest = x, rest[j:]
			n++
		}
		if !ok || n < 5 || v[0] > math.MaxInt32 {
			continue
		}
		dst[int(v[0])] = cpuTicks{v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]}
	}
}
