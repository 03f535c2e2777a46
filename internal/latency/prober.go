package latency

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
)

// Defaults of net client's --latency-interval (see IntervalFor) and
// --idle.
const (
	DefaultInterval = 10 * time.Millisecond
	DefaultIdle     = 3 * time.Second
)

// A probe or its echo on an Ethernet wire: 64 bytes of UDP payload, the
// UDP and IPv4 headers, Ethernet's header and FCS, the preamble and the
// gap between frames (130 bytes). Over IPv6 it is 150, and a handshake
// probe (a stock iperf3 server) is about three frames each way (SYN, ACK,
// FIN, their answers): maxLoadShare holds for the UDP echoes over IPv4,
// the others take about 1.2 and 3 times as much.
const probeWireBits = (probeSize + 8 + 20 + 14 + 4 + 8 + 12) * 8

// maxLoadShare is the most of a paced test's load the probes may add to
// it, each way, by default; slowestInterval is the longest default
// interval: ten probes a second, a hundred through a 10 s test, enough for
// the loaded median and 90th percentile.
const (
	maxLoadShare    = 0.01
	slowestInterval = 100 * time.Millisecond
)

// IntervalFor is the probe interval, in whole milliseconds rounded up,
// for a test paced at load bits/s each way (result.NetParameters.PacedBps; 0 when not paced) when none was
// asked for: DefaultInterval, or longer for a test so slow (-b below about
// 10 Mbit/s in all, a UDP test's 1 Mbit/s default) that probes every
// DefaultInterval would be more than maxLoadShare of it, up to
// slowestInterval. Fewer probes there disturb the link less, and they cost
// a single-core board less: each wakes the client, and at -b 1M the
// probes were most of its CPU (issue 36).
func IntervalFor(load float64) time.Duration {
	if load <= 0 {
		return DefaultInterval
	}
	iv := time.Duration(math.Ceil(probeWireBits / (maxLoadShare * load) * 1e3))
	return min(max(iv*time.Millisecond, DefaultInterval), slowestInterval)
}

// connectTimeout bounds a handshake probe: Linux resends a SYN after 1 s,
// and a handshake that needed the resend measured the timer, not the
// path, so it counts as lost.
const connectTimeout = time.Second

// stampsWait bounds the wait for the kernel's receive stamps to come on
// (stampsLive): about a millisecond, unless the machine is so busy that
// its work queues wait.
const stampsWait = 100 * time.Millisecond

// echoWait is how long after the last probe its echo may still come.
const echoWait = time.Second

// Config is a probe stream's settings.
type Config struct {
	// Interval between probes (DefaultInterval when 0); Idle is the idle
	// phase (DefaultIdle when 0).
	Interval, Idle time.Duration
	// LoadInterval, when set, is the interval under the load instead
	// (IntervalFor a slow paced test): the idle path is probed at Interval,
	// so that its median is known as soon, since there is no load there
	// for the probes to add to.
	LoadInterval time.Duration
}

// Phases a probe is sent in. Probes of the omitted start (-O) and of the
// time between the load's end and the idle phase after it are sent, so
// the stream stays steady, and left out of every figure.
const (
	phaseNone = iota
	phaseIdle
	phaseRamp
	phaseLoad
)

// sample is one probe: its send time on the client's clock (ns since the
// prober started), its phase and, once answered, the round trip and, for
// an echo, the server's receive and send times and the client's receive
// time.
type sample struct {
	phase            int
	kind             string
	sent, recv       int64
	srvRecv, srvSent int64
	rtt              time.Duration
	answered         bool
}

