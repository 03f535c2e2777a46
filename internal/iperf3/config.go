package iperf3

import (
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/latency"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// ClientConfig is one test to run against a server: the parameters its
// document records, and how to reach the server.
type ClientConfig struct {
	// NetParameters are the test's as the document records them: Streams
	// per direction (1 to 128), Protocol "tcp" or "udp" ("" is tcp),
	// Direction "up", "down" or "bidir" ("" is up), DurationNs in whole
	// seconds (0 when Bytes or Blocks end the test), BlockSize 0 for the
	// protocol's default, IntervalNs between live figures (0: none),
	// ZeroCopy to send TCP with sendfile from a memfd, Bind the local
	// address to send from with %device to bind to one ("%eth0" alone
	// binds the device only). Run fills in Role, Server and what the test
	// learns (the cookie, the buffers, the congestion control).
	result.NetParameters
	Host string
	Port int
	// FlowLabel is the IPv6 flow label of the TCP data streams, 0 for
	// none.
	FlowLabel int
	// GetServerOutput asks the server for its own report of the test;
	// MPTCP asks for multipath TCP streams; ServerAffinity is the CPU the
	// server is to run the test on (nil: wherever it runs).
	GetServerOutput, MPTCP bool
	ServerAffinity         *int
	// Counters64 makes UDP sequence numbers 64-bit, as iperf3's
	// --udp-counters-64bit.
	Counters64     bool
	ConnectTimeout time.Duration
	// CPort is the first data stream's local port (the next streams take
	// the ports after it), 0 for any.
	CPort int
	// Family is "4" or "6" to use only that IP version, "" for either.
	Family string
	// Secret authenticates to a thruput server started with one.
	Secret []byte
	// Version is what the client tells the server it is.
	Version string
	// Stable is --until-stable and --sustained: the test may end before
	// its time once the rate of every direction is known, and each
	// direction's sum carries its interval either way.
	Stable stable.Options
	// Latency probes the path beside the test when set (see latency.go).
	Latency *latency.Prober
}

// Validate checks the parameters as iperf3's client does, naming the
// config's fields in usage.Invalidf's words.
func (c ClientConfig) Validate() error {
	udp := c.Protocol == "udp"
	switch {
	case c.Protocol != "" && c.Protocol != "tcp" && !udp:
		return usage.Invalidf("{Protocol} %q: tcp or udp", c.Protocol)
	case c.Direction != "" && c.Direction != result.DirUp && c.Direction != result.DirDown && c.Direction != "bidir":
		return usage.Invalidf("{Direction} %q: up, down or bidir", c.Direction)
	case c.DurationNs < 0 || c.OmitNs < 0 || c.Bytes < 0 || c.BitrateBps < 0 || c.FQRateBps < 0 || c.Window < 0 || c.BlockSize < 0:
		return usage.Invalidf("{DurationNs}, {OmitNs}, {Bytes}, {BitrateBps}, {FQRateBps}, {Window} and {BlockSize} must not be negative")
	case c.DurationNs > maxDurationSeconds*int64(time.Second):
		return usage.Invalidf("{DurationNs} %s: at most %v", seconds(c.DurationNs), maxDurationSeconds*time.Second)
	case c.OmitNs > maxOmitSeconds*int64(time.Second):
		return usage.Invalidf("{OmitNs} %s: at most %v", seconds(c.OmitNs), maxOmitSeconds*time.Second)
	case c.DurationNs%int64(time.Second) != 0 || c.OmitNs%int64(time.Second) != 0:
		return usage.Invalidf("{DurationNs} and {OmitNs}: whole seconds (the iperf3 protocol carries seconds)")
	case c.Blocks < 0:
		return usage.Invalidf("{Blocks} %d: a count of blocks must be positive", c.Blocks)
	case c.DurationNs == 0 && c.Bytes == 0 && c.Blocks == 0:
		return usage.Invalidf("{DurationNs} 0 needs {Bytes} or {Blocks}: the test must end somehow")
	case c.Streams < 1 || c.Streams > maxStreams:
		return usage.Invalidf("{Streams} %d: from 1 to %d streams", c.Streams, maxStreams)
	case c.Congestion != "" && (len(c.Congestion) > 15 || !congestionAvailable(c.Congestion)):
		return usage.Invalidf("{Congestion} %q: not a congestion control this kernel has (see /proc/sys/net/ipv4/tcp_available_congestion_control)", c.Congestion)
	case udp && c.BlockSize != 0 && (c.BlockSize < minBlockSizeUDP || c.BlockSize > maxBlockSizeUDP):
		return usage.Invalidf("{BlockSize} %s: a UDP datagram carries %d to %d bytes", size(c.BlockSize), minBlockSizeUDP, maxBlockSizeUDP)
	case !udp && c.BlockSize > maxBlockSizeTCP:
		return usage.Invalidf("{BlockSize} %s: at most %s for TCP (as iperf3 servers allow)", size(c.BlockSize), size(maxBlockSizeTCP))
	case c.Window > maxWindow:
		return usage.Invalidf("{Window} %s: at most %s", size(c.Window), size(maxWindow))
	case c.MSS < 0 || c.MSS > maxMSS || (c.MSS > 0 && c.MSS < minMSS):
		return usage.Invalidf("{MSS} %d: from %d to %d bytes", c.MSS, minMSS, maxMSS)
	}
	return c.checkOptions(udp)
}

// checkOptions checks the options iperf3 3.13-3.21 added.
func (c ClientConfig) checkOptions(udp bool) error {
	switch {
	case c.TOS < 0 || c.TOS > 255:
		return usage.Invalidf("{TOS} %d: a TOS byte from 0 to 255", c.TOS)
	case c.Burst < 0 || c.Burst > MaxBurst:
		return usage.Invalidf("{Burst} %d: from 0 to %d blocks", c.Burst, MaxBurst)
	case c.FlowLabel < 0 || c.FlowLabel > maxFlowLabel:
		return usage.Invalidf("{FlowLabel} %d: from 0 to %#x", c.FlowLabel, maxFlowLabel)
	case c.FlowLabel != 0 && udp:
		return usage.Invalidf("{FlowLabel}: TCP only, as iperf3 labels its TCP streams")
	case c.DontFragment && !udp:
		return usage.Invalidf("{DontFragment}: UDP only ({Protocol}); TCP sets Don't Fragment itself")
	case c.GSO && !udp:
		return usage.Invalidf("{GSO}: UDP only ({Protocol})")
	case c.GRO && !udp:
		return usage.Invalidf("{GRO}: UDP only ({Protocol})")
	case c.MPTCP && udp:
		return usage.Invalidf("{MPTCP}: TCP only")
	case len(c.Title) > maxTitle || len(c.ExtraData) > maxTitle:
		return usage.Invalidf("{Title} and {ExtraData}: at most %d bytes each", maxTitle)
	}
	return nil
}

// seconds writes a duration as iperf3 takes one, in seconds.
func seconds(ns int64) string {
	return strconv.FormatFloat(time.Duration(ns).Seconds(), 'f', -1, 64)
}

// size writes a byte count as iperf3 takes one: 1460, 64K, 2M.
func size(n int) string { return strings.ToUpper(units.BlockLabel(int64(n))) }

// Limits of the client's parameters beyond those the protocol sets.
const (
	minMSS       = 88
	maxFlowLabel = 0xfffff
	// maxTitle bounds the title and the extra data, as iperf3 does.
	maxTitle = 1024
)

// Parameters are what the document records of the test before it runs:
// the config's, with the defaults filled in, the role and the server.
func (c ClientConfig) Parameters() result.NetParameters {
	np := c.NetParameters
	if np.Protocol == "" {
		np.Protocol = "tcp"
	}
	if np.Direction == "" {
		np.Direction = result.DirUp
	}
	np.ZeroCopy = np.ZeroCopy && np.Protocol != "udp"
	np.Role, np.Server = "client", net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	return np
}

// params are the parameters the client sends: the one place the recorded
// parameters turn into iperf3's.
func (c ClientConfig) params() Params {
	np := c.Parameters()
	udp := np.Protocol == "udp"
	p := Params{
		UDP: udp, Omit: time.Duration(np.OmitNs), Time: time.Duration(np.DurationNs),
		Bytes: np.Bytes, Blocks: np.Blocks, Parallel: np.Streams, Len: np.BlockSize,
		Bitrate: np.BitrateBps, PacingTimer: defaultPacingTimer,
		Reverse: np.Direction == result.DirDown, Bidir: np.Direction == "bidir",
		Window: np.Window, MSS: np.MSS, NoDelay: np.NoDelay, Counters64: c.Counters64,
		Congestion: np.Congestion, ClientVersion: c.Version,
		Options: Options{
			TOS: np.TOS, FlowLabel: c.FlowLabel, FQRate: np.FQRateBps, Burst: np.Burst,
			DontFragment: np.DontFragment, ZeroCopy: np.ZeroCopy, SkipRxCopy: np.SkipRxCopy,
			RepeatingPayload: np.RepeatingPayload, GSO: np.GSO, GRO: np.GRO,
			GetServerOutput: c.GetServerOutput, Title: np.Title, ExtraData: np.ExtraData,
			MPTCP: c.MPTCP, ServerAffinity: c.ServerAffinity,
		},
	}
	if c.Latency != nil {
		p.LatencyEcho, p.LatencyIdle = true, min(c.Latency.Idle(), maxLatencyIdle)
	}
	return p
}

// bind is the local address and the device to send from.
func (c ClientConfig) bind() (addr, dev string) {
	addr, dev, _ = strings.Cut(c.Bind, "%")
	return addr, dev
}

// congestionAvailable checks a congestion control against the kernel's
// list; the server end checks its own.
func congestionAvailable(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return true // cannot tell here: let the kernel refuse it at connect
	}
	return slices.Contains(strings.Fields(string(b)), name)
}
