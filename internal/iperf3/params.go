package iperf3

import (
	"fmt"
	"time"

	"github.com/thruput/thruput/internal/stable"
)

// Params are a test's parameters as the client sends them to the server.
type Params struct {
	UDP bool
	// Omit is left out of the figures at the start; Time is the measured
	// length after it (0 with Bytes or Blocks).
	Omit, Time time.Duration
	// Bytes and Blocks end the test when that much was sent (or received,
	// in reverse); 0 = no limit.
	Bytes, Blocks int64
	// Parallel streams per direction.
	Parallel int
	// Len is the block size: one write, or one datagram.
	Len int
	// Bitrate caps each stream's sender, bits/s; 0 = no cap (TCP).
	Bitrate int64
	// PacingTimer is iperf3's pacing granularity in microseconds, sent and
	// read as iperf3 does; thruput's pacer sleeps until each block is due
	// whatever it says (see pacer).
	PacingTimer int64
	Reverse     bool
	Bidir       bool
	// Window sets SO_SNDBUF and SO_RCVBUF, MSS sets TCP_MAXSEG, 0 = default.
	Window  int
	MSS     int
	NoDelay bool
	// Counters64 makes UDP sequence numbers 64-bit.
	Counters64 bool
	Congestion string
	// ClientVersion is the peer's version string ("3.12", "thruput dev").
	ClientVersion string
	// Unmet says what the server could not do of what the client asked,
	// "" when nothing (never on the wire): a note to the server's hooks,
	// and server_unmet in its results.
	Unmet string
	Options

	// Auth is thruput's shared-secret token (see auth.go); iperf3 clients
	// never send it.
	Auth string

	// LatencyEcho asks a thruput server to echo latency probes, after an
	// idle phase of LatencyIdle before the streams connect (see
	// latency.go); iperf3 servers ignore both.
	LatencyEcho bool
	LatencyIdle time.Duration
}

// streams is how many data connections the test uses.
func (p *Params) streams() int {
	if p.Bidir {
		return 2 * p.Parallel
	}
	return p.Parallel
}

// heldProcs is how many of one end's streams hold a P of their own in raw
// system calls (see sockio.Procs): all but those paced so slowly
// (slowPace) that a sender parks between bursts and waits for room in a
// full send buffer parked too (pacer.send), and a TCP receiver waits in
// the netpoller (recvPolled), so they hold none most of the time.
// sendfile (-Z) waits in the kernel, so its senders keep theirs, and so do
// UDP receivers and --skip-rx-copy's. An idle P costs a board its CPU: whenever a goroutine became
// ready (a latency probe's tick), the runtime woke a second thread to look
// for work for it, and a one-core client at -b 1M switched threads 3,700
// times in 10 s rather than 6,200.
func (p *Params) heldProcs(sends, zeroCopy bool) int {
	n := p.streams()
	if !p.slowPace() {
		return n
	}
	senders := 0
	if sends {
		senders = p.Parallel
	}
	if !(zeroCopy && !p.UDP) {
		n -= senders
	}
	if !p.UDP && !p.SkipRxCopy {
		n -= p.streams() - senders
	}
	return n
}

// slowPace says the streams are paced parkMin or more between bursts.
func (p *Params) slowPace() bool {
	return p.blockGap() >= parkMin
}

// pollBatch is the low-water mark of a slowly paced TCP receiver
// (recvPolled): the bytes that arrive in pollBatchSpan at the pace, at
// most one burst; a whole burst when the pace sends less than one a meter's
// window (stable.DefaultWidth), whose windows then hold a burst or none
// anyway (client.loop). Over a link the segments come one by one: a reader
// woken for each, as iperf3's is, switched threads 58,000 times to receive
// 10 s at 94 Mbit/s through a 100 Mbit/s veth, and took 8 times the CPU
// of one that batches (3,000 switches; bench/net with BENCH_LINK). A batch
// of 5 ms holds its count back from the meters' 100 ms windows by no more
// than the pacer's own blocks do. A stream that stops short of a batch is
// read at the end (unbatch) or when the peer closes it.
func (p *Params) pollBatch() int {
	if p.Bitrate <= 0 {
		return 0
	}
	burst := int64(p.burstBytes())
	if p.sparseBursts() {
		return int(burst)
	}
	return int(min(burst, p.Bitrate/8*int64(pollBatchSpan)/int64(time.Second)))
}

