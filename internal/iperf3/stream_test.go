package iperf3

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
)

// TestSenderWholeBlocks: a TCP sender with nothing counting its blocks
// writes many per call (sendChunk), yet stops only at a block's end, as
// iperf3's clients need; and receivers that read in batches still count
// every byte by the time the results are exchanged.
func TestSenderWholeBlocks(t *testing.T) {
	fstest.Long(t, "transfers for seconds")
	ts := startServer(t, ServerConfig{})
	for _, c := range []struct {
		name string
		p    result.NetParameters
	}{
		// 1000 does not divide sendChunk: a chunk ends mid-block.
		{"up", result.NetParameters{DurationNs: second, Streams: 2, BlockSize: 1000}},
		{"reverse", result.NetParameters{DurationNs: second, Streams: 2, BlockSize: 1000, Direction: result.DirDown}},
		{"bidir", result.NetParameters{DurationNs: second, Direction: "bidir", BlockSize: 4096}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.idle(t)
			cfg := quickTest(ts.port)
			cfg.NetParameters = c.p
			n, err := runTest(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range n.Streams {
				snd, rcv := st.Sender, st.Receiver
				if snd.Bytes == 0 || snd.Bytes%int64(c.p.BlockSize) != 0 {
					t.Errorf("stream %d (%s): sent %d bytes, not whole %d-byte blocks", st.ID, st.Direction, snd.Bytes, c.p.BlockSize)
				}
				if rcv.Bytes != snd.Bytes {
					t.Errorf("stream %d (%s): sent %d, received %d", st.ID, st.Direction, snd.Bytes, rcv.Bytes)
				}
			}
		})
	}
}

// sendPair is a socket pair for a TCP sender under test: the sender's end
// (0, which the stream's close closes) has the send timeout sockio.Detach
// gives every data socket, since a raw write blocked for good would hold
// its P through a garbage collection's stop-the-world, which then waits
// for ever while the test's reader cannot run. The reader's end (1) is
// closed when the test ends, after its deferred stops.
func sendPair(t *testing.T) [2]int {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[1]) })
	if e := sockio.SetTimeval(fds[0], unix.SOL_SOCKET, unix.SO_SNDTIMEO, sockio.Timeout); e != 0 {
		unix.Close(fds[0])
		t.Fatal(e)
	}
	return fds
}

