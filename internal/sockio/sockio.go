// Package sockio moves bulk data through a socket with as little of the
// Go runtime in the way as the measurement needs: the socket taken out of
// the netpoller, blocking calls with bounded waits, and a reader that
// polls or asks the kernel for batches while data arrives faster than a
// sleeping thread wakes. The network test's streams (TCP and UDP) and the
// HTTP download read through it; paced senders and the latency probes
// sleep on its Alarm.
//
// Measured on loopback on a 2-core VM: left in the netpoller's epoll set,
// every segment arriving woke the netpoller (30000 times in 3 s), and
// non-blocking reads added a round of EAGAIN, epoll and goroutine wake-up
// each time the socket ran dry; a reader that slept between reads held
// TCP to half of what a polling one gets (waking costs an interrupt to an
// idle CPU, on a VM an exit to the host); and a reader woken once per
// 256 KiB batch instead of per 64 KiB segment spent about half the CPU per
// byte of one that polled.
package sockio

import (
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timeout bounds each blocking call, so that a loop around it sees a stop
// flag or a deadline within this time.
const Timeout = 100 * time.Millisecond

// Detach takes a connected socket away from the runtime: a duplicate
// descriptor in blocking mode with Timeout on sends and receives; c itself
// is closed, which removes the original from the netpoller.
func Detach(c net.Conn) (int, error) {
	defer c.Close()
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, syscall.EINVAL
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, os.NewSyscallError("dup", derr)
	}
	tv := unix.NsecToTimeval(Timeout.Nanoseconds())
	for _, err := range []error{
		unix.SetNonblock(fd, false),
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv),
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv),
	} {
		if err != nil {
			unix.Close(fd)
			return -1, os.NewSyscallError("setsockopt", err)
		}
	}
	return fd, nil
}

// Raw is read(2) or write(2) without telling the scheduler: the thread
// keeps its P while the call sleeps (at most Timeout). Announced system
// calls that block a few microseconds each keep the runtime's monitor
// waking every 20 us to hand the P on, which on a 2-core machine took a
// third of a single stream's throughput. A goroutine calling it needs a P
// of its own.
func Raw(trap uintptr, fd int, b []byte) (int, syscall.Errno) {
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), e
}

// SendNow is Raw for send(2) that does not wait (MSG_DONTWAIT): EAGAIN
// when the socket's send buffer is full.
func SendNow(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
	return int(n), e
}

// TCPInfo reads a TCP socket's TCP_INFO into info with a raw getsockopt:
// the kernel copies it from the socket and never waits, and the once-a-
// second interval report that reads it would otherwise wake a sleeping
// sysmon (see Alarm).
func TCPInfo(fd int, info *unix.TCPInfo) syscall.Errno {
	size := uint32(unix.SizeofTCPInfo)
	_, _, e := unix.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(info)), uintptr(unsafe.Pointer(&size)), 0)
	return e
}

// SetInt sets an integer socket option with a raw setsockopt, and
// SetTimeval a time one: a receiver moves its low-water mark and read
// timeout as its bursts come and go, and each announced call woke a
// sleeping sysmon (see Alarm). The kernel sets them without waiting.
func SetInt(fd, level, opt, value int) syscall.Errno {
	v := int32(value)
	_, _, e := unix.RawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt), uintptr(unsafe.Pointer(&v)), unsafe.Sizeof(v), 0)
	return e
}

// SetTimeval is SetInt for an option that takes a struct timeval
// (SO_RCVTIMEO, SO_SNDTIMEO).
func SetTimeval(fd, level, opt int, d time.Duration) syscall.Errno {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	_, _, e := unix.RawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt), uintptr(unsafe.Pointer(&tv)), unsafe.Sizeof(tv), 0)
	return e
}

