package iperf3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
	"github.com/thruput/thruput/internal/stable"
)

// Control-connection timeouts: how long one read or write on it may take
// before the peer counts as gone.
const (
	ctrlTimeout  = 10 * time.Second
	setupTimeout = 30 * time.Second
)

// Run runs one test and fills n, the run's section, as the other engines
// fill theirs: on failure n holds what was measured so far, with the
// error. h is told of the data connections once they are up and of each
// interval as it closes (iperf3's live lines), and takes the server's
// warning when it did not do all that was asked.
func Run(ctx context.Context, cfg ClientConfig, n *result.Net, h progress.Hooks) error {
	cfg.NetParameters = cfg.Parameters()
	*n = result.Net{Parameters: cfg.NetParameters}
	if err := cfg.Validate(); err != nil {
		return err
	}
	p := cfg.params()
	bind, dev := cfg.bind()
	addr := n.Parameters.Server
	d := net.Dialer{Timeout: cfg.ConnectTimeout, Control: bindControl(dev, &p, false)}
	if bind != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(bind)}
	}
	ctrl, err := d.DialContext(ctx, "tcp"+cfg.Family, addr)
	if err != nil {
		return dialError(addr, err)
	}
	c := &client{cfg: cfg, h: h, p: &p, addr: addr, ctrl: ctrl, cookie: newCookie()}
	defer c.close()
	stop := context.AfterFunc(ctx, func() { _ = ctrl.SetDeadline(time.Now()) })
	defer stop()
	got, err := c.run(ctx)
	if got != nil {
		*n = *got
		n.Parameters = cfg.NetParameters
	}
	c.describe(&n.Parameters)
	if ctx.Err() != nil {
		// Tell the server, as iperf3 does on Ctrl-C, so it is free at once.
		_ = ctrl.SetDeadline(time.Now().Add(time.Second))
		_ = writeState(ctrl, stateClientTerminate, time.Second)
		err = ctx.Err()
	}
	return err
}

type client struct {
	cfg     ClientConfig
	h       progress.Hooks
	p       *Params
	addr    string
	ctrl    net.Conn
	cookie  []byte
	streams []*stream
	data    *dataPath
	// meters follow the directions' bytes, keyed by up.
	meters map[bool]*stable.Meter
	// What the -J output tells beside the figures: the control
	// connection's MSS, the first data socket's buffers, each end's
	// congestion control.
	mssDefault, sndBuf, rcvBuf int
	congestion, peerCongestion string
	// running is set once the server said the test runs: a control
	// connection lost after that is a server gone, not a stranger.
	running bool
}

// describe adds what this client learnt during the test to np: the
// block size it chose, the cookie, the buffers, the congestion control.
func (c *client) describe(np *result.NetParameters) {
	np.BlockSize = c.p.Len
	np.Cookie = string(c.cookie[:CookieSize-1])
	np.MSSDefault, np.SndBufActual, np.RcvBufActual = c.mssDefault, c.sndBuf, c.rcvBuf
	if np.Congestion == "" {
		np.Congestion = c.congestion
	}
	np.PeerCongestion = c.peerCongestion
}

func (c *client) close() {
	if c.data != nil {
		c.data.shutdown(c.streams)
	} else {
		closeAll(c.streams)
	}
	c.ctrl.Close()
}

// expect reads the next state and turns the server's refusals into errors.
func (c *client) expect(want int8, timeout time.Duration) error {
	st, err := readState(c.ctrl, timeout)
	if err != nil {
		return c.setupError(err, want, timeout)
	}
	return c.check(st, want)
}

// setupSteps name the states a client waits for between sending its
// parameters and the test's start, as iperf3's source calls them.
var setupSteps = map[int8]string{
	stateCreateStreams: "CREATE_STREAMS",
	stateTestStart:     "TEST_START",
	stateTestRunning:   "TEST_RUNNING",
}

