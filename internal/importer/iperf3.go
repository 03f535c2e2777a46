package importer

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// importIPerf3 converts iperf3 -J (or --json-stream) output, a client's or
// a server's, into one result.MethodNetClient or result.MethodNetServer document. It is the
// reverse of internal/iperf3/compat.go: the same keys map to the same
// fields, so a thruput run printed with -J comes back as it was.
func importIPerf3(data []byte, file string) ([]*result.Document, error) {
	// What a terminal left before the JSON ("^C", an escape sequence) is
	// not iperf3's; its output starts at its first key.
	// Lines are counted from the file's first, which the skipped text is
	// part of, so that a message points where an editor does.
	line := 1
	if at, ok := outputStart(data, IPerf3); ok {
		line += bytes.Count(data[:at], []byte{'\n'})
		data = data[at:]
	}
	var v any
	var err error
	if firstKey(data) == "event" {
		v, err = iperf3Stream(data, line)
	} else {
		v, err = decodeJSONDup(data, "iperf3 JSON")
	}
	if err != nil {
		return nil, err
	}
	e := &errSink{what: "iperf3 JSON"}
	d := iperf3Doc(root(v, e), file)
	if e.err != nil {
		return nil, e.err
	}
	docs := []*result.Document{d}
	identify(docs, data)
	return docs, nil
}

// iperf3Stream assembles --json-stream's events (iperf3 3.17 and later)
// into the shape -J prints; its first line is the file's line first.
func iperf3Stream(data []byte, first int) (any, error) {
	out := map[string]any{}
	var intervals []any
	for n, rest := first, data; len(rest) > 0; n++ {
		line, next := rest, []byte(nil)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, next = rest[:i], rest[i+1:]
		}
		line = bytes.TrimSpace(line)
		// --json-stream-full-output (iperf3 3.20 and later) prints -J's
		// whole document after the events, over many lines (cJSON_Print
		// in iperf_json_finish, src/iperf_api.c): it holds everything the
		// events did, and the intervals besides.
		if string(line) == "{" && firstKey(rest) == "start" {
			return decodeJSONDup(rest, "iperf3 JSON")
		}
		if len(line) == 0 {
			rest = next
			continue
		}
		what := fmt.Sprintf("iperf3 JSON stream, line %d", n)
		v, err := decodeJSON(line, what)
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", what)
		}
		ev, _ := m["event"].(string)
		switch ev {
		case "start", "end", "error":
			out[ev] = m["data"]
		case "interval":
			intervals = append(intervals, m["data"])
		case "server_output_json", "server_output_text":
			// --get-server-output: the server's own report, which -J keeps
			// beside the client's and this importer reads from neither.
		default:
			return nil, fmt.Errorf("%s: unknown event %q", what, clip(ev))
		}
		rest = next
	}
	out["intervals"] = intervals
	return out, nil
}

// iperf3Side knows which end wrote the output, to name directions as
// thruput does: from the client's side, up being client to server.
type iperf3Side struct {
	client bool
	// fwd is the direction of sum/sum_sent/sum_received, rev that of the
	// *_bidir_reverse keys.
	fwd, rev string
}

// dir names the direction of data this side sent (localSends) or got.
func (s iperf3Side) dir(localSends bool) string {
	if localSends == s.client {
		return result.DirUp
	}
	return result.DirDown
}

// sends says whether this side sent the data going in direction d.
func (s iperf3Side) sends(d string) bool { return (d == result.DirUp) == s.client }

