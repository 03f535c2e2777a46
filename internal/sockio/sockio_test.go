package sockio

import (
	"errors"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// detached connects over loopback and detaches the client's end: the
// original connection, its descriptor out of the runtime, and the peer.
func detached(t *testing.T) (net.Conn, int, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	t.Cleanup(func() { peer.Close() })
	fd, err := Detach(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return c, fd, peer
}

// idleTimeout reads an idle socket: nothing, after about Timeout. A
// signal (the runtime's preemption) may cut a wait short: EINTR.
func idleTimeout(t *testing.T, r *Reader, buf []byte) {
	t.Helper()
	start := time.Now()
	for {
		n, e := r.Read(buf)
		if n != 0 || !Again(e) {
			t.Fatalf("idle socket: %d bytes, %v; want a timeout", n, e)
		}
		if e == unix.EAGAIN {
			break
		}
	}
	if d := time.Since(start); d < Timeout/2 || d > 10*Timeout {
		t.Errorf("idle read returned after %v, want about %v", d, Timeout)
	}
}

// TestReader reads a detached socket: data, then a timed-out wait, then
// the end of the stream, and the descriptor is out of the runtime's hands.
// It and TestReaderBatch spend most of their time waiting out Timeout on
// an idle socket of their own, so they wait beside each other (after
// TestProcs, which changes GOMAXPROCS for the whole process).
func TestReader(t *testing.T) {
	t.Parallel()
	c, fd, peer := detached(t)
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("the original connection still writes after Detach")
	}
	// Sys: a goroutine in RawRead is preempted every 10 ms, and each EINTR
	// restarts the timeout.
	r := Reader{FD: fd, Block: Sys}
	buf := make([]byte, 64<<10)
	payload := make([]byte, 1<<20)
	go func() { _, _ = peer.Write(payload) }()
	got := 0
	for got < len(payload) {
		n, e := r.Read(buf)
		if e != 0 && !Again(e) {
			t.Fatalf("read: %v", e)
		}
		got += n
	}
	idleTimeout(t, &r, buf)
	peer.Close()
	for {
		n, e := r.Read(buf)
		if e == 0 && n == 0 {
			break // the end of the stream
		}
		if e != 0 && !Again(e) {
			t.Fatalf("read at the end: %v", e)
		}
	}
	if n, e := Raw(unix.SYS_WRITE, fd, []byte("y")); n > 0 && e == 0 {
		// The peer is gone: a write may still be accepted once; the next
		// must fail (EPIPE or ECONNRESET), never hang.
		if _, e = Raw(unix.SYS_WRITE, fd, []byte("z")); e == 0 {
			t.Log("second write to a closed peer accepted too")
		}
	}
}

// TestProcs: reservations add up, and the setting returns to what it was
// once the last ends, whatever the order.
func TestProcs(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	a := Procs(base + 3)
	if got := runtime.GOMAXPROCS(0); got != base+4 {
		t.Fatalf("GOMAXPROCS %d with %d reserved, want %d", got, base+3, base+4)
	}
	b := Procs(2)
	if got := runtime.GOMAXPROCS(0); got != base+6 {
		t.Fatalf("GOMAXPROCS %d with %d reserved, want %d", got, base+5, base+6)
	}
	a()
	a() // a second call gives nothing back twice
	if got := runtime.GOMAXPROCS(0); got != max(base, 3) {
		t.Fatalf("GOMAXPROCS %d with 2 reserved, want %d", got, max(base, 3))
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS %d after the last reservation, want %d", got, base)
	}
}

// TestReaderBatch: a reader in batches still hands over a tail smaller
// than a batch within a few batchTimeouts, then reads single segments
// again; an idle socket still waits the whole Timeout.
func TestReaderBatch(t *testing.T) {
	t.Parallel()
	_, fd, peer := detached(t)
	r := Reader{FD: fd, Block: Sys, Batch: true}
	buf := make([]byte, BatchMax)
	r.setBatch(BatchMax)
	if r.lowat != BatchMax {
		t.Fatal("the socket refused SO_RCVLOWAT")
	}
	if lowat, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT); err != nil || lowat != BatchMax {
		t.Fatalf("SO_RCVLOWAT %d (%v), want %d", lowat, err, BatchMax)
	}
	if _, err := peer.Write(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := 0
	for got < 1000 {
		n, e := r.Read(buf)
		if e != 0 && !Again(e) {
			t.Fatalf("read: %v", e)
		}
		got += n
	}
	if d := time.Since(start); d > Timeout {
		t.Errorf("a 1000-byte tail took %v to arrive in batches, want about %v", d, batchTimeout)
	}
	if r.lowat != 0 {
		t.Error("still in batches after a read cut short")
	}
	if lowat, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT); lowat != 1 {
		t.Errorf("SO_RCVLOWAT %d after the batches, want 1", lowat)
	}
	r.setBatch(BatchMax)
	idleTimeout(t, &r, buf)
}

