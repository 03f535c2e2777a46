package iperf3

import (
	"bytes"
	"math"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/latency"
	"github.com/thruput/thruput/internal/sockio"
)

// stream is one data connection. Its goroutine only adds to counters; the
// test samples them at interval ends, so the data path takes no lock and
// makes no allocation per block (UDP receivers take an uncontended mutex
// for their sequence bookkeeping).
type stream struct {
	id int64
	// up: the data flows from client to server.
	up bool
	// send: this side writes the data.
	send bool
	udp  bool
	// conn is a UDP stream's socket until its goroutine starts; then, as
	// a TCP stream's from the start, the socket is fd, taken out of the
	// runtime's netpoller (see newTCPStream).
	conn net.Conn
	fd   int
	// tid is the thread the stream's goroutine is locked to, 0 before.
	tid atomic.Int32
	// polled is the pollable duplicate a slow TCP receiver waits on
	// (recvPolled): shutdown closes it to end the wait.
	polled atomic.Pointer[os.File]
	// arrived is when a receiver last read data, in ns since the data
	// path's epoch.
	arrived atomic.Int64
	// local and peer are the two ends' addresses.
	local, peer string
	// bytes moved since the goroutine started.
	bytes atomic.Int64
	// err is why the data path stopped early, if it did.
	err atomic.Pointer[error]

	mu  sync.Mutex
	rcv udpCounters // UDP receiver only, under mu
	// sent counts datagrams a UDP sender wrote (its last sequence number).
	sent atomic.Int64
}

// udpCounters follow iperf3's receiver: loss from gaps in the sequence, an
// out-of-order datagram takes one loss back, jitter per RFC 1889.
type udpCounters struct {
	packets    int64 // highest sequence number seen
	lost       int64
	outOfOrder int64
	jitter     float64 // seconds
	transit    float64
	seen       bool
}

func (s *stream) fail(err error) { s.err.CompareAndSwap(nil, &err) }

func (s *stream) failed() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// streamID numbers streams as iperf3 does: 1, 3, 4, 5 ... (2 is skipped).
func streamID(i int) int64 {
	if i == 0 {
		return 1
	}
	return int64(i) + 2
}

// dataPath is what all streams of a test share.
type dataPath struct {
	p *Params
	// payload is the TCP send buffer, random bytes shared read-only.
	payload []byte
	// chunk is payload repeated to about sendChunk bytes, what a TCP
	// sender writes at once when nothing counts its blocks as they go
	// (no -n, -k or -b); nil when it writes a block at a time. The first
	// sender makes it (chunkOnce), so an end that only receives (-R's
	// client, a server's up test) never holds it.
	chunk     []byte
	chunkOnce sync.Once
	// memfd holds the payload for zero-copy sends (-Z), -1 if unused.
	memfd int
	// stop tells senders to end, also one asleep until its next block;
	// limit is reached when total sent bytes or blocks pass the test's -n
	// or -k.
	stop stopper
	// closing tells every data goroutine to return; the sockets are closed
	// only after they did, so no blocking call ever sees a reused fd.
	closing     atomic.Bool
	totalBytes  atomic.Int64
	totalBlocks atomic.Int64
	// omitting is true during the omitted start; base* are the totals
	// when it ended.
	omitting              atomic.Bool
	baseBytes, baseBlocks atomic.Int64
	// limited: the senders stop at -n or -k. Only the client's do: the
	// client ends the test, counting what it received since its own
	// omitted start ended, which a server's senders stopping at their own
	// count may never give it (the two ends' omit timers differ), so a
	// server sends until the client ends the test, as iperf3's does.
	limited bool
	// reached is closed once the receivers together got recvLimit bytes
	// since the omitted start (nil: nothing waits for it). A client that
	// counts what it receives (-R with -n or -k) then ends the test at
	// once, not at its next look: at 1 Gbit/s a 5 ms look let 0.7 MB more
	// arrive, and a lossy UDP sender sends on until the end.
	reached             chan struct{}
	reachOnce           sync.Once
	recvLimit           int64
	recvTotal, recvBase atomic.Int64
	// epoch is the origin of UDP timestamps.
	epoch time.Time
	// paced is when a paced sender last finished a block, in ns since
	// epoch (see moved).
	paced atomic.Int64
	// late is when a TCP sender's last write that returned after the
	// stop did, in ns since epoch (0: none did; see wroteUntil).
	late atomic.Int64
	// wg counts all data goroutines, senders only the sending ones.
	wg, senders sync.WaitGroup
	// receivers are the started receiving streams (under mu).
	mu        sync.Mutex
	receivers []*stream
	// unprocs gives back the Ps taken for the streams (see sockio.Procs).
	unprocs func()
	// probe is the client's latency prober (nil without one): the senders
	// poll it after each write, so that its probes go out in the data
	// path's wake-ups instead of waking the process themselves. The
	// receivers do not: a receiver wakes as data arrives, and a probe sent
	// then rides the flow's own ACK clock (the window it opens brings the
	// next burst in front of the echo). Through the lab's short queue that
	// read 1.77 ms down where ping read 1.30 and irtt 1.48 at the same
	// time, and the timer's probes 1.36.
	probe *latency.Prober
}

