package iperf3

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/units"
)

// ClientFlags are a client's settings as iperf3's command line gives
// them, unparsed: what `thruput net client` and the suite hand over.
type ClientFlags struct {
	// Time and Omit are seconds or durations (-t, -O); TimeSet says -t was
	// given, so that -n or -k alone end the test by size.
	Time, Omit            string
	TimeSet               bool
	Bytes, Length, Window string
	Bitrate               string
	Blocks                int64
	Parallel, MSS         int
	Reverse, Bidir, UDP   bool
	NoDelay               bool
	Congestion            string
}

// Params checks the flags as iperf3 would, naming the flag at fault, and
// turns them into a test's parameters.
func (f ClientFlags) Params() (Params, error) {
	p := Params{UDP: f.UDP, Reverse: f.Reverse, Bidir: f.Bidir, NoDelay: f.NoDelay, Congestion: f.Congestion, MSS: f.MSS}
	var err error
	seconds := func(flag, s string, max time.Duration) (time.Duration, error) {
		d, err := units.ParseSeconds(s)
		if err != nil {
			return 0, fmt.Errorf("-%s: %w", flag, err)
		}
		if d > max {
			return 0, fmt.Errorf("-%s %s: at most %v", flag, s, max)
		}
		return d, nil
	}
	if p.Time, err = seconds("t", f.Time, 86400*time.Second); err != nil {
		return p, err
	}
	if p.Omit, err = seconds("O", f.Omit, 600*time.Second); err != nil {
		return p, err
	}
	if p.Time%time.Second != 0 || p.Omit%time.Second != 0 {
		return p, fmt.Errorf("-t and -O: whole seconds (the iperf3 protocol carries seconds)")
	}
	if f.Bytes != "" {
		if p.Bytes, err = units.ParseSize(f.Bytes); err != nil {
			return p, fmt.Errorf("-n: %w", err)
		}
	}
	if f.Blocks < 0 {
		return p, fmt.Errorf("-k %d: a count of blocks must be positive", f.Blocks)
	}
	p.Blocks = f.Blocks
	if (p.Bytes > 0 || p.Blocks > 0) && !f.TimeSet {
		p.Time = 0
	}
	if p.Time == 0 && p.Bytes == 0 && p.Blocks == 0 {
		return p, fmt.Errorf("-t 0 needs -n or -k: the test must end somehow")
	}
	if f.Parallel < 1 || f.Parallel > 128 {
		return p, fmt.Errorf("-P %d: from 1 to 128 streams", f.Parallel)
	}
	p.Parallel = f.Parallel
	if f.Reverse && f.Bidir {
		return p, fmt.Errorf("-R and --bidir: choose one (--bidir already includes the reverse direction)")
	}
	if f.Bitrate != "" {
		if p.Bitrate, err = units.ParseBitrate(f.Bitrate); err != nil {
			return p, fmt.Errorf("-b: %w", err)
		}
	} else if f.UDP {
		p.Bitrate = DefaultUDPBitrate // iperf3's default; -b 0 is unlimited
	}
	if c := f.Congestion; c != "" {
		if len(c) > 15 || !congestionAvailable(c) {
			return p, fmt.Errorf("-C %q: not a congestion control this kernel has (see /proc/sys/net/ipv4/tcp_available_congestion_control)", c)
		}
	}
	if f.Length != "" {
		n, err := units.ParseSize(f.Length)
		if err != nil {
			return p, fmt.Errorf("-l: %w", err)
		}
		if f.UDP && (n < 16 || n > 65507) {
			return p, fmt.Errorf("-l %s: a UDP datagram carries 16 to 65507 bytes", f.Length)
		}
		if !f.UDP && n > 1<<20 {
			return p, fmt.Errorf("-l %s: at most 1M for TCP (as iperf3 servers allow)", f.Length)
		}
		p.Len = int(n)
	}
	if f.Window != "" {
		n, err := units.ParseSize(f.Window)
		if err != nil {
			return p, fmt.Errorf("-w: %w", err)
		}
		if n > 512<<20 {
			return p, fmt.Errorf("-w %s: at most 512M", f.Window)
		}
		p.Window = int(n)
	}
	if f.MSS < 0 || f.MSS > 32767 || (f.MSS > 0 && f.MSS < 88) {
		return p, fmt.Errorf("-M %d: from 88 to 32767 bytes", f.MSS)
	}
	return p, nil
}

// congestionAvailable checks -C against the kernel's list; the server end
// checks its own.
func congestionAvailable(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return true // cannot tell here: let the kernel refuse it at connect
	}
	return slices.Contains(strings.Fields(string(b)), name)
}