// Prober is one test's probe stream. The iperf3 client drives it through
// the test's steps: Start after the parameter exchange, Loaded when the
// test runs, Unloaded when its load ends, After before the client says
// IPERF_DONE; Result ends it.
type Prober struct {
	cfg  Config
	base time.Time

	mu      sync.Mutex
	phase   int
	kind    string
	samples []sample
	// loadDir is the test's direction (up, down, bidir); omitEnd ends
	// its ramp.
	loadDir            string
	omitEnd            time.Time
	idleStart, idleEnd int64
	loadStart, loadEnd int64
	idleAfter          bool
	lost               string
	udpPort, tcpPort   int
	// queue sends the probes and reads the echoes when the kernel
	// stamps them; without stamps conn does, and readEchoes waits for
	// each echo.
	queue  *queueReader
	conn   *net.UDPConn
	token  [TokenSize]byte
	local  net.IP
	server net.IP
	// dialer starts the handshake probes; handshakes are those under
	// way, looked at when the next probe is sent.
	dialer     *dialer
	handshakes []handshake
	running    bool
	stop       chan struct{}
	wg         sync.WaitGroup
	stopped    bool
	// due is when the next probe is due, in ns since base: Poll reads it
	// without the lock. It is 0 while the data path may not send probes
	// (echoes read as they come, on a socket the kernel does not stamp;
	// handshakes the prober times itself).
	due atomic.Int64
	// polling says the data path called Poll since the timer last
	// looked: the timer then leaves it the due probe.
	polling atomic.Bool
	// watch wakes the prober's own sender: every interval while it sends
	// the probes itself (ticking), one interval past due while the data
	// path does. A timerfd (sockio.Alarm), not a runtime timer: a Ticker
	// pushed later at each poll still woke the netpoller at the time it
	// had before, once a block at -b 94M; a fired timer re-added woke it
	// once a probe at -b 1M.
	watch   *sockio.Alarm
	ticking bool
	// period is the interval the watch was last set to repeat at.
	period time.Duration
	// polled and timed count the probes the data path sent (Poll) and
	// those the prober's own timer sent.
	polled, timed int
}

// New makes a prober; nothing is sent before Start.
func New(cfg Config) *Prober {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.LoadInterval <= 0 {
		cfg.LoadInterval = cfg.Interval
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultIdle
	}
	return &Prober{cfg: cfg, base: time.Now(), stop: make(chan struct{})}
}

// Idle is the idle phase the server is asked to wait through.
func (p *Prober) Idle() time.Duration { return p.cfg.Idle }

// interval is the time between probes in the current phase: the idle
// phase's, or the load's (also between phases, when none is sent); p.mu
// held.
func (p *Prober) interval() time.Duration {
	if p.phase == phaseIdle {
		return p.cfg.Interval
	}
	return p.cfg.LoadInterval
}

// arm sets the watch to fire after first and then every interval of the
// current phase; p.mu held.
func (p *Prober) arm(first time.Duration) {
	p.period = p.interval()
	p.watch.Set(first, p.period)
}

func (p *Prober) now() int64 { return time.Since(p.base).Nanoseconds() }

// Start begins probing once the server answered the parameters: local
// and remote are the control connection's ends, offer the server's echo
// (nil from a stock iperf3 server). With an offer it probes the idle path
// for the idle phase before returning; without, handshakes wait for the
// load, when the server refuses them as extra connections.
func (p *Prober) Start(ctx context.Context, local, remote net.Addr, offer *Offer) {
	la, lok := local.(*net.TCPAddr)
	ra, rok := remote.(*net.TCPAddr)
	if !lok || !rok {
		return
	}
	p.mu.Lock()
	p.local, p.server, p.tcpPort = la.IP, ra.IP, ra.Port
	p.kind = KindTCPConnect
	// An address that is neither IPv4 nor IPv6 has no handshakes: none
	// is sent, and the result says so (lostAll).
	p.dialer, _ = newDialer(la.IP, ra.IP, ra.Port)
	p.mu.Unlock()
	if offer == nil {
		return
	}
	token, err := offer.token()
	if err != nil {
		return
	}
	conn, err := net.DialUDP("udp", &net.UDPAddr{IP: la.IP}, &net.UDPAddr{IP: ra.IP, Port: offer.Port})
	if err != nil {
		return
	}
	var queue *queueReader
	if stampReceives(conn) {
		// Stamps may be off machine-wide for a moment yet: the probes go
		// ahead after stampsWait either way, the first echoes then
		// stamped late.
		stampsLive(stampsWait)
		if queue, err = newQueueReader(conn); err != nil {
			return // conn is closed: handshakes probe the load
		}
		conn = nil
	}
	p.mu.Lock()
	p.kind, p.conn, p.token, p.udpPort, p.queue = KindUDPEcho, conn, token, offer.Port, queue
	p.phase, p.idleStart = phaseIdle, p.now()
	p.mu.Unlock()
	if queue == nil {
		p.wg.Add(1)
		go p.readEchoes()
	}
	p.run()
	p.idle(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.idleEnd = phaseNone, p.now()
	if p.answered(phaseIdle) == 0 {
		// Every echo was lost: the path drops UDP to that port (a
		// firewall). The load is probed with handshakes instead, and
		// the idle path after it.
		p.lost = fmt.Sprintf("latency probes lost: the path drops UDP to port %d", offer.Port)
		p.kind, p.idleStart, p.idleEnd = KindTCPConnect, 0, 0
	}
}

// Loaded marks the load's start: dir is the test's direction, omit its
// omitted start.
func (p *Prober) Loaded(dir string, omit time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server == nil {
		return
	}
	p.loadDir, p.omitEnd, p.loadStart = dir, time.Now().Add(omit), p.now()
	p.phase = phaseRamp
	if omit <= 0 {
		p.phase = phaseLoad
	}
	if !p.running {
		p.mu.Unlock()
		p.run()
		p.mu.Lock()
		return
	}
	// A timer ticking at the idle phase's interval takes the load's from
	// now (a data path that polls reads it at its next probe).
	if p.ticking && p.period != p.interval() {
		p.arm(p.interval())
	}
}

// Unloaded marks the load's end.
func (p *Prober) Unloaded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase == phaseLoad || p.phase == phaseRamp {
		p.loadEnd = p.now()
	}
	p.phase = phaseNone
}