// recvBudget bounds the TCP receivers' buffers together, so that peak
// memory with many streams stays low (bench/net: under 32 MiB at -P 10).
const recvBudget = 3 << 20

// sendChunk is how much a TCP sender writes per system call when it may
// write several blocks at once: fewer calls, and fewer times the kernel
// pushes a partly filled queue.
const sendChunk = 512 << 10

// newDataPath prepares one end's data path; sends says whether this end
// sends (the client unless -R, the server with it; both ends with
// --bidir).
func newDataPath(p *Params, zeroCopy, sends bool) (*dataPath, error) {
	d := &dataPath{p: p, memfd: -1, epoch: time.Now()}
	d.payload = make([]byte, p.Len)
	fillPayload(d.payload, p.RepeatingPayload)
	if zeroCopy && !p.UDP {
		fd, err := unix.MemfdCreate("thruput-payload", unix.MFD_CLOEXEC)
		if err != nil {
			return nil, os.NewSyscallError("memfd_create", err)
		}
		if _, err := unix.Pwrite(fd, d.payload, 0); err != nil {
			unix.Close(fd)
			return nil, os.NewSyscallError("pwrite", err)
		}
		d.memfd = fd
	}
	d.unprocs = sockio.Procs(p.heldProcs(sends, zeroCopy))
	return d, nil
}

func (d *dataPath) close() {
	if d.memfd >= 0 {
		unix.Close(d.memfd)
		d.memfd = -1
	}
	if d.unprocs != nil {
		d.unprocs()
		d.unprocs = nil
	}
}

// limitReached is true once the senders together moved -n bytes or -k
// blocks since the omitted start ended (never during it: what is sent then
// does not count).
func (d *dataPath) limitReached() bool {
	if !d.limited || d.omitting.Load() {
		return false
	}
	return (d.p.Bytes > 0 && d.totalBytes.Load()-d.baseBytes.Load() >= d.p.Bytes) ||
		(d.p.Blocks > 0 && d.totalBlocks.Load()-d.baseBlocks.Load() >= d.p.Blocks)
}

// countReceived makes reached close once the receivers got n bytes.
func (d *dataPath) countReceived(n int64) {
	if n > 0 {
		d.recvLimit, d.reached = n, make(chan struct{})
	}
}

// received counts n bytes a receiver read.
func (d *dataPath) received(s *stream, n int) {
	s.bytes.Add(int64(n))
	if d.reached == nil {
		return
	}
	if t := d.recvTotal.Add(int64(n)); !d.omitting.Load() && t-d.recvBase.Load() >= d.recvLimit {
		d.reachOnce.Do(func() { close(d.reached) })
	}
}

