package disk

import "syscall"

// pio issues pread64 (write false) or pwrite64 at off, raw or through the
// scheduler. The 32-bit ARM EABI passes a 64-bit argument in an even/odd
// register pair, so the offset comes after a padding word, low half first.
func pio(write, raw bool, fd int, p uintptr, n int, off int64) (uintptr, syscall.Errno) {
	trap := uintptr(syscall.SYS_PREAD64)
	if write {
		trap = syscall.SYS_PWRITE64
	}
	lo, hi := uintptr(uint32(off)), uintptr(uint32(off>>32))
	var r uintptr
	var e syscall.Errno
	if raw {
		r, _, e = syscall.RawSyscall6(trap, uintptr(fd), p, uintptr(n), 0, lo, hi)
	} else {
		r, _, e = syscall.Syscall6(trap, uintptr(fd), p, uintptr(n), 0, lo, hi)
	}
	return r, e
}
