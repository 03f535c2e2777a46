// Package kfile reads the kernel's own files, under /proc and /sys, with
// raw system calls.
//
// Go's os package announces each system call to the scheduler. A call
// that lasts past about 20 µs has its P taken by the runtime's monitor
// (sysmon), which wakes or starts another thread for the rest of the
// program and hands the P back when the call returns: a few context
// switches a call. A sysfs read on a slow core lasts that long, and on a
// one-core board the hand-overs cost more than the reads. In the emulated
// Pi 3 B on one core (internal/pilab), `thruput sysinfo --json` took 0.83
// s of CPU (median of 5) reading through os, and 0.20 s through this
// package. sysinfo and the health sampler read through it.
//
// A raw call keeps the P until it returns, so nothing else in the
// process runs meanwhile on a one-core board. That is cheap for these
// files, which the kernel fills from memory; it is not for files on a
// filesystem, whose reads can wait on a disk: read those through os.
package kfile

import (
	"io"
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File is a kernel file opened for reading.
type File struct {
	path string
	fd   int
}

// Open opens path read-only. Its errors are *fs.PathError, as os.Open's
// are (errors.Is(err, fs.ErrNotExist) for a file that is not there).
func Open(path string) (*File, error) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	cwd := unix.AT_FDCWD
	for {
		fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(p)),
			uintptr(unix.O_RDONLY|unix.O_CLOEXEC|unix.O_LARGEFILE), 0, 0, 0)
		switch e {
		case 0:
			return &File{path: path, fd: int(fd)}, nil
		case unix.EINTR:
			continue
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: e}
	}
}

// Read reads into b, io.EOF at the end of the file.
func (f *File) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(f.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: e}
		case n == 0:
			return 0, io.EOF
		}
		return int(n), nil
	}
}

// Close closes the file; a second Close is fs.ErrClosed, and closes
// nothing (the number may be another file's by then).
func (f *File) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	fd := f.fd
	f.fd = -1
	if _, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0); e != 0 {
		return &fs.PathError{Op: "close", Path: f.path, Err: e}
	}
	return nil
}

// ReadFile reads path whole, up to limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One read takes a sysfs value whole; a /proc table takes a few.
	return io.ReadAll(io.LimitReader(f, limit))
}
