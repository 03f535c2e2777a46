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
	e, err := Listen(lo, lo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	o := e.Offer()
	token, err := o.token()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: lo, Port: o.Port})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ask := func(p packet) (packet, bool) {
		var buf [probeSize + 1]byte
		if _, err := c.Write(p.encode(buf[:])); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := c.Read(buf[:])
		if err != nil {
			return packet{}, false
		}
		got, err := decode(buf[:n])
		return got, err == nil
	}
	if _, ok := ask(packet{token: [TokenSize]byte{9}, seq: 1}); ok {
		t.Error("a probe with a wrong token got an echo")
	}
	if _, ok := ask(packet{token: token, seq: 2, echo: true}); ok {
		t.Error("an echo was echoed")
	}
	got, ok := ask(packet{token: token, seq: 3, sent: 77})
	if !ok || !got.echo || got.seq != 3 || got.sent != 77 || got.srvCount != 1 || got.srvSent < got.srvRecv {
		t.Fatalf("echo %+v, %v", got, ok)
	}

	other, err := Listen(lo, net.IPv4(127, 0, 0, 2), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c2, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: lo, Port: other.Offer().Port})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	t2, _ := other.Offer().token()
	var buf [probeSize]byte
	_, _ = c2.Write((&packet{token: t2, seq: 1}).encode(buf[:]))
	_ = c2.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := c2.Read(buf[:]); err == nil {
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
