package latency

import (
	"net"
	"testing"
	"time"
)

// TestQueueReader: a probe socket sends and reads its queued echoes with
// the kernel's receive times, allocating nothing per probe, and reports
// an empty queue rather than waiting.
func TestQueueReader(t *testing.T) {
	// The test answers the probes itself, between send and read, so the
	// allocations counted are the prober's side only.
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conn, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	if !stampReceives(conn) {
		conn.Close()
		t.Skip("no SO_TIMESTAMPNS on this kernel")
	}
	q, err := newQueueReader(conn)
	if err != nil {
		t.Fatal(err)
	}
	defer q.close()
	if _, _, ok := q.next(); ok {
		t.Fatal("next on an empty queue said ok")
	}
	var buf, echo [probeSize]byte
	var seq uint64
	probe := func() {
		seq++
		q.send((&packet{seq: seq}).encode(buf[:]))
		n, from, err := srv.ReadFromUDPAddrPort(echo[:])
		if err != nil || n != probeSize {
			t.Fatalf("probe %d: the echo read %d bytes, %v", seq, n, err)
		}
		echo[4] = 1
		// Over loopback the kernel queues the echo, and stamps it, within
		// the write: its stamp lies between the clock read before the write
		// and the one after, however long the thread waited to return.
		before := time.Now()
		if _, err := srv.WriteToUDPAddrPort(echo[:], from); err != nil {
			t.Fatal(err)
		}
		// The prober reads the echo a while after it came, at its next
		// probe.
		answered := time.Now()
		time.Sleep(20 * time.Millisecond)
		b, at, ok := q.next()
		if !ok {
			t.Fatalf("probe %d: no echo queued", seq)
		}
		if pk, err := decode(b); err != nil || !pk.echo || pk.seq != seq {
			t.Fatalf("probe %d: read %+v, %v", seq, pk, err)
		}
		// The kernel's stamp, not the read: about when it was answered.
		if d := at.Sub(answered); at.Sub(before) < -time.Millisecond || d > 10*time.Millisecond {
			t.Fatalf("probe %d: received %v after the answer (%v after the write began), want the kernel's stamp (well under the 20 ms before the read)", seq, d, at.Sub(before))
		}
	}
	probe()
	if n := testing.AllocsPerRun(5, probe); n != 0 {
		t.Errorf("%.1f allocations a probe, want none", n)
	}
	q.close()
	if _, _, ok := q.next(); ok {
		t.Error("next on a closed socket said ok")
	}
}