// After probes the idle path after the load when it was not probed
// before it (handshake probes), while the server still holds the test.
func (p *Prober) After(ctx context.Context) {
	p.mu.Lock()
	if !p.running || p.kind != KindTCPConnect || p.idleEnd > 0 {
		p.mu.Unlock()
		return
	}
	p.phase, p.idleStart, p.idleAfter = phaseIdle, p.now(), true
	// A timer at the load's longer interval takes the idle phase's now,
	// as Loaded does the other way: a short --idle would end first.
	if p.period != p.interval() {
		p.arm(p.interval())
		p.ticking = true
	}
	p.mu.Unlock()
	p.idle(ctx)
	p.mu.Lock()
	p.phase, p.idleEnd = phaseNone, p.now()
	p.mu.Unlock()
}

// Early end of the idle phase: once this many probes were answered and
// the median's 95 % interval is within idleKnown of it (or idleFloor on a
// path of tens of microseconds), more idle probes would tell nothing new.
const (
	idleMinProbes = 50
	idleKnown     = 0.05
	idleFloor     = 50 * time.Microsecond
)

// idle lets the idle phase run for the configured time at most, ending
// early once its median is known (a quiet path: half a second at 10 ms).
func (p *Prober) idle(ctx context.Context) {
	deadline := time.NewTimer(p.cfg.Idle)
	defer deadline.Stop()
	check := time.NewTicker(100 * time.Millisecond)
	defer check.Stop()
	for {
		select {
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-p.stop:
			return
		case <-check.C:
			if p.idleIsKnown() {
				return
			}
		}
	}
}

// idleIsKnown: enough idle probes answered, their median's interval
// narrow.
func (p *Prober) idleIsKnown() bool {
	p.mu.Lock()
	var rtt []int64
	for i := range p.samples {
		if s := &p.samples[i]; s.phase == phaseIdle && s.answered && s.kind == p.kind {
			rtt = append(rtt, int64(s.rtt))
		}
	}
	p.mu.Unlock()
	if len(rtt) < idleMinProbes {
		return false
	}
	d := delays(rtt)
	half := float64(d.P50HighNs-d.P50LowNs) / 2
	return half <= max(idleKnown*float64(d.P50Ns), float64(idleFloor))
}

// run starts the sender: one probe every interval while a phase is on,
// after reading the echoes that came since the last. Called with p.mu not
// held.
//
// Waking the process for each probe cost more than the rest of the client
// at a Pi's 94 Mbit/s (bench/README.md), while the data path wakes as often
// anyway. So while the data path calls Poll, it sends the probes and reads
// the echoes in its own wake-ups, and the prober's timer is pushed back at
// each of them and never fires. It only fires when the data path did not
// poll within an interval past due (unpaced, slow or no load, the idle
// phase), and then sends every interval itself until the data path polls
// again.
func (p *Prober) run() {
	p.mu.Lock()
	if p.running {
		p.mu.Unlock()
		return
	}
	watch, err := sockio.NewAlarm()
	if err != nil {
		// Said in the result (lost), not failing the run: the load is
		// measured without its latency.
		p.lost = "latency probes not sent: " + err.Error()
		p.mu.Unlock()
		return
	}
	p.running = true
	p.watch, p.ticking = watch, true
	p.arm(p.interval())
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.tick()
		// Result closes the alarm once the stream is over, having
		// cleared due.
		for p.watch.Wait() == nil {
			p.tick()
		}
	}()
}

