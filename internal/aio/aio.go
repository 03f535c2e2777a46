// Package aio reads and writes one block at a time through Linux's native
// asynchronous I/O (io_submit), and waits for each block in Go's netpoller,
// woken by an eventfd the kernel signals when the block completes.
//
// Why: a read or write that waits on a slow device, a 1 MiB O_DIRECT write
// to an SD card that takes 50 ms, is the worst case for Go's scheduler. An
// announced system call (syscall.Syscall) lets the runtime's monitor take
// the scheduler's P back from the blocked thread and start another thread
// to look for work; on one core that is about seven thread switches a
// block where dd has one. A raw call keeps the P, so the monitor preempts
// the thread every 10 ms instead, and nothing else in the process runs.
// Submitted here, the block goes to the device, the goroutine parks in the
// netpoller, the process sleeps in one epoll wait, and the completion wakes
// it once: one O_DIRECT 1 MiB write cost about a third of the thread
// switches and less CPU than dd's (which also reads /dev/zero).
//
// Only O_DIRECT I/O is asynchronous, and only where the filesystem does it
// so: ext4 finishes a write that extends the file inside io_submit, so a
// writer first allocates the file at its final size (Reserve), on the
// filesystems whose fallocate sets blocks aside without writing them;
// others (vfat, whose fallocate writes zeros; FUSE) are left to plain
// system calls. Every submit is timed, and a context whose submits do the
// I/O themselves says so (Sync), so that the caller falls back.
//
// A Context is used from one goroutine at a time, for one request at a
// time; buffers are handed to the kernel by address, so they must not be
// moved by the garbage collector: memory from unix.Mmap.
package aio

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrUnsupported is wrapped by New's error where the kernel has no native
// AIO (ENOSYS: configured out, filtered by seccomp, or qemu-user, which
// does not emulate it) or has no room for another context (EAGAIN:
// fs.aio-max-nr reached). Callers fall back to plain system calls on it.
var ErrUnsupported = errors.New("native AIO unsupported")

// syncSubmit is how long a submit may take before it counts as having done
// the I/O itself: allocating blocks or journalling takes microseconds, a
// device's wait milliseconds.
const syncSubmit = time.Millisecond

// iocb is the kernel's struct iocb (include/uapi/linux/aio_abi.h): the same
// 64 bytes on every architecture thruput builds for, all of them little
// endian, where aio_key comes before aio_rw_flags.
type iocb struct {
	_      uint64 // aio_data
	_      uint32 // aio_key
	_      int32  // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	buf    uint64
	nbytes uint64
	offset int64
	_      uint64 // aio_reserved2
	flags  uint32
	resfd  uint32
}

// The layouts the kernel reads, checked as the build compiles: each
// line fails unless its two sides are equal.
var (
	_ [0]struct{} = [unsafe.Sizeof(iocb{}) - 64]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(iocb{}.buf) - 24]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(iocb{}.resfd) - 60]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(event{}) - 32]struct{}{}
)

// event is the kernel's struct io_event.
type event struct {
	data, obj uint64
	res, res2 int64
}

const (
	cmdPread  = 0
	cmdPwrite = 1
	// flagResfd has the kernel signal resfd at each completion.
	flagResfd = 1 << 0
)

// Context is one AIO context with room for one request, and the eventfd
// its completions signal.
type Context struct {
	ctx uintptr // aio_context_t: an unsigned long
	ev  *os.File
	rc  syscall.RawConn
	cb  iocb
	cbs [1]*iocb
	got event
	// busy is the buffer of the request in flight: held here so that
	// the garbage collector keeps it, and so that it is never a stack's,
	// which may move while the goroutine waits.
	busy []byte
	// done is what the poller is handed, made once (a closure made at
	// each call escapes to the heap); n and errno are its result.
	done  func(fd uintptr) bool
	n     int64
	errno syscall.Errno
	// slow counts the submits in a row that took syncSubmit or longer.
	slow int
}

// syncRun is how many slow submits in a row make a context Sync: one may
// be the thread preempted inside the call on a busy core.
const syncRun = 3

// getEvents takes at most one completion without waiting: min_nr 0 makes
// io_getevents return at once, so it needs no timeout, whose struct is
// 32-bit time on 32-bit ARM.
func (c *Context) getEvents() (uintptr, syscall.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_IO_GETEVENTS, c.ctx, 0, 1, uintptr(unsafe.Pointer(&c.got)), 0, 0)
	return r, e
}

