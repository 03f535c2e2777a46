package iperf3

import (
	"fmt"
	"os"
	"slices"
	"strconv"
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
	// TOS is -S (a number, 0x.. or 0..), DSCP --dscp (a name such as
	// af11 or ef, or a number 0-63); FQRate --fq-rate (1000-based).
	TOS, DSCP, FQRate string
	// FlowLabel is -L: the IPv6 flow label of the TCP data streams.
	FlowLabel string
	// The rest are the iperf3 options of the same names.
	DontFragment, GetServerOutput, SkipRxCopy bool
	RepeatingPayload, GSRO, MPTCP             bool
	Title, ExtraData                          string
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
		rate, burst, hasBurst := strings.Cut(f.Bitrate, "/")
		if p.Bitrate, err = units.ParseBitrate(rate); err != nil {
			return p, fmt.Errorf("-b: %w", err)
		}
		if hasBurst {
			n, err := strconv.Atoi(burst)
			if err != nil || n < 1 || n > maxBurst {
				return p, fmt.Errorf("-b %s: the burst after / is a count of blocks from 1 to %d", f.Bitrate, maxBurst)
			}
			p.Burst = n
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
	if err := f.options(&p.Options, f.UDP); err != nil {
		return p, err
	}
	return p, nil
}

// options checks the flags of iperf3's newer options.
func (f ClientFlags) options(o *Options, udp bool) error {
	if f.TOS != "" && f.DSCP != "" {
		return fmt.Errorf("-S and --dscp both set the TOS byte: give one")
	}
	if f.TOS != "" {
		v, err := strconv.ParseInt(f.TOS, 0, 32)
		if err != nil || v < 0 || v > 255 {
			return fmt.Errorf("-S %s: a TOS byte from 0 to 255 (0x.. hex, 0.. octal)", f.TOS)
		}
		o.TOS = int(v)
	}
	if f.DSCP != "" {
		v, ok := ParseDSCP(f.DSCP)
		if !ok {
			return fmt.Errorf("--dscp %s: a code point from 0 to 63 or a name (af11..af43, cs0..cs7, ef, va)", f.DSCP)
		}
		o.TOS = v
	}
	if f.FQRate != "" {
		v, err := units.ParseBitrate(f.FQRate)
		if err != nil {
			return fmt.Errorf("--fq-rate: %w", err)
		}
		o.FQRate = v
	}
	if f.FlowLabel != "" {
		v, err := strconv.ParseInt(f.FlowLabel, 0, 32)
		if err != nil || v < 1 || v > 0xfffff {
			return fmt.Errorf("-L %s: an IPv6 flow label from 1 to 0xfffff", f.FlowLabel)
		}
		if udp {
			return fmt.Errorf("-L: TCP only, as iperf3 labels its TCP streams")
		}
		o.FlowLabel = int(v)
	}
	if f.DontFragment && !udp {
		return fmt.Errorf("--dont-fragment: UDP only (-u); TCP sets Don't Fragment itself")
	}
	if f.GSRO && !udp {
		return fmt.Errorf("--gsro: UDP only (-u)")
	}
	if f.MPTCP && udp {
		return fmt.Errorf("--mptcp: TCP only")
	}
	if len(f.Title) > 1024 || len(f.ExtraData) > 1024 {
		return fmt.Errorf("-T and --extra-data: at most 1024 bytes each")
	}
	o.DontFragment, o.GetServerOutput, o.SkipRxCopy = f.DontFragment, f.GetServerOutput, f.SkipRxCopy
	o.RepeatingPayload, o.GSO, o.GRO, o.MPTCP = f.RepeatingPayload, f.GSRO, f.GSRO, f.MPTCP
	o.Title, o.ExtraData = f.Title, f.ExtraData
	return nil
}

// dscpNames are the code points iperf3's --dscp knows by name, as TOS
// bytes (the code point shifted left by two).
var dscpNames = map[string]int{
	"af11": 0x28, "af12": 0x30, "af13": 0x38, "af21": 0x48, "af22": 0x50, "af23": 0x58,
	"af31": 0x68, "af32": 0x70, "af33": 0x78, "af41": 0x88, "af42": 0x90, "af43": 0x98,
	"cs0": 0x00, "cs1": 0x20, "cs2": 0x40, "cs3": 0x60, "cs4": 0x80, "cs5": 0xa0, "cs6": 0xc0, "cs7": 0xe0,
	"ef": 0xb8, "va": 0xb0, "lowdelay": 0x10, "throughput": 0x08, "reliability": 0x04,
}

// ParseDSCP reads --dscp as iperf3 does: a name, or a code point 0-63
// (decimal, 0x.. hex or 0.. octal); the result is the TOS byte.
func ParseDSCP(s string) (int, bool) {
	if v, ok := dscpNames[strings.ToLower(s)]; ok {
		return v, true
	}
	v, err := strconv.ParseInt(s, 0, 32)
	if err != nil || v < 0 || v > 63 {
		return 0, false
	}
	return int(v) << 2, true
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
