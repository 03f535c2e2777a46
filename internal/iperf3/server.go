package iperf3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
)

// ServerConfig is a server's address, its operator's limits and where its
// figures go.
type ServerConfig struct {
	// Addr is host:port to listen on; an empty host listens on all.
	Addr   string
	Limits Limits
	// MaxClients is how many tests run at once (0 means 1, iperf3's
	// behaviour); one more client is told the server is busy. Limits hold
	// for each test and for the tests running together.
	MaxClients int
	// Secret, when set, admits only thruput clients that prove they know it.
	Secret []byte
	// Once ends Serve after the first test whose parameters were accepted.
	Once     bool
	Interval time.Duration
	ZeroCopy bool
	// OutputJSON: a client asking for the server's output (iperf3
	// --get-server-output) gets iperf3's JSON of this end, else its text.
	OutputJSON bool
	// IdleTimeout aborts a test in which no data moved for this long.
	IdleTimeout time.Duration
	// ControlTimeout bounds each read and write on a control connection
	// and the accepting of a test's data streams (default 10 s).
	ControlTimeout time.Duration
	// OnTest is told of each test as it starts, with the parameters its
	// document records; OnResult of its end, with its section (what was
	// measured so far) and why it failed. client (the control
	// connection's address) tells tests apart; calls for different tests
	// may come at once with MaxClients above 1.
	OnTest   func(client string, np result.NetParameters)
	OnResult func(n *result.Net, client string, err error)
	// Hooks are told of each test's intervals as they close, the report's
	// Target its client, and take the notes (what a test asked that this
	// server could not do).
	Hooks progress.Hooks
	// OnReject is told of connections refused before a test started:
	// garbage, silence, bad parameters, busy.
	OnReject func(client string, err error)
}

// Server serves up to MaxClients tests at once.
type Server struct {
	cfg  ServerConfig
	ln   net.Listener
	auth *authChecker
	// reflect: accepted streams send with the flow label of the client's
	// SYN (see reflectFlowLabels).
	reflect bool

	mu sync.Mutex
	// slots counts the control connections holding a place, from their
	// accept until their client has its results.
	slots int
	// ending counts the tests that have sent, or are sending, their
	// results and still hold their slot: a new client waits for it
	// (awaitSlot). A client that probes latency keeps it until it says
	// IPERF_DONE.
	ending int
	// closed: a --once server's test is over, no other starts.
	closed bool
	// accepting holds, by cookie, the channel of each test that takes
	// its TCP data streams.
	accepting map[string]chan net.Conn
	// streams and bitrate are what the admitted tests asked for together.
	streams int
	bitrate int64
	// udpAccept lets one test at a time take UDP hellos: the port's
	// unconnected sockets cannot tell whose hello a datagram is.
	udpAccept sync.Mutex
	// greet holds, in the order they were accepted, the connections whose
	// cookie is read while a test takes its data streams: a test's
	// streams take their roles by that order (the client connects its
	// senders first).
	greet  chan net.Conn
	refuse chan struct{} // bounds concurrent busy answers
	wg     sync.WaitGroup
}

// Listen opens the server's TCP port.
func Listen(cfg ServerConfig) (*Server, error) {
	// Plain TCP, as iperf3 measures: Go listens with MPTCP by default
	// where the kernel has it, and a client without MPTCP then gets a
	// fallback socket whose receive path goes through the MPTCP layer.
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 60 * time.Second
	}
	if cfg.ControlTimeout == 0 {
		cfg.ControlTimeout = ctrlTimeout
	}
	cfg.MaxClients = max(cfg.MaxClients, 1)
	s := &Server{cfg: cfg, ln: ln, accepting: map[string]chan net.Conn{},
		greet: make(chan net.Conn, 256), refuse: make(chan struct{}, 64)}
	if len(cfg.Secret) > 0 {
		s.auth = &authChecker{secret: cfg.Secret}
	}
	s.reflect = reflectFlowLabels(ln)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts clients until ctx ends or, with Once, one test is done; it
