package iperf3

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/payload"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// The per-test socket options both ends apply to every data stream, as
// iperf3 does, so that the server's sender in -R and --bidir does what the
// client asked for: the TOS byte, fair-queue pacing, Don't Fragment, the
// segment size. A failure is refused with iperf3's own error number.

// streamOptions applies the options that work on a socket before or after
// it connects. udp says which protocol the socket speaks.
func streamOptions(fd int, p *Params, udp bool) error {
	v6 := false
	if sa, err := unix.Getsockname(fd); err == nil {
		_, v6 = sa.(*unix.SockaddrInet6)
	}
	if p.TOS != 0 {
		if v6 {
			if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_TCLASS, p.TOS); err != nil {
				return refuse(ieSetCOS, "IPV6_TCLASS %#x: %v", p.TOS, err)
			}
			// A v4-mapped peer on a dual-stack socket takes the v4 byte;
			// a pure v6 socket refuses it, which does not matter.
			_ = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_TOS, p.TOS)
		} else if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_TOS, p.TOS); err != nil {
			return refuse(ieSetTOS, "IP_TOS %#x: %v", p.TOS, err)
		}
	}
	if p.FQRate > 0 {
		// iperf3 hands the kernel bytes per second.
		if err := unix.SetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE, uint64(p.FQRate/8)); err != nil {
			return refuse(ieSetPacing, "SO_MAX_PACING_RATE %d B/s: %v", p.FQRate/8, err)
		}
	}
	if p.DontFragment && udp {
		// A server's dual-stack socket is AF_INET6 and carries IPv4
		// peers as mapped addresses: it takes the IPv4 option too.
		err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
		if v6 {
			err = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_DO)
		}
		if err != nil {
			return refuse(ieSetDontFrag, "IP_MTU_DISCOVER: %v", err)
		}
	}
	if udp && p.GRO {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_UDP, unix.UDP_GRO, 1); err != nil {
			return refuse(ieProtocol, "UDP_GRO: %v", err)
		}
	}
	return nil
}

// acceptedOptions applies a test's options to a TCP data connection the
// server accepted.
func acceptedOptions(c *net.TCPConn, p *Params) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = streamOptions(int(fd), p, false)
		if serr == nil && p.MSS > 0 {
			// On an accepted socket the MSS caps what this end sends,
			// which is what the server's sender in -R needs.
			if err := unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG, p.MSS); err != nil {
				serr = refuse(ieMSS, "TCP_MAXSEG %d: %v", p.MSS, err)
			}
		}
	}); err != nil {
		return err
	}
	return serr
}

// mptcpAvailable says whether this kernel makes multipath TCP sockets.
func mptcpAvailable() bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_MPTCP)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// fillPayload fills a sender's block: random bytes, or with
// --repeating-payload the digits 0-9 over and over as iperf3 writes them.
func fillPayload(b []byte, repeating bool) {
	if !repeating {
		payload.Fill(b)
		return
	}
	for i := range b {
		b[i] = '0' + byte(i%10)
	}
}

// gsoSizes are a GSO sender's datagram and batch sizes: the batch a whole
// number of datagrams, as iperf3 rounds it.
func (d *dataPath) gsoSizes() (dg, batch int) {
	dg = d.p.GSODg
	if dg == 0 {
		dg = d.p.Len
	}
	batch = d.p.GSOBuf
	if batch == 0 {
		batch = maxBlockSizeUDP
	}
	return dg, max(batch/dg, 1) * dg
}

