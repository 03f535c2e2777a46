// Package uring drives Linux io_uring through raw system calls, so that the
// disk engines can keep many reads and writes in flight from one goroutine,
// the way fio's io_uring engine does. No io_uring library fits thruput's
// constraints (pure Go, static, armv6), and the handful of operations a
// benchmark needs does not warrant one.
//
// A Ring is used from one goroutine: queue requests with PrepRead, PrepWrite
// and PrepFsync, hand them to the kernel (and optionally wait) with Submit,
// and collect results with Reap. None of these allocate.
//
// How often to Submit decides how busy the device stays. fio by default
// (iodepth_batch_submit=1) submits each request as soon as it is prepared;
// that costs a system call per request, but the device starts on the first
// refill while the others are still being prepared. Queuing a whole round of
// refills and submitting them in one call is cheaper in CPU, yet on a virtio
// disk that serves requests one at a time it gave about 20% fewer IOPS.
//
// Buffers are given to the kernel by address. Until the completion for a
// request has been reaped, its buffer must stay where it is and stay valid:
// use memory from unix.Mmap (outside the Go heap, never moved or freed by the
// GC), never a Go-allocated slice, and do not unmap it early.
package uring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrUnsupported is wrapped by New's error when the kernel has no io_uring
// (ENOSYS: before 5.1, configured out, or filtered by seccomp), refuses it
// (EPERM: sysctl kernel.io_uring_disabled, a container's seccomp profile),
// rejects the setup (EINVAL), or predates IORING_OP_READ and IORING_OP_WRITE
// (5.6). Callers fall back to plain system calls on it.
var ErrUnsupported = errors.New("io_uring unsupported")

// Ring is one io_uring instance: a submission queue (SQ) of the size asked
// for and a completion queue (CQ) twice as large. It is not safe for
// concurrent use, and must not be used after Close.
type Ring struct {
	// The hot fields come first, together. The pointers reach into the
	// rings the kernel shares with us; they are computed once in New so
	// that the hot path only does loads and stores.
	sqHead *uint32        // advanced by the kernel as it consumes SQEs
	sqTail *uint32        // published by Submit
	cqHead *uint32        // advanced by Reap
	cqTail *uint32        // advanced by the kernel as it posts CQEs
	sqes   unsafe.Pointer // [sqEntries]sqe
	cqes   unsafe.Pointer // [cq entries]cqe

	// tail is the SQ tail as we fill it. The kernel sees it only at Submit,
	// which keeps a burst of Prep calls free of atomic stores.
	tail      uint32
	sqMask    uint32
	sqEntries uint32
	cqMask    uint32

	fd int
	// raw makes every enter a raw system call; see HoldP.
	raw bool
	// The mappings, kept for munmap; cqMap is nil when the kernel maps
	// both rings at once (IORING_FEAT_SINGLE_MMAP).
	sqMap, cqMap, sqeMap []byte
}