// returns that test's error with Once.
func (s *Server) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := &tests{cancel: cancel}
	stop := context.AfterFunc(ctx, func() { s.ln.Close() })
	defer stop()
	greeted := make(chan struct{})
	go func() {
		defer close(greeted)
		for conn := range s.greet {
			s.greetConn(ctx, t, conn)
		}
	}()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			// A full descriptor table is passing: keep serving the test
			// that runs (it may be accepting its streams).
			if ne, ok := err.(net.Error); ctx.Err() == nil && ok && ne.Timeout() {
				continue
			}
			if ctx.Err() == nil && (errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)) {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			close(s.greet)
			<-greeted
			s.wg.Wait()
			if ctx.Err() == nil {
				return err
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			return t.onceErr
		}
		s.mu.Lock()
		switch {
		case len(s.accepting) > 0:
			// A test takes its data streams: the cookie tells whether
			// this is one of them or a new client. A flood beyond the
			// queue is closed unanswered.
			s.mu.Unlock()
			select {
			case s.greet <- conn:
			default:
				conn.Close()
			}
		case s.closed || s.slots >= s.cfg.MaxClients:
			wait := !s.closed && s.ending > 0
			s.mu.Unlock()
			if wait {
				s.awaitSlot(ctx, t, conn, nil)
			} else {
				s.busyAnswer(conn)
			}
		default:
			s.slots++
			s.mu.Unlock()
			s.start(ctx, t, conn, nil)
		}
	}
}

// tests is what Serve's test goroutines report back: the --once test's
// error, and how to end Serve.
type tests struct {
	cancel  context.CancelFunc
	mu      sync.Mutex
	onceErr error
}

// start runs a test on conn, which holds a slot, in its own goroutine;
// cookie is nil when it is still to be read.
func (s *Server) start(ctx context.Context, t *tests, conn net.Conn, cookie []byte) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var once sync.Once
		var asked *Params
		// release gives the slot back as soon as the client has its
		// results, as iperf3 -s is ready for the next client then: a
		// client started right after the last one ended is not told
		// busy while this test's streams are being torn down.
		release := func(tested bool) {
			once.Do(func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.slots--
				if asked != nil {
					s.streams -= asked.streams()
					s.bitrate -= asked.Bitrate * int64(asked.streams())
				}
				if tested && s.cfg.Once {
					s.closed = true
				}
			})
		}
		tested, err := s.handle(ctx, conn, cookie, func(p *Params) error {
			if err := s.admit(p); err != nil {
				return err
			}
			asked = p
			return nil
		}, release)
		release(tested)
		if tested && s.cfg.Once {
			t.mu.Lock()
			t.onceErr = err
			t.mu.Unlock()
			t.cancel()
		}
	}()
}

// admit counts p against the limits on all tests together.
func (s *Server) admit(p *Params) error {
	l := s.cfg.Limits
	s.mu.Lock()
	defer s.mu.Unlock()
	n, bps := p.streams(), p.Bitrate*int64(p.streams())
	if l.MaxStreams > 0 && s.streams+n > l.MaxStreams {
		return refuse(ieNumStreams, "%d streams with the %d of the tests running exceed this server's --max-streams %d", n, s.streams, l.MaxStreams)
	}
	if l.MaxBitrate > 0 && s.bitrate+bps > l.MaxBitrate {
		return refuse(ieTotalRate, "%d bit/s with the %d bit/s of the tests running exceed this server's --max-bitrate %d bit/s", bps, s.bitrate, l.MaxBitrate)
	}
	s.streams += n
	s.bitrate += bps
	return nil
}

// greetConn reads a connection's cookie while some test takes its data
// streams, then hands it to that test, starts a test with it if a slot is
// free, or answers busy.
func (s *Server) greetConn(ctx context.Context, t *tests, conn net.Conn) {
	cookie := make([]byte, CookieSize)
	if err := readFull(conn, cookie, s.cfg.ControlTimeout); err != nil {
		conn.Close()
		s.reject(conn, fmt.Errorf("no cookie: %w", err))
		return
	}
	s.mu.Lock()
	if ch, ok := s.accepting[string(cookie)]; ok {
		// Sent under the lock: the test closes the channel under it too.
		select {
		case ch <- conn:
			s.mu.Unlock()
		default:
			s.mu.Unlock()
			s.deny(conn)
		}
		return
	}
	if s.closed || s.slots >= s.cfg.MaxClients {
		wait := !s.closed && s.ending > 0
		s.mu.Unlock()
		if wait {
			s.awaitSlot(ctx, t, conn, cookie)
			return
		}
		s.deny(conn)
		s.reject(conn, ErrBusy)
		return
	}
	s.slots++
	s.mu.Unlock()
	s.start(ctx, t, conn, cookie)
}

