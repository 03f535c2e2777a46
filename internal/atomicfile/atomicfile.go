// Package atomicfile writes a file so that a reader sees the old content
// or the new, never half of it, and a failed write leaves nothing behind:
// the content goes to a temporary file in the same directory, is synced
// and is renamed over the target. A target that is no regular file (a
// FIFO, a character device such as /dev/null) or that names an open
// descriptor (/dev/stdout, /proc/self/fd/1) is written in place instead:
// renaming over it would replace the device or the link.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write calls fill with a writer for path and puts what it wrote there.
// A new file gets perm less the umask, as os.OpenFile gives it; a file
// that exists keeps its mode; a symbolic link to a regular file stays a
// link, and the file it names is replaced. An error opening or creating
// the file is an *fs.PathError whose Op is "open".
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	if descriptor(path) {
		// The descriptor may be a regular file that already holds what
		// the process printed before: append after it.
		return inPlace(path, os.O_WRONLY|os.O_APPEND, fill)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return inPlace(path, os.O_WRONLY, fill)
	case err == nil:
		perm = fi.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := create(path, perm)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = errors.Join(fill(bw), bw.Flush())
	if err == nil && fi != nil {
		// The umask applied at creation; an existing file's mode is kept whole.
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// descriptor tells the paths that name a descriptor of this process
// rather than a file: /dev/stdout and /dev/stderr, /dev/fd/N, and
// anything under /proc.
func descriptor(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	switch {
	case abs == "/dev/stdout", abs == "/dev/stderr", strings.HasPrefix(abs, "/dev/fd/"), strings.HasPrefix(abs, "/proc/"):
		return true
	}
	return false
}

// create makes a new temporary file beside path. os.CreateTemp would
// give it mode 0600; opening it with O_EXCL and perm lets the kernel
// apply the umask, which a process cannot read without changing it.
func create(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 10 {
		tmp := filepath.Join(dir, "."+base+"."+rand.Text()[:12])
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// Name the target, not the temporary file the user never saw.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return f, nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrExist}
}

// inPlace writes to a FIFO, a device or a descriptor as it is.
func inPlace(path string, flag int, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	return errors.Join(fill(bw), bw.Flush(), f.Close())
}
