// Package latency measures latency under load: a stream of small probes
// at a fixed interval through an idle phase and through a throughput
// test's load, reported as idle and loaded round trips, one-way delays,
// loss, the latency the load added and RPM (round trips per minute).
//
// Two kinds of probe, chosen by what the server offers:
//   - UDP echo: a thruput server, asked through an extra key in iperf3's
//     parameter exchange, echoes probes on a UDP port it names back (see
//     docs/result-json.md and internal/iperf3/latency.go). Each probe
//     carries the client's send time and comes back with the server's
//     receive and send times, so each direction's one-way delay is known
//     once the two clocks' offset is estimated from the idle phase.
//   - TCP connect: a stock iperf3 server offers nothing, so each probe is
//     a new TCP connection to its port, timed by the kernel from the
//     SYN's send to the SYN-ACK's arrival (TCP_INFO). Every handshake
//     crosses the loaded queue like any new flow, which is how RPM (IETF
//     draft "responsiveness under working conditions") measures; iperf3
//     answers such connections during a test with ACCESS_DENIED and
//     closes them unread.
package latency

import (
	"encoding/binary"
	"errors"
)

// probeSize is a probe's UDP payload, request and echo alike: an echo is
// never larger than what asked for it, so the echo port amplifies nothing.
const probeSize = 64

// probeMagic starts every probe.
var probeMagic = [4]byte{'T', 'P', 'L', '1'}

// TokenSize is the length of the echo token a server hands out.
const TokenSize = 8

// Probe kinds, as the result document names them.
const (
	KindUDPEcho    = "udp-echo"
	KindTCPConnect = "tcp-connect"
)

// packet is one probe on the wire, big-endian:
//
//	0  magic "TPL1"    4
//	4  flags           1 (bit 0: an echo)
//	5  zero            3
//	8  token           8 (the server's, from its offer)
//	16 seq             8
//	24 client send     8 (ns, client clock)
//	32 server receive  8 (ns, server clock; 0 in a request)
//	40 server send     8 (ns, server clock; 0 in a request)
//	48 server received 8 (requests the server echoed so far)
//	56 zero            8
type packet struct {
	echo                   bool
	token                  [TokenSize]byte
	seq                    uint64
	sent, srvRecv, srvSent int64
	srvCount               uint64
}

var errNotProbe = errors.New("not a latency probe")

func (p *packet) encode(b []byte) []byte {
	b = b[:probeSize]
	clear(b)
	copy(b, probeMagic[:])
	if p.echo {
		b[4] = 1
	}
	copy(b[8:16], p.token[:])
	be := binary.BigEndian
	be.PutUint64(b[16:], p.seq)
	be.PutUint64(b[24:], uint64(p.sent))
	be.PutUint64(b[32:], uint64(p.srvRecv))
	be.PutUint64(b[40:], uint64(p.srvSent))
	be.PutUint64(b[48:], p.srvCount)
	return b
}

// decode reads a probe; anything else (wrong size, magic or flags) is
// refused, as the echo port is open to whoever finds it.
func decode(b []byte) (packet, error) {
	var p packet
	if len(b) != probeSize || [4]byte(b[:4]) != probeMagic || b[4] > 1 || b[5]|b[6]|b[7] != 0 || binary.BigEndian.Uint64(b[56:]) != 0 {
		return p, errNotProbe
	}
	be := binary.BigEndian
	p.echo = b[4] == 1
	copy(p.token[:], b[8:16])
	p.seq = be.Uint64(b[16:])
	p.sent = int64(be.Uint64(b[24:]))
	p.srvRecv = int64(be.Uint64(b[32:]))
	p.srvSent = int64(be.Uint64(b[40:]))
	p.srvCount = be.Uint64(b[48:])
	return p, nil
}