func iperf3Doc(r val, file string) *result.Document {
	if !r.isObject() {
		r.e.failf("top level", "not an object")
		return nil
	}
	start, end := r.key("start").need(), r.key("end")
	if !start.object() {
		return nil
	}
	end.object()
	ts := start.key("test_start")
	ts.object()

	server := start.key("accepted_connection").has() && !start.key("connecting_to").has()
	method, role := result.MethodNetClient, "client"
	if server {
		method, role = result.MethodNetServer, "server"
	}
	rawVersion := start.key("version").str()
	version := clip(strings.TrimPrefix(rawVersion, "iperf "))

	var started time.Time
	if stamp := start.key("timestamp"); stamp.object() {
		if ms := stamp.key("timemillisecs"); ms.has() {
			started = time.UnixMilli(ms.i64()).UTC()
		} else if s := stamp.key("timesecs"); s.has() {
			started = time.Unix(s.i64(), 0).UTC()
		}
		if !started.IsZero() && !plausible(started) {
			stamp.e.failf(stamp.where(), "%s is not a plausible time", started.Format(time.RFC3339))
			started = time.Time{}
		}
	}

	intervals := r.key("intervals").list()
	bidir := ts.key("bidir").flag() || end.key("sum_sent_bidir_reverse").has() || end.key("sum_received_bidir_reverse").has()
	for _, iv := range intervals {
		bidir = bidir || iv.key("sum_bidir_reverse").has()
	}
	reverse := ts.key("reverse").flag()
	side := iperf3Side{client: !server, fwd: result.DirUp, rev: result.DirDown}
	if reverse && !bidir {
		side.fwd, side.rev = result.DirDown, result.DirUp
	}

	p := result.NetParameters{
		Role:       role,
		Protocol:   strings.ToLower(ts.key("protocol").str()),
		Streams:    ts.key("num_streams").small(),
		Direction:  side.fwd,
		DurationNs: ts.key("duration").secondsNs(),
		OmitNs:     ts.key("omit").secondsNs(),
		Bytes:      ts.key("bytes").count(),
		Blocks:     ts.key("blocks").count(),
		BlockSize:  ts.key("blksize").small(),
		BitrateBps: ts.key("target_bitrate").count(),
		Window:     start.key("sock_bufsize").small(),
		MSS:        start.key("tcp_mss").small(),
	}
	if bidir {
		p.Direction = "bidir"
	}
	if p.BitrateBps == 0 {
		p.BitrateBps = start.key("target_bitrate").count()
	}
	addrs := map[int64][2]string{}
	for i, c := range start.key("connected").list() {
		if !c.object() {
			continue
		}
		local := hostPort(c.key("local_host"), c.key("local_port"))
		addrs[c.key("socket").i64()] = [2]string{local, hostPort(c.key("remote_host"), c.key("remote_port"))}
		if i == 0 && server {
			// The data connections reached the server at the address it
			// listened on.
			p.Server = local
		}
	}
	if server {
		p.Client = hostPort(start.key("accepted_connection").key("host"), start.key("accepted_connection").key("port"))
	} else {
		p.Server = hostPort(start.key("connecting_to").key("host"), start.key("connecting_to").key("port"))
	}
	udp := p.Protocol == "udp"

	n := &result.Net{Parameters: p, Intervals: []result.NetInterval{}}
	for _, iv := range intervals {
		if iv.object() {
			n.Intervals = append(n.Intervals, iperf3Interval(iv, side, p.OmitNs))
		}
	}
	localSends := false
	for _, el := range end.key("streams").list() {
		if !el.object() {
			continue
		}
		s := iperf3Stream1(el, side, udp, addrs)
		localSends = localSends || s.Local == "sender"
		n.Streams = append(n.Streams, s)
	}
	n.Sums = iperf3Sums(end, side, udp, n.Streams)
	cpu := end.key("cpu_utilization_percent")
	if cpu.object() {
		n.CPU = result.NetCPU{LocalTotal: cpu.key("host_total").f64(), LocalUser: cpu.key("host_user").f64(), LocalSystem: cpu.key("host_system").f64()}
		rt, ru, rs := cpu.key("remote_total").f64Ptr(), cpu.key("remote_user").f64Ptr(), cpu.key("remote_system").f64Ptr()
		// iperf3 prints zeros for a peer it heard nothing from (a server
		// always does): no measured load is exactly zero.
		if rt != nil && ru != nil && rs != nil && (*rt != 0 || *ru != 0 || *rs != 0) {
			n.CPU.RemoteTotal, n.CPU.RemoteUser, n.CPU.RemoteSystem = rt, ru, rs
		}
	}
	if localSends {
		n.Parameters.Congestion = end.key("sender_tcp_congestion").str()
	} else {
		n.Parameters.Congestion = end.key("receiver_tcp_congestion").str()
	}

	d := newDoc(IPerf3, version, file, method, started)
	d.Net = n
	d.Host = iperf3Host(start.key("system_info").str(), strings.HasPrefix(rawVersion, "thruput "))
	if !started.IsZero() {
		// iperf3 stamps the start of the test; its clock restarts after
		// the omitted seconds.
		var span float64
		for _, k := range []string{"sum_sent", "sum_received", "sum", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"} {
			span = max(span, end.key(k).key("end").f64())
		}
		if len(n.Intervals) > 0 {
			last := n.Intervals[len(n.Intervals)-1]
			span = max(span, float64(last.EndNs-p.OmitNs)/1e9)
		}
		if span > maxSeconds {
			span = 0
		}
		d.EndedAt = started.Add(time.Duration(p.OmitNs) + time.Duration(span*1e9))
	}
	if msg := r.key("error").str(); msg != "" {
		d.Status, d.Error = result.StatusFailed, clip(msg)
		// iperf3 says "interrupt - the client has terminated" (or the
		// server) when a signal ended the test: stopped, not broken.
		if strings.HasPrefix(msg, "interrupt - ") {
			d.Status = result.StatusInterrupted
		}
	}
	return d
}

func hostPort(h, p val) string {
	host := h.str()
	port := p.i64()
	if host == "" && port == 0 {
		return ""
	}
	return net.JoinHostPort(host, strconv.FormatInt(port, 10))
}