// TestReaderTrunc: a Trunc reader counts every byte of a stream while its
// buffer stays as it was (the kernel dropped them uncopied), then sees
// the end of the stream.
func TestReaderTrunc(t *testing.T) {
	_, fd, peer := detached(t)
	payload := make([]byte, 8<<20)
	for i := range payload {
		payload[i] = 0xab
	}
	go func() {
		_, _ = peer.Write(payload)
		peer.Close()
	}()
	r := Reader{FD: fd, Trunc: true}
	buf := make([]byte, 256<<10)
	got := 0
	for {
		n, e := r.Read(buf)
		if e == 0 && n == 0 {
			break
		}
		if e != 0 && !Again(e) {
			t.Fatalf("read: %v", e)
		}
		got += n
	}
	if got != len(payload) {
		t.Errorf("counted %d bytes, sent %d", got, len(payload))
	}
	for _, b := range buf {
		if b != 0 {
			t.Fatal("MSG_TRUNC reads copied bytes into the buffer")
		}
	}
}

// TestBuffer: a buffer off the heap holds what is written to all of it,
// and giving it back twice is harmless.
func TestBuffer(t *testing.T) {
	b, free := Buffer(300 << 10)
	if len(b) != 300<<10 {
		t.Fatalf("len %d, want %d", len(b), 300<<10)
	}
	for i := range b {
		b[i] = byte(i)
	}
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d reads %d, want %d", i, b[i], byte(i))
		}
	}
	free()
	free()
}