// New sets up a ring with room for entries queued requests, rounded up to a
// power of two by the kernel; entries must be 1..32768. Where the kernel
// allows, the ring belongs to the thread that calls New, and io_uring_enter
// from any other thread fails with EEXIST: lock the goroutine to its thread
// (runtime.LockOSThread) before New and keep it there. Reap only after a
// Submit, which is when that thread runs completion work.
//
// Keep no more than 2*entries requests in flight: that is the CQ's size, and
// beyond it completions back up in the kernel.
func New(entries uint32) (*Ring, error) {
	if entries == 0 || entries > maxEntries {
		return nil, fmt.Errorf("io_uring: %d entries, want 1 to %d", entries, maxEntries)
	}
	var p params
	var fd uintptr
	var errno unix.Errno
	// Ask for the cheapest completion handling first, as fio does: a ring
	// used by one thread (SINGLE_ISSUER) can defer completion work to that
	// thread's next enter (DEFER_TASKRUN) instead of interrupting it.
	// Kernels before 6.1 (6.0 for COOP_TASKRUN) reject the flags with
	// EINVAL; step down until one is accepted.
	for _, flags := range []uint32{setupCoopTaskrun | setupSingleIssuer | setupDeferTaskrun, setupCoopTaskrun, 0} {
		p = params{flags: flags}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno != unix.EINVAL {
			break
		}
	}
	if errno != 0 {
		err := os.NewSyscallError("io_uring_setup", errno)
		switch errno {
		case unix.ENOSYS, unix.EINVAL:
			return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
		case unix.EPERM:
			return nil, fmt.Errorf("%w (sysctl kernel.io_uring_disabled or a seccomp filter): %w", ErrUnsupported, err)
		}
		return nil, err
	}
	r := &Ring{fd: int(fd)}
	if p.features&featRWCurPos == 0 {
		r.Close()
		return nil, fmt.Errorf("%w: kernel before 5.6 has no IORING_OP_READ", ErrUnsupported)
	}
	if err := r.mapRings(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Ring) mapRings(p *params) error {
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(cqe{}))
	single := p.features&featSingleMMap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	// MAP_POPULATE: fault the pages in now rather than in the first timed
	// rounds.
	const prot, flags = unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_POPULATE
	if r.sqMap, err = unix.Mmap(r.fd, offSQRing, sqSize, prot, flags); err != nil {
		return fmt.Errorf("io_uring: mmap SQ ring: %w", err)
	}
	cqMap := r.sqMap
	if !single {
		if r.cqMap, err = unix.Mmap(r.fd, offCQRing, cqSize, prot, flags); err != nil {
			return fmt.Errorf("io_uring: mmap CQ ring: %w", err)
		}
		cqMap = r.cqMap
	}
	sqeSize := int(p.sqEntries) * int(unsafe.Sizeof(sqe{}))
	if r.sqeMap, err = unix.Mmap(r.fd, offSQEs, sqeSize, prot, flags); err != nil {
		return fmt.Errorf("io_uring: mmap SQEs: %w", err)
	}

	u32 := func(m []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&m[off])) }
	r.sqHead = u32(r.sqMap, p.sqOff.head)
	r.sqTail = u32(r.sqMap, p.sqOff.tail)
	r.sqMask = *u32(r.sqMap, p.sqOff.ringMask)
	r.sqEntries = p.sqEntries
	r.cqHead = u32(cqMap, p.cqOff.head)
	r.cqTail = u32(cqMap, p.cqOff.tail)
	r.cqMask = *u32(cqMap, p.cqOff.ringMask)
	r.sqes = unsafe.Pointer(&r.sqeMap[0])
	r.cqes = unsafe.Pointer(&cqMap[p.cqOff.cqes])
	r.tail = *r.sqTail

	// SQE slot i is always submitted through array slot i, so the
	// indirection array is filled once here instead of on every Prep.
	array := unsafe.Slice(u32(r.sqMap, p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	return nil
}

// Close unmaps the rings and closes the ring's file descriptor. It does not
// wait for requests still in flight (the kernel finishes them on its own), so
// reap those first if their buffers are to be reused. Calling it again does
// nothing.
func (r *Ring) Close() error {
	if r.fd < 0 {
		return nil
	}
	var errs []error
	for _, m := range [][]byte{r.sqeMap, r.cqMap, r.sqMap} {
		if m != nil {
			if err := unix.Munmap(m); err != nil {
				errs = append(errs, fmt.Errorf("io_uring: munmap: %w", err))
			}
		}
	}
	if err := unix.Close(r.fd); err != nil {
		errs = append(errs, fmt.Errorf("io_uring: close: %w", err))
	}
	// Nil ring pointers turn a use after Close into a nil-pointer panic
	// instead of a fault on unmapped memory.
	*r = Ring{fd: -1}
	return errors.Join(errs...)
}

// PrepRead queues a read of len(buf) bytes from fd at offset off
// (IORING_OP_READ); userData comes back with its completion. It reports false,
// queueing nothing, when the SQ is full: Submit first. buf must stay valid
// until the completion is reaped (see the package comment).
func (r *Ring) PrepRead(fd int, buf []byte, off int64, userData uint64) bool {
	return r.prep(opRead, fd, bufAddr(buf), bufLen(buf), uint64(off), 0, userData)
}

// PrepWrite queues a write of buf to fd at offset off (IORING_OP_WRITE), like
// PrepRead.
func (r *Ring) PrepWrite(fd int, buf []byte, off int64, userData uint64) bool {
	return r.prep(opWrite, fd, bufAddr(buf), bufLen(buf), uint64(off), 0, userData)
}

// PrepFsync queues an fsync of fd, or an fdatasync when datasync is set
// (IORING_OP_FSYNC). The kernel does not order it after requests queued
// before it: to flush their data, wait for their completions first.
func (r *Ring) PrepFsync(fd int, datasync bool, userData uint64) bool {
	var flags uint32
	if datasync {
		flags = fsyncDatasync
	}
	return r.prep(opFsync, fd, 0, 0, 0, flags, userData)
}

func (r *Ring) prep(op uint8, fd int, addr uint64, n uint32, off uint64, opFlags uint32, userData uint64) bool {
	if r.tail-atomic.LoadUint32(r.sqHead) >= r.sqEntries {
		return false
	}
	s := (*sqe)(unsafe.Add(r.sqes, uintptr(r.tail&r.sqMask)*unsafe.Sizeof(sqe{})))
	// One composite store rewrites the whole slot, so nothing from the
	// slot's previous request leaks into this one.
	*s = sqe{opcode: op, fd: int32(fd), off: off, addr: addr, len: n, opFlags: opFlags, userData: userData}
	r.tail++
	return true
}

func bufAddr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

// bufLen clamps to the SQE's 32-bit length; the kernel caps a single transfer
// below 2 GiB anyway, and reports the shorter count in the completion.
func bufLen(b []byte) uint32 { return uint32(min(uint64(len(b)), 1<<32-1)) }

// Submit hands every queued request to the kernel and, when waitFor > 0,
// waits until at least waitFor completions are ready to reap, all in one
// io_uring_enter. It returns how many requests the kernel took.
//
// The kernel can take fewer than were queued (when a request fails before it
// starts, or on memory pressure) and then returns without waiting; the rest
// stay queued for the next Submit. Waiting for more completions than there
// are requests in flight blocks forever.
func (r *Ring) Submit(waitFor uint32) (int, error) {
	// Release store: the SQEs written by Prep are visible to the kernel
	// before the tail that covers them.
	atomic.StoreUint32(r.sqTail, r.tail)
	// GETEVENTS even when not waiting: the kernel then runs the pending
	// completion work before returning, so a Reap right after sees every
	// request that has finished. A loop that submits this way while
	// completions keep coming, and waits only when none are ready, keeps
	// the queue full as fio's does.
	const flags = enterGetEvents
	for {
		// Counted against the kernel's head rather than since the last
		// Submit, so that requests the kernel left behind are retried.
		toSubmit := r.tail - atomic.LoadUint32(r.sqHead)
		if toSubmit == 0 && waitFor == 0 && atomic.LoadUint32(r.cqTail) != *r.cqHead {
			return 0, nil
		}
		// Not RawSyscall: the call may sleep until completions arrive, and
		// the scheduler must get its P back meanwhile.
		var n uintptr
		var errno unix.Errno
		if r.raw {
			n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(waitFor), flags, 0, 0)
		} else {
			n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(waitFor), flags, 0, 0)
		}
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			// The kernel returns EINTR only when it submitted nothing
			// (a wait interrupted after a submission reports the count),
			// so a retry neither loses nor repeats requests.
			continue
		}
		return 0, os.NewSyscallError("io_uring_enter", errno)
	}
}

