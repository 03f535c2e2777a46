package latency

import (
	"net"
	"testing"
	"time"
)

// TestEchoAnswersOnlyItsClient: the echo port is open to anyone who finds
// it, so only probes with the token from the test's client get a reply.
func TestEchoAnswersOnlyItsClient(t *testing.T) {
	lo := net.IPv4(127, 0, 0, 1)
	o := loopbackEcho(t)
	token, err := o.token()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: lo, Port: o.Port})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A probe that must go unanswered is followed by one that must be
	// answered: the echo server answers in the order probes arrive, so
	// the first echo back is the good probe's, and nothing else comes
	// in the moment after it. That bounds the test by the round trips,
	// not by a wait for an answer that should never come.
	send := func(c *net.UDPConn, p packet) {
		var buf [probeSize]byte
		if _, err := c.Write(p.encode(buf[:])); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(c *net.UDPConn, wait time.Duration) (packet, bool) {
		var buf [probeSize + 1]byte
		_ = c.SetReadDeadline(time.Now().Add(wait))
		n, err := c.Read(buf[:])
		if err != nil {
			return packet{}, false
		}
		got, err := decode(buf[:n])
		return got, err == nil
	}
	send(c, packet{token: [TokenSize]byte{9}, seq: 1})
	send(c, packet{token: token, seq: 2, echo: true})
	send(c, packet{token: token, seq: 3, sent: 77})
	got, ok := recv(c, 2*time.Second)
	switch {
	case ok && got.seq == 1:
		t.Error("a probe with a wrong token got an echo")
	case ok && got.seq == 2:
		t.Error("an echo was echoed")
	case !ok || !got.echo || got.seq != 3 || got.sent != 77 || got.srvCount != 1 || got.srvSent < got.srvRecv:
		t.Fatalf("echo %+v, %v", got, ok)
	}
	if extra, ok := recv(c, 20*time.Millisecond); ok {
		t.Errorf("an echo after the good probe's: %+v", extra)
	}

	other, err := Listen(lo, net.IPv4(127, 0, 0, 2), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	srv := &net.UDPAddr{IP: lo, Port: other.Offer().Port}
	stranger, err := net.DialUDP("udp", nil, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	client, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2)}, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	t2, _ := other.Offer().token()
	send(stranger, packet{token: t2, seq: 1})
	send(client, packet{token: t2, seq: 2})
	if got, ok := recv(client, 2*time.Second); !ok || got.seq != 2 {
		t.Fatalf("the client's own probe: echo %+v, %v", got, ok)
	}
	if _, ok := recv(stranger, 20*time.Millisecond); ok {
		t.Error("a probe from another address than the client's got an echo")
	}
}

func TestOfferRefused(t *testing.T) {
	for _, o := range []Offer{{Port: 5201, Token: "zz"}, {Port: 5201, Token: "0102"}, {Port: 0, Token: "0102030405060708"}, {Port: 70000, Token: "0102030405060708"}} {
		if _, err := o.token(); err == nil {
			t.Errorf("offer %+v accepted", o)
		}
	}
}

// loopbackEcho is an echo server on loopback for the test, closed after
// it, and its offer.
func loopbackEcho(t *testing.T) Offer {
	t.Helper()
	lo := net.IPv4(127, 0, 0, 1)
	e, err := Listen(lo, lo, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e.Offer()
}
