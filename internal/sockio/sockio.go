// Package sockio moves bulk data through a TCP socket with as little of
// the Go runtime in the way as the measurement needs: the socket taken out
// of the netpoller, blocking calls with bounded waits, and a reader that
// polls while data arrives faster than a sleeping thread wakes. The
// network test's streams and the HTTP download read through it.
//
// Measured on loopback on a 2-core VM: left in the netpoller's epoll set,
// every segment arriving woke the netpoller (30000 times in 3 s), and
// non-blocking reads added a round of EAGAIN, epoll and goroutine wake-up
// each time the socket ran dry; and a reader that slept between reads
// held TCP to half of what a polling one gets (waking costs an interrupt
// to an idle CPU, on a VM an exit to the host).
package sockio

import (
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timeout bounds each blocking call, so that a loop around it sees a stop
// flag or a deadline within this time.
const Timeout = 100 * time.Millisecond

// Detach takes a connected TCP socket away from the runtime: a duplicate
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

// Again is a blocking call that timed out or was interrupted: look at the
// stop flags or deadline and carry on.
func Again(e syscall.Errno) bool { return e == unix.EAGAIN || e == unix.EINTR }

// pollReads is how many times a busy reader polls before it blocks, about
// 30 us of system calls; pollWindow is the wait of a blocking read short
// enough that polling would have found the data.
const (
	pollReads  = 32
	pollWindow = 30 * time.Microsecond
)

// Reader reads one socket, polling while that pays. A slower stream than a
// wake-up (any real link up to several Gbit/s) makes every read wait
// longer than pollWindow and never polls, so a Pi sleeps between reads.
type Reader struct {
	FD int
	// Block is the blocking read: Raw (holding the P) for a goroutine that
	// has one of its own, Sys (announced) for one that shares.
	Block func(fd int, b []byte) (int, syscall.Errno)
	poll  bool
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
	n, e := 0, syscall.Errno(unix.EAGAIN)
	if r.poll {
		for i := 0; i < pollReads && e == unix.EAGAIN; i++ {
			var u uintptr
			u, _, e = unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(r.FD), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
			n = int(u)
		}
	}
	if e == unix.EAGAIN {
		start := time.Now()
		n, e = r.Block(r.FD, b)
		r.poll = time.Since(start) < pollWindow
	}
	if e != 0 {
		n = 0 // the kernel's -1
	}
	return n, e
}

// Procs gives each of n goroutines reading or writing with Raw a P of its
// own, beside the one everything else needs; the returned function
// restores the setting.
func Procs(n int) func() {
	prev := runtime.GOMAXPROCS(0)
	if n+1 <= prev {
		return func() {}
	}
	runtime.GOMAXPROCS(n + 1)
	return func() { runtime.GOMAXPROCS(prev) }
}