// setupError explains err from waiting up to waited for the state want:
// a server that went quiet after it took the parameters speaks iperf3, and
// the step it stopped at tells a stuck server from a slow one.
func (c *client) setupError(err error, want int8, waited time.Duration) error {
	step, ok := setupSteps[want]
	if ne, isNet := err.(net.Error); ok && !c.running && isNet && ne.Timeout() {
		return fmt.Errorf("%s took the test's parameters, then said nothing for %v (the client waited for %s): the server is overloaded or stuck", c.addr, waited, step)
	}
	return c.ctrlErrorAfter(err, waited)
}

func (c *client) check(st, want int8) error {
	switch {
	case st == want:
		return nil
	case st == stateAccessDenied:
		return ErrBusy
	case st == stateServerError:
		var b [8]byte
		if err := readFull(c.ctrl, b[:], ctrlTimeout); err != nil {
			return errors.New("server error (no code followed)")
		}
		return &PeerError{Code: int32(be32(b[:4])), Errno: int32(be32(b[4:]))}
	case st == stateServerTerminate:
		return errors.New("the server terminated the test")
	}
	return fmt.Errorf("%s does not speak the iperf3 protocol: unexpected control byte %d (wanted %d)", c.addr, st, want)
}

func (c *client) ctrlError(err error) error { return c.ctrlErrorAfter(err, ctrlTimeout) }

// ctrlErrorAfter explains err from a control-connection operation that
// waited up to waited: a timeout names the time it really waited.
func (c *client) ctrlErrorAfter(err error, waited time.Duration) error {
	lost := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if ne, ok := err.(net.Error); c.running && (lost || ok && ne.Timeout()) {
		// It spoke the protocol until the test ran: it stopped, or the
		// path to it did.
		return fmt.Errorf("%s stopped answering during the test (the server ended, or the network to it went down)", c.addr)
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Errorf("%s did not answer on the control connection within %v (is it an iperf3 server?)", c.addr, waited)
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s closed the control connection (is it an iperf3 server?)", c.addr)
	}
	return fmt.Errorf("control connection to %s: %w", c.addr, err)
}

func (c *client) run(ctx context.Context) (*result.Net, error) {
	c.meters = map[bool]*stable.Meter{}
	n, err := c.test(ctx)
	if n != nil {
		// Each direction's sum gets the interval of what this end moved
		// in it: sent up, or received down.
		for i := range n.Sums {
			if m := c.meters[n.Sums[i].Direction == result.DirUp]; m != nil {
				n.Sums[i].Interval = result.IntervalOf(m.Interval())
			}
		}
	}
	return n, err
}