// tick is the prober's timer: it sends the due probe unless the data path
// did, or polled since the last tick and so will send it within an
// interval; then it looks again an interval past the due time. Without
// that hand-over the timer, firing right at the due time, would send
// nearly every probe before a data path that wakes about as often found it
// due.
func (p *Prober) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	due := p.due.Load()
	polling := p.polling.Swap(false)
	// A ticking timer keeps its own schedule, a little ahead of due (set
	// from when the last tick ran): it sends. Otherwise a probe not yet
	// due was sent by the data path.
	if due != 0 && (polling || !p.ticking && now < due) {
		p.arm(time.Duration(max(due-now, 0)) + p.interval())
		p.ticking = false
		return
	}
	p.probe(now, false)
}

// Poll sends the due probe and reads the echoes queued since the last,
// when one is due; the data path calls it after each block. It never
// waits: a probe not yet due costs a clock read and two atomic loads, and
// a prober busy elsewhere (its lock held) leaves the probe to the next
// poll. Several streams poll at once; the lock makes one of them send.
// A nil Prober does nothing.
func (p *Prober) Poll() {
	if p == nil {
		return
	}
	due := p.due.Load()
	if due == 0 {
		return
	}
	if !p.polling.Load() {
		p.polling.Store(true)
	}
	if p.now() < due || !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	// Another stream may have sent it between the load and the lock.
	if now, due := p.now(), p.due.Load(); due != 0 && now >= due {
		p.probe(now, true)
	}
}

// probe reads the queued echoes, sends a probe and sets when the next is
// due and when the timer looks again; p.mu held.
func (p *Prober) probe(now int64, polled bool) {
	p.drainLocked()
	sent := p.send()
	switch {
	case sent && polled:
		p.polled++
	case sent:
		p.timed++
	}
	iv := p.interval()
	if (p.queue != nil || p.kind == KindTCPConnect && p.dialer != nil && p.dialer.kernelRTT) && !p.stopped {
		p.due.Store(now + iv.Nanoseconds())
	}
	switch {
	case polled:
		p.arm(2 * iv)
		p.ticking = false
	case !p.ticking || p.period != iv:
		p.arm(iv)
		p.ticking = true
	}
}

// send sends one probe of the current kind if a phase is on, and says
// whether it did; p.mu held.
func (p *Prober) send() bool {
	phase := p.phase
	if phase == phaseRamp && !time.Now().Before(p.omitEnd) {
		p.phase, phase = phaseLoad, phaseLoad
	}
	if phase == phaseNone {
		return false
	}
	seq := len(p.samples)
	p.samples = append(p.samples, sample{phase: phase, kind: p.kind})
	if p.kind == KindUDPEcho {
		var buf [probeSize]byte
		p.samples[seq].sent = p.now()
		pk := packet{token: p.token, seq: uint64(seq), sent: p.samples[seq].sent}
		if p.queue != nil {
			p.queue.send(pk.encode(buf[:]))
		} else {
			_, _ = p.conn.Write(pk.encode(buf[:]))
		}
		return true
	}
	p.samples[seq].sent = p.now()
	switch {
	case p.dialer == nil:
	case p.dialer.kernelRTT:
		if fd, e := p.dialer.dial(); e == 0 {
			p.handshakes = append(p.handshakes, handshake{fd: fd, seq: seq})
		}
	default:
		p.dialTimed(seq)
	}
	return true
}

// dialTimed is a handshake probe where the kernel's TCP_INFO carries no
// round trip (qemu-user copies 4 bytes of it): a goroutine dials and times
// the handshake from its own wake-up. p.mu held.
func (p *Prober) dialTimed(seq int) {
	server := &net.TCPAddr{IP: p.server, Port: p.tcpPort}
	local := &net.TCPAddr{IP: p.local}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		d := net.Dialer{Timeout: connectTimeout, LocalAddr: local}
		t0 := time.Now()
		c, err := d.Dial("tcp", server.String())
		rtt := time.Since(t0)
		p.mu.Lock()
		s := &p.samples[seq]
		s.sent = t0.Sub(p.base).Nanoseconds()
		// A refusal is a round trip too: the RST came back.
		if err == nil || errors.Is(err, unix.ECONNREFUSED) {
			s.rtt, s.answered = rtt, true
		}
		p.mu.Unlock()
		if c != nil {
			c.Close()
		}
	}()
}