// sendUDPGSO writes datagrams in batches the kernel cuts up (UDP_SEGMENT),
// each datagram with its own header, so the receiver cannot tell them from
// single writes.
func (d *dataPath) sendUDPGSO(s *stream) error {
	dg, batch := d.gsoSizes()
	uc, ok := s.conn.(*net.UDPConn)
	if !ok {
		return errors.New("GSO: not a UDP socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_UDP, unix.UDP_SEGMENT, dg)
	}); err != nil || serr != nil {
		return refuse(ieProtocol, "UDP_SEGMENT %d: %v", dg, firstErr(err, serr))
	}
	pace := newPacer(d.p.Bitrate, d.p.Burst, &d.stop)
	defer pace.close()
	buf := make([]byte, batch)
	for off := 0; off < batch; off += dg {
		copy(buf[off:off+dg], d.payload)
	}
	var seq int64
	for !d.stop.Load() && !d.limitReached() {
		since := time.Since(d.epoch)
		for off := 0; off < batch; off += dg {
			seq++
			d.stamp(buf[off:], since, seq)
		}
		n, err := uc.Write(buf)
		switch {
		case err == nil:
			for range n / dg {
				d.sent(s, dg)
			}
			s.sent.Store(seq)
		case errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.ECONNREFUSED):
			seq -= int64(batch / dg)
		default:
			return err
		}
		d.blockDone(pace)
		pace.wait(s.bytes.Load())
	}
	return nil
}

// recvUDPBatch is the UDP receiver for --gsro and --skip-rx-copy: with
// GRO one read may carry several datagrams of the size the kernel tells
// in a control message; with MSG_TRUNC only the header is copied out.
func (d *dataPath) recvUDPBatch(s *stream) error {
	uc, ok := s.conn.(*net.UDPConn)
	if !ok {
		return errors.New("GRO: not a UDP socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	// With GRO each coalesced datagram's header must be read, so the
	// batch is copied out whole; MSG_TRUNC alone copies just the header
	// and still returns the datagram's length.
	hdr := d.udpHeader()
	trunc := d.p.SkipRxCopy && !d.p.GRO
	buf := make([]byte, maxBlockSizeUDP+1)
	flags := 0
	if trunc {
		buf, flags = buf[:hdr], unix.MSG_TRUNC
	}
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		var n, oobn int
		var rerr error
		err := raw.Read(func(fd uintptr) bool {
			n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, flags)
			return !errors.Is(rerr, unix.EAGAIN)
		})
		if err == nil {
			err = rerr
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) {
				return nil
			}
			if errors.Is(err, unix.ECONNREFUSED) {
				continue
			}
			return err
		}
		if n < hdr {
			continue
		}
		seg := n
		if gs := groSegment(oob[:oobn]); gs > 0 && d.p.GRO {
			seg = gs
		}
		now := time.Since(d.epoch)
		arrived := now.Seconds()
		for off := 0; off+hdr <= n; off += seg {
			sent, seq := d.readStamp(buf[off:])
			d.received(s, min(seg, n-off))
			s.mu.Lock()
			s.rcv.add(seq, arrived-sent)
			s.mu.Unlock()
		}
		s.arrived.Store(int64(now))
	}
}

// groSegment reads the UDP_GRO control message: the size of each datagram
// the kernel coalesced into one read, 0 if it did not.
func groSegment(oob []byte) int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_UDP && m.Header.Type == unix.UDP_GRO && len(m.Data) >= 4 {
			return int(*(*int32)(unsafe.Pointer(&m.Data[0])))
		}
	}
	return 0
}

// bindControl is the client's Control for every socket it dials: the
// device of -B host%dev or --bind-dev, then the test's options.
func bindControl(dev string, p *Params, withOpts bool) func(network, address string, rc syscall.RawConn) error {
	return func(network, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			if dev != "" {
				if err := unix.BindToDevice(int(fd), dev); err != nil {
					serr = refuse(ieBindDev, "SO_BINDTODEVICE %s: %v", dev, err)
					return
				}
			}
			if !withOpts {
				return
			}
			if serr = applySocketOptions(int(fd), p, network); serr == nil {
				serr = streamOptions(int(fd), p, len(network) >= 3 && network[:3] == "udp")
			}
		})
		return firstErr(err, serr)
	}
}

// tcpInfo is what iperf3 3.21 reports from TCP_INFO beside the congestion
// window and RTT.
type tcpInfo struct {
	sndWnd, rttVar, pmtu, reorder int64
}

func tcpExtra(i *unix.TCPInfo) tcpInfo {
	return tcpInfo{int64(i.Snd_wnd), int64(i.Rttvar), int64(i.Pmtu), int64(i.Reordering)}
}