// HoldP makes Submit keep the Go scheduler's P while it waits in the
// kernel. The ordinary path gives the P up during a wait longer than ~20 µs
// and must get it back afterwards, which on a goroutine locked to its thread
// is a futex round trip to another thread on every wait: at 1 MiB reads,
// where nearly every round waits, that cost a third of the bandwidth. Only
// for a ring driven by a locked goroutine while GOMAXPROCS leaves a P for
// everything else.
func (r *Ring) HoldP() { r.raw = true }

// Ready is how many completions are waiting to be reaped.
func (r *Ring) Ready() uint32 {
	return atomic.LoadUint32(r.cqTail) - *r.cqHead
}

// Reap calls fn with the userData and result of every completion ready now
// and returns how many there were. res is what the system call would have
// returned, with errors as negated errno values (-unix.EBADF). fn must not
// call Reap; it may queue new requests and Submit them.
func (r *Ring) Reap(fn func(userData uint64, res int32)) int {
	head := *r.cqHead
	// Acquire load: the CQEs up to tail are fully written.
	tail := atomic.LoadUint32(r.cqTail)
	if head == tail {
		return 0
	}
	for i := head; i != tail; i++ {
		c := (*cqe)(unsafe.Add(r.cqes, uintptr(i&r.cqMask)*unsafe.Sizeof(cqe{})))
		fn(c.userData, c.res)
	}
	// One release store for the whole batch hands the slots back to the
	// kernel only after fn has read them.
	atomic.StoreUint32(r.cqHead, tail)
	return int(tail - head)
}