func (c *client) test(ctx context.Context) (*result.Net, error) {
	if tc, ok := c.ctrl.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c.mssDefault = ctrlMSS(c.ctrl)
	if c.p.UDP && c.p.Len == 0 {
		c.p.Len = defaultUDPBlockSize
		if mss := c.mssDefault; mss >= minBlockSizeUDP && mss <= maxBlockSizeUDP {
			c.p.Len = mss
		}
	}
	if c.p.Len == 0 {
		c.p.Len = defaultTCPBlockSize
	}
	if err := c.ctrl.SetWriteDeadline(time.Now().Add(ctrlTimeout)); err != nil {
		return nil, err
	}
	if _, err := c.ctrl.Write(c.cookie); err != nil {
		return nil, c.ctrlError(err)
	}
	if err := c.expect(stateParamExchange, setupTimeout); err != nil {
		return nil, err
	}
	if len(c.cfg.Secret) > 0 {
		c.p.Auth = authToken(c.cfg.Secret, c.cookie, time.Now())
	}
	if err := sendJSON(c.ctrl, c.p.wire(), ctrlTimeout); err != nil {
		return nil, c.ctrlError(err)
	}
	offer, err := c.readOffer()
	if err != nil {
		return nil, err
	}
	if l := c.cfg.Latency; l != nil {
		l.Start(ctx, c.ctrl.LocalAddr(), c.ctrl.RemoteAddr(), offer)
	}
	if c.data, err = newDataPath(c.p, c.p.ZeroCopy, !c.p.Reverse || c.p.Bidir); err != nil {
		return nil, err
	}
	c.data.limited, c.data.probe = true, c.cfg.Latency
	if c.p.Reverse {
		c.data.countReceived(c.p.count())
	}
	if err := c.connectStreams(ctx); err != nil {
		return nil, err
	}
	if err := c.expect(stateTestStart, setupTimeout); err != nil {
		return nil, err
	}
	if err := c.expect(stateTestRunning, setupTimeout); err != nil {
		return nil, err
	}
	c.running = true
	if l := c.cfg.Latency; l != nil {
		l.Loaded(c.cfg.Direction, c.p.Omit)
	}
	s := newSession(c.p, c.streams, c.data, time.Duration(c.cfg.IntervalNs), c.interval)
	states := make(chan stateOrErr, 1)
	s.begin()
	go func() {
		st, err := readState(c.ctrl, 0)
		states <- stateOrErr{st, err}
	}()
	runErr := c.loop(ctx, s, states)
	s.finish()
	if l := c.cfg.Latency; l != nil {
		l.Unloaded()
	}
	if runErr == nil {
		runErr = c.streamError()
	}
	if runErr != nil {
		return s.compose(s.local(), nil), runErr
	}
	if err := writeState(c.ctrl, stateTestEnd, ctrlTimeout); err != nil {
		return s.compose(s.local(), nil), c.ctrlError(err)
	}
	var next stateOrErr
	select {
	case next = <-states:
	case <-time.After(setupTimeout):
		next.err = os.ErrDeadlineExceeded
	}
	if next.err != nil {
		return s.compose(s.local(), nil), c.ctrlErrorAfter(next.err, setupTimeout)
	}
	if err := c.check(next.st, stateExchangeResults); err != nil {
		return s.compose(s.local(), nil), err
	}
	// Receivers here count what the server sent before the end: wait until
	// they go quiet (the server's counts arrive only after ours are sent).
	s.drain(nil, time.Second)
	mine := s.local()
	if err := sendJSON(c.ctrl, mine.wire(), ctrlTimeout); err != nil {
		return s.compose(mine, nil), c.ctrlError(err)
	}
	body, err := recvJSON(c.ctrl, maxPeerResultsSize, setupTimeout)
	if err != nil {
		return s.compose(mine, nil), fmt.Errorf("server results: %w", c.ctrlErrorAfter(err, setupTimeout))
	}
	remote, err := ParseResults(body)
	if err != nil {
		return s.compose(mine, nil), fmt.Errorf("server results: %w", err)
	}
	n := s.compose(mine, remote)
	n.ServerOutputText, n.ServerOutputJSON, n.ServerUnmet = remote.ServerOutputText, remote.ServerOutputJSON, remote.Unmet
	if n.ServerUnmet != "" {
		c.h.Notef("warning: the server did not do all that was asked: %s", n.ServerUnmet)
	}
	c.congestion, c.peerCongestion = mine.Congestion, remote.Congestion
	if err := c.expect(stateDisplayResults, setupTimeout); err != nil {
		return n, err
	}
	if l := c.cfg.Latency; l != nil {
		// The server holds the test until IPERF_DONE: handshake probes
		// measure the idle path now, refused as extra connections.
		l.After(ctx)
	}
	_ = writeState(c.ctrl, stateIperfDone, ctrlTimeout)
	return n, nil
}

type stateOrErr struct {
	st  int8
	err error
}

