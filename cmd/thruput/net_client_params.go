package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// testFlags are the test's parameters as iperf3's command line gives
// them, unparsed: what `net client` and the suite's steps hand over.
type testFlags struct {
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

// netClientNames are the flags that set the fields iperf3.ClientConfig's
// messages name.
var netClientNames = map[string]string{
	"DurationNs": "-t", "OmitNs": "-O", "Bytes": "-n", "Blocks": "-k", "Streams": "-P",
	"Protocol": "-u", "Direction": "-R", "BitrateBps": "-b", "Burst": "-b", "Congestion": "-C",
	"BlockSize": "-l", "Window": "-w", "MSS": "-M", "TOS": "-S", "FQRateBps": "--fq-rate",
	"FlowLabel": "-L", "DontFragment": "--dont-fragment", "GSO": "--gsro", "GRO": "--gsro",
	"MPTCP": "--mptcp", "Title": "-T", "ExtraData": "--extra-data",
}

// config reads the flags into cfg's parameters and checks them, each
// message naming the flag at fault.
func (f testFlags) config(cfg *iperf3.ClientConfig) error {
	if err := f.parse(cfg); err != nil {
		return err
	}
	return usage.Named(cfg.Validate(), netClientNames)
}

// parse reads the flags into cfg's parameters, refusing text that is no
// value of its flag; the engine's Validate checks the values.
func (f testFlags) parse(cfg *iperf3.ClientConfig) error {
	np := &cfg.NetParameters
	np.Protocol, np.Direction, np.Streams = "tcp", result.DirUp, f.Parallel
	if f.UDP {
		np.Protocol = "udp"
	}
	np.NoDelay, np.Congestion, np.MSS = f.NoDelay, f.Congestion, f.MSS
	var err error
	if np.DurationNs, err = flagSeconds("t", f.Time); err != nil {
		return err
	}
	if np.OmitNs, err = flagSeconds("O", f.Omit); err != nil {
		return err
	}
	if f.Bytes != "" {
		if np.Bytes, err = units.ParseSize(f.Bytes); err != nil {
			return usage.Errorf("-n: %w", err)
		}
	}
	np.Blocks = f.Blocks
	if (np.Bytes > 0 || np.Blocks > 0) && !f.TimeSet {
		np.DurationNs = 0
	}
	switch {
	case f.Reverse && f.Bidir:
		return usage.Errorf("-R and --bidir: choose one (--bidir already includes the reverse direction)")
	case f.Reverse:
		np.Direction = result.DirDown
	case f.Bidir:
		np.Direction = "bidir"
	}
	if err := f.bitrate(np); err != nil {
		return err
	}
	if f.Length != "" {
		n, err := units.ParseSize(f.Length)
		if err != nil {
			return usage.Errorf("-l: %w", err)
		}
		np.BlockSize = int(n)
	}
	if f.Window != "" {
		n, err := units.ParseSize(f.Window)
		if err != nil {
			return usage.Errorf("-w: %w", err)
		}
		np.Window = int(n)
	}
	return f.options(cfg)
}

// flagSeconds reads -t or -O, seconds as iperf3 takes them.
func flagSeconds(flag, s string) (int64, error) {
	d, err := units.ParseSeconds(s)
	if err != nil {
		return 0, usage.Errorf("-%s: %w", flag, err)
	}
	return int64(d), nil
}

// bitrate reads -b RATE[/BURST]; a UDP test without it takes iperf3's
// default rate, and -b 0 is unlimited.
func (f testFlags) bitrate(np *result.NetParameters) error {
	if f.Bitrate == "" {
		if f.UDP {
			np.BitrateBps = iperf3.DefaultUDPBitrate
		}
		return nil
	}
	rate, burst, hasBurst := strings.Cut(f.Bitrate, "/")
	var err error
	if np.BitrateBps, err = units.ParseBitrate(rate); err != nil {
		return usage.Errorf("-b: %w", err)
	}
	if hasBurst {
		n, err := strconv.Atoi(burst)
		if err != nil || n < 1 || n > iperf3.MaxBurst {
			return usage.Errorf("-b %s: the burst after / is a count of blocks from 1 to %d", f.Bitrate, iperf3.MaxBurst)
		}
		np.Burst = n
	}
	return nil
}

// options reads the flags of iperf3's newer options.
func (f testFlags) options(cfg *iperf3.ClientConfig) error {
	np := &cfg.NetParameters
	if f.TOS != "" && f.DSCP != "" {
		return usage.Errorf("-S and --dscp both set the TOS byte: give one")
	}
	if f.TOS != "" {
		v, err := strconv.ParseInt(f.TOS, 0, 32)
		if err != nil || v < 0 || v > 255 {
			return usage.Errorf("-S %s: a TOS byte from 0 to 255 (0x.. hex, 0.. octal)", f.TOS)
		}
		np.TOS = int(v)
	}
	if f.DSCP != "" {
		v, ok := parseDSCP(f.DSCP)
		if !ok {
			return usage.Errorf("--dscp %s: a code point from 0 to 63 or a name (af11..af43, cs0..cs7, ef, va)", f.DSCP)
		}
		np.TOS = v
	}
	if f.FQRate != "" {
		v, err := units.ParseBitrate(f.FQRate)
		if err != nil {
			return usage.Errorf("--fq-rate: %w", err)
		}
		np.FQRateBps = v
	}
	if f.FlowLabel != "" {
		v, err := strconv.ParseInt(f.FlowLabel, 0, 32)
		if err != nil || v < 1 || v > 0xfffff {
			return usage.Errorf("-L %s: an IPv6 flow label from 1 to 0xfffff", f.FlowLabel)
		}
		cfg.FlowLabel = int(v)
	}
	np.DontFragment, np.SkipRxCopy, np.RepeatingPayload = f.DontFragment, f.SkipRxCopy, f.RepeatingPayload
	np.GSO, np.GRO, np.Title, np.ExtraData = f.GSRO, f.GSRO, f.Title, f.ExtraData
	cfg.GetServerOutput, cfg.MPTCP = f.GetServerOutput, f.MPTCP
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

// parseDSCP reads --dscp as iperf3 does: a name, or a code point 0-63
// (decimal, 0x.. hex or 0.. octal); the result is the TOS byte.
func parseDSCP(s string) (int, bool) {
	if v, ok := dscpNames[strings.ToLower(s)]; ok {
		return v, true
	}
	v, err := strconv.ParseInt(s, 0, 32)
	if err != nil || v < 0 || v > 63 {
		return 0, false
	}
	return int(v) << 2, true
}

// parseAffinity reads -A n[,m]: this end's CPU n and, after the comma,
// the CPU m the server is to run the test on (-1 when not given).
func parseAffinity(s string) (local, server int, err error) {
	cpu := func(v string) (int, error) {
		n, err := strconv.ParseInt(v, 0, 32)
		if err != nil || n < 0 || n > iperf3.MaxCPU {
			return 0, fmt.Errorf("-A %s: a CPU number from 0 to %d, or n,m for this end's and the server's", s, iperf3.MaxCPU)
		}
		return int(n), nil
	}
	l, r, hasServer := strings.Cut(s, ",")
	if local, err = cpu(l); err != nil {
		return 0, 0, err
	}
	server = -1
	if hasServer {
		if server, err = cpu(r); err != nil {
			return 0, 0, err
		}
	}
	return local, server, nil
}

// parseInterval reads -i: seconds between live figures, 0 for none.
func parseInterval(s string) (time.Duration, error) {
	d, err := units.ParseSeconds(s)
	if err != nil {
		return 0, usage.Errorf("-i: %w", err)
	}
	if d > 0 && d < 100*time.Millisecond {
		return 0, usage.Errorf("-i %s: at least 0.1 s, or 0 for none", s)
	}
	return d, nil
}