// iperf3Host reads iperf3's system_info, which is uname's sysname,
// nodename, release, version and machine; thruput's -J writes only the
// release and machine.
func iperf3Host(info string, thruput bool) result.Host {
	f := strings.Fields(info)
	var h result.Host
	switch {
	case thruput && len(f) == 2:
		h.Kernel, h.Arch = f[0], f[1]
	case thruput:
	case len(f) >= 5:
		h.Hostname, h.Kernel, h.Arch = f[1], f[2], f[len(f)-1]
	case len(f) >= 2:
		h.Hostname = f[1]
	}
	return h
}

func iperf3Interval(iv val, side iperf3Side, omitNs int64) result.NetInterval {
	out := result.NetInterval{Streams: []result.NetIntervalFlow{}, Sums: []result.NetIntervalFlow{}}
	span := iv.key("sum")
	for _, s := range iv.key("streams").list() {
		if !s.object() {
			continue
		}
		if !span.has() {
			span = s
		}
		local := side.sends(side.fwd)
		if f := s.key("sender"); f.has() {
			local = f.flag()
		}
		f := iperf3Flow(s, side.dir(local), local)
		f.ID = s.key("socket").i64()
		out.Streams = append(out.Streams, f)
	}
	for _, k := range []string{"sum", "sum_bidir_reverse"} {
		s := iv.key(k)
		if !s.object() {
			continue
		}
		d := side.fwd
		if k != "sum" {
			d = side.rev
		}
		local := side.sends(d)
		if f := s.key("sender"); f.has() {
			local = f.flag()
			d = side.dir(local)
		}
		out.Sums = append(out.Sums, iperf3Flow(s, d, local))
	}
	out.Omitted = span.key("omitted").flag()
	out.StartNs, out.EndNs = span.key("start").secondsNs(), span.key("end").secondsNs()
	if !out.Omitted {
		out.StartNs += omitNs
		out.EndNs += omitNs
	}
	return out
}

func iperf3Flow(x val, dir string, sender bool) result.NetIntervalFlow {
	return result.NetIntervalFlow{
		Direction:     dir,
		Sender:        sender,
		Bytes:         x.key("bytes").count(),
		BitsPerSecond: x.key("bits_per_second").f64(),
		Retransmits:   x.key("retransmits").countPtr(),
		CwndBytes:     x.key("snd_cwnd").count(),
		RTTUs:         x.key("rtt").count(),
		Packets:       x.key("packets").countPtr(),
		Lost:          x.key("lost_packets").i64Ptr(),
		JitterMs:      x.key("jitter_ms").f64Ptr(),
	}
}

// iperf3Stream1 maps one entry of end.streams: TCP (and SCTP) give both
// ends' figures; UDP one object with the sender's count and the
// receiver's jitter and loss.
func iperf3Stream1(el val, side iperf3Side, udp bool, addrs map[int64][2]string) result.NetStream {
	var s result.NetStream
	var local bool
	if u := el.key("udp"); u.object() {
		s.ID = u.key("socket").i64()
		local = u.key("sender").flag()
		if !u.key("sender").has() {
			local = side.sends(side.fwd)
		}
		fig := result.NetFigure{Bytes: u.key("bytes").count(), Seconds: spanSeconds(u), BitsPerSecond: u.key("bits_per_second").f64()}
		if local || fig.Bytes > 0 {
			s.Sender = fig
		}
		pk := u.key("packets").countPtr()
		if local {
			s.Sender.Packets = pk
		} else {
			s.Receiver.Packets = pk
		}
		// Of a stream this end sent, the receiver's jitter and loss
		// arrive in the exchange of results after the test: a client
		// prints them, a server prints its report before that exchange
		// (TEST_END in iperf_server_api.c) and writes zeros it never
		// measured. Out-of-order counts are never exchanged.
		if !local || side.client {
			s.Receiver.JitterMs = u.key("jitter_ms").f64Ptr()
			s.Receiver.Lost = u.key("lost_packets").i64Ptr()
		}
		if !local {
			s.Receiver.OutOfOrder = u.key("out_of_order").countPtr()
		}
	} else {
		snd, rcv := el.key("sender"), el.key("receiver")
		snd.object()
		rcv.object()
		s.ID = snd.key("socket").i64()
		if !snd.key("socket").has() {
			s.ID = rcv.key("socket").i64()
		}
		local = side.sends(side.fwd)
		switch {
		case snd.key("sender").has():
			local = snd.key("sender").flag()
		case rcv.key("sender").has():
			local = rcv.key("sender").flag()
		}
		s.Sender = iperf3Figure(snd, true, local, udp)
		s.Receiver = iperf3Figure(rcv, false, !local, udp)
	}
	s.Direction = side.dir(local)
	s.Local = "receiver"
	if local {
		s.Local = "sender"
	}
	if a, ok := addrs[s.ID]; ok {
		s.LocalAddr, s.RemoteAddr = a[0], a[1]
	}
	return s
}