// sparseBursts says the pace sends less than a burst per meter's window,
// whose windows then hold a burst or none (client.loop).
func (p *Params) sparseBursts() bool { return p.blockGap() > stable.DefaultWidth }

// pollBatchSpan: see pollBatch.
const pollBatchSpan = 5 * time.Millisecond

// burstBytes is what a paced stream sends back to back (-l times the
// burst of -b RATE/BURST).
func (p *Params) burstBytes() int { return p.Len * max(p.Burst, 1) }

// blockGap is how often a paced stream sends a burst of blocks: 0 when
// the streams are not paced.
func (p *Params) blockGap() time.Duration {
	if p.Bitrate <= 0 {
		return 0
	}
	return pacedGap(p.burstBytes(), p.Bitrate)
}

// pacedGap is the time a burst of n bytes takes at bitrate.
func pacedGap(n int, bitrate int64) time.Duration {
	return time.Duration(float64(n) * 8 / float64(bitrate) * float64(time.Second))
}

// count is the bytes -n or -k ends a test at, 0 if neither: -k counts
// blocks of -l.
func (p *Params) count() int64 {
	if p.Bytes > 0 {
		return p.Bytes
	}
	return p.Blocks * int64(p.Len)
}

// wire is the parameter JSON as iperf3 writes it.
func (p *Params) wire() map[string]any {
	m := map[string]any{
		"omit":           int64(p.Omit / time.Second),
		"time":           int64(p.Time / time.Second),
		"num":            p.Bytes,
		"blockcount":     p.Blocks,
		"parallel":       p.Parallel,
		"len":            p.Len,
		"pacing_timer":   p.PacingTimer,
		"client_version": p.ClientVersion,
	}
	p.Options.wire(m, p.UDP)
	if p.UDP {
		m["udp"] = true
	} else {
		m["tcp"] = true
	}
	if p.Bitrate > 0 {
		m["bandwidth"] = p.Bitrate
	}
	if p.Reverse {
		m["reverse"] = true
	}
	if p.Bidir {
		m["bidirectional"] = true
	}
	if p.Window > 0 {
		m["window"] = p.Window
	}
	if p.MSS > 0 {
		m["MSS"] = p.MSS
	}
	if p.NoDelay {
		m["nodelay"] = true
	}
	if p.Counters64 {
		m["udp_counters_64bit"] = 1
	}
	if p.Congestion != "" {
		m["congestion"] = p.Congestion
	}
	if p.Auth != "" {
		m[authKey] = p.Auth
	}
	if p.LatencyEcho {
		m[latencyEchoKey] = 1
		m[latencyIdleKey] = p.LatencyIdle.Milliseconds()
	}
	return m
}

// paramError is a parameter the server refuses, with the i_errno that tells
// an iperf3 client why.
type paramError struct {
	code int32
	err  error
}

func (e *paramError) Error() string { return e.err.Error() }
func (e *paramError) Unwrap() error { return e.err }

func refuse(code int32, format string, a ...any) error {
	return &paramError{code, fmt.Errorf(format, a...)}
}