// Polled is a pollable duplicate of a socket detached by Detach, for a
// goroutine that waits for it in the runtime's netpoller, holding no P
// meanwhile. The duplicate shares the socket and its flags: the socket is
// non-blocking from here on, so read it only through the File (see
// RecvNow) and close both.
func Polled(fd int) (*os.File, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("dup", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(nfd), "socket"), nil
}

// RecvNow is a raw recv(2) that does not wait (MSG_DONTWAIT): EAGAIN when
// nothing is queued.
func RecvNow(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
	return int(n), e
}

// Again is a blocking call that timed out or was interrupted: look at the
// stop flags or deadline and carry on.
func Again(e syscall.Errno) bool { return e == unix.EAGAIN || e == unix.EINTR }

// pollReads is how many times a busy reader polls before it blocks, about
// 30 us of system calls; fastWait is the wait of a blocking read short
// enough that polling would have found the data.
//
// A busy reader that may batch (Reader.Batch) reads in batches instead:
// SO_RCVLOWAT makes the kernel wake it only once a batch (its buffer, at
// most BatchMax) is queued or the stream ends, and batchTimeout bounds how
// long a batch may hold the last bytes of a burst. Each wake-up costs the
// reader a context switch and the sender an interrupt to the reader's CPU
// (on a VM an exit to the host); each poll that finds nothing costs a
// system call. A batch cut short by batchTimeout (a slower stream)
// switches back. On loopback (64 KiB segments) 512 KiB batches took 10 %
// less CPU per byte, sender and receiver together, than 256 KiB ones.
const (
	pollReads    = 32
	fastWait     = 30 * time.Microsecond
	batchTimeout = 4 * time.Millisecond
	// BatchMin and BatchMax bound the buffer a Reader batches with.
	BatchMin = 128 << 10
	BatchMax = 512 << 10
)

// Reader reads one socket detached by Detach, polling or batching while
// that pays. A slower stream than a wake-up (any real link up to several
// Gbit/s) makes every read wait longer than fastWait and does neither, so
// a Pi sleeps between reads.
type Reader struct {
	FD int
	// Block is the blocking read: Raw (holding the P) for a goroutine that
	// has one of its own, Sys (announced) for one that shares.
	Block func(fd int, b []byte) (int, syscall.Errno)
	// Batch lets a busy reader with a buffer of at least BatchMin read
	// in batches rather than poll. The last bytes of a burst then come up
	// to batchTimeout late: fine for a stream that runs for seconds, not
	// for a request waiting on its reply. Clearing it ends batches at the
	// next Read.
	Batch bool
	// Trunc reads with MSG_TRUNC: on a TCP socket the kernel counts and
	// drops the bytes without copying them out (iperf3's --skip-rx-copy),
	// so b only bounds how many a read takes. Its reads are raw (see Raw),
	// for a goroutine with a P of its own; Block is not called.
	Trunc bool
	poll  bool
	// lowat is the batch size while batching, 0 when not.
	lowat int
}

// Sys is an announced read(2), for readers without a P of their own.
func Sys(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := unix.Syscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), e
}

// RawRead is Raw for read(2), the Block of a reader with a P of its own.
func RawRead(fd int, b []byte) (int, syscall.Errno) { return Raw(unix.SYS_READ, fd, b) }

// Read reads once: n > 0 data, n == 0 and e == 0 the end of the stream,
// Again(e) nothing within Timeout.
func (r *Reader) Read(b []byte) (int, syscall.Errno) {
	if r.lowat > 0 && !r.Batch {
		r.setBatch(0)
	}
	if r.lowat > 0 {
		n, e := r.block(b)
		switch {
		case e == 0 && n >= r.lowat:
			return n, 0
		case e == unix.EINTR:
			return 0, e // a signal before any byte
		}
		// Cut short: a slower stream, its end, or an error. (A signal
		// after some bytes too: the next fast read batches again.)
		r.setBatch(0)
		if e != unix.EAGAIN {
			if e != 0 {
				n = 0 // the kernel's -1
			}
			return n, e
		}
	}
	n, e := 0, syscall.Errno(unix.EAGAIN)
	if r.poll {
		for i := 0; i < pollReads && e == unix.EAGAIN; i++ {
			n, e = r.recv(b, unix.MSG_DONTWAIT)
		}
	}
	if e == unix.EAGAIN {
		start := time.Now()
		n, e = r.block(b)
		fast := e == 0 && n > 0 && time.Since(start) < fastWait
		if fast && r.Batch && len(b) >= BatchMin {
			r.setBatch(min(len(b), BatchMax))
			fast = false
		}
		r.poll = fast
	}
	if e != 0 {
		n = 0 // the kernel's -1
	}
	return n, e
}

