package iperf3

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
)

// session is one test from the start of data to the final figures, on
// either end: it starts the streams, samples them at interval ends, resets
// the figures when the omitted start is over, and composes the result.
type session struct {
	p        *Params
	streams  []*stream
	data     *dataPath
	interval time.Duration
	// onInterval sees each interval as it closes (live output).
	onInterval func(result.NetInterval)

	started  time.Time // data started (TEST_RUNNING)
	measured time.Time // the omitted start ended; figures count from here
	ended    time.Time
	// rcvEnd is when this side's receivers counted their last byte: data
	// still in queues when the sender stopped arrives after ended, and
	// counting it over the sender's span would overstate the rate.
	rcvEnd   time.Time
	omitting bool

	base, last []counters // at the start of the figures, at the last sample
	lastAt     time.Time
	tcp        []tcpAgg
	intervals  []result.NetInterval
	cpu0       cpuTimes
}

// counters is one stream's running totals at one instant.
type counters struct {
	bytes, sent int64
	udp         udpCounters
	// TCP sender: total retransmits, congestion window (bytes) and RTT
	// (us) from TCP_INFO; tcpOK is false when it could not be read.
	retrans, cwnd, rtt int64
	tcpOK              bool
	info               tcpInfo
}

// tcpAgg follows a TCP sender's TCP_INFO over the measured span.
type tcpAgg struct {
	maxCwnd                int64
	minRTT, maxRTT, sumRTT int64
	nRTT                   int64
	maxSndWnd, reorder     int64
}

func newSession(p *Params, streams []*stream, data *dataPath, interval time.Duration, onInterval func(result.NetInterval)) *session {
	return &session{p: p, streams: streams, data: data, interval: interval, onInterval: onInterval,
		tcp: make([]tcpAgg, len(streams))}
}

// begin starts the data goroutines; the figures start now, or after omit.
func (s *session) begin() {
	s.cpu0 = readCPU()
	// The first snapshot comes before the first byte moves, so that
	// neither end misses a block the other counted.
	s.last = s.snapshot()
	s.omitting = s.p.Omit > 0
	s.data.omitting.Store(s.omitting)
	s.started = time.Now()
	for _, st := range s.streams {
		s.data.start(st)
	}
	s.lastAt = s.started
	if !s.omitting {
		s.measured = s.started
		s.base = s.last
	}
}

// due is when the loop must next call tick: the next interval end, the end
// of the omitted start, or end (zero = none).
func (s *session) due(end time.Time) time.Time {
	next := time.Time{}
	if s.interval > 0 {
		next = s.lastAt.Add(s.interval)
	}
	if s.omitting {
		if o := s.started.Add(s.p.Omit); next.IsZero() || o.Before(next) {
			next = o
		}
	}
	if !end.IsZero() && (next.IsZero() || end.Before(next)) {
		next = end
	}
	return next
}

// tick closes the interval if one is due at now, and ends the omitted
// start when its time has come.
func (s *session) tick(now time.Time) {
	omitEnd := s.omitting && !now.Before(s.started.Add(s.p.Omit))
	if omitEnd || (s.interval > 0 && !now.Before(s.lastAt.Add(s.interval))) {
		s.sample(now)
	}
	if omitEnd {
		s.omitting = false
		s.measured = now
		s.base = s.last
		s.data.endOmit()
	}
}

// measuredBytes is what the senders (or, for a receiving side, the
// receivers) moved since the figures started.
func (s *session) measuredBytes(sending bool) int64 {
	if s.omitting {
		return 0
	}
	var n int64
	for i, st := range s.streams {
		if st.send == sending {
			n += st.bytes.Load() - s.base[i].bytes
		}
	}
	return n
}

func (s *session) snapshot() []counters {
	cs := make([]counters, len(s.streams))
	for i, st := range s.streams {
		c := &cs[i]
		c.bytes, c.sent = st.bytes.Load(), st.sent.Load()
		switch {
		case st.udp && !st.send:
			st.mu.Lock()
			c.udp = st.rcv
			st.mu.Unlock()
		case st.send && !st.udp:
			var info unix.TCPInfo
			if sockio.TCPInfo(st.fd, &info) == 0 {
				c.retrans, c.tcpOK = int64(info.Total_retrans), true
				c.cwnd, c.rtt = int64(info.Snd_cwnd)*int64(info.Snd_mss), int64(info.Rtt)
				c.info = tcpExtra(&info)
			} else if s.last != nil {
				c.retrans = s.last[i].retrans
			}
		}
	}
	return cs
}

