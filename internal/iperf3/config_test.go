package iperf3

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// flagLike is a command-line flag in a message: -t, --bidir.
var flagLike = regexp.MustCompile(`(^|[\s(])--?[A-Za-z]`)

// TestClientConfigValidate: each parameter out of range is refused as a
// usage error naming the config's fields, never a flag, which the
// command renders as its own flags.
func TestClientConfigValidate(t *testing.T) {
	base := ClientConfig{NetParameters: result.NetParameters{Streams: 1, DurationNs: 10 * second}}
	if err := base.Validate(); err != nil {
		t.Fatalf("a valid config: %v", err)
	}
	for _, c := range []struct {
		set  func(*ClientConfig)
		want string
	}{
		{func(c *ClientConfig) { c.Protocol = "sctp" }, `Protocol "sctp": tcp or udp`},
		{func(c *ClientConfig) { c.Direction = "sideways" }, `Direction "sideways": up, down or bidir`},
		{func(c *ClientConfig) { c.Window = -1 }, "DurationNs, OmitNs, Bytes, BitrateBps, FQRateBps, Window and BlockSize must not be negative"},
		{func(c *ClientConfig) { c.DurationNs = 90000 * second }, "DurationNs 90000: at most 24h0m0s"},
		{func(c *ClientConfig) { c.OmitNs = 700 * second }, "OmitNs 700: at most 10m0s"},
		{func(c *ClientConfig) { c.DurationNs = 1500 * int64(time.Millisecond) }, "DurationNs and OmitNs: whole seconds"},
		{func(c *ClientConfig) { c.Blocks = -1 }, "Blocks -1: a count of blocks must be positive"},
		{func(c *ClientConfig) { c.DurationNs = 0 }, "DurationNs 0 needs Bytes or Blocks"},
		{func(c *ClientConfig) { c.Streams = 0 }, "Streams 0: from 1 to 128 streams"},
		{func(c *ClientConfig) { c.Streams = 129 }, "Streams 129: from 1 to 128 streams"},
		{func(c *ClientConfig) { c.Congestion = "no-such-algorithm" }, `Congestion "no-such-algorithm": not a congestion control`},
		{func(c *ClientConfig) { c.Protocol, c.BlockSize = "udp", 64<<10 }, "BlockSize 64K: a UDP datagram carries 16 to 65507 bytes"},
		{func(c *ClientConfig) { c.BlockSize = 2 << 20 }, "BlockSize 2M: at most 1M for TCP"},
		{func(c *ClientConfig) { c.Window = 1 << 30 }, "Window 1G: at most 512M"},
		{func(c *ClientConfig) { c.MSS = 10 }, "MSS 10: from 88 to 32767 bytes"},
		{func(c *ClientConfig) { c.TOS = 256 }, "TOS 256: a TOS byte from 0 to 255"},
		{func(c *ClientConfig) { c.Burst = 1001 }, "Burst 1001: from 0 to 1000 blocks"},
		{func(c *ClientConfig) { c.FlowLabel = 0x100000 }, "FlowLabel 1048576: from 0 to 0xfffff"},
		{func(c *ClientConfig) { c.Protocol, c.FlowLabel = "udp", 5 }, "FlowLabel: TCP only"},
		{func(c *ClientConfig) { c.DontFragment = true }, "DontFragment: UDP only (Protocol)"},
		{func(c *ClientConfig) { c.GSO = true }, "GSO: UDP only (Protocol)"},
		{func(c *ClientConfig) { c.GRO = true }, "GRO: UDP only (Protocol)"},
		{func(c *ClientConfig) { c.Protocol, c.MPTCP = "udp", true }, "MPTCP: TCP only"},
		{func(c *ClientConfig) { c.ExtraData = strings.Repeat("x", 1025) }, "Title and ExtraData: at most 1024 bytes each"},
	} {
		cfg := base
		c.set(&cfg)
		err := cfg.Validate()
		var inv *usage.Invalid
		if !usage.Is(err) || !errors.As(err, &inv) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a refusal starting %q", cfg, err, c.want)
			continue
		}
		if flagLike.MatchString(err.Error()) {
			t.Errorf("%q names a flag", err)
		}
	}
}

