package latency

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Offer is what a thruput server tells a client that asked for latency
// probes: the UDP port it echoes them on and the token they must carry.
type Offer struct {
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// token decodes the offer's token; a malformed one is no offer.
func (o Offer) token() ([TokenSize]byte, error) {
	var t [TokenSize]byte
	b, err := hex.DecodeString(o.Token)
	if err != nil || len(b) != TokenSize || o.Port < 1 || o.Port > 65535 {
		return t, fmt.Errorf("latency echo offer %q port %d: not a %d-byte hex token and a port", o.Token, o.Port, TokenSize)
	}
	copy(t[:], b)
	return t, nil
}

// Echo answers one test's probes. It echoes only probes that carry its
// token and come from the test's client address, each with a reply of
// the same size: nobody else can use it to reflect traffic.
type Echo struct {
	conn  *net.UDPConn
	token [TokenSize]byte
	peer  net.IP
	base  time.Time
	done  chan struct{}
}

// Listen opens an echo on local (the server's address of the test's
// control connection) for probes from peer. It takes the test's own port
// number on UDP when that is free, so one firewall rule opens both, and
// any port otherwise (a UDP test holds its port for its streams).
func Listen(local, peer net.IP, port int) (*Echo, error) {
	e := &Echo{peer: peer, base: time.Now(), done: make(chan struct{})}
	if _, err := rand.Read(e.token[:]); err != nil {
		return nil, err
	}
	var err error
	for _, p := range []int{port, 0} {
		addr := net.JoinHostPort(local.String(), strconv.Itoa(p))
		var ua *net.UDPAddr
		if ua, err = net.ResolveUDPAddr("udp", addr); err != nil {
			return nil, err
		}
		if e.conn, err = net.ListenUDP("udp", ua); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("latency echo: %w", err)
	}
	stampReceives(e.conn)
	go e.serve()
	return e, nil
}

// Offer is what the client is told.
func (e *Echo) Offer() Offer {
	return Offer{Port: e.conn.LocalAddr().(*net.UDPAddr).Port, Token: hex.EncodeToString(e.token[:])}
}

// Close stops the echo and waits until it has.
func (e *Echo) Close() {
	e.conn.Close()
	<-e.done
}

func (e *Echo) serve() {
	defer close(e.done)
	buf, oob := make([]byte, probeSize+1), make([]byte, oobSize)
	var count uint64
	for {
		n, from, ago, err := readStamped(e.conn, buf, oob)
		// The receive time is the kernel's: the wake-up that follows is
		// the server's own time, which the reply's send time leaves out.
		recv := (time.Since(e.base) - ago).Nanoseconds()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p, err := decode(buf[:n])
		if err != nil || p.echo || p.token != e.token || !from.IP.Equal(e.peer) {
			continue
		}
		count++
		p.echo, p.srvRecv, p.srvCount = true, recv, count
		p.srvSent = time.Since(e.base).Nanoseconds()
		_, _ = e.conn.WriteToUDP(p.encode(buf), from)
	}
}