// TestChunkOnlyForSenders: the batch of blocks an unpaced TCP sender
// writes at once is made by the first sender, so an end that only
// receives (-R's client) never holds it (bench/net's peak memory at
// -P 10 -R).
func TestChunkOnlyForSenders(t *testing.T) {
	d, err := newDataPath(&Params{Len: 128 << 10}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if d.chunk != nil {
		t.Fatalf("a data path that has not sent holds a %d-byte chunk", len(d.chunk))
	}
	fds := sendPair(t)
	s := &stream{fd: fds[0], send: true}
	done := make(chan error, 1)
	go func() { done <- d.sendTCP(s) }()
	buf := make([]byte, 1<<20)
	// stop ends the sender and the reader before the pair closes, also
	// when the test fails: a read or write on a closed descriptor reaches
	// whatever socket took its number next. A reader left running here
	// once took a later test's control bytes (its client waited 30 s for
	// PARAM_EXCHANGE, or read an end where SERVER_ERROR had been).
	stop := sync.OnceValue(func() error {
		d.stop.raise()
		drained := make(chan struct{})
		go func() { // drain the block the sender finishes, to the pair's end
			defer close(drained)
			for {
				if n, _ := unix.Read(fds[1], buf); n <= 0 {
					return
				}
			}
		}()
		err := <-done
		s.close()
		<-drained
		return err
	})
	defer stop()
	var got int
	for got < 4<<20 {
		n, err := unix.Read(fds[1], buf)
		if err != nil || n == 0 {
			t.Fatalf("read after %d bytes: %d, %v", got, n, err)
		}
		got += n
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if want := sendChunk / d.p.Len * d.p.Len; len(d.chunk) != want {
		t.Errorf("after sending, the chunk is %d bytes, want %d", len(d.chunk), want)
	}
}

// TestSpanHoldsLateWrite: a TCP sender writing when the test ends
// finishes that block, and its count holds it, so the span runs to when it
// did; it ended at the stop, and a last interval over a 100 Mbit/s link
// held up to a chunk more than its time (thruput's last second at 97.5
// Mbit/s where the link carries 95.6).
func TestSpanHoldsLateWrite(t *testing.T) {
	// Blocks of 100000 bytes: the kernel's partial writes (powers of two)
	// then end inside a block, which the sender must finish.
	d, err := newDataPath(&Params{Len: 100000, Parallel: 1}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	fds := sendPair(t)
	s := &stream{id: 1, fd: fds[0], send: true, up: true}
	sess := newSession(d.p, []*stream{s}, d, 0, nil)
	sess.begin()
	buf := make([]byte, 1<<20)
	// The reader and the sender end before the pair closes, also when the
	// test fails (see TestChunkOnlyForSenders).
	drained := make(chan struct{})
	resume := make(chan struct{})
	go func() {
		defer close(drained)
		for got := 0; got < 2<<20; {
			n, _ := unix.Read(fds[1], buf)
			if n <= 0 {
				return
			}
			got += n
		}
		<-resume
		for {
			if n, _ := unix.Read(fds[1], buf); n <= 0 {
				return
			}
		}
	}()
	finished := false
	defer func() {
		if !finished {
			d.stop.raise()
			close(resume)
		}
		d.wg.Wait()
		s.close()
		<-drained
	}()
	// The reader took 2 MiB and stopped: the sender is held in a write.
	time.Sleep(300 * time.Millisecond)
	if got := d.wroteUntil(); !got.Equal(d.epoch) {
		t.Fatalf("a write returned after a stop not yet raised, at %v", got.Sub(d.epoch))
	}
	const held = 200 * time.Millisecond
	time.AfterFunc(held, func() { close(resume) })
	stop := time.Now()
	sess.finish()
	finished = true
	if d.late.Load() == 0 {
		t.Fatalf("the sender's last block needed no write after the stop; sent %d bytes of %d-byte blocks", s.bytes.Load(), d.p.Len)
	}
	if got := sess.ended.Sub(stop); got < held*3/4 {
		t.Errorf("the span ended %v after the stop, want the late block's write, about %v after it", got, held)
	}
	if n := sess.last[0].bytes; n%int64(d.p.Len) != 0 {
		t.Errorf("the final count %d is not whole blocks of %d", n, d.p.Len)
	}
}

// TestReceivedCount: a client counting what it receives (-R -n) is told
// the moment the receivers together have the count, never while the
// start is omitted, and counting from where the omitted start ended.
func TestReceivedCount(t *testing.T) {
	d, err := newDataPath(&Params{Len: 1000}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	reached := func() bool {
		select {
		case <-d.reached:
			return true
		default:
			return false
		}
	}
	d.countReceived(0)
	if d.reached != nil {
		t.Fatal("no count, yet something to wait for")
	}
	d.countReceived(3000)
	a, b := &stream{}, &stream{}
	d.omitting.Store(true)
	d.received(a, 5000)
	if reached() {
		t.Fatal("reached during the omitted start")
	}
	d.endOmit()
	d.omitting.Store(false)
	d.received(a, 1500)
	d.received(b, 1499)
	if reached() {
		t.Fatal("reached at 2999 of 3000 bytes after the omitted start")
	}
	d.received(b, 1)
	if !reached() {
		t.Fatal("not reached at 3000 bytes")
	}
	d.received(a, 1) // closes nothing twice
	if got := a.bytes.Load() + b.bytes.Load(); got != 8001 {
		t.Errorf("streams counted %d bytes, want 8001", got)
	}
}

// TestHeldProcs: only the streams paced parkMin or more apart give up
// their own P; faster ones, sendfile's (-Z) senders, and UDP and
// --skip-rx-copy receivers keep theirs.
func TestHeldProcs(t *testing.T) {
	for _, c := range []struct {
		name     string
		p        Params
		sends    bool
		zeroCopy bool
		want     int
	}{
		{"unpaced sender", Params{Parallel: 2, Len: 128 << 10}, true, false, 2},
		{"1M receiver", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e6}, false, false, 0},
		{"1M udp receiver", Params{Parallel: 2, Len: 1400, Bitrate: 1e6, UDP: true}, false, false, 2},
		{"1M skip-rx-copy receiver", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e6, Options: Options{SkipRxCopy: true}}, false, false, 2},
		{"1G receiver", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e9}, false, false, 2},
		{"1M sender", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e6}, true, false, 0},
		{"1G sender", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e9}, true, false, 2},
		{"1G bursts of 4", Params{Parallel: 1, Len: 128 << 10, Bitrate: 1e9, Options: Options{Burst: 4}}, true, false, 0},
		{"1M sendfile", Params{Parallel: 2, Len: 128 << 10, Bitrate: 1e6}, true, true, 2},
		{"1M udp, -Z", Params{Parallel: 2, Len: 1400, Bitrate: 1e6, UDP: true}, true, true, 0},
		{"1M bidir", Params{Parallel: 3, Len: 128 << 10, Bitrate: 1e6, Bidir: true}, true, false, 0},
		{"1M bidir sendfile", Params{Parallel: 3, Len: 128 << 10, Bitrate: 1e6, Bidir: true}, true, true, 3},
	} {
		if got := c.p.heldProcs(c.sends, c.zeroCopy); got != c.want {
			t.Errorf("%s: %d Ps held, want %d", c.name, got, c.want)
		}
	}
}