// TestParametersBothEnds: what a client records of its config and what
// the server records of the parameters it received are the same test:
// the two conversions, to iperf3's parameters and back, agree.
func TestParametersBothEnds(t *testing.T) {
	for _, np := range []result.NetParameters{
		{Protocol: "udp", Streams: 3, Direction: result.DirDown, DurationNs: 5 * second, OmitNs: 2 * second,
			BlockSize: 1400, BitrateBps: 50e6, Window: 1 << 20, TOS: 0x48, FQRateBps: 60e6, Burst: 8,
			DontFragment: true, SkipRxCopy: true, GSO: true, GRO: true, RepeatingPayload: true,
			Title: "lab", ExtraData: "rack 3", IntervalNs: second, Bind: "127.0.0.1%lo"},
		{Streams: 2, Direction: "bidir", Bytes: 1 << 30, Blocks: 7, BlockSize: 1 << 17, MSS: 1200,
			NoDelay: true, ZeroCopy: true},
		{Streams: 1, DurationNs: second, BlockSize: 1 << 17},
	} {
		cfg := ClientConfig{NetParameters: np, Host: "::1", Port: 5201, Version: "thruput test"}
		p := cfg.params()
		b, err := json.Marshal(p.wire())
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseParams(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		s := &Server{cfg: ServerConfig{Addr: ":5201"}}
		server := s.parameters(got, "[::1]:40000")
		want := cfg.Parameters()
		if want.Role != "client" || want.Server != "[::1]:5201" || want.Protocol == "" || want.Direction == "" {
			t.Errorf("the client records %+v", want)
		}
		// The ends differ in their role and addresses, and in what the
		// server is not told: the client's interval and bind.
		want.Role, want.Server, want.Client, want.PeerVersion = "server", ":5201", "[::1]:40000", "thruput test"
		want.IntervalNs, want.Bind = 0, ""
		if server != want {
			t.Errorf("sent %s\nthe server records\n %+v\nthe client\n %+v", b, server, want)
		}
	}
}

// TestHooks: both ends tell their progress through progress.Hooks: the
// client its data connections once, with its section's parameters already
// filled, then each interval; the server each interval under its client's
// address.
func TestHooks(t *testing.T) {
	fstest.Long(t, "a test of a second")
	var mu sync.Mutex
	var served []progress.Report
	ts := startServer(t, ServerConfig{Interval: 250 * time.Millisecond, Hooks: progress.Hooks{Progress: func(r progress.Report) {
		mu.Lock()
		served = append(served, r)
		mu.Unlock()
	}}})
	cfg := quickTest(ts.port)
	cfg.NetParameters = result.NetParameters{Streams: 2, DurationNs: second, IntervalNs: int64(250 * time.Millisecond)}
	n := &result.Net{}
	var reports []progress.Report
	var server string
	h := progress.Hooks{Progress: func(r progress.Report) {
		if r.Streams != nil {
			server = n.Parameters.Server
		}
		reports = append(reports, r)
	}}
	if err := Run(context.Background(), cfg, n, h); err != nil {
		t.Fatal(err)
	}
	if len(reports) < 4 || len(reports[0].Streams) != 2 || server != "127.0.0.1:"+strconv.Itoa(ts.port) {
		t.Fatalf("the client reported %+v, its section's server %q at the first", reports, server)
	}
	for i, s := range reports[0].Streams {
		if s.ID != int64(i+1) || s.Local == "" || s.Remote == "" {
			t.Errorf("stream %+v", s)
		}
	}
	for _, r := range reports[1:] {
		if r.Streams != nil || r.NetInterval == nil || r.Target != "127.0.0.1" || r.Phase != result.DirUp || r.Bound != time.Second ||
			r.Elapsed != time.Duration(r.NetInterval.EndNs) {
			t.Errorf("interval report %+v", r)
		}
	}
	ts.idle(t)
	mu.Lock()
	defer mu.Unlock()
	if len(served) < 3 {
		t.Fatalf("the server reported %d intervals", len(served))
	}
	for _, r := range served {
		host, port, err := net.SplitHostPort(r.Target)
		if err != nil || host != "127.0.0.1" || port == strconv.Itoa(ts.port) || r.NetInterval == nil || r.Phase != result.DirUp {
			t.Errorf("server report %+v", r)
		}
	}
}