// slotGrace is how long a new client waits for the slot of a test that is
// ending: sending its results, or waiting for a latency client's
// IPERF_DONE.
const slotGrace = 500 * time.Millisecond

// awaitSlot gives conn the slot of a test that is ending, or answers busy
// when none frees within slotGrace. A thruput client that probed latency
// says IPERF_DONE after its results and is gone; the next client, started
// right then, could reach the listener a moment before the ending test
// read that byte, and be told busy (seen in a loop of tests through a
// router's queue).
func (s *Server) awaitSlot(ctx context.Context, t *tests, conn net.Conn, cookie []byte) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		deadline := time.Now().Add(slotGrace)
		for {
			s.mu.Lock()
			switch {
			case !s.closed && s.slots < s.cfg.MaxClients:
				s.slots++
				s.mu.Unlock()
				s.start(ctx, t, conn, cookie)
				return
			case s.closed || s.ending == 0 || time.Now().After(deadline) || ctx.Err() != nil:
				s.mu.Unlock()
				if cookie == nil {
					s.busyAnswer(conn)
				} else {
					s.deny(conn)
					s.reject(conn, ErrBusy)
				}
				return
			}
			s.mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		}
	}()
}

// deny answers ACCESS_DENIED (busy, or a stream nobody waits for).
func (s *Server) deny(conn net.Conn) {
	_ = writeState(conn, stateAccessDenied, time.Second)
	conn.Close()
}

// busyAnswer tells a client the server is busy, without reading what it
// sent (iperf3 3.10+ does the same). Answers are bounded in number so a
// flood of connections cannot pile up goroutines.
func (s *Server) busyAnswer(conn net.Conn) {
	select {
	case s.refuse <- struct{}{}:
	default:
		conn.Close()
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.refuse }()
		s.deny(conn)
		s.reject(conn, ErrBusy)
	}()
}

func (s *Server) reject(conn net.Conn, err error) {
	if s.cfg.OnReject != nil {
		s.cfg.OnReject(conn.RemoteAddr().String(), err)
	}
}

// serverError sends SERVER_ERROR with iperf3's code for err.
func serverError(ctrl net.Conn, err error) {
	code := int32(ieMessage)
	var pe *paramError
	if errors.As(err, &pe) {
		code = pe.code
	}
	msg := []byte{byte(0xFE), 0, 0, 0, 0, 0, 0, 0, 0}
	msg[1], msg[2], msg[3], msg[4] = byte(code>>24), byte(code>>16), byte(code>>8), byte(code)
	_ = ctrl.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = ctrl.Write(msg)
}

// handle runs one client's test on its control connection, whose cookie
// was read already unless it is nil. admit counts accepted parameters
// against the limits of all tests together; release gives the test's slot
// back once the client has its results. tested is true once the
// parameters were accepted.
func (s *Server) handle(ctx context.Context, ctrl net.Conn, cookie []byte, admit func(*Params) error, release func(tested bool)) (tested bool, err error) {
	client := ctrl.RemoteAddr().String()
	defer ctrl.Close()
	stop := context.AfterFunc(ctx, func() { _ = ctrl.SetDeadline(time.Now()) })
	defer stop()
	if cookie == nil {
		cookie = make([]byte, CookieSize)
		if err := readFull(ctrl, cookie, s.cfg.ControlTimeout); err != nil {
			s.reject(ctrl, fmt.Errorf("no cookie: %w", err))
			return false, err
		}
	}
	if err := writeState(ctrl, stateParamExchange, s.cfg.ControlTimeout); err != nil {
		s.reject(ctrl, err)
		return false, err
	}
	body, err := recvJSON(ctrl, maxParamsSize, s.cfg.ControlTimeout)
	if err != nil {
		err = refuse(ieRecvParams, "parameters: %v", err)
		serverError(ctrl, err)
		s.reject(ctrl, err)
		return false, err
	}
	p, err := ParseParams(body)
	if err == nil && s.auth != nil {
		if p.Auth == "" {
			err = refuse(ieAuthTest, "this server wants a shared secret (thruput net client --secret-file)")
		} else if aerr := s.auth.check(cookie, p.Auth, time.Now()); aerr != nil {
			err = refuse(ieAuthTest, "%v", aerr)
		}
	}
	if err == nil {
		err = s.cfg.Limits.check(p)
	}
	if err == nil {
		s.labels(p)
	}
	if err == nil {
		err = admit(p)
	}
	if err == nil && p.ServerAffinity != nil {
		// iperf3 binds its server to the client's -A n,m for the test,
		// then lets it go.
		var unpin func()
		if unpin, err = Pin(*p.ServerAffinity); err == nil {
			defer unpin()
		}
	}
	if err != nil {
		// The slot is free before the client reads why it was refused:
		// one that asks again at once (fewer streams) is not told busy
		// by its own refused test (ci71: TestServerMaxClients).
		release(false)
		serverError(ctrl, err)
		s.reject(ctrl, err)
		return false, err
	}
	np := s.parameters(p, client)
	if s.cfg.OnTest != nil {
		s.cfg.OnTest(client, np)
	}
	if p.Unmet != "" {
		s.cfg.Hooks.Notef("%s: %s", client, p.Unmet)
	}
	n, err := s.run(ctx, ctrl, cookie, p, np, func() { release(true) })
	if err != nil && ctx.Err() == nil {
		serverError(ctrl, err)
	}
	if n == nil {
		n = &result.Net{}
	}
	n.Parameters = np
	if s.cfg.OnResult != nil {
		s.cfg.OnResult(n, client, err)
	}
	return true, err
}

