package uring

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

const blockSize = 4096

// newRing makes a ring for the calling test, whose goroutine it locks to
// its thread: the ring belongs to the thread that creates it.
func newRing(tb testing.TB, entries uint32) *Ring {
	tb.Helper()
	runtime.LockOSThread()
	tb.Cleanup(runtime.UnlockOSThread)
	r, err := New(entries)
	if errors.Is(err, ErrUnsupported) {
		tb.Skipf("no io_uring here: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// mmapBuf returns memory outside the Go heap, as the package requires.
func mmapBuf(tb testing.TB, size int) []byte {
	tb.Helper()
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

// await submits what is queued and collects n completions, indexed by
// userData, which must be below n.
func await(t *testing.T, r *Ring, n int) []int32 {
	t.Helper()
	res := make([]int32, n)
	seen := make([]bool, n)
	got := 0
	for got < n {
		if _, err := r.Submit(uint32(n - got)); err != nil {
			t.Fatal(err)
		}
		got += r.Reap(func(ud uint64, v int32) {
			if ud >= uint64(n) || seen[ud] {
				t.Fatalf("unexpected or repeated completion %d", ud)
			}
			seen[ud] = true
			res[ud] = v
		})
	}
	return res
}

func TestNewRejectsBadSizes(t *testing.T) {
	for _, n := range []uint32{0, maxEntries + 1} {
		if r, err := New(n); err == nil || errors.Is(err, ErrUnsupported) {
			if r != nil {
				r.Close()
			}
			t.Errorf("New(%d) = %v, want a plain error", n, err)
		}
	}
}

func TestCloseTwice(t *testing.T) {
	r := newRing(t, 4)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestWriteFsyncRead(t *testing.T) {
	t.Run("buffered", func(t *testing.T) { testWriteFsyncRead(t, 0) })
	t.Run("direct", func(t *testing.T) { testWriteFsyncRead(t, unix.O_DIRECT) })
}

func testWriteFsyncRead(t *testing.T, flags int) {
	const n = 16
	path := filepath.Join(t.TempDir(), "data")
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|flags, 0o600)
	if errors.Is(err, unix.EINVAL) && flags&unix.O_DIRECT != 0 {
		t.Skipf("filesystem of %s refuses O_DIRECT: %v", path, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	r := newRing(t, n)

	out := mmapBuf(t, n*blockSize)
	rand.NewChaCha8([32]byte{1}).Read(out)
	// Block i goes to a scattered slot, so a ring that ignored offsets
	// would not read back what was written.
	off := func(i int) int64 { return int64(i*7%n) * blockSize }
	block := func(b []byte, i int) []byte { return b[i*blockSize : (i+1)*blockSize] }

	for i := range n {
		if !r.PrepWrite(fd, block(out, i), off(i), uint64(i)) {
			t.Fatalf("PrepWrite %d: SQ full", i)
		}
	}
	for i, res := range await(t, r, n) {
		if res != blockSize {
			t.Errorf("write %d: res %d, want %d", i, res, blockSize)
		}
	}

	r.PrepFsync(fd, true, 0)
	r.PrepFsync(fd, false, 1)
	for i, res := range await(t, r, 2) {
		if res != 0 {
			t.Errorf("fsync %d: %v", i, unix.Errno(-res))
		}
	}

	in := mmapBuf(t, n*blockSize)
	for i := range n {
		r.PrepRead(fd, block(in, i), off(i), uint64(i))
	}
	for i, res := range await(t, r, n) {
		if res != blockSize {
			t.Errorf("read %d: res %d, want %d", i, res, blockSize)
		}
	}
	if !bytes.Equal(in, out) {
		t.Error("read back differs from what was written")
	}
}

func TestBadFD(t *testing.T) {
	r := newRing(t, 4)
	buf := mmapBuf(t, blockSize)
	closed, err := unix.Open(os.DevNull, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(closed)

	r.PrepRead(-1, buf, 0, 0)
	r.PrepRead(closed, buf, 0, 1)
	for i, res := range await(t, r, 2) {
		if res != -int32(unix.EBADF) {
			t.Errorf("read %d on a bad fd: res %d, want -EBADF (%d)", i, res, -int32(unix.EBADF))
		}
	}
}

func TestSQFull(t *testing.T) {
	const entries = 8
	r := newRing(t, entries)
	buf := mmapBuf(t, blockSize)
	fd := openFilled(t, 1)
	for i := range entries {
		if !r.PrepRead(fd, buf, 0, uint64(i)) {
			t.Fatalf("PrepRead %d of %d: SQ full", i+1, entries)
		}
	}
	if r.PrepRead(fd, buf, 0, entries) {
		t.Fatalf("PrepRead %d into a ring of %d succeeded", entries+1, entries)
	}
	if n, err := r.Submit(0); n != entries || err != nil {
		t.Fatalf("Submit = %d, %v; want %d", n, err, entries)
	}
	for r.Ready() < entries {
		if _, err := r.Submit(entries - r.Ready()); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Ready(); n != entries {
		t.Fatalf("Ready = %d with %d requests done", n, entries)
	}
	// Submitted entries free their SQ slots before they are reaped.
	if !r.PrepRead(fd, buf, 0, entries) {
		t.Fatal("PrepRead after Submit: SQ still full")
	}
	await(t, r, entries+1)
}

// openFilled creates a file of the given number of blocks, each starting with
// its own index, and opens it for reading.
func openFilled(t testing.TB, blocks int) int {
	t.Helper()
	data := make([]byte, blocks*blockSize)
	for i := range blocks {
		binary.LittleEndian.PutUint64(data[i*blockSize:], uint64(i))
	}
	path := filepath.Join(t.TempDir(), "filled")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// keepInFlight runs the caller's intended loop: qd random block reads in
// flight, a replacement queued for each completion, one Submit per round,
// until total reads have completed. Slot i of buf is the buffer of the
// request with userData i. check sees every completion.
func keepInFlight(tb testing.TB, r *Ring, fd int, buf []byte, qd, blocks, total int, check func(slot int, block int64, res int32)) (submitted, completed int) {
	rng := rand.New(rand.NewPCG(1, 2))
	block := make([]int64, qd)
	queue := func(slot int) {
		block[slot] = rng.Int64N(int64(blocks))
		if !r.PrepRead(fd, buf[slot*blockSize:(slot+1)*blockSize], block[slot]*blockSize, uint64(slot)) {
			tb.Fatal("SQ full")
		}
	}
	queued := 0
	for slot := range min(qd, total) {
		queue(slot)
		queued++
	}
	for completed < total {
		n, err := r.Submit(1)
		if err != nil {
			tb.Fatal(err)
		}
		submitted += n
		completed += r.Reap(func(ud uint64, res int32) {
			check(int(ud), block[ud], res)
			if queued < total {
				queue(int(ud))
				queued++
			}
		})
	}
	return submitted, completed
}

func TestKeepInFlight(t *testing.T) {
	const qd, blocks, total = 32, 16 << 20 / blockSize, 2000
	r := newRing(t, qd)
	fd := openFilled(t, blocks)
	buf := mmapBuf(t, qd*blockSize)
	submitted, completed := keepInFlight(t, r, fd, buf, qd, blocks, total, func(slot int, block int64, res int32) {
		if res != blockSize {
			t.Fatalf("read of block %d: res %d", block, res)
		}
		if got := int64(binary.LittleEndian.Uint64(buf[slot*blockSize:])); got != block {
			t.Fatalf("read of block %d returned block %d", block, got)
		}
	})
	if submitted != total || completed != total {
		t.Errorf("%d submitted, %d completed; want %d each", submitted, completed, total)
	}
	if n := r.Reap(func(uint64, int32) {}); n != 0 {
		t.Errorf("%d completions after the last", n)
	}
}

func TestHotPathAllocs(t *testing.T) {
	const qd = 32
	r := newRing(t, qd)
	fd := openFilled(t, qd)
	buf := mmapBuf(t, qd*blockSize)
	var bad int32
	allocs := testing.AllocsPerRun(100, func() {
		ok := r.PrepFsync(fd, true, qd)
		ok = ok && r.PrepWrite(fd, nil, 0, qd+1) // fails with EBADF: fd is read-only
		for i := range qd - 2 {
			ok = ok && r.PrepRead(fd, buf[i*blockSize:(i+1)*blockSize], int64(i)*blockSize, uint64(i))
		}
		if !ok {
			panic("SQ full")
		}
		for got := 0; got < qd; {
			if _, err := r.Submit(1); err != nil {
				panic(err)
			}
			got += r.Reap(func(ud uint64, res int32) {
				if ud < qd && res != blockSize {
					bad = res
				}
			})
		}
	})
	if bad != 0 {
		t.Fatalf("a read returned %d", bad)
	}
	if allocs != 0 {
		t.Errorf("Prep/Submit/Reap cycle: %v allocations, want 0", allocs)
	}
}

// BenchmarkKeepInFlight measures the ring's own cost per request: 4 KiB reads
// at QD 32 from a file in the page cache, so the device is out of the picture.
func BenchmarkKeepInFlight(b *testing.B) {
	const qd, blocks = 32, 1024
	r := newRing(b, qd)
	fd := openFilled(b, blocks)
	buf := mmapBuf(b, qd*blockSize)
	b.ReportAllocs()
	b.ResetTimer()
	keepInFlight(b, r, fd, buf, qd, blocks, b.N, func(_ int, block int64, res int32) {
		if res != blockSize {
			b.Fatalf("read of block %d: res %d", block, res)
		}
	})
}
