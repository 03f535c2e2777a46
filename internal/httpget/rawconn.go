package httpget

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/sockio"
)

// rawConn is a client connection read through sockio: out of the
// netpoller, blocking reads that poll while the body arrives faster than a
// sleeping reader wakes (see sockio for the measurements). Deadlines and a
// Close from another goroutine work as on a net.Conn: every blocking call
// returns within sockio.Timeout to look at them, and the descriptor is
// closed only when no call is using it.
type rawConn struct {
	r             sockio.Reader
	local, remote net.Addr
	rdl, wdl      atomic.Int64 // deadlines, Unix nanoseconds; 0 = none

	mu     sync.Mutex
	users  int
	closed bool
}

func newRawConn(c net.Conn) (net.Conn, error) {
	local, remote := c.LocalAddr(), c.RemoteAddr()
	fd, err := sockio.Detach(c)
	if err != nil {
		return nil, err
	}
	// Announced reads: the body is read on the caller's goroutine, which
	// shares the Ps with the transport's (holding one while waiting, as
	// the network test's streams do, measured no faster here).
	return &rawConn{r: sockio.Reader{FD: fd, Block: sockio.Sys}, local: local, remote: remote}, nil
}

func (c *rawConn) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.users++
	return true
}

func (c *rawConn) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users--; c.closed && c.users == 0 {
		unix.Close(c.r.FD)
	}
}

// Close wakes any blocked call with shutdown(2); the last call to leave
// closes the descriptor, so none can ever reach a reused one.
func (c *rawConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.closed = true
	_ = unix.Shutdown(c.r.FD, unix.SHUT_RDWR)
	if c.users == 0 {
		unix.Close(c.r.FD)
	}
	return nil
}

func (c *rawConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func past(deadline int64) bool { return deadline != 0 && time.Now().UnixNano() >= deadline }

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if !c.enter() {
		return 0, net.ErrClosed
	}
	defer c.leave()
	for {
		n, e := c.r.Read(b)
		switch {
		case e == 0 && n > 0:
			return n, nil
		case c.isClosed():
			return 0, net.ErrClosed
		case e == 0:
			return 0, io.EOF
		case !sockio.Again(e):
			return 0, os.NewSyscallError("read", e)
		case past(c.rdl.Load()):
			return 0, os.ErrDeadlineExceeded
		}
	}
}

func (c *rawConn) Write(b []byte) (int, error) {
	if !c.enter() {
		return 0, net.ErrClosed
	}
	defer c.leave()
	done := 0
	for done < len(b) {
		n, err := unix.Write(c.r.FD, b[done:])
		if n > 0 {
			done += n
		}
		e, _ := err.(syscall.Errno)
		switch {
		case err == nil:
		case c.isClosed():
			return done, net.ErrClosed
		case !sockio.Again(e):
			return done, os.NewSyscallError("write", err)
		case past(c.wdl.Load()):
			return done, os.ErrDeadlineExceeded
		}
	}
	return done, nil
}

func (c *rawConn) LocalAddr() net.Addr  { return c.local }
func (c *rawConn) RemoteAddr() net.Addr { return c.remote }

func (c *rawConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *rawConn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(unixNano(t))
	return nil
}

func (c *rawConn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(unixNano(t))
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