// sample records the interval from the last sample to now.
func (s *session) sample(now time.Time) {
	cur := s.snapshot()
	secs := now.Sub(s.lastAt).Seconds()
	iv := result.NetInterval{
		StartNs: s.lastAt.Sub(s.started).Nanoseconds(),
		EndNs:   now.Sub(s.started).Nanoseconds(),
		Omitted: s.omitting,
	}
	sums := map[string]*result.NetIntervalFlow{}
	var order []string
	for i, st := range s.streams {
		prev, c := s.last[i], &cur[i]
		f := result.NetIntervalFlow{ID: int64(i + 1), Direction: direction(st), Sender: st.send, Bytes: c.bytes - prev.bytes}
		f.BitsPerSecond = rate(f.Bytes, secs)
		switch {
		case st.send && !st.udp && c.tcpOK:
			r := c.retrans - prev.retrans
			f.Retransmits = &r
			f.CwndBytes, f.RTTUs = c.cwnd, c.rtt
			c.info.fill(&f)
			if !s.omitting {
				s.tcp[i].add(c.cwnd, c.rtt)
				s.tcp[i].extra(c.info)
			}
		case st.send:
			n := c.sent - prev.sent
			f.Packets = &n
		case st.udp:
			n, lost, j := c.udp.packets-prev.udp.packets, c.udp.lost-prev.udp.lost, c.udp.jitter*1000
			f.Packets, f.Lost, f.JitterMs = &n, &lost, &j
		}
		iv.Streams = append(iv.Streams, f)
		key := f.Direction
		sum, ok := sums[key]
		if !ok {
			sum = &result.NetIntervalFlow{Direction: f.Direction, Sender: f.Sender}
			sums[key] = sum
			order = append(order, key)
		}
		addFlow(sum, f)
	}
	for _, k := range order {
		sum := sums[k]
		sum.BitsPerSecond = rate(sum.Bytes, secs)
		iv.Sums = append(iv.Sums, *sum)
	}
	s.last, s.lastAt = cur, now
	s.intervals = append(s.intervals, iv)
	if s.onInterval != nil {
		s.onInterval(iv)
	}
}

func addFlow(sum *result.NetIntervalFlow, f result.NetIntervalFlow) {
	sum.Bytes += f.Bytes
	if f.Retransmits != nil {
		r := *f.Retransmits
		if sum.Retransmits != nil {
			r += *sum.Retransmits
		}
		sum.Retransmits = &r
	}
	addPtr := func(dst **int64, v *int64) {
		if v == nil {
			return
		}
		n := *v
		if *dst != nil {
			n += **dst
		}
		*dst = &n
	}
	addPtr(&sum.Packets, f.Packets)
	addPtr(&sum.Lost, f.Lost)
	if f.JitterMs != nil {
		j := *f.JitterMs
		if sum.JitterMs != nil && *sum.JitterMs > j {
			j = *sum.JitterMs
		}
		sum.JitterMs = &j
	}
}

func (a *tcpAgg) add(cwnd, rtt int64) {
	a.maxCwnd = max(a.maxCwnd, cwnd)
	if rtt > 0 {
		if a.nRTT == 0 || rtt < a.minRTT {
			a.minRTT = rtt
		}
		a.maxRTT = max(a.maxRTT, rtt)
		a.sumRTT += rtt
		a.nRTT++
	}
}

// finish stops the senders and takes the final sample. A test ended
// inside its omitted start still reports what it measured.
func (s *session) finish() {
	now := time.Now()
	s.data.halt()
	// A TCP sender writing when the test ended finishes that block (an
	// unpaced one its 512 KiB chunk), and its count holds it: the span runs
	// to when it did, or the last interval held up to a chunk more than its
	// time (up to 4 Mbit/s more in a 1 s interval at 100 Mbit/s).
	if t := s.data.wroteUntil(); t.After(now) {
		now = t
	}
	if now.Sub(s.lastAt) > 10*time.Millisecond || len(s.intervals) == 0 {
		s.sample(now)
	} else {
		s.last = s.snapshot()
	}
	if s.base == nil {
		s.base, s.measured = s.snapshot(), s.started
		for i := range s.base {
			s.base[i] = counters{}
		}
	}
	s.ended, s.rcvEnd = now, now
}

