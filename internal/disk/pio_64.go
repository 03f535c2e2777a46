//go:build amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || mips64 || mips64le || loong64

package disk

import "syscall"

// pio issues pread64 (write false) or pwrite64 at off, raw or through the
// scheduler. On 64-bit machines the offset is one register.
func pio(write, raw bool, fd int, p uintptr, n int, off int64) (uintptr, syscall.Errno) {
	trap := uintptr(syscall.SYS_PREAD64)
	if write {
		trap = syscall.SYS_PWRITE64
	}
	var r uintptr
	var e syscall.Errno
	if raw {
		r, _, e = syscall.RawSyscall6(trap, uintptr(fd), p, uintptr(n), uintptr(off), 0, 0)
	} else {
		r, _, e = syscall.Syscall6(trap, uintptr(fd), p, uintptr(n), uintptr(off), 0, 0)
	}
	return r, e
}