// ParseParams decodes and checks a client's parameter JSON: every known key
// must have its type and lie in iperf3's own server-side range; unknown keys
// are ignored, as iperf3 does, so newer clients still work.
func ParseParams(b []byte) (*Params, error) {
	if len(b) > maxParamsSize {
		return nil, refuse(ieRecvParams, "parameters: %d bytes, at most %d", len(b), maxParamsSize)
	}
	o, err := decodeObject(b)
	if err != nil {
		return nil, refuse(ieRecvParams, "parameters: %v", err)
	}
	var tcp, udp bool
	var omit, secs, num, blocks, parallel, blen, rate, pacing, window, mss, idle int64
	parallel = 1
	p := &Params{}
	if err := firstErr(
		o.flag("tcp", &tcp), o.flag("udp", &udp),
		o.int("omit", 0, maxOmitSeconds, &omit),
		o.int("time", 0, maxDurationSeconds, &secs),
		o.int("num", 0, 1<<62, &num),
		o.int("blockcount", 0, 1<<62, &blocks),
		o.int("parallel", 1, maxStreams, &parallel),
		o.int("len", 0, maxBlockSizeTCP, &blen),
		o.int("bandwidth", 0, 1<<62, &rate),
		o.int("pacing_timer", 0, 1000000, &pacing),
		o.int("window", 0, maxWindow, &window),
		o.int("MSS", 0, maxMSS, &mss),
		o.flag("reverse", &p.Reverse), o.flag("bidirectional", &p.Bidir),
		o.flag("nodelay", &p.NoDelay), o.flag("udp_counters_64bit", &p.Counters64),
		o.str("congestion", 16, &p.Congestion),
		o.str("client_version", 64, &p.ClientVersion),
		o.str(authKey, 256, &p.Auth),
		o.flag(latencyEchoKey, &p.LatencyEcho),
		o.int(latencyIdleKey, 0, maxLatencyIdle.Milliseconds(), &idle),
	); err != nil {
		return nil, refuse(ieRecvParams, "parameters: %v", err)
	}
	if err := p.Options.parse(o); err != nil {
		return nil, err
	}
	if p.sctp {
		return nil, refuse(ieNoSCTP, "parameters: SCTP asked for; thruput speaks TCP and UDP")
	}
	if tcp == udp {
		return nil, refuse(ieRecvParams, "parameters: exactly one of tcp and udp must be set")
	}
	if p.Reverse && p.Bidir {
		return nil, refuse(ieReverseBidir, "parameters: reverse and bidirectional together")
	}
	p.UDP = udp
	p.LatencyIdle = time.Duration(idle) * time.Millisecond
	p.Omit = time.Duration(omit) * time.Second
	p.Time = time.Duration(secs) * time.Second
	p.Bytes, p.Blocks = num, blocks
	p.Parallel = int(parallel)
	p.Bitrate, p.PacingTimer = rate, pacing
	if p.PacingTimer == 0 {
		p.PacingTimer = defaultPacingTimer
	}
	p.Window, p.MSS = int(window), int(mss)
	p.Len = int(blen)
	if p.Len == 0 {
		p.Len = defaultTCPBlockSize
		if p.UDP {
			p.Len = defaultUDPBlockSize
		}
	}
	if p.UDP && (p.Len < minBlockSizeUDP || p.Len > maxBlockSizeUDP) {
		return nil, refuse(ieUDPBlockSize, "parameters: UDP block size %d outside %d..%d", p.Len, minBlockSizeUDP, maxBlockSizeUDP)
	}
	// A missing or zero bandwidth is unlimited, UDP too: an iperf3 client
	// leaves the key out for -b 0 and sends its 1 Mbit/s default itself.
	if p.Time == 0 && p.Bytes == 0 && p.Blocks == 0 {
		return nil, refuse(ieDuration, "parameters: no time, bytes or blocks limit")
	}
	if err := p.Options.check(p.UDP); err != nil {
		return nil, err
	}
	return p, nil
}

// Limits are what a server's operator allows; zero values mean no limit.
type Limits struct {
	// MaxDuration bounds omit + time; a test limited by bytes or blocks
	// alone is ended by the server at this time.
	MaxDuration time.Duration
	// MaxStreams bounds the data connections of one test.
	MaxStreams int
	// MaxBitrate bounds the sum of the senders' caps, bits/s; it refuses
	// uncapped tests.
	MaxBitrate int64
}

