package aio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/exectest"
	"github.com/thruput/thruput/internal/fstest"
)

func TestMain(m *testing.M) { fstest.Main(m) }

// newContext is New, skipped only under an emulator: qemu-user does not
// emulate native AIO (the emulated Pi runs it on a real kernel).
func newContext(t *testing.T) *Context {
	t.Helper()
	c, err := New()
	if errors.Is(err, ErrUnsupported) && len(exectest.Wrapper()) > 0 {
		t.Skipf("under %v: %v", exectest.Wrapper(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// page is n page-aligned bytes outside the Go heap, as O_DIRECT and the
// kernel's hold on a buffer in flight need.
func page(t *testing.T, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

// openDirect opens path O_DIRECT where the filesystem allows it, and
// plainly where it does not (then AIO is done inside io_submit, but its
// results are the same).
func openDirect(t *testing.T, path string, flags int) int {
	t.Helper()
	fd, err := unix.Open(path, flags|unix.O_DIRECT|unix.O_CLOEXEC, 0o600)
	if err == unix.EINVAL {
		fd, err = unix.Open(path, flags|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

const blk = 4096

// TestReadWrite writes three blocks out of order at their offsets, reads
// the file back both ways, and reads at and across its end.
func TestReadWrite(t *testing.T) {
	c := newContext(t)
	path := filepath.Join(t.TempDir(), "f")
	fd := openDirect(t, path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL)
	if !Reserve(fd, 3*blk) {
		t.Fatalf("Reserve refused on %s", filepath.Dir(path))
	}
	buf := page(t, blk)
	for _, i := range []int{2, 0, 1} {
		for j := range buf {
			buf[j] = byte(i*7 + j)
		}
		n, e := c.Pwrite(fd, buf, int64(i*blk))
		if n != blk || e != 0 {
			t.Fatalf("Pwrite block %d: %d bytes, errno %v", i, n, e)
		}
	}
	want := make([]byte, 3*blk)
	for i := range 3 {
		for j := range blk {
			want[i*blk+j] = byte(i*7 + j)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file holds %d bytes, not the %d written in place", len(got), len(want))
	}
	for i := range 3 {
		clear(buf)
		n, e := c.Pread(fd, buf, int64(i*blk))
		if n != blk || e != 0 || !bytes.Equal(buf, want[i*blk:(i+1)*blk]) {
			t.Fatalf("Pread block %d: %d bytes, errno %v, data equal %v", i, n, e, bytes.Equal(buf, want[i*blk:(i+1)*blk]))
		}
	}
	if n, e := c.Pread(fd, buf, 3*blk); n != 0 || e != 0 {
		t.Errorf("Pread at the end: %d bytes, errno %v; want 0, 0", n, e)
	}
	if n, e := c.Pread(fd, nil, 0); n != 0 || e != 0 {
		t.Errorf("Pread of nothing: %d bytes, errno %v; want 0, 0", n, e)
	}
	if c.Sync() {
		t.Error("Sync after requests to the page cache or a local disk: want false")
	}
}

// TestErrors: what the kernel refuses comes back as its errno, from the
// submit or from the completion, and the context goes on working.
func TestErrors(t *testing.T) {
	c := newContext(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, blk), 0o600); err != nil {
		t.Fatal(err)
	}
	buf := page(t, 2*blk)
	ro := openDirect(t, path, unix.O_RDONLY)
	if n, e := c.Pwrite(ro, buf[:blk], 0); e != unix.EBADF {
		t.Errorf("Pwrite to a read-only descriptor: %d bytes, errno %v; want EBADF", n, e)
	}
	if n, e := c.Pread(-1, buf[:blk], 0); e != unix.EBADF {
		t.Errorf("Pread of descriptor -1: %d bytes, errno %v; want EBADF", n, e)
	}
	if n, e := c.Pread(ro, buf[:blk], -blk); e != unix.EINVAL {
		t.Errorf("Pread at a negative offset: %d bytes, errno %v; want EINVAL", n, e)
	}
	fl, err := unix.FcntlInt(uintptr(ro), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl&unix.O_DIRECT != 0 {
		if n, e := c.Pread(ro, buf[1:blk+1], 0); e != unix.EINVAL {
			t.Errorf("O_DIRECT Pread into a buffer off its alignment: %d bytes, errno %v; want EINVAL", n, e)
		}
	}
	if n, e := c.Pread(ro, buf[:blk], 0); n != blk || e != 0 {
		t.Errorf("Pread after the errors: %d bytes, errno %v", n, e)
	}
}

// TestReserve: Reserve sets a file's size on a filesystem that allocates
// ahead, and refuses without changing anything elsewhere (a pipe).
func TestReserve(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	reserveOn(t, dir, allocates[uint32(fs.Type)])
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if Reserve(p[1], 1<<20) {
		t.Error("Reserve on a pipe: want false")
	}
}

// reserveOn reserves 1 MiB for a new file in dir: the file is then that
// long where want, and as it was, empty and with the blocks it had, where
// not.
func reserveOn(t *testing.T, dir string, want bool) {
	t.Helper()
	fd, err := unix.Open(filepath.Join(dir, "reserved"), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var before, st unix.Stat_t
	if err := unix.Fstat(fd, &before); err != nil {
		t.Fatal(err)
	}
	got := Reserve(fd, 1<<20)
	if got && !Allocates(fd) {
		t.Error("Reserve allocated where Allocates says it cannot")
	}
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	switch {
	case got != want:
		t.Errorf("Reserve: %v, want %v", got, want)
	case got && st.Size != 1<<20:
		t.Errorf("after Reserve: %d bytes, want %d", st.Size, 1<<20)
	case !got && (st.Size != 0 || st.Blocks != before.Blocks):
		t.Errorf("after a refused Reserve: %d bytes, %d blocks; want the empty file it was, %d blocks", st.Size, st.Blocks, before.Blocks)
	}
}

// TestReserveByFilesystem: the kernel filesystems whose fallocate only
// marks blocks allocate ahead (ext4, XFS, btrfs); ext2 and ext3, which
// have no fallocate, the FUSE daemons' (vfat, NTFS, exFAT) and tmpfs are
// refused, and nothing is written. Root: loop devices.
func TestReserveByFilesystem(t *testing.T) {
	fstest.RequireRoot(t)
	for _, kind := range fstest.Kinds() {
		t.Run(kind, func(t *testing.T) {
			dir := fstest.Mount(t, kind, max(16<<20, fstest.MinSize(kind)))
			reserveOn(t, dir, map[string]bool{"ext4": true, "xfs": true, "btrfs": true}[kind])
		})
	}
}

// TestSyncSubmits: on ext4 an O_DIRECT write that extends the file is done
// inside io_submit. Through a throttled device each such submit waits for
// the device, and after three in a row Sync says so; writes to a file
// Reserve sized do not.
// Root: a loop device, and a blkio throttle the test process joins.
func TestSyncSubmits(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", 64<<20)
	th := fstest.NewThrottle(t, dir)
	th.Set(t, 0, 1<<20) // 1 MiB/s: a 256 KiB write waits about 250 ms
	th.Join(t)
	buf := page(t, 256<<10)
	for _, reserve := range []bool{false, true} {
		c := newContext(t)
		fd := openDirect(t, filepath.Join(dir, "f"+map[bool]string{false: "ext", true: "res"}[reserve]), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
		if reserve && !Reserve(fd, 3*int64(len(buf))) {
			t.Fatal("Reserve refused on ext4")
		}
		start := time.Now()
		for i := range 3 {
			if n, e := c.Pwrite(fd, buf, int64(i*len(buf))); n != len(buf) || e != 0 {
				t.Fatalf("write %d: %d bytes, errno %v", i, n, e)
			}
		}
		if took := time.Since(start); took < 300*time.Millisecond {
			t.Fatalf("768 KiB through a 1 MiB/s throttle took %v: the throttle did not hold", took)
		}
		if c.Sync() == reserve {
			t.Errorf("reserved %v: Sync %v, want %v", reserve, c.Sync(), !reserve)
		}
	}
}

// TestReserveNoRoom: a Reserve larger than the filesystem's free space is
// refused and leaves the file as it was: ext4 allocates what room there
// is before it gives up. Root: a loop device.
func TestReserveNoRoom(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", fstest.MinSize("ext4"))
	fd := openDirect(t, filepath.Join(dir, "f"), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
	if Reserve(fd, 64<<20) {
		t.Fatal("Reserve of 64 MiB on an 8 MiB filesystem: want false")
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 0 || st.Blocks != 0 {
		t.Errorf("after a refused Reserve: %d bytes, %d blocks; want the empty file it was", st.Size, st.Blocks)
	}
}