func (t tcpInfo) fill(f *result.NetIntervalFlow) {
	f.SndWndBytes, f.RTTVarUs, f.PMTU, f.Reorder = t.sndWnd, t.rttVar, t.pmtu, t.reorder
}

// extra follows the largest peer window and the last reordering metric,
// as iperf3's end summary gives them.
func (a *tcpAgg) extra(t tcpInfo) {
	a.maxSndWnd = max(a.maxSndWnd, t.sndWnd)
	a.reorder = t.reorder
}

// socketBuffers reads a data socket's send and receive buffer sizes as
// the kernel set them (iperf3's sndbuf_actual and rcvbuf_actual): from fd
// when the stream was taken out of the runtime, else from conn.
func socketBuffers(conn net.Conn, fd int) (snd, rcv int) {
	get := func(fd int) {
		snd, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF)
		rcv, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	}
	if fd >= 0 {
		get(fd)
		return snd, rcv
	}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) { get(int(fd)) })
		}
	}
	return snd, rcv
}

// stamp writes a datagram's header: the send time since the epoch in
// seconds and microseconds, then the sequence number, all big-endian.
func (d *dataPath) stamp(b []byte, since time.Duration, seq int64) {
	binary.BigEndian.PutUint32(b[0:], uint32(since/time.Second))
	binary.BigEndian.PutUint32(b[4:], uint32(since%time.Second/time.Microsecond))
	if d.p.Counters64 {
		binary.BigEndian.PutUint64(b[8:], uint64(seq))
	} else {
		binary.BigEndian.PutUint32(b[8:], uint32(seq))
	}
}

// readStamp reads what stamp wrote: the send time in seconds and the
// sequence number.
func (d *dataPath) readStamp(b []byte) (sent float64, seq int64) {
	sent = float64(binary.BigEndian.Uint32(b[0:])) + float64(binary.BigEndian.Uint32(b[4:]))/1e6
	if d.p.Counters64 {
		return sent, int64(binary.BigEndian.Uint64(b[8:]) & math.MaxInt64)
	}
	return sent, int64(binary.BigEndian.Uint32(b[8:]))
}

// Linux's IPv6 flow label manager (linux/in6.h), which x/sys/unix lacks.
const (
	ipv6FlowlabelMgr = 32
	ipv6FlowinfoSend = 33
	ipv6FlCreate     = 1
	ipv6FlShareAny   = 255
)

// dialFlowLabel connects a TCP data stream over IPv6 with its flow label,
// as iperf3 does: the label is leased from the kernel for the destination
// and given in the connect address, which Go's dialer cannot set.
func (c *client) dialFlowLabel(ctx context.Context, local *net.TCPAddr) (net.Conn, error) {
	_, dev := c.cfg.bind()
	remote := c.ctrl.RemoteAddr().(*net.TCPAddr)
	if remote.IP.To4() != nil {
		return nil, usage.Invalidf("{FlowLabel}: a flow label needs IPv6, and %s is IPv4", remote.IP)
	}
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
		}
	}()
	if err := bindControl(dev, c.p, true)("tcp6", "", rawFD(fd)); err != nil {
		return nil, err
	}
	if local != nil {
		sa := &unix.SockaddrInet6{Port: local.Port}
		copy(sa.Addr[:], local.IP.To16())
		if err := unix.Bind(fd, sa); err != nil {
			return nil, os.NewSyscallError("bind", err)
		}
	}
	label := uint32(c.p.FlowLabel) & 0xfffff
	var req [32]byte // struct in6_flowlabel_req
	copy(req[0:16], remote.IP.To16())
	binary.BigEndian.PutUint32(req[16:], label)
	req[21] = ipv6FlShareAny
	binary.NativeEndian.PutUint16(req[22:], ipv6FlCreate)
	if _, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.IPPROTO_IPV6, ipv6FlowlabelMgr,
		uintptr(unsafe.Pointer(&req[0])), uintptr(len(req)), 0); e != 0 {
		return nil, refuse(ieSetFlow, "IPV6_FLOWLABEL_MGR %#x: %v", label, e)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, ipv6FlowinfoSend, 1); err != nil {
		return nil, refuse(ieSetFlow, "IPV6_FLOWINFO_SEND: %v", err)
	}
	// A blocking connect gives up after SO_SNDTIMEO.
	tv := unix.NsecToTimeval(ctrlTimeout.Nanoseconds())
	if dl, has := ctx.Deadline(); has {
		tv = unix.NsecToTimeval(time.Until(dl).Nanoseconds())
	}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	sa := unix.RawSockaddrInet6{Family: unix.AF_INET6, Scope_id: uint32(zoneIndex(remote.Zone))}
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], uint16(remote.Port))
	binary.BigEndian.PutUint32((*[4]byte)(unsafe.Pointer(&sa.Flowinfo))[:], label)
	copy(sa.Addr[:], remote.IP.To16())
	if _, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa)); e != 0 {
		return nil, dialError(c.addr, os.NewSyscallError("connect", e))
	}
	zero := unix.Timeval{}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &zero)
	f := os.NewFile(uintptr(fd), "tcp6")
	ok = true
	defer f.Close()
	return net.FileConn(f)
}