// spanSeconds is the span a count was made over: a receiver's ends with
// its last byte, after the sender's "seconds", and its rate is over that.
func spanSeconds(x val) float64 {
	if s, e := x.key("start").f64(), x.key("end").f64(); e > s {
		return e - s
	}
	return x.key("seconds").f64()
}

// iperf3Figure maps one end's final figures. Congestion window and RTT are
// only this end's own, as a sender; a peer's figure of all zeros is one
// the peer never reported (iperf3 servers print those).
func iperf3Figure(x val, senderSide, measuredHere, udp bool) result.NetFigure {
	if !x.has() {
		return result.NetFigure{}
	}
	f := result.NetFigure{Bytes: x.key("bytes").count(), Seconds: spanSeconds(x), BitsPerSecond: x.key("bits_per_second").f64()}
	if !measuredHere && f.Bytes == 0 {
		return result.NetFigure{}
	}
	if senderSide && !udp {
		f.Retransmits = x.key("retransmits").countPtr()
	}
	if senderSide && measuredHere && !udp {
		f.MaxCwndBytes = x.key("max_snd_cwnd").count()
		f.MinRTTUs, f.MeanRTTUs, f.MaxRTTUs = x.key("min_rtt").count(), x.key("mean_rtt").count(), x.key("max_rtt").count()
	}
	if udp {
		// No datagram carries bytes without being counted: a count of 0
		// beside bytes is one this end never had (a 3.14 client under -R
		// prints its peer's sum_sent with "packets": 0).
		if p := x.key("packets").countPtr(); p == nil || *p > 0 || f.Bytes == 0 {
			f.Packets = p
		}
		if !senderSide {
			f.Lost = x.key("lost_packets").i64Ptr()
			f.JitterMs = x.key("jitter_ms").f64Ptr()
		}
	}
	return f
}

func iperf3Sums(end val, side iperf3Side, udp bool, streams []result.NetStream) []result.NetSum {
	var sums []result.NetSum
	for _, pair := range []struct{ sent, received, dir string }{
		{"sum_sent", "sum_received", side.fwd},
		{"sum_sent_bidir_reverse", "sum_received_bidir_reverse", side.rev},
	} {
		snd, rcv := end.key(pair.sent), end.key(pair.received)
		if !snd.has() && !rcv.has() {
			continue
		}
		snd.object()
		rcv.object()
		here := side.sends(pair.dir)
		sum := result.NetSum{Direction: pair.dir,
			Sender: iperf3Figure(snd, true, here, udp), Receiver: iperf3Figure(rcv, false, !here, udp)}
		sums = append(sums, sum)
	}
	if len(sums) == 0 && udp && end.key("sum").object() {
		// Older iperf3 (3.1 for one) printed only "sum" for UDP: the
		// sender's count with the receiver's jitter and loss.
		u := end.key("sum")
		here := side.sends(side.fwd)
		sum := result.NetSum{Direction: side.fwd}
		if fig := (result.NetFigure{Bytes: u.key("bytes").count(), Seconds: spanSeconds(u), BitsPerSecond: u.key("bits_per_second").f64()}); here || fig.Bytes > 0 {
			sum.Sender = fig
		}
		sum.Receiver.JitterMs = u.key("jitter_ms").f64Ptr()
		sum.Receiver.Lost = u.key("lost_packets").i64Ptr()
		sums = append(sums, sum)
	}
	for i := range sums {
		sum := &sums[i]
		var in []*result.NetStream
		for j := range streams {
			if streams[j].Direction == sum.Direction {
				in = append(in, &streams[j])
			}
		}
		for _, s := range in {
			sum.Sender.MaxCwndBytes = max(sum.Sender.MaxCwndBytes, s.Sender.MaxCwndBytes)
			if s.Receiver.OutOfOrder != nil {
				n := *s.Receiver.OutOfOrder
				if sum.Receiver.OutOfOrder != nil {
					n += *sum.Receiver.OutOfOrder
				}
				sum.Receiver.OutOfOrder = &n
			}
		}
		// A direction of one stream: its sum is that stream, and fills in
		// what iperf3 prints only in the sum (a UDP receiver's bytes).
		if len(in) == 1 {
			fill(&in[0].Sender, sum.Sender)
			fill(&in[0].Receiver, sum.Receiver)
		}
	}
	return sums
}

func fill(f *result.NetFigure, from result.NetFigure) {
	if f.Bytes == 0 && from.Bytes > 0 {
		f.Bytes, f.Seconds, f.BitsPerSecond = from.Bytes, from.Seconds, from.BitsPerSecond
	}
}