// endOmit starts counting towards the limits from here.
func (d *dataPath) endOmit() {
	d.recvBase.Store(d.recvTotal.Load())
	d.baseBytes.Store(d.totalBytes.Load())
	d.baseBlocks.Store(d.totalBlocks.Load())
	d.omitting.Store(false)
}

func (d *dataPath) start(s *stream) {
	d.wg.Add(1)
	if s.send {
		d.senders.Add(1)
	} else {
		d.mu.Lock()
		d.receivers = append(d.receivers, s)
		d.mu.Unlock()
	}
	go func() {
		defer d.wg.Done()
		if s.send {
			defer d.senders.Done()
		}
		// One thread for the stream's life: its blocking calls hold the
		// thread anyway, and the kernel keeps it on one CPU.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s.tid.Store(int32(unix.Gettid()))
		if s.udp && !d.batched(s) {
			// Through the netpoller each datagram woke the netpoller's
			// thread and then the reader's goroutine; a blocking socket on
			// the stream's own thread, as iperf3 3.16+ has, wakes the
			// reader directly.
			fd, err := sockio.Detach(s.conn)
			if err != nil {
				s.fail(err)
				return
			}
			s.fd = fd
		}
		var err error
		switch {
		case s.send && s.udp && d.p.GSO:
			err = d.sendUDPGSO(s)
		case s.send && s.udp:
			err = d.sendUDP(s)
		case s.udp && (d.p.GRO || d.p.SkipRxCopy):
			err = d.recvUDPBatch(s)
		case s.send:
			err = d.sendTCP(s)
		case s.udp:
			err = d.recvUDP(s)
		default:
			err = d.recvTCP(s)
		}
		if err != nil && !d.stop.Load() {
			s.fail(err)
		}
	}()
}

// batched says whether a UDP stream is the GSO sender or the GRO or
// MSG_TRUNC receiver: those keep their net.UDPConn, through which they
// set socket options and read control messages, where the others read
// and write a blocking descriptor of their own.
func (d *dataPath) batched(s *stream) bool {
	return s.send && d.p.GSO || !s.send && (d.p.GRO || d.p.SkipRxCopy)
}

// halt ends the senders and waits for them to return (a blocked write
// gives up within sockio.Timeout), so that their counts include every byte
// they handed to the kernel.
func (d *dataPath) halt() {
	d.stop.raise()
	d.unbatch()
	done := make(chan struct{})
	go func() {
		d.senders.Wait()
		close(done)
	}()
	// A peer that stopped reading holds a sender in its last block; the
	// figures go on without it, and shutdown ends it.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// unbatch makes the TCP receivers read every byte as it comes from now on:
// what the peer sent before the end is still arriving, and a batch would
// hold its last bytes for up to a receive timeout, stretching the
// receivers' span. The low-water mark goes back to one byte for a read
// that starts from here (the kernel then wakes a slowly paced receiver
// waiting in the netpoller, recvPolled, for the bytes it holds), and a
// signal (SIGURG, which the runtime takes for a preemption request and
// otherwise ignores) ends a read already waiting for a batch with what it
// has. recvTCP sees the stop and batches no more.
func (d *dataPath) unbatch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.receivers {
		if s.udp {
			continue
		}
		_ = unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1)
		if tid := s.tid.Load(); tid != 0 {
			_ = unix.Tgkill(unix.Getpid(), int(tid), unix.SIGURG)
		}
	}
}

// moved is when this side's count last moved, a paced sender's block or
// data read (the epoch if neither happened): where the loop sets the
// windows of a slowly paced test (client.loop).
func (d *dataPath) moved() time.Time {
	return d.epoch.Add(max(time.Duration(d.paced.Load()), d.lastArrival().Sub(d.epoch)))
}

// wroteUntil is when the senders' last write after the stop returned (the
// epoch if none did): the bytes of those writes count, so the senders'
// span runs to there.
func (d *dataPath) wroteUntil() time.Time {
	return d.epoch.Add(time.Duration(d.late.Load()))
}