func zoneIndex(zone string) int {
	if zone == "" {
		return 0
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return ifi.Index
	}
	return 0
}

// rawFD lets a bare socket go through a dialer's Control function.
type rawFD int

func (r rawFD) Control(f func(fd uintptr)) error { f(uintptr(r)); return nil }
func (rawFD) Read(func(fd uintptr) bool) error   { return errors.ErrUnsupported }
func (rawFD) Write(func(fd uintptr) bool) error  { return errors.ErrUnsupported }

// ipv6FlFReflect is IPV6_FL_F_REFLECT of linux/in6.h.
const ipv6FlFReflect = 4

// reflectFlowLabels makes the TCP connections a listener accepts send
// with the flow label of the client's SYN: Linux sets a TCP socket's label
// only at connect, so the label a client asked for with -L reaches the
// server's own streams (-R, --bidir) only this way. The kernel allows it
// when net.ipv6.flowlabel_consistency is 0, or does it for every socket
// with net.ipv6.flowlabel_reflect's bit 1; it reports whether either holds.
func reflectFlowLabels(ln net.Listener) bool {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return false
	}
	raw, err := tl.SyscallConn()
	if err != nil {
		return false
	}
	on := false
	_ = raw.Control(func(fd uintptr) {
		if sa, err := unix.Getsockname(int(fd)); err != nil {
			return
		} else if _, v6 := sa.(*unix.SockaddrInet6); !v6 {
			return
		}
		var req [32]byte // struct in6_flowlabel_req, action IPV6_FL_A_GET (0)
		binary.NativeEndian.PutUint16(req[22:], ipv6FlFReflect)
		_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, fd, unix.IPPROTO_IPV6, ipv6FlowlabelMgr,
			uintptr(unsafe.Pointer(&req[0])), uintptr(len(req)), 0)
		on = e == 0
	})
	if !on {
		b, err := os.ReadFile("/proc/sys/net/ipv6/flowlabel_reflect")
		on = err == nil && len(b) > 0 && (b[0]-'0')&1 == 1
	}
	return on
}

// labels notes, in Unmet, a flow label the client asked for on the
// server's streams (TCP, -R or --bidir) that this server cannot give. The
// test runs unlabelled, as iperf3's server runs every such test (it never
// labels its own streams): refusing it would fail tests iperf3 runs.
func (s *Server) labels(p *Params) {
	if p.FlowLabel == 0 || p.UDP || !(p.Reverse || p.Bidir) || s.reflect {
		return
	}
	p.Unmet = fmt.Sprintf("flow label %#x not set on this server's streams: it listens on IPv4 only, or its kernel lets accepted streams take the client's label only with net.ipv6.flowlabel_consistency=0 or net.ipv6.flowlabel_reflect=1", p.FlowLabel)
}
