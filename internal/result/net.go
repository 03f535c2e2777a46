package result

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Directions of network data, named from the client's side as people say
// them: up is client to server (upload), down is server to client.
const (
	DirUp   = "up"
	DirDown = "down"
)

// Net is a network throughput test (MethodNetClient or MethodNetServer), in
// iperf3's terms: streams, intervals, and per stream what the sender sent
// and the receiver got.
type Net struct {
	Parameters NetParameters `json:"parameters"`
	// Intervals are the live figures this side measured, in order.
	Intervals []NetInterval `json:"intervals"`
	// Streams are the final figures, one per data connection.
	Streams []NetStream `json:"streams"`
	// Sums add the streams up per direction.
	Sums []NetSum `json:"sums"`
	// CPU is the processor load of both ends during the test.
	CPU NetCPU `json:"cpu"`
	// ServerOutputText or ServerOutputJSON is the server's own report
	// of the test, when the client asked for it (--get-server-output).
	ServerOutputText string          `json:"server_output_text,omitempty"`
	ServerOutputJSON json.RawMessage `json:"server_output_json,omitempty"`
	// ServerUnmet is what a thruput server said it could not do of what
	// this client asked; the test ran without it.
	ServerUnmet string `json:"server_unmet,omitempty"`
}

// NetParameters are the effective parameters of a network test.
type NetParameters struct {
	// Role is "client" or "server": which end wrote this document.
	Role string `json:"role"`
	// Server is the server's host and port as the client dialled it, or
	// the address the server listened on.
	Server string `json:"server"`
	// Interface is this end's network interface the data crossed (eth0,
	// wlan0, lo), found from the data connections' local address.
	Interface string `json:"interface,omitempty"`
	// Client is the client's address as the server saw it (server role).
	Client string `json:"client,omitempty"`
	// PeerVersion is the other end's version as it said it ("3.12"), when
	// it did.
	PeerVersion string `json:"peer_version,omitempty"`
	// Protocol is "tcp" or "udp".
	Protocol string `json:"protocol"`
	// Streams per direction (-P).
	Streams int `json:"streams"`
	// Direction is "up", "down" (-R) or "bidir".
	Direction string `json:"direction"`
	// DurationNs is the measured time after the omitted start (-t); 0 when
	// the test ends by bytes or blocks.
	DurationNs int64 `json:"duration_ns"`
	// OmitNs is left out of the figures at the start (-O).
	OmitNs int64 `json:"omit_ns"`
	// Bytes and Blocks end the test when moved (-n, -k); absent = unlimited.
	Bytes  int64 `json:"bytes,omitempty"`
	Blocks int64 `json:"blocks,omitempty"`
	// BlockSize is one write or one datagram (-l).
	BlockSize int `json:"block_size"`
	// BitrateBps caps each sending stream (-b); absent = uncapped.
	BitrateBps int64 `json:"bitrate_bps,omitempty"`
	// Window is the socket buffer asked for (-w), MSS the TCP segment size
	// (-M), NoDelay disables Nagle (-N).
	Window  int  `json:"window,omitempty"`
	MSS     int  `json:"mss,omitempty"`
	NoDelay bool `json:"no_delay,omitempty"`
	// ZeroCopy is true when TCP senders on this side used sendfile (-Z).
	ZeroCopy bool `json:"zero_copy,omitempty"`
	// Congestion is the TCP congestion control this side used.
	Congestion string `json:"congestion,omitempty"`
	// TOS is the IP TOS byte of the data packets (-S, --dscp).
	TOS int `json:"tos,omitempty"`
	// FQRateBps is the kernel's fair-queue pacing cap per stream
	// (--fq-rate), bits/s.
	FQRateBps int64 `json:"fq_rate_bps,omitempty"`
	// Burst is how many blocks a paced sender sends back to back (-b R/N).
	Burst int `json:"burst,omitempty"`
	// DontFragment: UDP over IPv4 with DF set (--dont-fragment).
	DontFragment bool `json:"dont_fragment,omitempty"`
	// SkipRxCopy: receivers dropped the data in the kernel (MSG_TRUNC).
	SkipRxCopy bool `json:"skip_rx_copy,omitempty"`
	// GSO and GRO: UDP batched through the kernel's offloads (--gsro).
	GSO bool `json:"gso,omitempty"`
	GRO bool `json:"gro,omitempty"`
	// RepeatingPayload: blocks of "0123456789" instead of random bytes.
	RepeatingPayload bool `json:"repeating_payload,omitempty"`
	// Title and ExtraData are the client's -T and --extra-data, as given.
	Title     string `json:"title,omitempty"`
	ExtraData string `json:"extra_data,omitempty"`
	// Bind is the local address (and %device) the client sent from (-B,
	// --bind-dev).
	Bind string `json:"bind,omitempty"`
	// PeerCongestion is the TCP congestion control the other end used.
	PeerCongestion string `json:"peer_congestion,omitempty"`
	// Cookie is the test's iperf3 cookie, which the server's log shows too.
	Cookie string `json:"cookie,omitempty"`
	// MSSDefault is the control connection's TCP MSS, the path's default
	// segment size; SndBufActual and RcvBufActual are the first data
	// socket's buffer sizes as the kernel set them.
	MSSDefault   int `json:"mss_default,omitempty"`
	SndBufActual int `json:"sndbuf_actual,omitempty"`
	RcvBufActual int `json:"rcvbuf_actual,omitempty"`
	// IntervalNs is the time between live figures (-i); 0 = none.
	IntervalNs int64 `json:"interval_ns,omitempty"`
}