// block is the reader's blocking read: Block, or a raw MSG_TRUNC recv.
func (r *Reader) block(b []byte) (int, syscall.Errno) {
	if r.Trunc {
		return r.recv(b, 0)
	}
	return r.Block(r.FD, b)
}

// recv is a raw recvfrom(2) (the caller keeps its P, as with Raw) with
// flags, and MSG_TRUNC for a Trunc reader.
func (r *Reader) recv(b []byte, flags int) (int, syscall.Errno) {
	if r.Trunc {
		flags |= unix.MSG_TRUNC
	}
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(r.FD), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(flags), 0, 0)
	return int(n), e
}

// setBatch sets the socket's low-water mark and receive timeout for
// batches of lowat bytes, or for single reads (lowat 0). A socket that
// refuses stays as it was: reads are still correct, only more wake-ups.
func (r *Reader) setBatch(lowat int) {
	timeout := batchTimeout
	if lowat == 0 {
		timeout = Timeout
	}
	if SetTimeval(r.FD, unix.SOL_SOCKET, unix.SO_RCVTIMEO, timeout) != 0 {
		return
	}
	if SetInt(r.FD, unix.SOL_SOCKET, unix.SO_RCVLOWAT, max(lowat, 1)) != 0 && lowat > 0 {
		_ = SetTimeval(r.FD, unix.SOL_SOCKET, unix.SO_RCVTIMEO, Timeout)
		return
	}
	r.lowat = lowat
}

// Buffer is n bytes outside the Go heap, for a data path's long-lived
// buffers, and the function that gives them back (call it once nothing
// reads or writes them any more). On the heap the garbage collector's
// goal counts them twice (it lets the heap grow to twice what is live
// before collecting), and the receivers' buffers are most of what a
// network test keeps live: off the heap, a -P 10 client's peak memory
// drops by their size. Where mmap fails (it should not) the buffer is an
// ordinary slice.
func Buffer(n int) ([]byte, func()) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n), func() {}
	}
	var once sync.Once
	return b, func() { once.Do(func() { _ = unix.Munmap(b) }) }
}

// Procs gives each of n goroutines reading or writing with Raw a P of its
// own, beside the one everything else needs, for as long as the returned
// function is not called. Reservations add up, so tests running at once
// (a server with several clients) each keep theirs; the setting returns
// to what it was when the last one ends.
func Procs(n int) func() {
	procs.Lock()
	defer procs.Unlock()
	if procs.reserved == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.reserved += n
	procs.apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.Lock()
			defer procs.Unlock()
			procs.reserved -= n
			procs.apply()
		})
	}
}

// Held says whether some goroutine of the process holds a P of its own
// (Procs) now. A runtime timer then may wait on a P that such a goroutine
// keeps until the runtime preempts it: a sender paced at 100 Mbit/s that
// slept on a timer beside a receiver in the same process lost a quarter
// of its rate.
func Held() bool {
	procs.Lock()
	defer procs.Unlock()
	return procs.reserved > 0
}

// procs is the Ps that Procs reserved, and the setting before the first.
var procs reservations

type reservations struct {
	sync.Mutex
	base, reserved int
}