// lastArrival is when this side's receivers last read data (the epoch if
// they never did): the end of their span, however late it is looked at.
func (d *dataPath) lastArrival() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	var last int64
	for _, s := range d.receivers {
		last = max(last, s.arrived.Load())
	}
	return d.epoch.Add(time.Duration(last))
}

// shutdown ends every data goroutine, then closes the streams.
func (d *dataPath) shutdown(streams []*stream) {
	d.stop.raise()
	d.closing.Store(true)
	// A batched UDP stream (GSO, GRO, MSG_TRUNC) reads through its
	// net.UDPConn, not a descriptor with a receive timeout: closing the
	// conn is what ends its read.
	for _, s := range streams {
		if s.udp && d.batched(s) {
			s.conn.Close()
		}
		if f := s.polled.Load(); f != nil {
			f.Close()
		}
	}
	d.wg.Wait()
	d.mu.Lock()
	d.receivers = nil // their descriptors close now
	d.mu.Unlock()
	closeAll(streams)
	d.close()
}

// pacer holds a sender to its bitrate block by block, as iperf3 3.21
// does: whenever the sender is ahead of its schedule, its thread sleeps in
// clock_nanosleep until the next block is due. Sleeping only once a whole
// pacing interval ahead (1 ms, iperf3's timer before nanosleep) sent
// bursts of 1 ms at full speed: at -b 10G over loopback, 38 datagrams of
// 32 KiB at once into a receive buffer that holds 6, and 40 % were lost
// where iperf3 3.21 lost 1 %.
type pacer struct {
	bytesPerSec float64
	// start is when the stream started, by Go's clock and as
	// CLOCK_MONOTONIC (the same clock), for absolute sleeps.
	start     time.Time
	startMono time.Duration
	// burst blocks go out back to back between waits (-b RATE/BURST).
	burst, sent int
	// parked says the last wait parked (see park): the sender may hold no
	// P of its own, so it sends without waiting in the kernel (send).
	parked bool
	// alarm is what a parked sender sleeps on, made at its first park;
	// stop ends that sleep.
	alarm *sockio.Alarm
	stop  *stopper
}

func newPacer(bitrate int64, burst int, stop *stopper) *pacer {
	if bitrate <= 0 {
		return nil
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return nil // no monotonic clock: not Linux
	}
	return &pacer{bytesPerSec: float64(bitrate) / 8, start: time.Now(), startMono: time.Duration(ts.Nano()), burst: max(burst, 1), stop: stop}
}