// TestPolled: a polled duplicate of a blocking socket waits for data in
// the netpoller (a read deadline ends the wait), and RecvNow on it never
// waits in the kernel.
func TestPolled(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	defer unix.Close(fds[0])
	f, err := Polled(fds[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	read := func() (int, syscall.Errno, error) {
		var n int
		var e syscall.Errno
		err := rc.Read(func(fd uintptr) bool {
			n, e = RecvNow(int(fd), b)
			return e != unix.EAGAIN
		})
		return n, e, err
	}
	if _, e := RecvNow(fds[0], b); e != unix.EAGAIN {
		t.Fatalf("nothing queued: %v, want EAGAIN", e)
	}
	if err := f.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("nothing sent: %v, want the deadline", err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = unix.Write(fds[1], []byte("probe"))
	}()
	if err := f.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, e, err := read(); err != nil || e != 0 || string(b[:n]) != "probe" {
		t.Fatalf("read %q, %v, %v; want probe", b[:n], e, err)
	}
}

// monotonic is CLOCK_MONOTONIC, the clock an Alarm runs on.
func monotonic(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// TestAlarm: an alarm never ends a wait before its time (the kernel's
// timer does not fire early; how late it is depends on the machine, so
// only a bound a stalled machine would miss is held), keeps its period,
// takes a later time in place of the one it had, and a Close ends a wait.
func TestAlarm(t *testing.T) {
	a, err := NewAlarm()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const late = 10 * time.Second

	at := monotonic(t) + 30*time.Millisecond
	if err := a.At(at); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	if now := monotonic(t); now < at || now > at+late {
		t.Errorf("At(%v) went off at %v", at, now)
	}
	start := monotonic(t)
	if err := a.At(start - time.Second); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil || monotonic(t)-start > late {
		t.Errorf("At a time past: %v after %v", err, monotonic(t)-start)
	}

	start = monotonic(t)
	const every = 10 * time.Millisecond
	if err := a.Set(every, every); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if err := a.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := monotonic(t) - start; got < time.Duration(i)*every || got > late {
			t.Errorf("tick %d at %v, want at %v or later", i, got, time.Duration(i)*every)
		}
	}

	// Pushed later before it went off: the first time no longer counts.
	start = monotonic(t)
	if err := a.Set(5*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Set(80*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := monotonic(t) - start; got < 80*time.Millisecond {
		t.Errorf("pushed to 80 ms, went off after %v", got)
	}

	// The latency probes set and wait on an alarm each time they wake: no
	// allocation there (issue 36: nothing allocated a probe).
	wake := func() {
		if err := a.Set(time.Microsecond, 0); err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	wake()
	if n := testing.AllocsPerRun(20, wake); n != 0 {
		t.Errorf("%.1f allocations a set and wait, want none", n)
	}

	// A wait for an alarm that is not set ends when it is closed.
	if err := a.Set(time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Wait() }()
	time.Sleep(20 * time.Millisecond)
	a.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Wait on a closed alarm: no error")
		}
	case <-time.After(late):
		t.Fatal("Close did not end the wait")
	}
	if err := a.Set(time.Millisecond, 0); err == nil {
		t.Error("Set on a closed alarm: no error")
	}
}

// TestAlarmChannel: C receives each time the alarm goes off, never before
// its time, and a going-off not yet taken stands for later ones.
func TestAlarmChannel(t *testing.T) {
	a, err := NewAlarm()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, d := range []time.Duration{20 * time.Millisecond, time.Millisecond} {
		start := monotonic(t)
		if err := a.Set(d, 0); err != nil {
			t.Fatal(err)
		}
		select {
		case <-a.C():
			if got := monotonic(t) - start; got < d {
				t.Errorf("set for %v, received after %v", d, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("set for %v: nothing received", d)
		}
	}
	// Going off every millisecond while nobody takes: a receive waits,
	// and the channel holds one, not one a going-off.
	if err := a.Set(time.Millisecond, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	select {
	case <-a.C():
	case <-time.After(10 * time.Second):
		t.Fatal("going off every millisecond: nothing received")
	}
	if n := cap(a.C()); n != 1 {
		t.Errorf("C holds %d, want 1", n)
	}
}

// TestTCPInfo reads a connected socket's TCP_INFO as the kernel's own
// getsockopt does: established, with the loopback's MSS and the bytes the
// socket sent counted; a descriptor that is no socket is refused.
func TestTCPInfo(t *testing.T) {
	_, fd, peer := detached(t)
	msg := []byte("sixteen bytes!!!")
	if n, e := SendNow(fd, msg); e != 0 || n != len(msg) {
		t.Fatalf("send: %d, %v", n, e)
	}
	if _, err := peer.Read(make([]byte, len(msg))); err != nil {
		t.Fatal(err)
	}
	var info unix.TCPInfo
	if e := TCPInfo(fd, &info); e != 0 {
		t.Fatalf("TCPInfo: %v", e)
	}
	want, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		t.Fatal(err)
	}
	got := [...]uint64{uint64(info.State), uint64(info.Snd_mss), uint64(info.Rcv_mss), info.Bytes_acked}
	if exp := [...]uint64{uint64(want.State), uint64(want.Snd_mss), uint64(want.Rcv_mss), want.Bytes_acked}; got != exp {
		t.Errorf("TCP_INFO state, MSS each way, bytes acked: %v; getsockopt's: %v", got, exp)
	}
	if info.State != unix.BPF_TCP_ESTABLISHED { // the kernel's TCP_ESTABLISHED
		t.Errorf("state %d, want established (1)", info.State)
	}
	// qemu-user copies only the state byte (see internal/latency).
	if want.Snd_mss != 0 && info.Bytes_acked < uint64(len(msg)) {
		t.Errorf("%d bytes acked, want at least %d", info.Bytes_acked, len(msg))
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if e := TCPInfo(p[0], &info); e != unix.ENOTSOCK {
		t.Errorf("TCPInfo of a pipe: %v, want ENOTSOCK", e)
	}
}

// TestSetOptions sets a low-water mark and a read timeout with the raw
// calls and reads them back with the kernel's getsockopt; a pipe is
// refused.
func TestSetOptions(t *testing.T) {
	_, fd, _ := detached(t)
	if e := SetInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 4096); e != 0 {
		t.Fatalf("SO_RCVLOWAT: %v", e)
	}
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT); err != nil || v != 4096 {
		t.Errorf("SO_RCVLOWAT reads %d, %v; want 4096", v, err)
	}
	// The kernel keeps the timeout in its clock ticks: what it reads back
	// is compared with what it reads back after its own setsockopt.
	tv := unix.NsecToTimeval(int64(250 * time.Millisecond))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	want, err := unix.GetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{}); err != nil {
		t.Fatal(err)
	}
	if e := SetTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, 250*time.Millisecond); e != 0 {
		t.Fatalf("SO_RCVTIMEO: %v", e)
	}
	if got, err := unix.GetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO); err != nil || *got != *want || want.Nano() == 0 {
		t.Errorf("SO_RCVTIMEO reads %+v, %v; want %+v as after the kernel's setsockopt of 250 ms", got, err, want)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if e := SetInt(p[0], unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1); e != unix.ENOTSOCK {
		t.Errorf("SetInt on a pipe: %v, want ENOTSOCK", e)
	}
}