// New sets up a context; Close it.
func New() (*Context, error) {
	c := &Context{}
	if _, _, e := unix.RawSyscall(unix.SYS_IO_SETUP, 1, uintptr(unsafe.Pointer(&c.ctx)), 0); e != 0 {
		if e == unix.ENOSYS || e == unix.EAGAIN || e == unix.EPERM {
			return nil, errors.Join(ErrUnsupported, os.NewSyscallError("io_setup", e))
		}
		return nil, os.NewSyscallError("io_setup", e)
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		c.destroy()
		return nil, os.NewSyscallError("eventfd", err)
	}
	c.ev = os.NewFile(uintptr(fd), "aio-eventfd")
	if c.rc, err = c.ev.SyscallConn(); err != nil {
		c.ev.Close()
		c.destroy()
		return nil, err
	}
	// os.NewFile hides a refused poller registration (fs.epoll's
	// max_user_watches); a deadline can only be set on a polled file.
	// And a kernel may lack the io_getevents this architecture has
	// (32-bit ARM's takes 32-bit time).
	if err := c.ev.SetReadDeadline(time.Time{}); err != nil {
		c.Close()
		return nil, errors.Join(ErrUnsupported, err)
	}
	if _, e := c.getEvents(); e != 0 {
		c.Close()
		return nil, errors.Join(ErrUnsupported, os.NewSyscallError("io_getevents", e))
	}
	c.cbs[0] = &c.cb
	c.cb.resfd, c.cb.flags = uint32(fd), flagResfd
	// The eventfd's count is never read: each completion is an edge for
	// the poller (it is registered edge-triggered), and the completion
	// itself is taken with io_getevents. A count left over only makes a
	// wake-up that finds nothing, and the goroutine parks again.
	c.done = func(uintptr) bool {
		r, e := c.getEvents()
		for e == unix.EINTR {
			r, e = c.getEvents()
		}
		switch {
		case e != 0:
			c.errno = e
		case r == 0:
			return false
		case c.got.res < 0:
			c.errno = syscall.Errno(-c.got.res)
		default:
			c.n = c.got.res
		}
		return true
	}
	return c, nil
}

// Pread reads len(b) bytes at off into b and waits for them: n < len(b)
// at the end of the file.
func (c *Context) Pread(fd int, b []byte, off int64) (int, syscall.Errno) {
	return c.do(cmdPread, fd, b, off)
}

// Pwrite writes b at off and waits for it.
func (c *Context) Pwrite(fd int, b []byte, off int64) (int, syscall.Errno) {
	return c.do(cmdPwrite, fd, b, off)
}

func (c *Context) do(op uint16, fd int, b []byte, off int64) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	c.busy = b
	c.cb.opcode, c.cb.fildes = op, uint32(fd)
	c.cb.buf = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	c.cb.nbytes, c.cb.offset = uint64(len(b)), off
	c.n, c.errno = 0, 0
	// Raw: an announced call would wake the runtime's monitor, which then
	// polls every 20 us until the process is idle again.
	// The submit is timed (two vDSO clock reads, against a block that
	// may wait milliseconds): one that took as long as the I/O did it.
	start := time.Now()
	e := unix.EINTR
	for e == unix.EINTR {
		_, _, e = unix.RawSyscall(unix.SYS_IO_SUBMIT, c.ctx, 1, uintptr(unsafe.Pointer(&c.cbs[0])))
	}
	if e == 0 {
		if time.Since(start) >= syncSubmit {
			c.slow++
		} else if c.slow < syncRun {
			c.slow = 0
		}
		if c.rc.Read(c.done) != nil {
			// Only Close makes the poller fail a wait, and Close is
			// not called with a request in flight.
			e = unix.EBADF
		}
	}
	c.busy = nil
	if e != 0 {
		return 0, e
	}
	return int(c.n), c.errno
}

// Sync says whether syncRun submits in a row took as long as doing the I/O:
// the filesystem completes this context's requests inside io_submit,
// holding the scheduler's P while the device works, and the caller
// should use plain system calls instead.
func (c *Context) Sync() bool { return c.slow >= syncRun }

// Reserve allocates the file at fd size bytes long with fallocate, so
// that the writes that follow do not extend it (ext4 completes an
// extending O_DIRECT write inside io_submit). Only on the filesystems
// whose fallocate sets blocks aside without writing them (allocates), and
// where there is room; false elsewhere: vfat's fallocate writes zeros
// through the page cache (an expanding truncate), which the writes would
// then wait to flush, and FUSE daemons do what they like. A refused
// Reserve leaves the file its size before (a fallocate that runs out of
// room may have grown it part of the way).
func Reserve(fd int, size int64) bool {
	var st unix.Stat_t
	if !Allocates(fd) || unix.Fstat(fd, &st) != nil {
		return false
	}
	if unix.Fallocate(fd, 0, 0, size) == nil {
		return true
	}
	_ = unix.Ftruncate(fd, st.Size)
	return false
}

// Allocates says whether the file at fd is on a filesystem Reserve may
// allocate on, without touching the file, so that a caller can ask
// before it sets up a context it would otherwise only close again. ext2
// and ext3 share ext4's magic number: they pass here, and their missing
// fallocate refuses in Reserve.
func Allocates(fd int) bool {
	var fs unix.Statfs_t
	return unix.Fstatfs(fd, &fs) == nil && allocates[uint32(fs.Type)]
}

// allocates is the filesystems (statfs f_type, linux/magic.h) whose
// fallocate marks blocks allocated but unwritten, as fio's
// fallocate=native relies on. uint32: f_type is an int32 on 32-bit ARM,
// where btrfs's and f2fs's magic numbers read negative.
var allocates = map[uint32]bool{
	unix.EXT4_SUPER_MAGIC:  true, // ext2, ext3 and ext4 share it
	unix.XFS_SUPER_MAGIC:   true,
	unix.BTRFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC:  true,
}

// Close releases the context, waiting for a request still in flight.
func (c *Context) Close() error {
	err := c.ev.Close()
	c.destroy()
	return err
}

// destroy is an announced call: io_destroy waits for a request in flight
// and for an RCU grace period, too long to hold the P.
func (c *Context) destroy() {
	_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, c.ctx, 0, 0)
}