// wait sleeps until total bytes are due, or the stop. The caller holds
// its own thread and P (see sockio.Raw): a short sleep is a raw system
// call, a longer one parks (park).
func (p *pacer) wait(total int64) {
	if p == nil {
		return
	}
	if p.sent++; p.sent < p.burst {
		return
	}
	p.sent = 0
	due := time.Duration(float64(total) / p.bytesPerSec * 1e9)
	for !p.stop.Load() {
		now := time.Since(p.start)
		if now >= due {
			return
		}
		if p.parked = due-now >= parkMin && !sockio.Held(); p.parked {
			p.park(due)
			continue
		}
		// A raw sleep wakes at least every 100 ms to see the stop (a
		// signal, EINTR, only means looking again).
		until := min(due, now+rawSleepMax)
		ts := unix.NsecToTimespec(int64(p.startMono + until))
		unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
}

// parkMin is the shortest wait the pacer sleeps through parked in the
// netpoller (on a sockio.Alarm) rather than in clock_nanosleep on its own
// thread. A raw sleep keeps the thread's P, so the runtime's monitor
// (sysmon) stays awake, polling every 10 ms, and sees a goroutine running
// past its 10 ms slice: it sent preemption signals about 58 times a
// second, each ending the sleep early. Parked, every P can go idle and
// sysmon sleeps. Parking and waking cost more than one raw sleep, so
// short waits (a fast stream's, under 2 ms) stay raw; and so do all while
// a goroutine holds a P of its own (sockio.Held): parked on a runtime
// timer, which could wait on that P, a sender paced at 100 Mbit/s beside
// such a receiver lost a quarter of its rate.
const parkMin = 2 * time.Millisecond

// rawSleepMax is the longest a raw sleep lasts before it looks at the
// stop again: nothing ends it sooner.
const rawSleepMax = 100 * time.Millisecond

// pacingGrid is what a parked sender's wake-up is rounded up to (park).
const pacingGrid = time.Millisecond

// park sleeps until `until` (since the stream's start) on the pacer's
// alarm, or until the stop, with the goroutine's thread let go. It sleeps
// the whole gap, however long: a 128 KiB block at -b 1M is a second away,
// and waking every 100 ms to look at the stop was ten wake-ups a second
// that a one-core board's test did not get. A goroutine locked to its
// thread that parks hands its P to another thread and must be handed it
// back to wake, two thread switches where one will do. It comes back
// locked to whichever thread woke it; the stream's sender needs a thread
// of its own, not a particular one. On a runtime timer (time.Sleep) the
// client of a sender paced at -b 94M switched threads four times a block,
// not once (sockio.Alarm).
func (p *pacer) park(until time.Duration) {
	runtime.UnlockOSThread()
	defer runtime.LockOSThread()
	if p.alarm == nil {
		p.alarm, _ = sockio.NewAlarm() // nil: a runtime timer, below
	}
	// Every parked sender of the process wakes on the same grid of
	// whole milliseconds (iperf3's default pacing timer), so streams due
	// within one go out in one wake-up, as they did on runtime timers:
	// ten streams at -b 94M woken each at its own time took 1.5 times
	// the CPU over loopback, each write waking the receiver anew.
	at := p.startMono + until
	at = (at + pacingGrid - 1) / pacingGrid * pacingGrid
	if p.alarm == nil || p.stop.sleep(p.alarm, at) != nil {
		time.Sleep(min(until-time.Since(p.start), rawSleepMax))
	}
}

// stopper is the senders' stop flag, and what ends the sleep of a sender
// parked until its next block when it is raised.
type stopper struct {
	flag atomic.Bool
	// asleep are the alarms senders sleep on now (under mu): a sender
	// sets its alarm and a raise ends it under the lock, so a sender
	// either sees the flag before it sleeps or is woken.
	mu     sync.Mutex
	asleep map[*sockio.Alarm]bool
}

// Load says whether the stop was raised.
func (s *stopper) Load() bool { return s.flag.Load() }

// raise stops the senders and wakes those asleep.
func (s *stopper) raise() {
	s.flag.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for a := range s.asleep {
		_ = a.Set(0, 0) // goes off at once
	}
}

// sleep waits on a until CLOCK_MONOTONIC reads at, or the stop; at once
// when it was raised.
func (s *stopper) sleep(a *sockio.Alarm, at time.Duration) error {
	s.mu.Lock()
	if s.flag.Load() {
		s.mu.Unlock()
		return nil
	}
	err := a.At(at)
	if err == nil {
		if s.asleep == nil {
			s.asleep = make(map[*sockio.Alarm]bool)
		}
		s.asleep[a] = true
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	err = a.Wait()
	s.mu.Lock()
	delete(s.asleep, a)
	s.mu.Unlock()
	return err
}

// close releases what the pacer slept on.
func (p *pacer) close() {
	if p != nil && p.alarm != nil {
		p.alarm.Close()
	}
}

// send writes b to a stream's socket. A sender whose pacer parks may have
// no P of its own (Params.heldProcs), and a blocking write into a full
// send buffer (a link slower than the pace) would hold the P everything
// else runs on for up to sockio.Timeout: it sends without waiting and, on
// a full buffer, parks parkMin before it tries again.
func (p *pacer) send(fd int, b []byte) (int, syscall.Errno) {
	if p == nil || !p.parked {
		return sockio.Raw(unix.SYS_WRITE, fd, b)
	}
	n, e := sockio.SendNow(fd, b)
	if e == unix.EAGAIN {
		p.park(time.Since(p.start) + parkMin)
	}
	return n, e
}

// blockDone notes when a paced sender finished a block (moved); an
// unpaced sender's time is not looked at.
func (d *dataPath) blockDone(pace *pacer) {
	if pace != nil {
		d.paced.Store(int64(time.Since(d.epoch)))
	}
}

// sent counts a whole block (a UDP datagram) a sender handed to the
// kernel.
func (d *dataPath) sent(s *stream, n int) {
	d.sentBytes(s, n)
	d.totalBlocks.Add(1)
}

func (d *dataPath) sentBytes(s *stream, n int) {
	s.bytes.Add(int64(n))
	d.totalBytes.Add(int64(n))
	d.probe.Poll()
}

// newTCPStream takes a connected TCP socket away from the runtime (see
// sockio): the data path then sleeps in the kernel until the socket is
// ready, as iperf3 does.
func newTCPStream(c net.Conn, id int64, up, send bool) (*stream, error) {
	s := &stream{id: id, up: up, send: send, local: c.LocalAddr().String(), peer: c.RemoteAddr().String()}
	var err error
	if s.fd, err = sockio.Detach(c); err != nil {
		return nil, err
	}
	return s, nil
}

// close closes the stream's socket.
func (s *stream) close() {
	if s.conn != nil {
		s.conn.Close() // a UDP stream whose goroutine never started
	}
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
}

// sendTCP writes whole blocks, as iperf3 does: a write cut short by the
// send timeout is finished before the stop is looked at, because an iperf3
// client reads its data streams in whole blocks after the end and would
// wait for ever for the rest of one.
func (d *dataPath) sendTCP(s *stream) error {
	fd := s.fd
	pace := newPacer(d.p.Bitrate, d.p.Burst, &d.stop)
	defer pace.close()
	blk := len(d.payload)
	buf := d.payload
	if d.memfd < 0 {
		d.chunkOnce.Do(func() {
			p := d.p
			if k := sendChunk / p.Len; k > 1 && p.Bytes == 0 && p.Blocks == 0 && p.Bitrate == 0 {
				d.chunk = bytes.Repeat(d.payload, k)
			}
		})
		if d.chunk != nil {
			buf = d.chunk
		}
	}
	off := 0 // in buf, a multiple of blk at each block's start
	for !d.closing.Load() {
		end := len(buf)
		if off%blk == 0 {
			if d.stop.Load() || d.limitReached() {
				return nil
			}
		} else if d.stop.Load() {
			end = (off/blk + 1) * blk // finish this block only
		}
		var n int
		var e syscall.Errno
		if d.memfd >= 0 {
			o := int64(off)
			var serr error
			n, serr = unix.Sendfile(fd, d.memfd, &o, end-off)
			e, _ = serr.(syscall.Errno)
		} else {
			n, e = pace.send(fd, buf[off:end])
		}
		if n > 0 {
			d.sentBytes(s, n)
			if d.stop.Load() {
				// It finishes the block (the chunk, unpaced) it was
				// writing when the test ended: see wroteUntil. Senders
				// store as blockDone does; the last to return is last.
				d.late.Store(int64(time.Since(d.epoch)))
			}
			if blocks := (off+n)/blk - off/blk; blocks > 0 {
				d.totalBlocks.Add(int64(blocks))
				d.blockDone(pace)
				pace.wait(s.bytes.Load())
			}
			if off += n; off == len(buf) {
				off = 0
			}
		}
		if e != 0 && !sockio.Again(e) {
			return os.NewSyscallError("write", e)
		}
	}
	return nil
}

// recvTCP reads until the connection ends or the test is torn down; the
// session decides which bytes count.
func (d *dataPath) recvTCP(s *stream) error {
	fd := s.fd
	// Reads need not match the sender's blocks: a buffer for the reader
	// to batch with (see sockio.Reader), as large as recvBudget allows.
	buf, free := sockio.Buffer(max(d.p.Len, min(sockio.BatchMax, max(sockio.BatchMin, recvBudget/d.p.streams()))))
	defer free()
	// A receiver asked to skip the copy (--skip-rx-copy) reads with
	// MSG_TRUNC, a read per wake-up as iperf3 3.17+ does, without the
	// low-water batching: an earlier try with both saw streams come out
	// empty (issue 27). TestSkipRxCopyEveryByte checks every stream.
	if d.p.slowPace() && !d.p.SkipRxCopy {
		return d.recvPolled(s, buf)
	}
	r := sockio.Reader{FD: fd, Block: sockio.RawRead, Batch: !d.p.SkipRxCopy, Trunc: d.p.SkipRxCopy}
	for !d.closing.Load() {
		if d.stop.Load() {
			r.Batch = false // see unbatch
		}
		n, e := r.Read(buf)
		switch {
		case e == 0 && n > 0:
			d.received(s, n)
			s.arrived.Store(int64(time.Since(d.epoch)))
		case e == 0:
			return nil // the sender closed the stream
		case !sockio.Again(e):
			return os.NewSyscallError("read", e)
		}
	}
	return nil
}

// recvPolled is recvTCP for a stream paced parkMin or more between blocks
// (-b 94M at 128 KiB): it waits for data in the runtime's netpoller, not in
// a blocking read that holds a P of its own, so between blocks the client
// of a one-core board sleeps whole, as a parked sender does (pacer.wait).
// A blocking read kept the runtime's monitor polling every 10 ms and
// preempting the reader. It waits with no deadline: shutdown closes the
// file to end the wait (a deadline pushed at each read left the runtime's
// timer behind, and the netpoller woke at its old time, a wake-up a block).
// Its thread is let go meanwhile, as park's is: a locked goroutine that
// waits in the netpoller is handed back to its own thread at each wake-up.
func (d *dataPath) recvPolled(s *stream, buf []byte) error {
	runtime.UnlockOSThread()
	defer runtime.LockOSThread()
	f, err := sockio.Polled(s.fd)
	if err != nil {
		return err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	// Published before closing is looked at: either shutdown sees the
	// file and closes it, or this sees closing.
	s.polled.Store(f)
	b := d.newBatch(s)
	for !d.closing.Load() {
		var n int
		var e syscall.Errno
		err := rc.Read(func(fd uintptr) bool {
			n, e = sockio.RecvNow(int(fd), buf)
			return e != unix.EAGAIN
		})
		switch {
		case err != nil && d.closing.Load():
			return nil
		case err != nil:
			return err
		case e == 0 && n > 0:
			d.received(s, n)
			s.arrived.Store(int64(time.Since(d.epoch)))
			d.moveBatch(s, &b, n)
		case e == 0:
			return nil // the sender closed the stream
		case e != unix.EINTR:
			return os.NewSyscallError("read", e)
		}
	}
	return nil
}

// batch is a slowly paced receiver's low-water mark (Params.pollBatch).
// Where bursts come less often than a meter's window, it never reaches
// past the end of the sender's current burst, so that a burst's last
// bytes are read as it completes: with a fixed mark they waited for the
// next burst's first, at -b 1M a second later, and an interval held three
// quarters of a block. The sender writes whole bursts from the stream's
// first byte, as iperf3 does; were it not to, a burst's end would only
// wait as it does with a fixed mark. Faster streams keep a fixed mark:
// their bursts come back to back, a remainder waits no more than a gap
// under 100 ms, and a mark moved at every burst's end more than doubled
// the wake-ups at -b 94M.
type batch struct {
	// most is the mark's largest (0: no batching), burst the sender's
	// burst in bytes when the mark follows it (0: fixed), pos how much
	// of the current one was read, and mark the mark set now.
	most, burst, pos, mark int
}

// newBatch sets a slowly paced receiver's first mark. The mark stays
// under a quarter of the socket's receive buffer: one the buffer cannot
// hold twice over makes the kernel grow the buffer and clamp the window to
// the mark, and the tool would be setting the window of the flow it
// measures.
func (d *dataPath) newBatch(s *stream) batch {
	buf, err := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return batch{}
	}
	b := batch{most: min(d.p.pollBatch(), buf/4), burst: d.p.burstBytes(), mark: 1}
	if b.most <= 1 {
		return batch{}
	}
	if !d.p.sparseBursts() {
		b.burst = 0
	}
	d.moveBatch(s, &b, 0)
	return b
}

// moveBatch counts n bytes read into the burst and sets the mark to what
// is left of it, up to b.most, unless the test is ending: unbatch has set
// it back to one byte then, or is about to, under the same lock.
func (d *dataPath) moveBatch(s *stream, b *batch, n int) {
	if b.most <= 1 {
		return
	}
	want := b.most
	if b.burst > 0 {
		b.pos = (b.pos + n) % b.burst
		want = min(b.most, b.burst-b.pos)
	}
	if want == b.mark {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop.Load() {
		b.most = 0 // one byte from here
		return
	}
	if sockio.SetInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, want) == 0 {
		b.mark = want
	}
}

// udpHeader is the size of the header every datagram starts with.
func (d *dataPath) udpHeader() int {
	if d.p.Counters64 {
		return 16
	}
	return 12
}

func (d *dataPath) sendUDP(s *stream) error {
	pace := newPacer(d.p.Bitrate, d.p.Burst, &d.stop)
	defer pace.close()
	buf := make([]byte, d.p.Len)
	copy(buf, d.payload)
	var seq int64
	for !d.stop.Load() && !d.limitReached() && !d.closing.Load() {
		seq++
		d.stamp(buf, time.Since(d.epoch), seq)
		n, e := pace.send(s.fd, buf)
		switch {
		case e == 0:
			d.sent(s, n)
			s.sent.Store(seq)
		case e == unix.ENOBUFS || e == unix.ECONNREFUSED:
			// A full queue or a receiver not yet (or no longer) bound: the
			// datagram is lost, as it would be on a wire.
			seq--
		case sockio.Again(e):
			seq-- // the send buffer stayed full for sockio.Timeout: try again
		default:
			return os.NewSyscallError("write", e)
		}
		d.blockDone(pace)
		pace.wait(s.bytes.Load())
	}
	return nil
}

func (d *dataPath) recvUDP(s *stream) error {
	buf := make([]byte, maxBlockSizeUDP+1)
	hdr := d.udpHeader()
	for !d.closing.Load() {
		n, e := sockio.RawRead(s.fd, buf)
		switch {
		case e == unix.ECONNREFUSED || sockio.Again(e):
			continue
		case e != 0:
			return os.NewSyscallError("read", e)
		}
		if n < hdr {
			continue // a late hello, or garbage: not a data datagram
		}
		sent, seq := d.readStamp(buf)
		now := time.Since(d.epoch)
		d.received(s, n)
		s.arrived.Store(int64(now))
		s.mu.Lock()
		s.rcv.add(seq, now.Seconds()-sent)
		s.mu.Unlock()
	}
	return nil
}

func (u *udpCounters) add(seq int64, transit float64) {
	if seq >= u.packets+1 {
		if seq > u.packets+1 {
			u.lost += seq - 1 - u.packets
		}
		u.packets = seq
	} else {
		u.outOfOrder++
		if u.lost > 0 {
			u.lost--
		}
	}
	if u.seen {
		d := math.Abs(transit - u.transit)
		u.jitter += (d - u.jitter) / 16
	}
	u.transit, u.seen = transit, true
}