// drain waits briefly for data still in flight to the receivers of this
// side, so that what a sender sent before the end is counted: until each
// receiver reached want[id] bytes (the peer's sender count), or until the
// receivers have been quiet for a moment when that is unknown.
func (s *session) drain(want map[int64]int64, limit time.Duration) {
	received := func(c []counters) (total int64, done bool) {
		done = true
		for i, st := range s.streams {
			if st.send {
				continue
			}
			got := c[i].bytes - s.base[i].bytes
			total += got
			if w, ok := want[st.id]; !ok || got < w {
				done = false
			}
		}
		return total, done && want != nil
	}
	// Bytes that arrive after the end stretch the receivers' span to when
	// they came (their last read, not when this loop saw them).
	prev, _ := received(s.last)
	quiet := 0
	for stop := time.Now().Add(limit); time.Now().Before(stop); time.Sleep(10 * time.Millisecond) {
		s.last = s.snapshot()
		total, done := received(s.last)
		if total != prev {
			s.rcvEnd, prev, quiet = s.ended, total, 0
			if last := s.data.lastArrival(); last.After(s.ended) {
				s.rcvEnd = last
			}
		} else if !s.queued() {
			quiet++
		}
		if done || (want == nil && quiet >= 5) {
			return
		}
	}
}

// queued says whether a TCP receiver's socket still holds bytes its
// reader has not taken: on a loaded machine the reader's thread can wait
// longer than the quiet spell drain allows, and those bytes were sent
// before the end.
func (s *session) queued() bool {
	for _, st := range s.streams {
		if st.send || st.udp || st.fd < 0 {
			continue
		}
		if n, err := unix.IoctlGetInt(st.fd, unix.SIOCINQ); err == nil && n > 0 {
			return true
		}
	}
	return false
}

