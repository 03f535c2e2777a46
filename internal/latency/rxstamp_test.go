package latency

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	// Before any judged probe: stamps on, machine-wide.
	if start := time.Now(); !stampsLive(10 * time.Second) {
		t.Fatal("the kernel did not stamp datagrams as they arrived within 10 s")
	} else {
		t.Logf("receive stamps on after %v", time.Since(start))
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
		// Seen queued (a busy machine may leave loopback's delivery to
		// ksoftirqd, after the write returned): the stamp is older.
		fds := [1]unix.PollFd{{Fd: int32(q.fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds[:], 10000); n != 1 || err != nil {
			t.Fatalf("probe %d: the echo not queued within 10 s: %d, %v", seq, n, err)
		}
		queued := time.Now()
		// The prober reads the echo a while after it came, at its next
		// probe.
		time.Sleep(20 * time.Millisecond)
		b, at, ok := q.next()
		if !ok {
			t.Fatalf("probe %d: no echo queued", seq)
		}
		if pk, err := decode(b); err != nil || !pk.echo || pk.seq != seq {
			t.Fatalf("probe %d: read %+v, %v", seq, pk, err)
		}
		// The kernel's stamp, not the read 20 ms later: between the
		// answer's write and seeing it queued (give or take the
		// microseconds of taking a wall-clock stamp to the monotonic
		// clock).
		if at.Sub(before) < -time.Millisecond || at.Sub(queued) > time.Millisecond {
			t.Fatalf("probe %d: stamped %v after the answer's write began and %v after it was seen queued, want between the two (the read came 20 ms later)", seq, at.Sub(before), at.Sub(queued))
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
