// Package fakecard gives tests a counterfeit memory card: a block device
// that announces more bytes than it keeps, as the fake SD cards and USB
// sticks sold by the million do. Tests of thruput's fake-capacity checks
// (disk check --probe and --capacity) run against it, and against f3 on
// the same device, without a drawer of real fakes.
//
// The card is a file served by a FUSE server in the test process, of the
// announced size, whose reads and writes past the real size wrap onto the
// start or are dropped; a loop device with direct I/O puts a block device
// in front of it, so that what reaches the card is what a program wrote,
// not what the page cache kept. Everything is root-only and torn down when
// the test ends, also when it fails.
package fakecard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/thruput/thruput/internal/fstest"
)

// Mode says what the card does with a byte past its real size.
type Mode int

const (
	// ModeWrap maps offset o to o modulo the real size, as most fakes do:
	// their controller ignores the high address bits, so a write past the
	// real size overwrites data near the start.
	ModeWrap Mode = iota
	// ModeDrop ignores writes past the real size; reads there give zeros.
	ModeDrop
)

func (m Mode) String() string {
	switch m {
	case ModeWrap:
		return "wrap"
	case ModeDrop:
		return "drop"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Options describe a card.
type Options struct {
	// Announced is the size the card claims, in bytes: a multiple of
	// SectorSize.
	Announced int64
	// Real is how many bytes it keeps, 0 < Real <= Announced, a multiple
	// of SectorSize. Real == Announced is a genuine card.
	Real int64
	// Mode is what happens past Real.
	Mode Mode
	// SectorSize is the loop device's logical sector size; 0 means 512.
	SectorSize int
	// Latency is added to every read and write the card serves: a slow
	// card, so that a test can act while a program is still at work on it
	// (interrupt it midway).
	Latency time.Duration
}

// Card is a started fake card.
type Card struct {
	// Device is the loop device, /dev/loopN.
	Device string
	// Announced and Real are the sizes the card was started with.
	Announced, Real int64
	// Mode is what it does past Real.
	Mode Mode

	store         *os.File
	latency       time.Duration
	writes, reads atomic.Int64
}

// fileName is the card's file in the FUSE mount.
const fileName = "card"

// Start serves a FUSE file that announces o.Announced bytes and keeps
// o.Real of them, attaches it to a loop device with direct I/O
// (losetup --direct-io=on) and returns the card. When the test ends the
// loop device is detached, then the file unmounted, also when the test
// fails. It needs root: without it the test is skipped, or failed under
// CI=true (fstest.RequireRoot).
func Start(t testing.TB, o Options) *Card {
	t.Helper()
	fstest.RequireRoot(t)
	if o.SectorSize == 0 {
		o.SectorSize = 512
	}
	if err := o.check(); err != nil {
		t.Fatalf("fakecard: %v", err)
	}
	// The kept bytes live in a sparse file: a card the test never fills
	// costs no memory, and a filled one costs page cache the kernel can
	// reclaim.
	store, err := os.CreateTemp(t.TempDir(), "real-*")
	if err != nil {
		t.Fatalf("fakecard: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Truncate(o.Real); err != nil {
		t.Fatalf("fakecard: %v", err)
	}
	c := &Card{Announced: o.Announced, Real: o.Real, Mode: o.Mode, store: store, latency: o.Latency}

	mnt := fstest.MountPoint(t)
	root := &fs.Inode{}
	server, err := fs.Mount(mnt, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			// As root, mount(2) itself: no fusermount, no /etc/mtab.
			DirectMountStrict: true,
			FsName:            "thruput-fakecard",
			Name:              "fakecard",
		},
		OnAdd: func(ctx context.Context) {
			n := root.NewPersistentInode(ctx, &node{card: c}, fs.StableAttr{Mode: syscall.S_IFREG})
			root.AddChild(fileName, n, true)
		},
	})
	if err != nil {
		t.Fatalf("fakecard: mount FUSE on %s: %v", mnt, err)
	}
	// Runs after the loop device is detached (registered later, so run
	// earlier); fstest.MountPoint's own cleanup unmounts lazily should
	// this fail because something still holds the file.
	t.Cleanup(func() {
		if err := server.Unmount(); err != nil {
			t.Errorf("fakecard: unmount %s: %v", mnt, err)
		}
	})
	if err := server.WaitMount(); err != nil {
		t.Fatalf("fakecard: FUSE mount on %s: %v", mnt, err)
	}
	c.Device = fstest.AttachLoop(t, filepath.Join(mnt, fileName),
		"--direct-io=on", "--sector-size", strconv.Itoa(o.SectorSize))
	// losetup falls back to buffered I/O with only a warning; a card
	// behind the page cache would hide exactly what tests look for.
	dio, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(c.Device), "loop/dio"))
	if err != nil || strings.TrimSpace(string(dio)) != "1" {
		t.Fatalf("fakecard: %s is not in direct I/O mode (loop/dio %q, %v)", c.Device, dio, err)
	}
	return c
}