// parameters are what this end's document records of a test: the
// client's parameters in the document's terms, the one place they turn
// into them, and this end's part.
func (s *Server) parameters(p *Params, client string) result.NetParameters {
	np := result.NetParameters{
		Role: "server", Server: s.cfg.Addr, Client: client, PeerVersion: p.ClientVersion,
		Protocol:   "tcp",
		Streams:    p.Parallel,
		Direction:  result.DirUp,
		DurationNs: p.Time.Nanoseconds(),
		OmitNs:     p.Omit.Nanoseconds(),
		Bytes:      p.Bytes,
		Blocks:     p.Blocks,
		BlockSize:  p.Len,
		BitrateBps: p.Bitrate,
		Window:     p.Window,
		MSS:        p.MSS,
		NoDelay:    p.NoDelay,
		Congestion: p.Congestion,
		ZeroCopy:   (s.cfg.ZeroCopy || p.ZeroCopy) && !p.UDP,

		TOS:              p.TOS,
		FQRateBps:        p.FQRate,
		Burst:            p.Burst,
		DontFragment:     p.DontFragment,
		SkipRxCopy:       p.SkipRxCopy,
		GSO:              p.GSO,
		GRO:              p.GRO,
		RepeatingPayload: p.RepeatingPayload,
		Title:            p.Title,
		ExtraData:        p.ExtraData,
	}
	if p.UDP {
		np.Protocol = "udp"
	}
	switch {
	case p.Bidir:
		np.Direction = "bidir"
	case p.Reverse:
		np.Direction = result.DirDown
	}
	return np
}

