package latency

import (
	"encoding/binary"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// Receive times come from the kernel (SO_TIMESTAMPNS: when the datagram
// reached the socket), not from when this process woke up to read it: on
// a busy machine the wake-up alone can take longer than the idle path's
// round trip. The kernel stamps CLOCK_REALTIME; the time since the stamp is
// taken off a monotonic reading, so a wall-clock step during the test
// moves nothing.

// stampReceives asks the kernel to stamp conn's datagrams; a socket that
// cannot is read with wake-up times instead.
func stampReceives(conn *net.UDPConn) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	})
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
	now := time.Now()
	msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
	if perr != nil {
		return n, from, 0, nil
	}
	for _, m := range msgs {
		if m.Header.Level != unix.SOL_SOCKET || m.Header.Type != unix.SCM_TIMESTAMPNS {
			continue
		}
		// A struct timespec: two longs, 32-bit on 32-bit ARM.
		var sec, nsec int64
		switch d, ne := m.Data, binary.NativeEndian; len(d) {
		case 16:
			sec, nsec = int64(ne.Uint64(d)), int64(ne.Uint64(d[8:]))
		case 8:
			sec, nsec = int64(int32(ne.Uint32(d))), int64(int32(ne.Uint32(d[4:])))
		default:
			continue
		}
		if ago = now.Sub(time.Unix(sec, nsec)); ago < 0 || ago > time.Second {
			ago = 0
		}
		return n, from, ago, nil
	}
	return n, from, 0, nil
}