// apply sets GOMAXPROCS for the reservations (under the lock).
func (r *reservations) apply() {
	if r.reserved+1 > r.base {
		runtime.GOMAXPROCS(r.reserved + 1)
	} else {
		runtime.GOMAXPROCS(r.base)
	}
}

// Alarm is a sleep that the runtime's netpoller ends: a timerfd the
// sleeping goroutine reads through the poller. A runtime timer (time.Sleep,
// a Ticker) is woken by a netpoller that waits in whole milliseconds, so
// an 11 ms sleep took two waits; the runtime's monitor (sysmon) sleeps
// only until the next timer, a third wake-up; and a timer pushed later
// wakes the netpoller at the time it had before. With a timerfd the
// netpoller waits for the descriptor and wakes once, at the nanosecond,
// and moving it wakes nothing. Its system calls are raw: an announced one
// wakes a sleeping sysmon, which then polls every 20 us until the process
// is idle again, five more thread switches a wake-up.
type Alarm struct {
	f  *os.File
	rc syscall.RawConn
	// read and settime are what Wait and set hand the descriptor to,
	// made once: a closure made at each call escapes to the heap (the
	// RawConn keeps no reference, but the compiler cannot see that), two
	// allocations a wake-up of the latency probes. buf is the one waiter's
	// (see C); mu guards the set's arguments and result between setters.
	read    func(fd uintptr) bool
	settime func(fd uintptr)
	buf     [8]byte
	mu      sync.Mutex
	its     unix.ItimerSpec
	flags   int
	errno   syscall.Errno
	once    sync.Once
	c       chan struct{}
}

// NewAlarm makes an alarm on CLOCK_MONOTONIC, unset; Close it.
func NewAlarm() (*Alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	a := &Alarm{f: f, rc: rc}
	a.read = func(fd uintptr) bool {
		_, e := Raw(unix.SYS_READ, int(fd), a.buf[:])
		return e != unix.EAGAIN
	}
	a.settime = func(fd uintptr) {
		_, _, a.errno = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, uintptr(a.flags), uintptr(unsafe.Pointer(&a.its)), 0, 0, 0)
	}
	return a, nil
}

// Set makes the alarm go off after d, then every `every` (0: once), in
// place of whatever it was set to.
func (a *Alarm) Set(d, every time.Duration) error {
	return a.set(0, max(d, 1), every)
}

// set goes through the File's descriptor (Control), so that a set after
// Close fails rather than reaching whatever took the number since.
func (a *Alarm) set(flags int, at, every time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.its = unix.ItimerSpec{Value: unix.NsecToTimespec(int64(at)), Interval: unix.NsecToTimespec(int64(every))}
	a.flags, a.errno = flags, 0
	if err := a.rc.Control(a.settime); err != nil {
		return err
	}
	if a.errno != 0 {
		return os.NewSyscallError("timerfd_settime", a.errno)
	}
	return nil
}

// Wait sleeps until the alarm goes off, at once if it went off since the
// last Wait; an error once the alarm is closed. One goroutine waits at a
// time.
func (a *Alarm) Wait() error { return a.rc.Read(a.read) }

// At makes the alarm go off once CLOCK_MONOTONIC reads t (at once when
// it has), in place of whatever it was set to, without waiting for it.
func (a *Alarm) At(t time.Duration) error {
	return a.set(unix.TFD_TIMER_ABSTIME, max(t, 1), 0)
}

// C is a channel that receives whenever the alarm goes off, for a select
// beside other channels; a goroutine waits for the alarm from the first
// call until Close. Use either C or Wait, not both.
func (a *Alarm) C() <-chan struct{} {
	a.once.Do(func() {
		a.c = make(chan struct{}, 1)
		go func() {
			for a.Wait() == nil {
				select {
				case a.c <- struct{}{}:
				default: // one not yet taken stands for both
				}
			}
		}()
	})
	return a.c
}

// Close releases the timerfd; a Wait under way returns.
func (a *Alarm) Close() error { return a.f.Close() }