func (s *Server) run(ctx context.Context, ctrl net.Conn, cookie []byte, p *Params, np result.NetParameters, done func()) (*result.Net, error) {
	data, err := newDataPath(p, s.cfg.ZeroCopy || p.ZeroCopy, p.Reverse || p.Bidir)
	if err != nil {
		return nil, err
	}
	// iperf3's server (3.12 and 3.21, iperf_send) checks -n and -k only
	// between the blocks of a multi-block write, which it does when the
	// sender is unpaced or sends -b R/N bursts: those stop at the count
	// (a reverse test moves what was asked for, not what flowed until the
	// client's TEST_END); a sender paced block by block sends on until the
	// client ends the test. UDP sends on here in every case: iperf3's
	// client waits in vain for the lost datagrams of a server that
	// stopped at the count. So do senders with an omitted start: the two
	// ends count from different instants, and the client might wait for
	// bytes a stopped server never sends.
	data.limited = p.Omit == 0 && !p.UDP && (p.Bitrate == 0 || p.Burst > 0)
	var streams []*stream
	defer func() { data.shutdown(streams) }()
	closeEcho, err := offerEcho(ctrl, p, s.cfg.ControlTimeout, s.cfg.MaxClients > 1)
	if err != nil {
		return nil, err
	}
	defer closeEcho()
	streams, err = s.acceptStreams(ctx, ctrl, cookie, p)
	if err != nil {
		return nil, err
	}
	if err := writeState(ctrl, stateTestStart, s.cfg.ControlTimeout); err != nil {
		return nil, err
	}
	if err := writeState(ctrl, stateTestRunning, s.cfg.ControlTimeout); err != nil {
		return nil, err
	}
	sess := newSession(p, streams, data, s.cfg.Interval, func(iv result.NetInterval) {
		s.cfg.Hooks.Report(progress.Report{Target: np.Client, Phase: np.Direction,
			Elapsed: time.Duration(iv.EndNs), Bound: p.Omit + p.Time, NetInterval: &iv})
	})
	states := make(chan stateOrErr, 1)
	sess.begin()
	go func() {
		st, err := readState(ctrl, 0)
		states <- stateOrErr{st, err}
	}()
	runErr := s.loop(ctx, sess, states)
	sess.finish()
	endSending(streams)
	if runErr != nil {
		return sess.compose(sess.local(), nil), runErr
	}
	if err := writeState(ctrl, stateExchangeResults, s.cfg.ControlTimeout); err != nil {
		return sess.compose(sess.local(), nil), err
	}
	body, err := recvJSON(ctrl, maxResultsSize, s.cfg.ControlTimeout)
	if err != nil {
		return sess.compose(sess.local(), nil), refuse(ieRecvResults, "client results: %v", err)
	}
	remote, err := ParseResults(body)
	if err != nil {
		return sess.compose(sess.local(), nil), refuse(ieRecvResults, "%v", err)
	}
	// What the client sent is on its way to our receivers: count it all
	// before answering, so the two ends' byte counts agree.
	want := map[int64]int64{}
	for _, r := range remote.Streams {
		want[r.ID] = r.Bytes
	}
	sess.drain(want, 2*time.Second)
	mine := sess.local()
	mine.Unmet = p.Unmet
	n := sess.compose(mine, remote)
	if p.GetServerOutput {
		mine.serverOutput(n, np, p.Unmet, s.cfg.OutputJSON)
	}
	// Ending from before the client can have its results until the slot
	// is given back: a client started the moment the last one returned
	// may reach the listener before this goroutine runs again, and must
	// wait for the slot, not be told busy (a loaded make check saw it
	// when this was counted only after the results were written).
	s.mu.Lock()
	s.ending++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ending--
		s.mu.Unlock()
	}()
	if err := sendJSON(ctrl, mine.wire(), s.cfg.ControlTimeout); err != nil {
		return n, err
	}
	if err := writeState(ctrl, stateDisplayResults, s.cfg.ControlTimeout); err != nil {
		return n, err
	}
	if !p.LatencyEcho {
		done()
	}
	// IPERF_DONE, or a close: either way the test is over. A client
	// that probes latency may time handshakes to the port until then
	// (its echo lost): the test holds its slot, so they are refused as
	// busy instead of read as new clients.
	_, _ = readState(ctrl, s.cfg.ControlTimeout+p.LatencyIdle)
	done()
	return n, nil
}

