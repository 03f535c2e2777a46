package httpget

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Polling a fast socket before parking. A read that finds the socket
// empty parks the goroutine in the netpoller, and waking it again costs
// an epoll round, a futex and, on a VM, an exit to the host: over loopback
// that, not the copy, was the limit (3.6 GiB/s where curl, which polls,
// read 5). So when the last read brought a lot (pollAfter: data arrives
// faster than a parked reader wakes), the next one tries the socket a few
// times (pollReads, some tens of microseconds) before it parks. A 100 Mbit/s
// link never brings that much per read and never polls, so a Pi spends no
// CPU on it.
const (
	pollAfter = 64 << 10
	pollReads = 32
)

// pollConn reads through the runtime's raw connection, so deadlines and
// Close still work as on the plain connection: the callback runs with the
// descriptor held, and a false return parks in the netpoller as usual.
type pollConn struct {
	net.Conn
	raw  syscall.RawConn
	buf  []byte
	n    int
	err  error
	poll bool
	// try is p.recv bound once, so that a read allocates no closure.
	try func(fd uintptr) bool
}

// newPollConn wraps c when it is a socket; anything else is returned as is.
func newPollConn(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	p := &pollConn{Conn: c, raw: raw}
	p.try = p.recv
	return p
}

func (p *pollConn) recv(fd uintptr) bool {
	tries := 1
	if p.poll {
		tries = pollReads
	}
	for range tries {
		n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case unix.EAGAIN, unix.EINTR:
			continue
		case 0:
			p.n, p.err = int(n), nil
		default:
			p.n, p.err = 0, os.NewSyscallError("recvfrom", e)
		}
		return true
	}
	p.poll = false
	return false
}

func (p *pollConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.buf = b
	err := p.raw.Read(p.try)
	p.buf = nil
	switch {
	case err != nil:
		return 0, err
	case p.err != nil:
		return 0, p.err
	case p.n == 0:
		return 0, io.EOF
	}
	p.poll = p.n >= pollAfter
	return p.n, nil
}