// local is this side's results for the peer.
func (s *session) local() *Results {
	r := &Results{SenderHasRetransmits: -1}
	cpu := readCPU().since(s.cpu0)
	r.CPUTotal, r.CPUUser, r.CPUSystem = cpu.total, cpu.user, cpu.system
	span, rcvSpan := s.ended.Sub(s.measured).Seconds(), s.rcvEnd.Sub(s.measured).Seconds()
	for i, st := range s.streams {
		c, b := s.last[i], s.base[i]
		sr := StreamResults{ID: st.id, Bytes: c.bytes - b.bytes, Retransmits: -1, EndTime: span}
		if !st.send {
			sr.EndTime = rcvSpan
		}
		switch {
		case st.send && !st.udp:
			sr.Retransmits = c.retrans - b.retrans
			r.SenderHasRetransmits = 1
		case st.send:
			sr.Packets = c.sent - b.sent
			r.SenderHasRetransmits = 0
		case st.udp:
			sr.Packets = c.udp.packets - b.udp.packets
			sr.Errors = c.udp.lost - b.udp.lost
			sr.OutOfOrder = c.udp.outOfOrder - b.udp.outOfOrder
			sr.Jitter = c.udp.jitter
		}
		r.Streams = append(r.Streams, sr)
	}
	if len(s.streams) > 0 && !s.p.UDP {
		r.Congestion, _ = unix.GetsockoptString(s.streams[0].fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	}
	return r
}

// compose builds the result from this side's figures and the peer's
// (remote may be nil when the test failed before the exchange).
func (s *session) compose(mine, remote *Results) *result.Net {
	n := &result.Net{Intervals: s.intervals}
	peer := map[int64]StreamResults{}
	if remote != nil {
		for _, r := range remote.Streams {
			peer[r.ID] = r
		}
	}
	span := s.ended.Sub(s.measured).Seconds()
	sums := map[string]*result.NetSum{}
	var order []string
	for i, st := range s.streams {
		// Streams are numbered 1, 2 ... wherever they are shown; the
		// protocol's own ids (1, 3, 4 ... in iperf3) only match the
		// peer's figures.
		ns := result.NetStream{ID: int64(i + 1), Direction: direction(st), Local: "receiver",
			LocalAddr: st.local, RemoteAddr: st.peer}
		local := s.figure(i, st, mine.Streams[i], span)
		var other result.NetFigure
		if r, ok := peer[st.id]; ok {
			other = remoteFigure(r, !st.send, st.udp, span)
		}
		if st.send {
			ns.Local, ns.Sender, ns.Receiver = "sender", local, other
		} else {
			ns.Sender, ns.Receiver = other, local
		}
		n.Streams = append(n.Streams, ns)
		sum, ok := sums[ns.Direction]
		if !ok {
			sum = &result.NetSum{Direction: ns.Direction}
			sums[ns.Direction] = sum
			order = append(order, ns.Direction)
		}
		addFigure(&sum.Sender, ns.Sender)
		addFigure(&sum.Receiver, ns.Receiver)
	}
	for _, d := range order {
		n.Sums = append(n.Sums, *sums[d])
	}
	n.CPU = result.NetCPU{LocalTotal: mine.CPUTotal, LocalUser: mine.CPUUser, LocalSystem: mine.CPUSystem}
	if remote != nil {
		t, u, sy := remote.CPUTotal, remote.CPUUser, remote.CPUSystem
		n.CPU.RemoteTotal, n.CPU.RemoteUser, n.CPU.RemoteSystem = &t, &u, &sy
	}
	return n
}

func (s *session) figure(i int, st *stream, r StreamResults, span float64) result.NetFigure {
	if r.EndTime > 0 {
		span = r.EndTime
	}
	f := result.NetFigure{Bytes: r.Bytes, Seconds: span, BitsPerSecond: rate(r.Bytes, span)}
	switch {
	case st.send && !st.udp:
		rt := r.Retransmits
		f.Retransmits = &rt
		a := s.tcp[i]
		f.MaxCwndBytes, f.MinRTTUs, f.MaxRTTUs = a.maxCwnd, a.minRTT, a.maxRTT
		if a.nRTT > 0 {
			f.MeanRTTUs = a.sumRTT / a.nRTT
		}
		f.MaxSndWndBytes, f.Reorder = a.maxSndWnd, a.reorder
	case st.udp:
		udpFigure(&f, r, !st.send)
	}
	return f
}

func remoteFigure(r StreamResults, sender, udp bool, span float64) result.NetFigure {
	secs := r.EndTime - r.StartTime
	if secs <= 0 {
		secs = span
	}
	f := result.NetFigure{Bytes: r.Bytes, Seconds: secs, BitsPerSecond: rate(r.Bytes, secs)}
	switch {
	case sender && !udp:
		if r.Retransmits >= 0 {
			rt := r.Retransmits
			f.Retransmits = &rt
		}
	case udp:
		udpFigure(&f, r, !sender)
	}
	return f
}

func udpFigure(f *result.NetFigure, r StreamResults, receiver bool) {
	p := r.Packets
	f.Packets = &p
	if receiver {
		lost, ooo, j := r.Errors, r.OutOfOrder, r.Jitter*1000
		f.Lost, f.OutOfOrder, f.JitterMs = &lost, &ooo, &j
	}
}

func addFigure(sum *result.NetFigure, f result.NetFigure) {
	sum.Bytes += f.Bytes
	sum.Seconds = max(sum.Seconds, f.Seconds)
	sum.BitsPerSecond = rate(sum.Bytes, sum.Seconds)
	add := func(dst **int64, v *int64) {
		if v != nil {
			n := *v
			if *dst != nil {
				n += **dst
			}
			*dst = &n
		}
	}
	add(&sum.Retransmits, f.Retransmits)
	add(&sum.Packets, f.Packets)
	add(&sum.Lost, f.Lost)
	add(&sum.OutOfOrder, f.OutOfOrder)
	if f.JitterMs != nil && (sum.JitterMs == nil || *f.JitterMs > *sum.JitterMs) {
		j := *f.JitterMs
		sum.JitterMs = &j
	}
	sum.MaxCwndBytes = max(sum.MaxCwndBytes, f.MaxCwndBytes)
}

func direction(st *stream) string {
	if st.up {
		return result.DirUp
	}
	return result.DirDown
}

func rate(bytes int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(bytes) * 8 / secs
}