// loop waits for the client to end the test, aborting when the test runs
// past its time or the operator's, when no data moves, or a stream fails.
func (s *Server) loop(ctx context.Context, sess *session, states <-chan stateOrErr) error {
	p := sess.p
	var hard time.Time
	const grace = 10 * time.Second
	if p.Time > 0 {
		hard = sess.started.Add(p.Omit + p.Time + grace)
	}
	if m := s.cfg.Limits.MaxDuration; m > 0 {
		if cap := sess.started.Add(m + grace); hard.IsZero() || cap.Before(hard) {
			hard = cap
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	lastMoved, moved := time.Now(), int64(-1)
	// The senders' caps are what the client declared; the client's own
	// senders are held to the operator's limit by measuring them.
	rateFrom, rateBytes := time.Now(), int64(0)
	for {
		now := time.Now()
		sess.tick(now)
		if !hard.IsZero() && now.After(hard) {
			return refuse(ieServerTimeout, "test ran past its time (or this server's --max-duration) without the client ending it")
		}
		var total, received int64
		for _, st := range sess.streams {
			total += st.bytes.Load()
			if !st.send {
				received += st.bytes.Load()
			}
		}
		if total != moved {
			moved, lastMoved = total, now
		} else if now.Sub(lastMoved) > s.cfg.IdleTimeout {
			return refuse(ieNoData, "no data moved for %v", s.cfg.IdleTimeout)
		}
		if max := s.cfg.Limits.MaxBitrate; max > 0 && now.Sub(rateFrom) >= time.Second {
			// 10 % over, for bursts the pacing allows.
			if bps := float64(received-rateBytes) * 8 / now.Sub(rateFrom).Seconds(); bps > 1.1*float64(max) {
				return refuse(ieTotalRate, "the client sent %.0f bit/s, over this server's --max-bitrate %d bit/s", bps, max)
			}
			rateFrom, rateBytes = now, received
		}
		for _, st := range sess.streams {
			if err := st.failed(); err != nil {
				return fmt.Errorf("stream %d: %w", st.id, err)
			}
		}
		wait := time.Second
		if d := sess.due(hard); !d.IsZero() {
			wait = min(wait, time.Until(d))
		}
		timer.Reset(max(wait, 0))
		select {
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		case so := <-states:
			switch {
			case so.err != nil:
				return refuse(ieCtrlClose, "control connection: %v", so.err)
			case so.st == stateTestEnd:
				return nil
			case so.st == stateClientTerminate:
				return refuse(ieClientTerm, "the client ended the test early")
			default:
				return refuse(ieMessage, "unexpected control byte %d during the test", so.st)
			}
		}
	}
}

// acceptStreams takes the test's data connections: TCP ones from the
// accept loop, which checked their cookie; UDP ones by their hello.
func (s *Server) acceptStreams(ctx context.Context, ctrl net.Conn, cookie []byte, p *Params) ([]*stream, error) {
	n := p.streams()
	var streams []*stream
	role := func(i int) (up bool) {
		// The client connects its senders first: the first streams are
		// the server's receivers.
		switch {
		case p.Bidir:
			return i < p.Parallel
		default:
			return !p.Reverse
		}
	}
	if p.UDP {
		s.udpAccept.Lock()
		defer s.udpAccept.Unlock()
		return s.acceptUDP(ctx, ctrl, p, role)
	}
	ch := make(chan net.Conn, n)
	s.mu.Lock()
	s.accepting[string(cookie)] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.accepting, string(cookie))
		s.mu.Unlock()
		close(ch)
		for c := range ch {
			c.Close()
		}
	}()
	if err := writeState(ctrl, stateCreateStreams, s.cfg.ControlTimeout); err != nil {
		return nil, err
	}
	// A client probing latency measures the idle path before it connects.
	deadline := time.NewTimer(s.cfg.ControlTimeout + p.LatencyIdle)
	defer deadline.Stop()
	for len(streams) < n {
		select {
		case c := <-ch:
			_ = c.SetReadDeadline(time.Time{})
			tc := c.(*net.TCPConn)
			_ = tc.SetNoDelay(p.NoDelay)
			if p.Window > 0 {
				_ = tc.SetReadBuffer(p.Window)
				_ = tc.SetWriteBuffer(p.Window)
			}
			if p.Congestion != "" {
				if err := setCongestion(tc, p.Congestion); err != nil {
					c.Close()
					closeAll(streams)
					return nil, refuse(ieSetCongestion, "congestion control %q: %v", p.Congestion, err)
				}
			}
			if err := acceptedOptions(tc, p); err != nil {
				c.Close()
				closeAll(streams)
				return nil, err
			}
			up := role(len(streams))
			st, err := newTCPStream(c, streamID(len(streams)), up, !up)
			if err != nil {
				closeAll(streams)
				return nil, err
			}
			streams = append(streams, st)
		case <-deadline.C:
			closeAll(streams)
			return nil, refuse(ieStreamAccept, "%d of %d data streams connected within %v", len(streams), n, s.cfg.ControlTimeout)
		case <-ctx.Done():
			closeAll(streams)
			return nil, ctx.Err()
		}
	}
	return streams, nil
}