// check refuses parameters outside the operator's limits, with the i_errno
// an iperf3 client prints a sensible message for.
func (l Limits) check(p *Params) error {
	if l.MaxDuration > 0 && p.Time > 0 && p.Omit+p.Time > l.MaxDuration {
		return refuse(ieMaxDuration, "test of %v exceeds this server's --max-duration %v", p.Omit+p.Time, l.MaxDuration)
	}
	if l.MaxStreams > 0 && p.streams() > l.MaxStreams {
		return refuse(ieNumStreams, "%d streams exceed this server's --max-streams %d", p.streams(), l.MaxStreams)
	}
	if l.MaxBitrate > 0 {
		if p.Bitrate == 0 {
			return refuse(ieTotalRate, "uncapped test refused: this server's --max-bitrate is %d bit/s; use -b", l.MaxBitrate)
		}
		if total := p.Bitrate * int64(p.streams()); total > l.MaxBitrate || total/int64(p.streams()) != p.Bitrate {
			return refuse(ieTotalRate, "%d streams at %d bit/s exceed this server's --max-bitrate %d bit/s", p.streams(), p.Bitrate, l.MaxBitrate)
		}
		// iperf3 checks the fair-queue pacing rate against the same limit.
		if total := p.FQRate * int64(p.streams()); total > l.MaxBitrate || total/int64(p.streams()) != p.FQRate {
			return refuse(ieTotalRate, "%d streams paced at %d bit/s exceed this server's --max-bitrate %d bit/s", p.streams(), p.FQRate, l.MaxBitrate)
		}
	}
	return nil
}

// Options are the parameters iperf3 3.13-3.21 added that change what each
// end's sockets and senders do; a server applies them to its own streams
// in every direction (see sockopt.go).
type Options struct {
	// TOS is the IP TOS byte (IPv6 traffic class) of the data packets:
	// -S, or --dscp shifted left by two.
	TOS int
	// FlowLabel is the IPv6 flow label of the client's data streams (-L).
	FlowLabel int
	// FQRate caps each stream with the kernel's fair-queue pacing
	// (SO_MAX_PACING_RATE), bits/s (--fq-rate).
	FQRate int64
	// Burst is how many blocks a paced sender writes per pacing wake-up
	// (-b RATE/BURST).
	Burst int
	// DontFragment sets DF on UDP over IPv4 (IP_PMTUDISC_DO).
	DontFragment bool
	// ZeroCopy sends TCP with sendfile (-Z).
	ZeroCopy bool
	// SkipRxCopy reads with MSG_TRUNC: the kernel drops the bytes without
	// copying them out (--skip-rx-copy).
	SkipRxCopy bool
	// RepeatingPayload fills blocks with "0123456789" repeated instead of
	// random bytes (--repeating-payload).
	RepeatingPayload bool
	// GSO and GRO batch UDP datagrams through the kernel's segmentation
	// offload (UDP_SEGMENT) and receive coalescing (UDP_GRO) (--gsro);
	// GSODg is the datagram size within a batch (0: the block size), and
	// GSOBuf and GROBuf are the batch sizes in bytes (0: 65507).
	GSO, GRO              bool
	GSODg, GSOBuf, GROBuf int
	// GetServerOutput asks the server for its own report in the results.
	GetServerOutput bool
	// Title prefixes the report's lines; ExtraData is carried into the
	// JSON reports as it is.
	Title, ExtraData string
	// MPTCP asks for multipath TCP streams (--mptcp).
	MPTCP bool
	// ServerAffinity is the CPU the server is to run this test on (-A
	// n,m's m; nil: wherever it runs).
	ServerAffinity *int
	// sctp is a client asking for SCTP, which the server refuses.
	sctp bool
}

// MaxBurst is iperf3's MAX_BURST: the most blocks a paced sender writes at once.
const MaxBurst = 1000

