package pilab

import (
	"fmt"
	"io"
)

// Cpio writes an archive in the "newc" format, the one the kernel unpacks
// as an initramfs. Written here because Debian's cpio is not installed
// everywhere and the format is a fixed header per entry.
type Cpio struct {
	w   io.Writer
	ino int
	err error
}

// NewCpio starts an archive on w.
func NewCpio(w io.Writer) *Cpio { return &Cpio{w: w} }

// Mode bits of the entries (stat's S_IF*).
const (
	modeDir     = 0o040000
	modeFile    = 0o100000
	modeSymlink = 0o120000
	modeChar    = 0o020000
)

// Dir adds a directory.
func (c *Cpio) Dir(name string) { c.entry(name, modeDir|0o755, 0, 0, nil) }

// File adds a regular file with permission bits perm.
func (c *Cpio) File(name string, perm int, data []byte) { c.entry(name, modeFile|perm, 0, 0, data) }

// Symlink adds a symbolic link name pointing to target.
func (c *Cpio) Symlink(name, target string) {
	c.entry(name, modeSymlink|0o777, 0, 0, []byte(target))
}

// CharDev adds a character device node.
func (c *Cpio) CharDev(name string, major, minor int) {
	c.entry(name, modeChar|0o600, major, minor, nil)
}

// Close writes the trailer and returns the first error met.
func (c *Cpio) Close() error {
	c.entry("TRAILER!!!", 0, 0, 0, nil)
	return c.err
}

func (c *Cpio) entry(name string, mode, major, minor int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&modeDir != 0 {
		nlink = 2
	}
	// Magic, then ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize (with its NUL), check.
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, major, minor, len(name)+1, 0)
	buf := append([]byte(hdr), name...)
	buf = append(buf, 0)
	buf = pad4(buf, len(buf))
	buf = append(buf, data...)
	buf = pad4(buf, len(data))
	_, c.err = c.w.Write(buf)
}

// pad4 pads b with NULs so that n, the length just written, reaches a
// multiple of four.
func pad4(b []byte, n int) []byte {
	for ; n%4 != 0; n++ {
		b = append(b, 0)
	}
	return b
}