// endSending closes the sending half of this side's TCP streams once the
// senders stopped, as iperf3's server closes its streams on TEST_END: an
// iperf3 client reads its streams in whole blocks (blocking) after it sent
// TEST_END, from wherever its non-blocking reads left it, and waits for
// the rest of a block until the stream ends. Left open, the client never
// reads EXCHANGE_RESULTS while the server waits for its results. The
// receiving halves stay open, to count what the client sent before the end.
func endSending(streams []*stream) {
	for _, st := range streams {
		if st.send && !st.udp && st.fd >= 0 {
			_ = unix.Shutdown(st.fd, unix.SHUT_WR)
		}
	}
}

func closeAll(streams []*stream) {
	for _, st := range streams {
		st.close()
	}
}

// acceptUDP binds the server's port for UDP and takes one hello per
// stream. Each hello's socket is connected to its sender, and a fresh one
// bound beside it (SO_REUSEADDR) waits for the next, as iperf3 does: the
// kernel gives each connected socket its own sender's datagrams.
func (s *Server) acceptUDP(ctx context.Context, ctrl net.Conn, p *Params, role func(int) bool) ([]*stream, error) {
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
			if serr == nil && p.Window > 0 {
				serr = applySocketOptions(int(fd), p, "udp")
			}
			if serr == nil {
				serr = streamOptions(int(fd), p, true)
			}
		})
		return firstErr(err, serr)
	}}
	addr := s.ln.Addr().String()
	if host, port, err := net.SplitHostPort(s.cfg.Addr); err == nil && host == "" {
		addr = ":" + port
		if port == "0" {
			_, port, _ = net.SplitHostPort(s.ln.Addr().String())
			addr = ":" + port
		}
	}
	var streams []*stream
	fail := func(err error) ([]*stream, error) {
		closeAll(streams)
		return nil, err
	}
	next, err := lc.ListenPacket(ctx, "udp", addr)
	if err != nil {
		return nil, refuse(ieStreamAccept, "UDP port: %v", err)
	}
	if err := writeState(ctrl, stateCreateStreams, s.cfg.ControlTimeout); err != nil {
		next.Close()
		return nil, err
	}
	deadline := time.Now().Add(s.cfg.ControlTimeout + p.LatencyIdle)
	buf := make([]byte, maxBlockSizeUDP+1)
	for len(streams) < p.streams() {
		uc := next.(*net.UDPConn)
		_ = uc.SetReadDeadline(deadline)
		_, from, err := uc.ReadFromUDP(buf)
		if err != nil {
			uc.Close()
			return fail(refuse(ieStreamAccept, "%d of %d UDP streams said hello within %v", len(streams), p.streams(), s.cfg.ControlTimeout))
		}
		_ = uc.SetReadDeadline(time.Time{})
		if err := connectUDP(uc, from); err != nil {
			uc.Close()
			return fail(err)
		}
		up := role(len(streams))
		streams = append(streams, &stream{id: streamID(len(streams)), up: up, send: !up, udp: true, conn: uc, fd: -1,
			local: uc.LocalAddr().String(), peer: from.String()})
		if len(streams) < p.streams() {
			if next, err = lc.ListenPacket(ctx, "udp", addr); err != nil {
				return fail(refuse(ieStreamAccept, "UDP port: %v", err))
			}
		}
		if _, err := uc.Write([]byte("6789")); err != nil {
			if len(streams) < p.streams() {
				next.Close()
			}
			return fail(err)
		}
	}
	return streams, nil
}

// connectUDP connects uc to peer, so reads get only that sender's
// datagrams and Write reaches it.
func connectUDP(uc *net.UDPConn, peer *net.UDPAddr) error {
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cerr error
	err = raw.Control(func(fd uintptr) {
		local, gerr := unix.Getsockname(int(fd))
		if gerr != nil {
			cerr = gerr
			return
		}
		var sa unix.Sockaddr
		if _, v6 := local.(*unix.SockaddrInet6); v6 {
			a := &unix.SockaddrInet6{Port: peer.Port}
			copy(a.Addr[:], peer.IP.To16())
			sa = a
		} else {
			a := &unix.SockaddrInet4{Port: peer.Port}
			copy(a.Addr[:], peer.IP.To4())
			sa = a
		}
		cerr = unix.Connect(int(fd), sa)
	})
	return firstErr(err, os.NewSyscallError("connect", cerr))
}

func setCongestion(c *net.TCPConn, name string) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, name)
	}); err != nil {
		return err
	}
	return serr
}