func (o *Options) wire(m map[string]any, udp bool) {
	set := func(key string, on bool, v any) {
		if on {
			m[key] = v
		}
	}
	set("TOS", o.TOS != 0, o.TOS)
	set("flowlabel", o.FlowLabel != 0, o.FlowLabel)
	set("fqrate", o.FQRate != 0, o.FQRate)
	set("burst", o.Burst != 0, o.Burst)
	set("dont_fragment", o.DontFragment, 1)
	set("zerocopy", o.ZeroCopy, 1)
	set("skip_rx_copy", o.SkipRxCopy, 1)
	set("repeating_payload", o.RepeatingPayload, 1)
	set("get_server_output", o.GetServerOutput, 1)
	set("title", o.Title != "", o.Title)
	set("extra_data", o.ExtraData != "", o.ExtraData)
	set("mptcp", o.MPTCP, true)
	if o.ServerAffinity != nil {
		m["server_affinity"] = *o.ServerAffinity
	}
	if udp {
		// iperf3 3.21 always sends these for UDP so a server may batch
		// even when the client cannot.
		m["gso"], m["gso_dg_size"], m["gso_bf_size"] = b2i(o.GSO), o.GSODg, o.GSOBuf
		m["gro"], m["gro_bf_size"] = b2i(o.GRO), o.GROBuf
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parse reads the options from a client's parameters with the same
// strictness as the rest: wrong types and values out of range are refused.
func (o *Options) parse(obj object) error {
	var tos, label, fq, burst, gso, gro, gsoDg, gsoBuf, groBuf int64
	cpu := int64(-1)
	if err := obj.int("TOS", 0, 255, &tos); err != nil {
		return refuse(ieBadTOS, "parameters: %v", err)
	}
	if err := obj.int("burst", 0, MaxBurst, &burst); err != nil {
		return refuse(ieBurst, "parameters: %v", err)
	}
	if err := obj.int("server_affinity", 0, MaxCPU, &cpu); err != nil {
		return refuse(ieAffinity, "parameters: %v", err)
	}
	if cpu >= 0 {
		c := int(cpu)
		o.ServerAffinity = &c
	}
	if err := firstErr(
		obj.int("flowlabel", 0, 0xfffff, &label),
		obj.int("fqrate", 0, 1<<62, &fq),
		obj.int("gso", 0, 1, &gso), obj.int("gro", 0, 1, &gro),
		obj.int("gso_dg_size", 0, maxBlockSizeUDP, &gsoDg),
		obj.int("gso_bf_size", 0, maxBlockSizeUDP, &gsoBuf),
		obj.int("gro_bf_size", 0, maxBlockSizeUDP, &groBuf),
		obj.flag("dont_fragment", &o.DontFragment), obj.flag("zerocopy", &o.ZeroCopy),
		obj.flag("skip_rx_copy", &o.SkipRxCopy), obj.flag("repeating_payload", &o.RepeatingPayload),
		obj.flag("get_server_output", &o.GetServerOutput), obj.flag("mptcp", &o.MPTCP),
		obj.flag("sctp", &o.sctp),
		obj.str("title", maxParamsSize, &o.Title), obj.str("extra_data", maxParamsSize, &o.ExtraData),
	); err != nil {
		return refuse(ieRecvParams, "parameters: %v", err)
	}
	o.TOS, o.FlowLabel, o.FQRate, o.Burst = int(tos), int(label), fq, int(burst)
	o.GSO, o.GRO, o.GSODg, o.GSOBuf, o.GROBuf = gso == 1, gro == 1, int(gsoDg), int(gsoBuf), int(groBuf)
	return nil
}

// check refuses what this kernel cannot do, with the error iperf3 itself
// would give.
func (o *Options) check(udp bool) error {
	if o.MPTCP && !udp && !mptcpAvailable() {
		return refuse(ieProtocol, "parameters: MPTCP asked for, and this kernel has no IPPROTO_MPTCP (net.mptcp.enabled)")
	}
	return nil
}