// loop runs the test until its time, bytes or blocks are done, the server
// says something, or ctx ends.
func (c *client) loop(ctx context.Context, s *session, states <-chan stateOrErr) error {
	var end time.Time
	if c.p.Time > 0 {
		end = s.started.Add(c.p.Omit + c.p.Time)
	}
	byLimit := c.p.Bytes > 0 || c.p.Blocks > 0
	// A reverse UDP test bounded by -n or -k also ends once nothing has
	// arrived for a while: the server stops at the count, as iperf3's
	// does, and the datagrams lost on the way never come.
	stall := byLimit && c.p.UDP && c.p.Reverse && !c.p.Bidir
	// The meters see the bytes every window. One that may end the test
	// (--until-stable) looks twice a window, so the test ends within half
	// a window of its figure being known; one that only records the
	// figure's interval needs a look per window, and each wake-up of this
	// loop is CPU a one-core board's test does not get.
	opts := c.cfg.Stable
	feed := stable.DefaultWidth
	// A test paced slower than a block a window (-b 1M sends a 128 KiB
	// block a second) moves its count only at the blocks: 100 ms windows
	// held a block or nothing, an interval of ±15 % around a rate the
	// pacer holds exactly, and the loop woke ten times a block. Its
	// windows are the gap between blocks, cut halfway between two,
	// so that each holds one block per stream; both ends pace the same
	// way, so the blocks seen (sent, or read with -R) keep to the gap.
	// GSO batches many datagrams a wake-up, so its gap is not the
	// block's.
	gap := c.p.blockGap()
	aligned := opts.Target == 0 && !c.p.Bidir && !c.p.GSO && gap > feed
	switch {
	case opts.Target > 0:
		feed /= 2
	case aligned:
		opts.Width, feed = gap, gap
		opts.Quantum = int64(c.p.burstBytes() * c.p.Parallel)
	}
	// A meter per direction this end moves data in: it sends up and
	// receives down.
	if !c.p.Reverse || c.p.Bidir {
		c.meters[true] = opts.Meter()
	}
	if c.p.Reverse || c.p.Bidir {
		c.meters[false] = opts.Meter()
	}
	// nextFeed is when the meters are next fed; an aligned test's is a
	// grid time, and its first (begun false) starts the windows.
	var nextFeed time.Time
	begun := false
	var received int64
	lastArrival := time.Now()
	reached := c.data.reached
	// The wake-ups are a sockio.Alarm's, not a runtime timer's: the
	// runtime's monitor slept until each timer and then polled every
	// 20 us while the loop ran, four thread switches a window.
	alarm, err := sockio.NewAlarm()
	if err != nil {
		return err
	}
	defer alarm.Close()
	for {
		now := time.Now()
		s.tick(now)
		if !end.IsZero() && !now.Before(end) {
			return nil
		}
		if byLimit && !s.omitting && c.limitDone(s) {
			return nil
		}
		if stall && !s.omitting {
			if n := s.measuredBytes(false); n != received {
				received, lastArrival = n, now
			} else if n > 0 && now.Sub(lastArrival) > udpStall {
				return nil
			}
		}
		switch {
		case s.omitting:
		case aligned && !begun:
			// The windows start at a grid time, halfway after a block:
			// from before it, a window would hold part of a gap. The
			// one after the last block seen may have passed already;
			// the count has not moved since while the next block is not
			// due.
			if nextFeed.IsZero() {
				if moved := c.data.moved(); moved.After(c.data.epoch) {
					nextFeed = moved.Add(gap / 2)
					if nextFeed.Before(s.measured) || !now.Before(moved.Add(gap)) {
						nextFeed = ahead(nextFeed, gap, now)
					}
				}
			}
			if !nextFeed.IsZero() && !now.Before(nextFeed) {
				c.begin(s, nextFeed)
				begun, nextFeed = true, ahead(nextFeed, gap, now)
			}
		case aligned && !now.Before(nextFeed):
			// Fed at the grid time, not the wake-up's: the windows are
			// each the gap long, and no block came in between.
			if c.stable(s, nextFeed) {
				return nil
			}
			nextFeed = ahead(nextFeed, gap, now)
		case !aligned && !now.Before(nextFeed):
			if c.stable(s, now) {
				return nil
			}
			nextFeed = now.Add(feed)
		}
		wait := feed // omitting
		switch {
		case aligned && nextFeed.IsZero() && !s.omitting:
			wait = stable.DefaultWidth // looking for the first block
		case !nextFeed.IsZero():
			wait = time.Until(nextFeed)
		}
		if due := s.due(end); !due.IsZero() {
			wait = min(wait, time.Until(due))
		}
		if byLimit {
			wait = min(wait, 5*time.Millisecond)
		}
		if err := alarm.Set(wait, 0); err != nil {
			return err
		}
		select {
		case <-alarm.C():
		case <-reached:
			// Once: limitDone says it from the session's counts, which
			// may lag the receivers' by a read in flight.
			reached = nil
		case <-ctx.Done():
			return ctx.Err()
		case so := <-states:
			if so.err != nil {
				return c.ctrlError(so.err)
			}
			if err := c.check(so.st, stateTestEnd); err != nil {
				return err
			}
			return fmt.Errorf("%s sent control byte %d during the test", c.addr, so.st)
		}
		if err := c.streamError(); err != nil {
			return err
		}
	}
}

