package latency

import (
	"encoding/binary"
	"net"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/sockio"
)

// Receive times come from the kernel (SO_TIMESTAMPNS: when the datagram
// reached the socket), not from when this process woke up to read it: on
// a busy machine the wake-up alone can take longer than the idle path's
// round trip. The kernel stamps CLOCK_REALTIME; the time since the stamp is
// taken off a monotonic reading, so a wall-clock step during the test
// moves nothing.
//
// With the kernel's stamps the prober need not wake for each echo at all:
// it reads the echoes queued since the last probe when it wakes to send
// the next one (a queueReader), one wake-up a probe instead of two.

// maxStampAge bounds how old a stamp may be when it is read: echoes wait
// in the queue for up to one probe interval (at most 1 s), and a stamp
// older than this, or from the future, means the wall clock stepped.
const maxStampAge = 5 * time.Second

// stampReceives asks the kernel to stamp conn's datagrams and says
// whether it will; a socket that cannot is read with wake-up times
// instead.
func stampReceives(conn *net.UDPConn) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return false
	}
	return serr == nil
}

// stampsLive waits, at most limit, until the kernel stamps datagrams as
// they arrive, and says whether it does. The first socket on a machine to
// ask for receive stamps turns them on for all in a deferred work item
// (net_enable_timestamp); until that has run, a datagram is stamped when
// it is read, so an echo read at the next probe would look an interval
// late. On a loaded machine that took more than the 20 ms a test waited
// (TestQueueReader). A datagram a socket sends itself shows which: stamped
// as it arrived, its stamp is older than its read by the sleep between.
func stampsLive(limit time.Duration) bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) != nil ||
		unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) != nil {
		return false
	}
	self, err := unix.Getsockname(fd)
	if err != nil {
		return false
	}
	const gap = time.Millisecond
	buf, oob := make([]byte, 1), make([]byte, oobSize)
	for start := time.Now(); time.Since(start) < limit; {
		if unix.Sendto(fd, buf, 0, self) != nil {
			return false
		}
		time.Sleep(gap)
		_, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, 0)
		if err == nil && stampAge(oob[:oobn], time.Now()) >= gap/2 {
			return true
		}
	}
	return false
}

// oobSize holds one SCM_TIMESTAMPNS message.
var oobSize = unix.CmsgSpace(16)

// readStamped reads one datagram and how long ago the kernel received it
// (0 without a stamp).
func readStamped(conn *net.UDPConn, buf, oob []byte) (n int, from *net.UDPAddr, ago time.Duration, err error) {
	n, oobn, _, from, err := conn.ReadMsgUDP(buf, oob)
	if err != nil {
		return n, from, 0, err
	}
	return n, from, stampAge(oob[:oobn], time.Now()), nil
}

// stampAge finds the receive stamp among a datagram's control messages
// and says how long before now it was taken; 0 without one. It allocates
// nothing: the prober calls it for every echo.
func stampAge(oob []byte, now time.Time) time.Duration {
	for len(oob) > 0 {
		h, d, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return 0
		}
		oob = rest
		if h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS {
			continue
		}
		// A struct timespec: two longs, 32-bit on 32-bit ARM.
		var sec, nsec int64
		switch ne := binary.NativeEndian; len(d) {
		case 16:
			sec, nsec = int64(ne.Uint64(d)), int64(ne.Uint64(d[8:]))
		case 8:
			sec, nsec = int64(int32(ne.Uint32(d))), int64(int32(ne.Uint32(d[4:])))
		default:
			continue
		}
		if ago := now.Sub(time.Unix(sec, nsec)); ago >= 0 && ago <= maxStampAge {
			return ago
		}
		return 0
	}
	return 0
}

// queueReader reads the datagrams queued on a stamped socket without
// waiting and without allocating, and sends the probes. The socket is out
// of the runtime's netpoller (sockio.Detach): left in it, every echo woke
// the netpoller's thread for a read nobody waited on, which cost more
// than the wake-up it was meant to save. Its methods are called under the
// prober's lock, which also guards the descriptor against its close.
// Neither call waits (MSG_DONTWAIT), so both are raw system calls: an
// announced one wakes the runtime's monitor, which then polls for a
// millisecond, every probe.
type queueReader struct {
	fd       int
	buf, oob []byte
	iov      unix.Iovec
	hdr      unix.Msghdr
}

// newQueueReader takes conn over; conn is closed.
func newQueueReader(conn *net.UDPConn) (*queueReader, error) {
	fd, err := sockio.Detach(conn)
	if err != nil {
		return nil, err
	}
	q := &queueReader{fd: fd, buf: make([]byte, probeSize+1), oob: make([]byte, oobSize)}
	q.iov.Base = &q.buf[0]
	q.iov.SetLen(len(q.buf))
	q.hdr.Iov = &q.iov
	q.hdr.SetIovlen(1)
	q.hdr.Control = &q.oob[0]
	return q, nil
}

// next reads one queued datagram: its bytes and when the kernel received
// it, on the monotonic clock (time.Since works on it). ok is false once
// the queue is empty or the socket closed.
func (q *queueReader) next() (b []byte, at time.Time, ok bool) {
	for q.fd >= 0 {
		q.hdr.SetControllen(len(q.oob))
		n, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(q.fd), uintptr(unsafe.Pointer(&q.hdr)), unix.MSG_DONTWAIT)
		switch e {
		case 0:
			now := time.Now()
			return q.buf[:n], now.Add(-stampAge(q.oob[:int(q.hdr.Controllen)], now)), true
		case unix.EINTR, unix.ECONNREFUSED:
			// ICMP port unreachable comes back as ECONNREFUSED on the
			// connected socket, once: the probe was lost, and the
			// datagrams behind it are still there.
			continue
		default:
			return nil, at, false
		}
	}
	return nil, at, false
}

// send sends one probe; a full send buffer loses it rather than wait.
func (q *queueReader) send(b []byte) {
	if q.fd >= 0 {
		_, _, _ = unix.RawSyscall6(unix.SYS_SENDTO, uintptr(q.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
	}
}

func (q *queueReader) close() {
	if q.fd >= 0 {
		unix.Close(q.fd)
		q.fd = -1
	}
}
