package main

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// TestNetClientFlags: iperf3's flags read into the parameters the
// document records.
func TestNetClientFlags(t *testing.T) {
	base := testFlags{Time: "10", Omit: "0", Parallel: 1}
	for _, c := range []struct {
		set  func(*testFlags)
		want result.NetParameters
	}{
		{func(f *testFlags) {}, result.NetParameters{Protocol: "tcp", Direction: result.DirUp, Streams: 1, DurationNs: int64(10 * time.Second)}},
		{func(f *testFlags) { f.Bitrate, f.DSCP, f.FQRate, f.Title = "20M/16", "AF21", "50M", "x" },
			result.NetParameters{Protocol: "tcp", Direction: result.DirUp, Streams: 1, DurationNs: int64(10 * time.Second),
				BitrateBps: 20e6, Burst: 16, TOS: 0x48, FQRateBps: 50e6, Title: "x"}},
		// -n alone ends the test by size; -t with it bounds it too.
		{func(f *testFlags) { f.Bytes, f.Parallel, f.Reverse = "1G", 4, true },
			result.NetParameters{Protocol: "tcp", Direction: result.DirDown, Streams: 4, Bytes: 1 << 30}},
		{func(f *testFlags) { f.Blocks, f.TimeSet, f.Bidir = 7, true, true },
			result.NetParameters{Protocol: "tcp", Direction: "bidir", Streams: 1, Blocks: 7, DurationNs: int64(10 * time.Second)}},
		// UDP is capped at iperf3's 1 Mbit/s unless -b says otherwise.
		{func(f *testFlags) { f.UDP, f.Length, f.GSRO, f.TOS = true, "1400", true, "0x10" },
			result.NetParameters{Protocol: "udp", Direction: result.DirUp, Streams: 1, DurationNs: int64(10 * time.Second),
				BitrateBps: iperf3.DefaultUDPBitrate, BlockSize: 1400, GSO: true, GRO: true, TOS: 0x10}},
		{func(f *testFlags) { f.UDP, f.Bitrate, f.Window = true, "0", "4M" },
			result.NetParameters{Protocol: "udp", Direction: result.DirUp, Streams: 1, DurationNs: int64(10 * time.Second), Window: 4 << 20}},
	} {
		f := base
		c.set(&f)
		var cfg iperf3.ClientConfig
		if err := f.config(&cfg); err != nil {
			t.Errorf("%+v: %v", f, err)
			continue
		}
		if cfg.NetParameters != c.want {
			t.Errorf("%+v:\n got %+v\nwant %+v", f, cfg.NetParameters, c.want)
		}
	}
	f := base
	f.FlowLabel, f.GetServerOutput, f.MPTCP = "0x2a5f1", true, true
	var cfg iperf3.ClientConfig
	if err := f.config(&cfg); err != nil || cfg.FlowLabel != 0x2a5f1 || !cfg.GetServerOutput || !cfg.MPTCP {
		t.Errorf("-L, --get-server-output, --mptcp: %+v %v", cfg, err)
	}
}