// ahead is the first of t, t+step, t+2*step, ... after now.
func ahead(t time.Time, step time.Duration, now time.Time) time.Time {
	if !t.After(now) {
		t = t.Add((now.Sub(t)/step + 1) * step)
	}
	return t
}

// begin starts each direction's meter's windows at t (stable.Meter.Begin).
func (c *client) begin(s *session, t time.Time) {
	for up, m := range c.meters {
		m.Begin(s.measuredBytes(up), t.Sub(s.measured))
	}
}

// stable feeds each direction's meter and says whether every one of
// them may stop.
func (c *client) stable(s *session, now time.Time) bool {
	all := len(c.meters) > 0
	for up, m := range c.meters {
		if !m.Feed(s.measuredBytes(up), now.Sub(s.measured)) {
			all = false
		}
	}
	return all
}

// udpStall is how long a reverse UDP test bounded by -n or -k waits for
// the next datagram before it ends short of the count.
const udpStall = 2 * time.Second

// limitDone: -n and -k count what this client sends, or in reverse what
// it receives.
func (c *client) limitDone(s *session) bool {
	n := c.p.count()
	return n > 0 && s.measuredBytes(!c.p.Reverse) >= n
}

func (c *client) streamError() error {
	for _, s := range c.streams {
		if err := s.failed(); err != nil {
			return fmt.Errorf("stream %d: %w", s.id, err)
		}
	}
	return nil
}

// connectStreams opens the data connections one after another, senders
// first: an iperf3 server gives roles by the order it accepts them.
func (c *client) connectStreams(ctx context.Context) error {
	n := c.p.streams()
	for i := range n {
		send := !c.p.Reverse
		if c.p.Bidir {
			send = i < c.p.Parallel
		}
		conn, err := c.dialStream(ctx, i)
		if err != nil {
			return fmt.Errorf("data stream %d of %d: %w", i+1, n, err)
		}
		var st *stream
		if c.p.UDP {
			st = &stream{id: streamID(i), up: send, send: send, udp: true, conn: conn, fd: -1,
				local: conn.LocalAddr().String(), peer: conn.RemoteAddr().String()}
		} else if st, err = newTCPStream(conn, streamID(i), send, send); err != nil {
			return fmt.Errorf("data stream %d of %d: %w", i+1, n, err)
		}
		if i == 0 {
			c.sndBuf, c.rcvBuf = socketBuffers(conn, st.fd)
		}
		c.streams = append(c.streams, st)
	}
	up := make([]progress.Stream, len(c.streams))
	for i, s := range c.streams {
		up[i] = progress.Stream{ID: int64(i + 1), Local: s.local, Remote: s.peer}
	}
	c.h.Report(progress.Report{Target: c.cfg.Host, Phase: c.cfg.Direction, Streams: up})
	return nil
}

// interval passes an interval that closed on to the hooks.
func (c *client) interval(iv result.NetInterval) {
	c.h.Report(progress.Report{Target: c.cfg.Host, Phase: c.cfg.Direction,
		Elapsed: time.Duration(iv.EndNs), Bound: c.p.Omit + c.p.Time, NetInterval: &iv})
}

