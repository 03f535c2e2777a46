package iperf3

import (
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/thruput/thruput/internal/latency"
)

// Latency probes ride on iperf3's parameter exchange without breaking it
// for either side:
//
//   - A thruput client that probes adds "thruput_latency_echo": 1 and
//     "thruput_latency_idle_ms" (its idle phase) to the parameters. iperf3
//     servers ignore keys they do not know (3.18+ type-check only their
//     own), so a stock server answers CREATE_STREAMS as always.
//   - A thruput server that reads the key opens a UDP echo (on the test's
//     port number when that is free) and, before CREATE_STREAMS, sends the
//     state byte stateLatencyEcho followed by the offer as a
//     length-prefixed JSON message, {"port":N,"token":"hex"}. It sends
//     neither to a client that did not ask, so iperf3 clients never see
//     them. The byte's value is one no iperf3 version defines.
//   - The client then probes the idle path before connecting its data
//     streams: the server waits for the streams that much longer. Without
//     an offer (a stock server) the client probes with TCP handshakes to
//     the server's port, only while the test holds the server (iperf3
//     answers extra connections with ACCESS_DENIED then): during the load,
//     and for the idle phase after DISPLAY_RESULTS, before IPERF_DONE.
const stateLatencyEcho = 50

// Parameter keys of the latency probes.
const (
	latencyEchoKey = "thruput_latency_echo"
	latencyIdleKey = "thruput_latency_idle_ms"
)

// maxLatencyIdle bounds the idle phase a client may ask a server to wait
// through before its streams connect.
const maxLatencyIdle = 30 * time.Second

// readOffer reads the server's answer to the parameters: CREATE_STREAMS,
// or with a latency echo asked for from a thruput server, the echo's
// offer first. A nil offer is a server that offers none.
func (c *client) readOffer() (*latency.Offer, error) {
	st, err := readState(c.ctrl, setupTimeout)
	if err != nil {
		return nil, c.setupError(err, stateCreateStreams, setupTimeout)
	}
	if st != stateLatencyEcho || !c.p.LatencyEcho {
		return nil, c.check(st, stateCreateStreams)
	}
	body, err := recvJSON(c.ctrl, maxParamsSize, ctrlTimeout)
	if err != nil {
		return nil, c.ctrlError(err)
	}
	var o latency.Offer
	if err := json.Unmarshal(body, &o); err != nil {
		return nil, fmt.Errorf("latency echo offer: %w", err)
	}
	return &o, c.expect(stateCreateStreams, setupTimeout)
}

// offerEcho opens the echo a client asked for and tells it where; the
// returned func closes it. A server that cannot open one says nothing,
// and the client probes with handshakes. shared is a server running tests
// at once (--max-clients), where a UDP test may need the port any time.
func offerEcho(ctrl net.Conn, p *Params, timeout time.Duration, shared bool) (func(), error) {
	local, lok := ctrl.LocalAddr().(*net.TCPAddr)
	peer, pok := ctrl.RemoteAddr().(*net.TCPAddr)
	if !p.LatencyEcho || !lok || !pok {
		return func() {}, nil
	}
	port := local.Port
	if p.UDP || shared {
		// UDP streams take that UDP port (SO_REUSEADDR, which a socket
		// without it would refuse them).
		port = 0
	}
	e, err := latency.Listen(local.IP, peer.IP, port)
	if err != nil {
		return func() {}, nil
	}
	if err := writeState(ctrl, stateLatencyEcho, timeout); err != nil {
		e.Close()
		return nil, err
	}
	if err := sendJSON(ctrl, e.Offer(), timeout); err != nil {
		e.Close()
		return nil, err
	}
	return e.Close, nil
}
