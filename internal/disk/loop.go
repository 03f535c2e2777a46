package disk

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/aio"
	"github.com/thruput/thruput/internal/payload"
)

// rawLimit is the largest block moved with a raw system call. Go's ordinary
// system-call path (entersyscall/exitsyscall) costs about 100 ns per call on a
// 2-core x86 and more on an ARM11, which at 8-byte blocks is a sixth of the
// whole write() and would make thruput slower than dd. A raw call skips it,
// at the price of holding the scheduler's P while the kernel works; that is
// harmless for calls this short, so large blocks, which may wait on the device
// for milliseconds, take the ordinary path, where the overhead is noise.
const rawLimit = 32 << 10

// buffer is memory outside the Go heap: page aligned, as O_DIRECT needs, and
// never moved, so the hot loop can hand its address to the kernel as is.
type buffer []byte

func newBuffer(size int) (buffer, error) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("allocate %d byte buffer: %w", size, err)
	}
	return b, nil
}

func (b buffer) free() { _ = unix.Munmap(b) }

// fillRandom writes incompressible bytes (see payload).
func (b buffer) fillRandom() { payload.Fill(b) }

// ioResult is what one run of blocks through the kernel did.
type ioResult struct {
	bytes int64
	ops   int64
	eof   bool
}

// file is an open file the timed loops move blocks through, at pos: with
// read(2) and write(2), or with native AIO where a is set (large O_DIRECT
// blocks, see startAsync). The plain calls move the file's own offset as
// well; AIO moves only pos.
type file struct {
	fd  int
	pos int64
	a   *aio.Context
	// reserved: the file was allocated at its final size, and a write
	// that stops early must cut it back (see sweep's write).
	reserved bool
}

// startAsync moves f's blocks larger than rawLimit through native AIO,
// for a file opened O_DIRECT: a block that waits on a slow device then
// parks its goroutine in the netpoller instead of handing the
// scheduler's P over (see internal/aio). A writer passes the file's
// final size in reserve, which it allocates first: a write that extends
// the file is done inside io_submit. It keeps the plain calls where the
// kernel has no AIO or the filesystem cannot allocate ahead (vfat, FUSE).
// It asks the filesystem before it sets up a context: the write's call
// is timed, and a context closed unused costs io_destroy's wait for an
// RCU grace period.
func (f *file) startAsync(reserve int64) {
	if reserve > 0 && !aio.Allocates(f.fd) {
		return
	}
	a, err := aio.New()
	if err != nil {
		return
	}
	if reserve > 0 {
		if !aio.Reserve(f.fd, reserve) {
			_ = a.Close()
			return
		}
		f.reserved = true
	}
	f.a = a
}

// checkAsync goes back to the plain calls once the filesystem turns out
// to do AIO's requests inside io_submit (aio.Context.Sync), from where
// the blocks so far ended.
func (f *file) checkAsync() error {
	if f.a == nil || !f.a.Sync() {
		return nil
	}
	f.stopAsync()
	_, err := unix.Seek(f.fd, f.pos, 0)
	return err
}

func (f *file) stopAsync() {
	if f.a != nil {
		_ = f.a.Close()
		f.a = nil
	}
}

// rewind starts f over at its first byte.
func (f *file) rewind() error {
	f.pos = 0
	_, err := unix.Seek(f.fd, 0, 0)
	return err
}

// writeBlocks issues n writes of bs bytes, walking through pool so that
// successive blocks carry different data (a file of one repeated 8-byte block
// would compress to nothing on btrfs). *off is the position in pool, kept
// across calls; window is the multiple of bs that pool holds.
//
// This is the timed loop: one system call per block and nothing else.
func writeBlocks(f *file, pool buffer, window, bs, n int, off *int) (ioResult, error) {
	base := uintptr(unsafe.Pointer(&pool[0]))
	o := *off
	var done int64
	raw := bs <= rawLimit
	for i := 0; i < n; i++ {
		var r uintptr
		var e syscall.Errno
		switch {
		case raw:
			r, _, e = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(f.fd), base+uintptr(o), uintptr(bs))
		case f.a != nil:
			var w int
			w, e = f.a.Pwrite(f.fd, pool[o:o+bs], f.pos)
			r = uintptr(w)
		default:
			r, _, e = syscall.Syscall(syscall.SYS_WRITE, uintptr(f.fd), base+uintptr(o), uintptr(bs))
		}
		if e != 0 {
			if e == syscall.EINTR {
				i--
				continue
			}
			*off = o
			return ioResult{bytes: done, ops: int64(i)}, e
		}
		done += int64(r)
		f.pos += int64(r)
		if int(r) != bs {
			// A short write to a regular file means the filesystem is full;
			// the next call says so with ENOSPC.
			*off = o
			return ioResult{bytes: done, ops: int64(i + 1)}, shortWrite(f, pool[o+int(r):o+bs], int(r))
		}
		if o += bs; o == window {
			o = 0
		}
	}
	*off = o
	return ioResult{bytes: done, ops: int64(n)}, nil
}

// shortWrite writes the rest of a block cut short, from the block's own
// memory (aligned as O_DIRECT needs), to have the kernel say why.
func shortWrite(f *file, rest []byte, got int) error {
	if _, err := unix.Pwrite(f.fd, rest, f.pos); err != nil {
		return err
	}
	return fmt.Errorf("short write: %d of %d bytes", got, got+len(rest))
}

// readBlocks issues up to n reads of bs bytes into buf, stopping at end
// of file. Like writeBlocks, it is the timed loop.
func readBlocks(f *file, buf buffer, bs, n int) (ioResult, error) {
	p := uintptr(unsafe.Pointer(&buf[0]))
	var done int64
	raw := bs <= rawLimit
	for i := 0; i < n; i++ {
		var r uintptr
		var e syscall.Errno
		switch {
		case raw:
			r, _, e = syscall.RawSyscall(syscall.SYS_READ, uintptr(f.fd), p, uintptr(bs))
		case f.a != nil:
			var got int
			got, e = f.a.Pread(f.fd, buf[:bs], f.pos)
			r = uintptr(got)
		default:
			r, _, e = syscall.Syscall(syscall.SYS_READ, uintptr(f.fd), p, uintptr(bs))
		}
		if e != 0 {
			if e == syscall.EINTR {
				i--
				continue
			}
			return ioResult{bytes: done, ops: int64(i)}, e
		}
		if r == 0 {
			return ioResult{bytes: done, ops: int64(i), eof: true}, nil
		}
		done += int64(r)
		f.pos += int64(r)
	}
	return ioResult{bytes: done, ops: int64(n)}, nil
}
