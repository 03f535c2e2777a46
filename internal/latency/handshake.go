package latency

import (
	"net"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A handshake probe (a stock iperf3 server offers no echo) is a
// non-blocking connect on a socket of its own, outside the runtime's
// netpoller, and its round trip is the one the kernel measured: TCP_INFO's
// RTT of a new connection is its first sample, from the SYN's send to the
// SYN-ACK's arrival, to the microsecond. The prober sends one and looks at
// those under way whenever it wakes for the next probe, so a handshake costs
// four raw system calls and no wake-up of its own. A goroutine dialling
// each one and waiting for it in the netpoller made the client at -b 94M
// against iperf3's server take twice the CPU it took against thruput's.
// The calls are raw for the reason queueReader's are: an announced one
// wakes the runtime's monitor.

// handshake is a probe's connection under way.
type handshake struct {
	fd, seq int
}

// tcpSynSent is TCP_SYN_SENT (linux/tcp_states.h): the SYN is out, no
// answer yet.
const tcpSynSent = 2

// dialer starts handshakes to one server from one local address; the
// addresses are laid out once, so that a probe allocates nothing.
type dialer struct {
	family     int
	to4, from4 unix.RawSockaddrInet4
	to6, from6 unix.RawSockaddrInet6
	bind       bool
	info       unix.TCPInfo
	// kernelRTT says TCP_INFO here carries the round trip; without it
	// (qemu-user) the prober times handshakes itself (dialTimed).
	kernelRTT bool
}

// newDialer makes a dialer to server:port from local (any port; any
// address when nil or unspecified).
func newDialer(local, server net.IP, port int) (*dialer, error) {
	d := &dialer{kernelRTT: roundTripInfo()}
	if v4 := server.To4(); v4 != nil {
		d.family = unix.AF_INET
		d.to4.Family, d.from4.Family = unix.AF_INET, unix.AF_INET
		copy(d.to4.Addr[:], v4)
		setPort(&d.to4.Port, port)
		if l := local.To4(); l != nil && !l.IsUnspecified() {
			copy(d.from4.Addr[:], l)
			d.bind = true
		}
		return d, nil
	}
	if v6 := server.To16(); v6 != nil {
		d.family = unix.AF_INET6
		d.to6.Family, d.from6.Family = unix.AF_INET6, unix.AF_INET6
		copy(d.to6.Addr[:], v6)
		setPort(&d.to6.Port, port)
		if l := local.To16(); l != nil && local.To4() == nil && !l.IsUnspecified() {
			copy(d.from6.Addr[:], l)
			d.bind = true
		}
		return d, nil
	}
	return nil, syscall.EAFNOSUPPORT
}

// rttEnd is how much of TCP_INFO holds the round trip.
var rttEnd = unsafe.Offsetof(unix.TCPInfo{}.Rtt) + unsafe.Sizeof(unix.TCPInfo{}.Rtt)

// roundTripInfo says whether this kernel's TCP_INFO reaches the round
// trip: Linux's always does, qemu-user's copies only its first 4 bytes.
func roundTripInfo() bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var info unix.TCPInfo
	size := uint32(unsafe.Sizeof(info))
	_, _, e := unix.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&size)), 0)
	return e == 0 && uintptr(size) >= rttEnd
}

// setPort stores port in network byte order, as the kernel reads it.
func setPort(p *uint16, port int) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0], b[1] = byte(port>>8), byte(port)
}

// dial starts a handshake and returns its socket without waiting.
func (d *dialer) dial() (int, syscall.Errno) {
	to, tolen := unsafe.Pointer(&d.to4), uintptr(unix.SizeofSockaddrInet4)
	from := unsafe.Pointer(&d.from4)
	if d.family == unix.AF_INET6 {
		to, tolen, from = unsafe.Pointer(&d.to6), unix.SizeofSockaddrInet6, unsafe.Pointer(&d.from6)
	}
	fd, _, e := unix.RawSyscall(unix.SYS_SOCKET, uintptr(d.family), unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	if d.bind {
		if _, _, e := unix.RawSyscall(unix.SYS_BIND, fd, uintptr(from), tolen); e != 0 {
			closeNow(int(fd))
			return -1, e
		}
	}
	if _, _, e := unix.RawSyscall(unix.SYS_CONNECT, fd, uintptr(to), tolen); e != 0 && e != unix.EINPROGRESS {
		closeNow(int(fd))
		return -1, e
	}
	return int(fd), 0
}

// closeNow closes a handshake's socket with a raw close(2): unix.Close is
// an announced system call, and at a probe every 10 ms it kept the
// runtime's monitor awake, polling every 20 us and preempting the sender.
// Closing a socket that has no SO_LINGER never waits.
func closeNow(fd int) {
	_, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
}

// rtt says what became of a handshake: its round trip once the SYN-ACK
// came (done), nothing yet (neither), or failed: refused, unreachable,
// answered only after the SYN was sent again, or the socket unreadable.
func (d *dialer) rtt(fd int) (rtt time.Duration, done, failed bool) {
	size := uint32(unsafe.Sizeof(d.info))
	d.info = unix.TCPInfo{}
	if _, _, e := unix.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&d.info)), uintptr(unsafe.Pointer(&size)), 0); e != 0 {
		return 0, false, true
	}
	switch {
	case d.info.Total_retrans > 0:
		// The SYN was sent again (Linux waits 1 s): the round trip the
		// kernel took from the second one hides the loss, and the
		// time to the answer measured the timer, not the path.
		return 0, false, true
	case d.info.Rtt > 0:
		// The first sample is never 0 (the kernel counts a round
		// trip under a microsecond as one), and before the connection
		// carries data only the SYN-ACK gives one: the connection was
		// made, whatever the server did with it since (iperf3 closes
		// an extra one at once).
		return time.Duration(d.info.Rtt) * time.Microsecond, true, false
	case d.info.State == tcpSynSent:
		return 0, false, false
	}
	return 0, false, true
}