func (o Options) check() error {
	ss := int64(o.SectorSize)
	switch {
	case ss < 512 || ss > 4096 || ss&(ss-1) != 0:
		return fmt.Errorf("sector size %d: want a power of two from 512 to 4096", o.SectorSize)
	case o.Real <= 0 || o.Real > o.Announced:
		return fmt.Errorf("real size %d: want 0 < real <= announced (%d)", o.Real, o.Announced)
	case o.Real%ss != 0 || o.Announced%ss != 0:
		return fmt.Errorf("sizes %d and %d: want multiples of the sector size %d", o.Real, o.Announced, ss)
	case o.Mode != ModeWrap && o.Mode != ModeDrop:
		return fmt.Errorf("unknown mode %v", o.Mode)
	case o.Latency < 0:
		return fmt.Errorf("negative latency %v", o.Latency)
	}
	return nil
}

// ReadReal reads the card's kept bytes at off, as the card's memory holds
// them, past the loop device and the FUSE file: how a test sees what a
// probe left on the card without going through what it tests.
func (c *Card) ReadReal(p []byte, off int64) (int, error) {
	return c.store.ReadAt(p, off)
}

// Writes counts the write requests the card has served: how a test knows
// a program has begun writing to it.
func (c *Card) Writes() int64 { return c.writes.Load() }

// Reads counts the read requests the card has served: with Writes, what a
// program cost a card whose every request takes time.
func (c *Card) Reads() int64 { return c.reads.Load() }

// node is the card's file.
type node struct {
	fs.Inode
	card *Card
}

var (
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeReader    = (*node)(nil)
	_ fs.NodeWriter    = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
)

func (n *node) Getattr(_ context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(n.card.Announced)
	out.Blksize = 4096
	out.Blocks = uint64(n.card.Real) / 512
	return 0
}

// Setattr refuses a new size (a card cannot grow or shrink) and ignores
// the rest (times, mode), which losetup and the tests never rely on.
func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok && size != uint64(n.card.Announced) {
		return syscall.EPERM
	}
	return n.Getattr(ctx, fh, out)
}

// Open asks the kernel to pass every read and write on to the server
// (FOPEN_DIRECT_IO): a page cached in the FUSE layer would answer a read
// the card itself would have answered differently.
func (n *node) Open(context.Context, uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Read(_ context.Context, _ fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	time.Sleep(n.card.latency)
	n.card.reads.Add(1)
	if off >= n.card.Announced {
		return fuse.ReadResultData(nil), 0
	}
	dest = dest[:min(int64(len(dest)), n.card.Announced-off)]
	err := n.card.each(dest, off, func(p []byte, at int64, kept bool) error {
		if !kept {
			clear(p)
			return nil
		}
		_, err := n.card.store.ReadAt(p, at)
		return err
	})
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(dest), 0
}

func (n *node) Write(_ context.Context, _ fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	time.Sleep(n.card.latency)
	n.card.writes.Add(1)
	if off+int64(len(data)) > n.card.Announced {
		return 0, syscall.ENOSPC
	}
	err := n.card.each(data, off, func(p []byte, at int64, kept bool) error {
		if !kept {
			return nil
		}
		_, err := n.card.store.WriteAt(p, at)
		return err
	})
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	return uint32(len(data)), 0
}

// Fsync has nothing to do: the store outlives no crash the test cares
// about, and the loop device's flush must not fail.
func (n *node) Fsync(context.Context, fs.FileHandle, uint32) syscall.Errno { return 0 }

// each splits the transfer of p at card offset off into pieces that do not
// cross the real size's boundaries and calls fn with each piece, where it
// lies in the store, and whether the card keeps it at all.
func (c *Card) each(p []byte, off int64, fn func(p []byte, at int64, kept bool) error) error {
	for len(p) > 0 {
		at, kept := off, true
		if off >= c.Real {
			at, kept = off%c.Real, c.Mode == ModeWrap
		}
		k := min(int64(len(p)), c.Real-at)
		if err := fn(p[:k], at, kept); err != nil {
			return err
		}
		p, off = p[k:], off+k
	}
	return nil
}
