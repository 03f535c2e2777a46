package iperf3

import (
	"encoding/json"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// WriteCompat prints a client's result the way `iperf3 -c ... -J` does
// (start, intervals, end with sum_sent and sum_received), so scripts and
// dashboards written for iperf3 read thruput's runs unchanged. The keys
// are iperf3 3.21's.
func WriteCompat(w io.Writer, doc *result.Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	return enc.Encode(compatTop(doc))
}

func compatTop(doc *result.Document) obj {
	n := compatNet(doc)
	top := obj{{"start", compatStart(doc)}, {"intervals", compatIntervals(n)}, {"end", compatEnd(n)}}
	if doc.Error != "" {
		top = append(top, kv{"error", doc.Error})
	}
	if t := n.Parameters.Title; t != "" {
		top = append(top, kv{"title", t})
	}
	if e := n.Parameters.ExtraData; e != "" {
		top = append(top, kv{"extra_data", e})
	}
	if n.ServerOutputJSON != nil {
		top = append(top, kv{"server_output_json", n.ServerOutputJSON})
	}
	if n.ServerOutputText != "" {
		top = append(top, kv{"server_output_text", n.ServerOutputText})
	}
	return top
}

func compatNet(doc *result.Document) *result.Net {
	if doc.Net == nil {
		return &result.Net{}
	}
	return doc.Net
}

// compatStart is iperf3's "start" object: the connections and the test's
// settings.
func compatStart(doc *result.Document) obj {
	n := compatNet(doc)
	p := n.Parameters
	connected := []obj{}
	for _, s := range n.Streams {
		connected = append(connected, compatConnected(s.ID, s.LocalAddr, s.RemoteAddr))
	}
	proto := "TCP"
	if p.Protocol == "udp" {
		proto = "UDP"
	}
	reverse, bidir := 0, 0
	switch p.Direction {
	case result.DirDown:
		reverse = 1
	case "bidir":
		bidir = 1
	}
	start := obj{
		{"connected", connected},
		{"version", "thruput " + doc.Tool.Version},
		{"system_info", doc.Host.Kernel + " " + doc.Host.Arch},
		{"timestamp", obj{
			{"time", doc.StartedAt.UTC().Format(time.RFC1123)},
			{"timesecs", doc.StartedAt.Unix()},
			{"timemillisecs", doc.StartedAt.UnixMilli()},
		}},
	}
	if p.Role == "server" {
		host, port := splitHostPort(p.Client)
		start = append(start, kv{"accepted_connection", obj{{"host", host}, {"port", port}}})
	} else {
		host, port := splitHostPort(p.Server)
		start = append(start, kv{"connecting_to", obj{{"host", host}, {"port", port}}})
	}
	start = append(start, kv{"cookie", p.Cookie})
	if proto == "TCP" {
		if p.MSS > 0 {
			start = append(start, kv{"tcp_mss", p.MSS})
		} else {
			start = append(start, kv{"tcp_mss_default", p.MSSDefault})
		}
	}
	start = append(start, kv{"target_bitrate", p.BitrateBps}, kv{"fq_rate", p.FQRateBps},
		kv{"sock_bufsize", p.Window}, kv{"sndbuf_actual", p.SndBufActual}, kv{"rcvbuf_actual", p.RcvBufActual})
	return append(start, kv{"test_start", obj{
		{"protocol", proto}, {"num_streams", p.Streams}, {"blksize", p.BlockSize},
		{"omit", p.OmitNs / 1e9}, {"duration", p.DurationNs / 1e9}, {"bytes", p.Bytes},
		{"blocks", p.Blocks}, {"reverse", reverse}, {"tos", p.TOS}, {"target_bitrate", p.BitrateBps},
		{"bidir", bidir}, {"fqrate", p.FQRateBps}, {"interval", secs(p.IntervalNs)},
		{"gso", b2i(p.GSO)}, {"gro", b2i(p.GRO)},
	}})
}

func compatConnected(id int64, local, remote string) obj {
	lh, lp := splitHostPort(local)
	rh, rp := splitHostPort(remote)
	return obj{{"socket", id}, {"local_host", lh}, {"local_port", lp}, {"remote_host", rh}, {"remote_port", rp}}
}

func splitHostPort(addr string) (string, int) {
	host, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	return host, n
}

func compatIntervals(n *result.Net) []obj {
	out := []obj{}
	for _, iv := range n.Intervals {
		out = append(out, compatInterval(iv, n.Parameters.OmitNs))
	}
	return out
}

// compatInterval is one of iperf3's "intervals": per stream, then the sum
// of each direction.
func compatInterval(iv result.NetInterval, omit int64) obj {
	// iperf3 restarts its clock when the omitted start ends.
	startNs, endNs := iv.StartNs, iv.EndNs
	if !iv.Omitted {
		startNs, endNs = max(startNs-omit, 0), endNs-omit
	}
	span := func(o obj) obj {
		return append(obj{{"start", secs(startNs)}, {"end", secs(endNs)}, {"seconds", secs(endNs - startNs)}}, o...)
	}
	streams := []obj{}
	for _, f := range iv.Streams {
		o := span(obj{{"bytes", f.Bytes}, {"bits_per_second", f.BitsPerSecond}})
		o = append(obj{{"socket", f.ID}}, o...)
		o = append(o, intervalExtras(f)...)
		o = append(o, kv{"omitted", iv.Omitted}, kv{"sender", f.Sender})
		streams = append(streams, o)
	}
	entry := obj{{"streams", streams}}
	for i, f := range iv.Sums {
		o := span(obj{{"bytes", f.Bytes}, {"bits_per_second", f.BitsPerSecond}})
		o = append(o, intervalExtras(f)...)
		o = append(o, kv{"omitted", iv.Omitted}, kv{"sender", f.Sender})
		key := "sum"
		if i > 0 {
			key = "sum_bidir_reverse"
		}
		entry = append(entry, kv{key, o})
	}
	return entry
}

func intervalExtras(f result.NetIntervalFlow) obj {
	var o obj
	if f.Retransmits != nil {
		o = append(o, kv{"retransmits", *f.Retransmits})
		if f.ID != 0 {
			o = append(o, kv{"snd_cwnd", f.CwndBytes}, kv{"snd_wnd", f.SndWndBytes}, kv{"rtt", f.RTTUs},
				kv{"rttvar", f.RTTVarUs}, kv{"pmtu", f.PMTU}, kv{"reorder", f.Reorder})
		}
	}
	switch {
	case f.Lost != nil && f.Packets != nil:
		// A UDP receiver, in iperf3's order.
		var jitter, pct float64
		if f.JitterMs != nil {
			jitter = *f.JitterMs
		}
		if *f.Packets > 0 {
			pct = float64(*f.Lost) * 100 / float64(*f.Packets)
		}
		o = append(o, kv{"jitter_ms", jitter}, kv{"lost_packets", *f.Lost}, kv{"packets", *f.Packets}, kv{"lost_percent", pct})
	case f.Packets != nil:
		o = append(o, kv{"packets", *f.Packets})
	}
	return o
}

func compatEnd(n *result.Net) obj {
	udp := n.Parameters.Protocol == "udp"
	var streams []obj
	for _, s := range n.Streams {
		mineSends := s.Local == "sender"
		if udp {
			streams = append(streams, obj{{"udp", udpEnd(s.ID, s.Sender, s.Receiver, mineSends)}})
			continue
		}
		streams = append(streams, obj{
			{"sender", tcpEnd(s.ID, s.Sender, mineSends, true)},
			{"receiver", tcpEnd(s.ID, s.Receiver, mineSends, false)},
		})
	}
	end := obj{{"streams", streams}}
	for i, sum := range n.Sums {
		suffix := ""
		if i > 0 {
			suffix = "_bidir_reverse"
		}
		mineSends := (sum.Direction == result.DirUp) == (n.Parameters.Role == "client")
		if udp {
			end = append(end, kv{"sum" + suffix, udpEnd(0, sum.Sender, sum.Receiver, mineSends)})
			end = append(end, kv{"sum_sent" + suffix, udpEnd(0, sum.Sender, result.NetFigure{}, mineSends)})
			end = append(end, kv{"sum_received" + suffix, udpEnd(0, sum.Receiver, sum.Receiver, mineSends)})
			continue
		}
		end = append(end, kv{"sum_sent" + suffix, tcpEnd(0, sum.Sender, mineSends, true)})
		end = append(end, kv{"sum_received" + suffix, tcpEnd(0, sum.Receiver, mineSends, false)})
	}
	cpu := obj{{"host_total", n.CPU.LocalTotal}, {"host_user", n.CPU.LocalUser}, {"host_system", n.CPU.LocalSystem}}
	if n.CPU.RemoteTotal != nil {
		cpu = append(cpu, kv{"remote_total", *n.CPU.RemoteTotal}, kv{"remote_user", *n.CPU.RemoteUser}, kv{"remote_system", *n.CPU.RemoteSystem})
	}
	end = append(end, kv{"cpu_utilization_percent", cpu})
	if p := n.Parameters; !udp && (p.Congestion != "" || p.PeerCongestion != "") {
		// Each end said which algorithm it used; the sender's is the one
		// that shaped the data (the client's, but for -R).
		snd, rcv := p.Congestion, p.PeerCongestion
		if (p.Direction == result.DirDown) == (p.Role == "client") {
			snd, rcv = rcv, snd
		}
		end = append(end, kv{"sender_tcp_congestion", snd}, kv{"receiver_tcp_congestion", rcv})
	}
	return end
}

func tcpEnd(id int64, f result.NetFigure, mineSends, sender bool) obj {
	o := obj{}
	if id != 0 {
		o = append(o, kv{"socket", id})
	}
	o = append(o, kv{"start", 0}, kv{"end", f.Seconds}, kv{"seconds", f.Seconds}, kv{"bytes", f.Bytes}, kv{"bits_per_second", f.BitsPerSecond})
	if sender && f.Retransmits != nil {
		o = append(o, kv{"retransmits", *f.Retransmits})
		// iperf3 writes these for every stream whose sender counts
		// retransmits, with zeros for a remote sender.
		if id != 0 {
			o = append(o, kv{"reorder", f.Reorder}, kv{"max_snd_cwnd", f.MaxCwndBytes}, kv{"max_snd_wnd", f.MaxSndWndBytes},
				kv{"max_rtt", f.MaxRTTUs}, kv{"min_rtt", f.MinRTTUs}, kv{"mean_rtt", f.MeanRTTUs})
		}
	}
	return append(o, kv{"sender", mineSends})
}

// udpEnd is iperf3's UDP summary: the sender's bytes and rate with the
// receiver's jitter and loss.
func udpEnd(id int64, snd, rcv result.NetFigure, mineSends bool) obj {
	o := obj{}
	if id != 0 {
		o = append(o, kv{"socket", id})
	}
	var jitter float64
	var lost, packets, ooo int64
	if rcv.JitterMs != nil {
		jitter = *rcv.JitterMs
	}
	if rcv.Lost != nil {
		lost = *rcv.Lost
	}
	if snd.Packets != nil {
		packets = *snd.Packets
	} else if rcv.Packets != nil {
		packets = *rcv.Packets
	}
	if rcv.OutOfOrder != nil {
		ooo = *rcv.OutOfOrder
	}
	pct := 0.0
	if packets > 0 {
		pct = float64(lost) * 100 / float64(packets)
	}
	o = append(o, kv{"start", 0}, kv{"end", snd.Seconds}, kv{"seconds", snd.Seconds}, kv{"bytes", snd.Bytes},
		kv{"bits_per_second", snd.BitsPerSecond}, kv{"jitter_ms", jitter}, kv{"lost_packets", lost},
		kv{"packets", packets}, kv{"lost_percent", pct})
	if id != 0 {
		o = append(o, kv{"out_of_order", ooo})
	}
	return append(o, kv{"sender", mineSends})
}

func secs(ns int64) float64 { return float64(ns) / 1e9 }

// obj is a JSON object that keeps its keys in iperf3's order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