// TestPollBatch: a slowly paced receiver batches 5 ms of the pace, never
// more than the sender's burst, and a whole burst when bursts come less
// often than a meter's window; an unpaced one does not batch.
func TestPollBatch(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Params
		want int
	}{
		{"unpaced", Params{Parallel: 1, Len: 128 << 10}, 0},
		{"94M", Params{Parallel: 1, Len: 128 << 10, Bitrate: 94e6}, 58750},
		{"500K: a block a window or less", Params{Parallel: 1, Len: 128 << 10, Bitrate: 500e3}, 128 << 10},
		{"10M", Params{Parallel: 1, Len: 128 << 10, Bitrate: 10e6}, 128 << 10},
		{"11M", Params{Parallel: 1, Len: 128 << 10, Bitrate: 11e6}, 6875},
		{"1M, 1400-byte blocks", Params{Parallel: 1, Len: 1400, Bitrate: 1e6}, 625},
		{"400M, one block", Params{Parallel: 1, Len: 128 << 10, Bitrate: 400e6}, 128 << 10},
		{"400M, bursts of 2", Params{Parallel: 1, Len: 128 << 10, Bitrate: 400e6, Options: Options{Burst: 2}}, 250000},
		{"10M, 1000-byte blocks", Params{Parallel: 1, Len: 1000, Bitrate: 10e6}, 1000},
	} {
		if got := c.p.pollBatch(); got != c.want {
			t.Errorf("%s: a batch of %d bytes, want %d", c.name, got, c.want)
		}
	}
}

// TestBatchFollowsBursts: on a real socket, a receiver of bursts that
// come less often than a meter's window (-b 1M) sets its mark to what is
// left of the current burst, so the burst's end is read as it completes;
// a faster one (-b 94M) keeps one mark; and at the end the mark is one
// byte and stays so.
func TestBatchFollowsBursts(t *testing.T) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	// Room for a 32 KiB mark whatever the machine's default buffer.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 256<<10); err != nil {
		t.Fatal(err)
	}
	s := &stream{fd: fd}
	mark := func() int {
		t.Helper()
		v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	d := &dataPath{p: &Params{Parallel: 1, Len: 128 << 10, Bitrate: 1e6}, receivers: []*stream{s}}
	b := d.newBatch(s)
	if b.most < 32<<10 || b.burst != 128<<10 {
		t.Fatalf("-b 1M: batch %+v, want a whole 128 KiB burst followed", b)
	}
	most := b.most
	for _, c := range []struct{ read, want int }{
		{0, most},
		{100 << 10, min(most, 28<<10)},
		{28 << 10, most}, // the next burst
		{128<<10 - 1, 1},
		{1, most},
	} {
		d.moveBatch(s, &b, c.read)
		if got := mark(); got != c.want {
			t.Errorf("after reading %d bytes: mark %d, want %d", c.read, got, c.want)
		}
	}
	d.halt()
	if got := mark(); got != 1 {
		t.Errorf("after the end: mark %d, want 1", got)
	}
	d.moveBatch(s, &b, 1000)
	if got := mark(); got != 1 {
		t.Errorf("a read after the end set the mark to %d, want 1", got)
	}

	d = &dataPath{p: &Params{Parallel: 1, Len: 128 << 10, Bitrate: 94e6}}
	b = d.newBatch(s)
	if b.burst != 0 || mark() != b.most {
		t.Fatalf("-b 94M: batch %+v, mark %d, want a fixed mark", b, mark())
	}
	d.moveBatch(s, &b, 100<<10)
	if got := mark(); got != b.most {
		t.Errorf("-b 94M: mark %d after a read, want %d", got, b.most)
	}
}

// TestParkedSendDoesNotWait: a sender whose pacer parks sends into a full
// buffer without waiting in the kernel, where it would hold the P the
// rest of the process runs on: on a blocking socket no one reads, it
// comes back with EAGAIN after parking, not never.
func TestParkedSendDoesNotWait(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	p := newPacer(1e6, 1, new(stopper))
	p.parked = true
	b := make([]byte, 64<<10)
	done := make(chan syscall.Errno)
	go func() {
		for {
			if _, e := p.send(fds[0], b); e != 0 {
				done <- e
				return
			}
		}
	}()
	select {
	case e := <-done:
		if e != unix.EAGAIN {
			t.Fatalf("full buffer: %v, want EAGAIN", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the parked sender waited in the kernel on a full buffer")
	}
}