// NetInterval is one reporting interval (-i) as this side measured it.
type NetInterval struct {
	// StartNs and EndNs count from the start of data, omitted time included.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Omitted intervals fall in the -O period and are not in the totals.
	Omitted bool              `json:"omitted,omitempty"`
	Streams []NetIntervalFlow `json:"streams"`
	Sums    []NetIntervalFlow `json:"sums"`
}

// NetIntervalFlow is one stream's, or one direction's sum of, figures in
// an interval, from this side's view.
type NetIntervalFlow struct {
	// ID is the stream id (1, 3, 4 ...); 0 for a sum.
	ID        int64  `json:"id,omitempty"`
	Direction string `json:"direction"`
	// Sender is true when this side sent the data.
	Sender        bool    `json:"sender"`
	Bytes         int64   `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	// TCP sender: retransmits in the interval, and at its end the
	// congestion window and smoothed RTT.
	Retransmits *int64 `json:"retransmits,omitempty"`
	CwndBytes   int64  `json:"cwnd_bytes,omitempty"`
	RTTUs       int64  `json:"rtt_us,omitempty"`
	// SndWndBytes is the peer's advertised receive window, RTTVarUs the
	// RTT's variation, PMTU the path MTU and Reorder the kernel's
	// reordering metric, all at the interval's end (TCP sender).
	SndWndBytes int64 `json:"snd_wnd_bytes,omitempty"`
	RTTVarUs    int64 `json:"rttvar_us,omitempty"`
	PMTU        int64 `json:"pmtu,omitempty"`
	Reorder     int64 `json:"reorder,omitempty"`
	// UDP: datagrams, and for a receiver those lost and the jitter.
	Packets  *int64   `json:"packets,omitempty"`
	Lost     *int64   `json:"lost,omitempty"`
	JitterMs *float64 `json:"jitter_ms,omitempty"`
}

// NetStream is one stream's final figures from both ends.
type NetStream struct {
	ID        int64  `json:"id"`
	Direction string `json:"direction"`
	// Local is "sender" or "receiver": which of the two this side was.
	Local string `json:"local"`
	// LocalAddr and RemoteAddr are the data connection's ends as this side
	// sees them.
	LocalAddr  string    `json:"local_addr,omitempty"`
	RemoteAddr string    `json:"remote_addr,omitempty"`
	Sender     NetFigure `json:"sender"`
	Receiver   NetFigure `json:"receiver"`
}

// NetSum is one direction's streams added up.
type NetSum struct {
	Direction string    `json:"direction"`
	Sender    NetFigure `json:"sender"`
	Receiver  NetFigure `json:"receiver"`
	// Interval is how well this end's rate of the direction is known,
	// from the bytes it counted.
	Interval *Interval `json:"interval,omitempty"`
}

// NetFigure is what one end of a stream (or direction) counted. Fields the
// end did not report are absent.
type NetFigure struct {
	Bytes int64 `json:"bytes"`
	// Seconds is the span the bytes were counted over.
	Seconds       float64 `json:"seconds"`
	BitsPerSecond float64 `json:"bits_per_second"`
	// Retransmits (TCP sender).
	Retransmits *int64 `json:"retransmits,omitempty"`
	// MaxCwndBytes and the RTTs in microseconds (TCP sender, local side).
	MaxCwndBytes int64 `json:"max_cwnd_bytes,omitempty"`
	MinRTTUs     int64 `json:"min_rtt_us,omitempty"`
	MeanRTTUs    int64 `json:"mean_rtt_us,omitempty"`
	MaxRTTUs     int64 `json:"max_rtt_us,omitempty"`
	// MaxSndWndBytes is the largest peer receive window seen, Reorder the
	// kernel's reordering metric at the end (TCP sender, local side).
	MaxSndWndBytes int64 `json:"max_snd_wnd_bytes,omitempty"`
	Reorder        int64 `json:"reorder,omitempty"`
	// UDP: datagrams sent or expected, lost and out of order, jitter.
	Packets    *int64   `json:"packets,omitempty"`
	Lost       *int64   `json:"lost,omitempty"`
	OutOfOrder *int64   `json:"out_of_order,omitempty"`
	JitterMs   *float64 `json:"jitter_ms,omitempty"`
}

// NetCPU is processor load in percent of one CPU, iperf3's measure: user
// plus system time over wall time, so several busy threads exceed 100.
type NetCPU struct {
	LocalTotal  float64 `json:"local_total"`
	LocalUser   float64 `json:"local_user"`
	LocalSystem float64 `json:"local_system"`
	// Remote* are what the peer reported; absent if it reported nothing.
	RemoteTotal  *float64 `json:"remote_total,omitempty"`
	RemoteUser   *float64 `json:"remote_user,omitempty"`
	RemoteSystem *float64 `json:"remote_system,omitempty"`
	// OneProcess is set when client and server ran in one process (the
	// suite's loopback test): both ends' figures are then that process's,
	// and the same.
	OneProcess bool `json:"one_process,omitempty"`
}

// Measured is whether either end counted a byte, in the totals or in an
// interval (a test cut short before its totals).
func (n *Net) Measured() bool {
	for _, s := range n.Sums {
		if s.Sender.Bytes > 0 || s.Receiver.Bytes > 0 {
			return true
		}
	}
	for _, iv := range n.Intervals {
		for _, s := range iv.Sums {
			if s.Bytes > 0 {
				return true
			}
		}
	}
	return false
}

// netRate is the gauge of a direction's rate, the receiver's.
var netRate = Gauge{Name: "thruput_net_bytes_per_second", Help: "Network throughput the receiver counted (iperf3's method), the latest run's.", Trend: Trend{Title: "Network, the receiver's rate", Bits: true}}

// Figures are per direction the sum, then each stream by its place in
// the direction (ids differ from run to run); one stream would only
// repeat the sum.
func (n *Net) Figures() []Figure {
	var out []Figure
	for _, s := range n.Sums {
		snd, rcv := s.Sender, s.Receiver
		fig := func(metric string, v float64, higher bool) Figure {
			return Figure{Group: "net " + s.Direction, Step: "sum", Metric: metric, HigherIsBetter: higher, Value: v}
		}
		r := fig("receiver Mbit/s", rcv.BitsPerSecond/1e6, true)
		r.Headline, r.Interval = s.Direction, s.Interval
		r.Series = netRate.Sample(rcv.BitsPerSecond/8, "direction", s.Direction)
		out = append(out, r, fig("sender Mbit/s", snd.BitsPerSecond/1e6, true))
		if snd.Retransmits != nil {
			out = append(out, fig("retransmits", float64(*snd.Retransmits), false))
		}
		if rcv.JitterMs != nil {
			out = append(out, fig("jitter ms", *rcv.JitterMs, false))
		}
		if rcv.Lost != nil && rcv.Packets != nil && *rcv.Packets > 0 {
			out = append(out, fig("lost %", float64(*rcv.Lost)*100/float64(*rcv.Packets), false))
		}
	}
	place := map[string]int{}
	for _, s := range n.Streams {
		place[s.Direction]++
	}
	seen := map[string]int{}
	for _, s := range n.Streams {
		if place[s.Direction] < 2 {
			continue
		}
		seen[s.Direction]++
		i := seen[s.Direction]
		out = append(out, Figure{Group: "net " + s.Direction, Step: fmt.Sprintf("stream %d", i), Rank: float64(i),
			Metric: "receiver Mbit/s", HigherIsBetter: true, Value: s.Receiver.BitsPerSecond / 1e6})
	}
	return out
}

// Brief is the receiver's rate per direction: what arrived, not what was
// pushed into the socket.
func (n *Net) Brief([]Target) string {
	var parts []string
	for _, dir := range []string{DirUp, DirDown} {
		for _, s := range n.Sums {
			if s.Direction == dir && (s.Receiver.Bytes > 0 || s.Receiver.BitsPerSecond > 0) {
				parts = append(parts, fmt.Sprintf("%s %.1f Mbit/s", dir, s.Receiver.BitsPerSecond/1e6))
				break
			}
		}
	}
	return strings.Join(parts, ", ")
}

// Crossed is this end's network interface the data crossed.
func (n *Net) Crossed() string { return n.Parameters.Interface }

// LineKind names the test's protocol and cap, "TCP" or "UDP -b 50M",
// which lead the name of its line in a trend over runs (report's
// lineKind).
func (n *Net) LineKind() string {
	k := "TCP"
	if n.Parameters.Protocol != "" {
		k = strings.ToUpper(n.Parameters.Protocol)
	}
	if n.Parameters.BitrateBps > 0 {
		k += " -b " + strconv.FormatFloat(float64(n.Parameters.BitrateBps)/1e6, 'f', -1, 64) + "M"
	}
	return k
}

// PacedBps is what a paced test's senders send in all, each way, in
// bits/s: the lower of -b and --fq-rate, times the streams; 0 when no
// sender is paced.
func (p NetParameters) PacedBps() float64 {
	rate := p.BitrateBps
	if p.FQRateBps > 0 && (rate == 0 || p.FQRateBps < rate) {
		rate = p.FQRateBps
	}
	return float64(rate) * float64(max(p.Streams, 1))
}

// Peer is the other end of a network test: the server as dialled, or the
// client's address without its port, which changes every test.
func (p NetParameters) Peer() string {
	if p.Role == "client" {
		return p.Server
	}
	if h, _, err := net.SplitHostPort(p.Client); err == nil {
		return h
	}
	return p.Client
}

// Params are the test's parameters less who the client was (its port),
// what the other end called itself, the interface this end used, the
// session's cookie (random in every test: with it, no net run was ever
// comparable with an earlier one) and the segment size and socket buffers
// the kernel gave: none is a parameter of the test.
func (n *Net) Params() any {
	p := n.Parameters
	p.Client, p.PeerVersion, p.Interface, p.Cookie = "", "", "", ""
	p.MSSDefault, p.SndBufActual, p.RcvBufActual = 0, 0, 0
	return p
}