// dialStream opens the i-th data connection from the control
// connection's local address, so -B and -4/-6 hold for both.
func (c *client) dialStream(ctx context.Context, i int) (net.Conn, error) {
	bind, dev := c.cfg.bind()
	d := net.Dialer{Timeout: ctrlTimeout, Control: bindControl(dev, c.p, true)}
	// The data goes to the address the control connection reached.
	addr := c.ctrl.RemoteAddr().String()
	var local net.IP
	if bind != "" {
		local = c.ctrl.LocalAddr().(*net.TCPAddr).IP
	}
	port := 0
	if c.cfg.CPort > 0 {
		port = c.cfg.CPort + i
	}
	if !c.p.UDP {
		// Go's dialer speaks plain TCP unless asked; its listeners take
		// MPTCP where the kernel has it.
		d.SetMultipathTCP(c.p.MPTCP)
		if local != nil || port > 0 {
			d.LocalAddr = &net.TCPAddr{IP: local, Port: port}
		}
		var conn net.Conn
		var err error
		if c.p.FlowLabel != 0 {
			la, _ := d.LocalAddr.(*net.TCPAddr)
			conn, err = c.dialFlowLabel(ctx, la)
		} else if conn, err = d.DialContext(ctx, "tcp", addr); err != nil {
			err = dialError(c.addr, err)
		}
		if err != nil {
			return nil, err
		}
		_ = conn.(*net.TCPConn).SetNoDelay(c.p.NoDelay)
		_ = conn.SetWriteDeadline(time.Now().Add(ctrlTimeout))
		if _, err := conn.Write(c.cookie); err != nil {
			conn.Close()
			return nil, err
		}
		_ = conn.SetWriteDeadline(time.Time{})
		return conn, nil
	}
	if local != nil || port > 0 {
		d.LocalAddr = &net.UDPAddr{IP: local, Port: port}
	}
	conn, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return nil, dialError(c.addr, err)
	}
	if err := udpHello(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// udpHello says "9876" and waits for the server's reply. In reverse mode
// data may overtake the reply, so a few longer datagrams are skipped.
func udpHello(conn net.Conn) error {
	if _, err := conn.Write([]byte("9876")); err != nil {
		return err
	}
	buf := make([]byte, maxBlockSizeUDP+1)
	_ = conn.SetReadDeadline(time.Now().Add(ctrlTimeout))
	defer conn.SetReadDeadline(time.Time{})
	for range 16 {
		n, err := conn.Read(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return errors.New("no reply to the UDP hello (a firewall, or UDP blocked?)")
			}
			return err
		}
		if n == 4 {
			return nil
		}
	}
	return errors.New("no reply to the UDP hello among the first datagrams")
}

// applySocketOptions applies -w, -M and -C before connecting, where they
// shape the handshake (window scale, advertised MSS).
func applySocketOptions(fd int, p *Params, network string) error {
	if p.Window > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, p.Window); err != nil {
			return os.NewSyscallError("setsockopt SO_SNDBUF", err)
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, p.Window); err != nil {
			return os.NewSyscallError("setsockopt SO_RCVBUF", err)
		}
	}
	if p.MSS > 0 && len(network) >= 3 && network[:3] == "tcp" {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_MAXSEG, p.MSS); err != nil {
			return os.NewSyscallError("setsockopt TCP_MAXSEG", err)
		}
	}
	if p.Congestion != "" && len(network) >= 3 && network[:3] == "tcp" {
		if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, p.Congestion); err != nil {
			return fmt.Errorf("congestion control %q: %w", p.Congestion, err)
		}
	}
	return nil
}

func ctrlMSS(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	mss := 0
	_ = raw.Control(func(fd uintptr) { mss, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG) })
	return mss
}

// dialError says what failed in the words people search for.
func dialError(addr string, err error) error {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("cannot resolve %s: %v", addr, dns.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connect to %s: connection refused (no server on that port?)", addr)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Errorf("connect to %s: host unreachable", addr)
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Errorf("connect to %s: timed out", addr)
	}
	return fmt.Errorf("connect to %s: %w", addr, err)
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