// TestNetClientMessages: every refusal of the test's flags, whether the
// command's reading of them or the engine's check rendered with the
// flags' names, says what iperf3's flags did before the engine named its
// fields, word for word.
func TestNetClientMessages(t *testing.T) {
	base := testFlags{Time: "10", Omit: "0", Parallel: 1}
	for _, c := range []struct {
		set  func(*testFlags)
		want string
	}{
		{func(f *testFlags) { f.Parallel = 0 }, "-P 0: from 1 to 128 streams"},
		{func(f *testFlags) { f.Parallel = 129 }, "-P 129: from 1 to 128 streams"},
		{func(f *testFlags) { f.Time = "1.5" }, "-t and -O: whole seconds (the iperf3 protocol carries seconds)"},
		{func(f *testFlags) { f.Time = "0" }, "-t 0 needs -n or -k: the test must end somehow"},
		{func(f *testFlags) { f.Time = "90000" }, "-t 90000: at most 24h0m0s"},
		{func(f *testFlags) { f.Omit = "700" }, "-O 700: at most 10m0s"},
		{func(f *testFlags) { f.Time = "-1" }, `-t: invalid time "-1": seconds from 0 to 1000000`},
		{func(f *testFlags) { f.Blocks = -1 }, "-k -1: a count of blocks must be positive"},
		{func(f *testFlags) { f.Bytes = "lots" }, `-n: invalid size "lots": expected a number such as 4k or 1GiB`},
		{func(f *testFlags) { f.Reverse, f.Bidir = true, true }, "-R and --bidir: choose one (--bidir already includes the reverse direction)"},
		{func(f *testFlags) { f.Bitrate = "10M/0" }, "-b 10M/0: the burst after / is a count of blocks from 1 to 1000"},
		{func(f *testFlags) { f.Bitrate = "10M/1001" }, "-b 10M/1001: the burst after / is a count of blocks from 1 to 1000"},
		{func(f *testFlags) { f.Congestion = "no-such-algorithm" },
			`-C "no-such-algorithm": not a congestion control this kernel has (see /proc/sys/net/ipv4/tcp_available_congestion_control)`},
		{func(f *testFlags) { f.UDP, f.Length = true, "70000" }, "-l 70000: a UDP datagram carries 16 to 65507 bytes"},
		{func(f *testFlags) { f.UDP, f.Length = true, "64K" }, "-l 64K: a UDP datagram carries 16 to 65507 bytes"},
		{func(f *testFlags) { f.Length = "2M" }, "-l 2M: at most 1M for TCP (as iperf3 servers allow)"},
		{func(f *testFlags) { f.Window = "1G" }, "-w 1G: at most 512M"},
		{func(f *testFlags) { f.MSS = 10 }, "-M 10: from 88 to 32767 bytes"},
		{func(f *testFlags) { f.TOS = "256" }, "-S 256: a TOS byte from 0 to 255 (0x.. hex, 0.. octal)"},
		{func(f *testFlags) { f.TOS = "0x1g" }, "-S 0x1g: a TOS byte from 0 to 255 (0x.. hex, 0.. octal)"},
		{func(f *testFlags) { f.DSCP = "64" }, "--dscp 64: a code point from 0 to 63 or a name (af11..af43, cs0..cs7, ef, va)"},
		{func(f *testFlags) { f.DSCP = "gold" }, "--dscp gold: a code point from 0 to 63 or a name (af11..af43, cs0..cs7, ef, va)"},
		{func(f *testFlags) { f.TOS, f.DSCP = "8", "ef" }, "-S and --dscp both set the TOS byte: give one"},
		{func(f *testFlags) { f.FQRate = "fast" }, `--fq-rate: invalid rate "fast": want bits per second such as 40M, 100mbit or 1.5G (1000-based)`},
		{func(f *testFlags) { f.DontFragment = true }, "--dont-fragment: UDP only (-u); TCP sets Don't Fragment itself"},
		{func(f *testFlags) { f.GSRO = true }, "--gsro: UDP only (-u)"},
		{func(f *testFlags) { f.UDP, f.MPTCP = true, true }, "--mptcp: TCP only"},
		{func(f *testFlags) { f.FlowLabel = "0" }, "-L 0: an IPv6 flow label from 1 to 0xfffff"},
		{func(f *testFlags) { f.FlowLabel = "0x100000" }, "-L 0x100000: an IPv6 flow label from 1 to 0xfffff"},
		{func(f *testFlags) { f.UDP, f.FlowLabel = true, "5" }, "-L: TCP only, as iperf3 labels its TCP streams"},
		{func(f *testFlags) { f.Title = strings.Repeat("x", 1025) }, "-T and --extra-data: at most 1024 bytes each"},
	} {
		f := base
		c.set(&f)
		var cfg iperf3.ClientConfig
		err := f.config(&cfg)
		if !usage.Is(err) || err.Error() != c.want {
			t.Errorf("%+v: %v, want the usage error %q", f, err, c.want)
		}
	}
}

// TestNetRunErrorNamed: a refusal the engine finds while the test runs,
// a flow label towards an IPv4 server, names the flag too.
func TestNetRunErrorNamed(t *testing.T) {
	srv, err := iperf3.Listen(iperf3.ServerConfig{Addr: "127.0.0.1:0", Once: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	port := strconv.Itoa(srv.Addr().(*net.TCPAddr).Port)
	o := thruput(t, "net", "client", "127.0.0.1", "-p", port, "-L", "5", "-t", "1", "--no-latency", "--no-save")
	want := "thruput: data stream 1 of 1: -L: a flow label needs IPv6, and 127.0.0.1 is IPv4\n"
	if o.code != exitUsage || o.stderr != want {
		t.Errorf("-L to an IPv4 server: exit %d, stderr %q; want exit %d, %q", o.code, o.stderr, exitUsage, want)
	}
	cancel()
	<-done
}

func TestParseDSCP(t *testing.T) {
	for in, want := range map[string]int{"ef": 0xb8, "EF": 0xb8, "cs1": 0x20, "af41": 0x88, "10": 40, "0x3f": 0xfc, "010": 32, "0": 0} {
		if got, ok := parseDSCP(in); !ok || got != want {
			t.Errorf("--dscp %s: %#x, %v; want %#x", in, got, ok, want)
		}
	}
	for _, in := range []string{"64", "-1", "", "af5", "0x40"} {
		if got, ok := parseDSCP(in); ok {
			t.Errorf("--dscp %q accepted as %#x", in, got)
		}
	}
}

func TestParseAffinity(t *testing.T) {
	for _, c := range []struct {
		in            string
		local, server int
		bad           bool
	}{
		{in: "1", local: 1, server: -1},
		{in: "0,3", local: 0, server: 3},
		{in: "0x2,1024", local: 2, server: 1024},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "1025", bad: true},
		{in: "1,", bad: true},
		{in: "1,x", bad: true},
		{in: "1/1", bad: true},
	} {
		l, s, err := parseAffinity(c.in)
		if c.bad {
			if err == nil || !strings.Contains(err.Error(), "-A "+c.in) {
				t.Errorf("-A %q: %d,%d %v, want an error naming it", c.in, l, s, err)
			}
			continue
		}
		if err != nil || l != c.local || s != c.server {
			t.Errorf("-A %q: %d,%d %v, want %d,%d", c.in, l, s, err, c.local, c.server)
		}
	}
}