// settleHandshakes records the handshakes that completed since it last
// looked and gives up on those older than connectTimeout; p.mu held.
func (p *Prober) settleHandshakes(now int64) {
	kept := p.handshakes[:0]
	for _, h := range p.handshakes {
		s := &p.samples[h.seq]
		rtt, done, failed := p.dialer.rtt(h.fd)
		if !done && !failed && now-s.sent < connectTimeout.Nanoseconds() {
			kept = append(kept, h)
			continue
		}
		if done {
			s.rtt, s.answered = rtt, true
		}
		closeNow(h.fd)
	}
	p.handshakes = kept
}

// drain records the echoes queued since it last looked, with the
// kernel's receive times; nothing without a queue.
func (p *Prober) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drainLocked()
}

// drainLocked is drain with p.mu held; it settles the handshakes under
// way too.
func (p *Prober) drainLocked() {
	if len(p.handshakes) > 0 {
		p.settleHandshakes(p.now())
	}
	if p.queue == nil {
		return
	}
	for {
		b, at, ok := p.queue.next()
		if !ok {
			return
		}
		p.echoed(b, at.Sub(p.base).Nanoseconds())
	}
}

// echoed matches an echo received at recv to its probe; p.mu held.
func (p *Prober) echoed(b []byte, recv int64) {
	pk, err := decode(b)
	if err != nil || !pk.echo || pk.token != p.token || pk.seq >= uint64(len(p.samples)) {
		return
	}
	s := &p.samples[pk.seq]
	if !s.answered && s.kind == KindUDPEcho && pk.sent == s.sent {
		s.answered, s.recv, s.srvRecv, s.srvSent = true, recv, pk.srvRecv, pk.srvSent
		s.rtt = time.Duration(recv - s.sent - (pk.srvSent - pk.srvRecv))
	}
}

// readEchoes matches echoes to their probes as they come, on a socket
// the kernel does not stamp.
func (p *Prober) readEchoes() {
	defer p.wg.Done()
	buf, oob := make([]byte, probeSize+1), make([]byte, oobSize)
	for {
		n, _, ago, err := readStamped(p.conn, buf, oob)
		recv := p.now() - ago.Nanoseconds()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// ICMP port unreachable comes back as ECONNREFUSED on
			// the connected socket: the probe was lost.
			continue
		}
		p.mu.Lock()
		p.echoed(buf[:n], recv)
		p.mu.Unlock()
	}
}

// answered counts the answered probes of phase; p.mu held.
func (p *Prober) answered(phase int) int {
	n := 0
	for i := range p.samples {
		if s := &p.samples[i]; s.phase == phase && s.answered {
			n++
		}
	}
	return n
}

// Result ends the probe stream, waiting a moment for the last echoes, and
// returns its figures; nil when it never started.
func (p *Prober) Result() *result.LoadLatency {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil
	}
	p.stopped = true
	p.phase = phaseNone
	p.due.Store(0)
	conn, started := p.conn, p.server != nil
	echoes := conn != nil || p.queue != nil || len(p.handshakes) > 0
	p.mu.Unlock()
	if echoes {
		p.awaitEchoes(min(echoWait, p.lastEchoWait()))
	}
	close(p.stop)
	p.mu.Lock()
	if p.queue != nil {
		p.queue.close()
	}
	// Still under way after the wait: lost.
	for _, h := range p.handshakes {
		closeNow(h.fd)
	}
	p.handshakes = nil
	if p.watch != nil {
		p.watch.Close()
	}
	p.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	p.wg.Wait()
	if !started {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.summarise()
}

// awaitEchoes waits until the echo probes of the last 2·d are answered
// (older ones are lost), or d passed.
func (p *Prober) awaitEchoes(d time.Duration) {
	end := time.Now().Add(d)
	recent := p.now() - 2*d.Nanoseconds()
	for time.Now().Before(end) {
		p.drain()
		p.mu.Lock()
		pending := false
		for i := range p.samples {
			if s := &p.samples[i]; s.kind == KindUDPEcho && !s.answered && s.sent > recent {
				pending = true
				break
			}
		}
		for _, h := range p.handshakes {
			pending = pending || p.samples[h.seq].sent > recent
		}
		p.mu.Unlock()
		if !pending {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastEchoWait is how long the last echo may still take: a few of the
// slowest round trips seen.
func (p *Prober) lastEchoWait() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var worst time.Duration
	for i := range p.samples {
		if s := &p.samples[i]; s.answered && s.rtt > worst {
			worst = s.rtt
		}
	}
	return max(3*worst, 50*time.Millisecond)
}
