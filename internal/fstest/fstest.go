// Package fstest gives tests real, throwaway filesystems to run thruput
// against, and makes sure they go away again.
//
// thruput's behaviour depends on the filesystem it writes to (allocation,
// sync semantics, name rules, free-space reporting), which tmpfs or a
// directory on the build machine's root filesystem cannot stand in for. So
// Mount formats a sparse image file with the real mkfs and mounts it, with
// the kernel driver through a loop device or with the FUSE driver Debian
// ships (there is no vfat kernel driver on the CI machine).
//
// Mounts and loop devices outlive a crashed test process, and the CI
// machine has few loop devices and runs other jobs right after ours, so
// every resource is registered with t.Cleanup as soon as it exists and torn
// down in reverse order even when the test or a later setup step fails.
// What a killed process leaves behind is found by Sweep, which Main runs
// first; for that, everything lives in one directory per process,
// os.TempDir()/thruput-fstest-*.
//
// All of this needs root. RequireRoot skips tests without it, except under
// CI, where a skipped root test would silently test nothing.
package fstest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MiB is a mebibyte, the unit in which sizes are rounded.
const MiB = 1 << 20

// MaxLoopDevices is how many loop devices one test process uses at most.
// The CI machine has 8 and other jobs need some. When all are in use, Mount
// waits up to a minute for one to be freed by a parallel test, then fails;
// it fails at once when the asking test holds all of them itself, since
// then nobody would ever free one. So a single test can mount at most
// MaxLoopDevices loop-backed filesystems (ext2/3/4, xfs, btrfs, exfat) at
// the same time.
const MaxLoopDevices = 5

// loopWait is how long Mount waits for a free loop device slot.
const loopWait = time.Minute

var loopSlots = struct {
	sync.Mutex
	inUse   int
	holders map[testing.TB]int
	freed   chan struct{} // closed and replaced whenever a slot is freed
}{holders: map[testing.TB]int{}, freed: make(chan struct{})}

// tmpfsSource is the source field of our tmpfs mounts, so that a human
// reading `mount` output can tell whose they are.
const tmpfsSource = "thruput-fstest"

// fsSpec says how to make and mount one kind of filesystem.
type fsSpec struct {
	// min is the smallest image the mkfs accepts (or, for tmpfs, a size
	// that is not 0, which would mean "unlimited").
	min int64
	// mkfs is the command line; the image path is appended.
	mkfs []string
	// loop mounts from a loop device rather than from the image file.
	loop bool
	// mount returns the mount command line.
	mount func(src, mnt string) []string
	// daemon is the FUSE daemon's command name; empty for kernel drivers.
	daemon string
}

func kernelSpec(kind string, minSize int64, mkfs ...string) fsSpec {
	return fsSpec{
		min:  minSize,
		mkfs: mkfs,
		loop: true,
		mount: func(src, mnt string) []string {
			return []string{"mount", "-t", kind, src, mnt}
		},
	}
}

// The minimum sizes were measured with the tools in Debian 12: mkfs.xfs
// 6.1.0 refuses less than 300 MiB, mkfs.btrfs 6.2 less than 114294784 bytes
// (109 MiB), mkfs.exfat 1.2.0 less than 4 MiB with its default 1 MiB
// alignment, mkfs.ntfs less than 1 MiB. ext2/3/4 would go lower, but below a
// few MiB mke2fs switches to its "floppy" layout, which is not what
// thruput users run on.
var specs = map[string]fsSpec{
	"ext2":  kernelSpec("ext2", 8*MiB, "mkfs.ext2", "-q", "-F"),
	"ext3":  kernelSpec("ext3", 8*MiB, "mkfs.ext3", "-q", "-F"),
	"ext4":  kernelSpec("ext4", 8*MiB, "mkfs.ext4", "-q", "-F"),
	"xfs":   kernelSpec("xfs", 300*MiB, "mkfs.xfs", "-q", "-f"),
	"btrfs": kernelSpec("btrfs", 109*MiB, "mkfs.btrfs", "-q", "-f"),
	"vfat": {
		min:  8 * MiB,
		mkfs: []string{"mkfs.vfat"},
		// fusefat mounts read-only unless given its experimental rw+.
		mount: func(src, mnt string) []string {
			return []string{"fusefat", "-o", "rw+", src, mnt}
		},
		daemon: "fusefat",
	},
	"ntfs": {
		min:  8 * MiB,
		mkfs: []string{"mkfs.ntfs", "-q", "-F", "-Q"},
		mount: func(src, mnt string) []string {
			return []string{"ntfs-3g", src, mnt}
		},
		daemon: "ntfs-3g",
	},
	"exfat": {
		min:  8 * MiB,
		mkfs: []string{"mkfs.exfat"},
		// exfat-fuse always passes FUSE's blkdev option on Linux, and the
		// kernel then insists on a block device ("Block device required")
		// even though the daemon could read the file itself.
		loop: true,
		mount: func(src, mnt string) []string {
			return []string{"mount.exfat-fuse", src, mnt}
		},
		daemon: "mount.exfat-fuse",
	},
	"tmpfs": {min: 1 * MiB},
}

// Kinds returns the filesystem kinds Mount accepts, in a fixed order.
func Kinds() []string {
	return []string{"ext2", "ext3", "ext4", "xfs", "btrfs", "vfat", "ntfs", "exfat", "tmpfs"}
}

// MinSize returns the size Mount raises smaller requests for kind to, or 0
// if kind is unknown.
func MinSize(kind string) int64 {
	return specs[kind].min
}

// RequireRoot skips the test with -short (see Long), and unless it runs
// as root. Under CI (CI=true) it fails it instead of the latter skip: a CI
// run that skipped every filesystem test would look green while testing
// nothing.
func RequireRoot(t testing.TB) {
	t.Helper()
	Long(t, "it needs root and a real machine")
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("needs root, running as uid %d: root tests must not be skipped under CI (CI=true); run the tests as root", os.Geteuid())
	}
	t.Skip("needs root: run as root to test on real filesystems")
}

// Long skips t under -short: a developer's fast run (go test -short
// ./...) holds unit, golden and fixture tests only; tests that format
// filesystems, shape links, start servers or measure for seconds run in
// the full suite (make check), which CI runs.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipped with -short: %s", why)
	}
}

// RoomyHeap lets the collector's heap grow to five times the live data
// (GOGC=400) for the rest of the test binary. Tests that render charts and
// pages or decode the importer corpus make garbage much faster than they
// keep data; at the default goal the collector took 20-35 % of their CPU,
// which on a 2-core machine is most of what go test -short waits for. Call
// it from an init function of a _test.go file.
func RoomyHeap() { debug.SetGCPercent(400) }

// AssertNoScratch fails the test if dir directly contains an entry named
// .thruput-*. thruput keeps its scratch files in such directories and must
// remove them however a run ends; one left behind eats the space of the
// filesystem under test.
func AssertNoScratch(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Errorf("fstest: cannot look for thruput scratch entries: %v", err)
		return
	}
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".thruput-") {
			left = append(left, e.Name())
		}
	}
	if len(left) > 0 {
		t.Errorf("fstest: thruput scratch entries left in %s: %q", dir, left)
	}
}

// Tmpfs mounts a tmpfs of size bytes (rounded up to a whole MiB, at least
// MinSize("tmpfs")) on a new directory and returns the mount point. It is
// unmounted and removed when the test ends.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	RequireRoot(t)
	size = roundUp(max(size, specs["tmpfs"].min), MiB)
	dir := scratchDir(t)
	mnt := mountPoint(t, dir)
	// Registered before mounting: a mount command that fails or times out
	// may still have mounted.
	t.Cleanup(func() { teardownMount(t, mnt, "", "", nil) })
	mustRun(t, "mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), tmpfsSource, mnt)
	checkMounted(t, mnt)
	return mnt
}

// Mount makes a filesystem of the given kind and size bytes on a sparse
// image file, mounts it read-write on a new directory and returns the mount
// point. When the test ends it is unmounted and its loop device, image and
// directories are removed.
//
// kind is one of Kinds():
//
//   - ext2, ext3, ext4, xfs, btrfs: kernel driver on a loop device
//   - vfat: fusefat on the image file, read-write (-o rw+)
//   - ntfs: ntfs-3g on the image file
//   - exfat: exfat-fuse on a loop device (it cannot mount a plain file)
//   - tmpfs: same as Tmpfs
//
// size is rounded up to a whole MiB and raised silently to the kind's
// minimum (MinSize): 300 MiB for xfs, 109 MiB for btrfs, 1 MiB for tmpfs and
// 8 MiB for the others. Images are sparse, so a large size costs little
// disk space.
//
// At most MaxLoopDevices loop devices are in use at once in one process;
// see there for what happens when they are all taken.
func Mount(t testing.TB, kind string, size int64) string {
	t.Helper()
	if kind == "tmpfs" {
		return Tmpfs(t, size)
	}
	spec, ok := specs[kind]
	if !ok {
		t.Fatalf("fstest: unknown filesystem kind %q (want one of %s)", kind, strings.Join(Kinds(), ", "))
	}
	return mountSpec(t, spec, size)
}

func mountSpec(t testing.TB, spec fsSpec, size int64) string {
	t.Helper()
	RequireRoot(t)
	size = roundUp(max(size, spec.min), MiB)
	dir := scratchDir(t)
	mnt := mountPoint(t, dir)

	image := filepath.Join(dir, "image")
	t.Cleanup(func() {
		if err := os.Remove(image); err != nil && !os.IsNotExist(err) {
			t.Errorf("fstest: %v", err)
		}
	})
	f, err := os.OpenFile(image, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatalf("fstest: %v", err)
	}
	// Truncate leaves a hole: the image uses only what mkfs and the test
	// write.
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("fstest: make image: %v", err)
	}

	// mkfs on the file rather than on the loop device keeps the loop device
	// (the scarce resource) for less time.
	mustRun(t, spec.mkfs[0], append(slices.Clip(spec.mkfs[1:]), image)...)

	src := image
	if spec.loop {
		src = AttachLoop(t, image)
	}

	// The daemon forks into the background, so its pid is learnt from who
	// holds the image once mounted.
	var daemonPids []int
	t.Cleanup(func() { teardownMount(t, mnt, spec.daemon, image, daemonPids) })
	argv := spec.mount(src, mnt)
	mustRun(t, argv[0], argv[1:]...)
	if spec.daemon != "" {
		daemonPids = holders(image, src)
	}
	checkMounted(t, mnt)
	return mnt
}

// AttachLoop attaches file to a free loop device, with losetup's options
// opts added (--direct-io=on, --sector-size N, --read-only), and returns
// the device. It is detached when the test ends, before the cleanups
// registered earlier run: a FUSE mount serving file can only be unmounted
// once no loop device holds it. Like Mount, it takes one of the
// MaxLoopDevices slots.
func AttachLoop(t testing.TB, file string, opts ...string) string {
	t.Helper()
	RequireRoot(t)
	acquireLoopSlot(t)
	// Registered before losetup, and by backing file rather than by
	// device name, so that a losetup that attached and then failed or
	// timed out leaks nothing.
	t.Cleanup(func() {
		if err := detachLoops(file); err != nil {
			t.Errorf("fstest: %v", err)
		}
	})
	args := append(append([]string{"--find", "--show"}, opts...), file)
	dev := strings.TrimSpace(mustRun(t, "losetup", args...))
	if !strings.HasPrefix(dev, "/dev/loop") {
		t.Fatalf("fstest: losetup %s printed %q, want a /dev/loop device", strings.Join(args, " "), dev)
	}
	return dev
}

// MountPoint makes an empty directory for a mount the test makes itself
// (a FUSE server it runs, say), in this process's scratch area so that
// Sweep finds what a killed test left there. Whatever is still mounted on
// it when the test ends is unmounted, lazily if it stays busy, and the
// directory is removed.
func MountPoint(t testing.TB) string {
	t.Helper()
	RequireRoot(t)
	mnt := mountPoint(t, scratchDir(t))
	t.Cleanup(func() {
		if err := unmount(mnt); err != nil {
			t.Errorf("fstest: %v", err)
		}
	})
	return mnt
}

// scratchDir makes the directory holding one mount's image and mount point.
func scratchDir(t testing.TB) string {
	t.Helper()
	parentDir, err := acquireParent()
	if err != nil {
		t.Fatalf("fstest: %v", err)
	}
	t.Cleanup(releaseParent)
	dir, err := os.MkdirTemp(parentDir, dirName(t.Name())+"-*")
	if err != nil {
		t.Fatalf("fstest: %v", err)
	}
	t.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			t.Errorf("fstest: %v", err)
		}
	})
	return dir
}

func mountPoint(t testing.TB, dir string) string {
	t.Helper()
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatalf("fstest: %v", err)
	}
	t.Cleanup(func() {
		// Fails with EBUSY if the unmount failed, which is worth knowing.
		if err := os.Remove(mnt); err != nil {
			t.Errorf("fstest: %v", err)
		}
	})
	return mnt
}

// dirName turns a test name into something readable in mountinfo and
// safe in a path.
func dirName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}

// acquireLoopSlot takes one of the MaxLoopDevices slots for t and registers
// its release.
func acquireLoopSlot(t testing.TB) {
	t.Helper()
	deadline := time.NewTimer(loopWait)
	defer deadline.Stop()
	logged := false
	for {
		loopSlots.Lock()
		if loopSlots.inUse < MaxLoopDevices {
			loopSlots.inUse++
			loopSlots.holders[t]++
			loopSlots.Unlock()
			break
		}
		mine := loopSlots.holders[t]
		freed := loopSlots.freed
		loopSlots.Unlock()
		if mine == MaxLoopDevices {
			t.Fatalf("fstest: this test already holds all %d loop devices fstest allows per process (MaxLoopDevices); mount fewer loop-backed filesystems at once", MaxLoopDevices)
		}
		if !logged {
			t.Logf("fstest: all %d loop device slots in use, waiting up to %v", MaxLoopDevices, loopWait)
			logged = true
		}
		select {
		case <-freed:
		case <-deadline.C:
			t.Fatalf("fstest: no loop device slot freed within %v: all %d (MaxLoopDevices) are held by other tests of this process", loopWait, MaxLoopDevices)
		case <-t.Context().Done():
			t.Fatalf("fstest: gave up waiting for a loop device slot: %v", t.Context().Err())
		}
	}
	t.Cleanup(func() {
		loopSlots.Lock()
		defer loopSlots.Unlock()
		loopSlots.inUse--
		if loopSlots.holders[t]--; loopSlots.holders[t] == 0 {
			delete(loopSlots.holders, t)
		}
		close(loopSlots.freed)
		loopSlots.freed = make(chan struct{})
	})
}

// checkMounted waits for the mount to show up and fails unless it is
// read-write: exfat-fuse, for one, falls back to read-only silently.
func checkMounted(t testing.TB, mnt string) {
	t.Helper()
	var e mountEntry
	err := waitFor(vanishWait, func() (bool, error) {
		var ok bool
		var err error
		e, ok, err = mountAt(mnt)
		return ok, err
	})
	if err != nil {
		t.Fatalf("fstest: %s not in /proc/self/mountinfo after mounting: %v", mnt, err)
	}
	if opt, _, _ := strings.Cut(e.Options, ","); opt != "rw" {
		t.Fatalf("fstest: %s is not mounted read-write: %s", mnt, e.Line)
	}
}

// teardownMount unmounts mnt and, for a FUSE mount, waits for the daemon
// (pids, and whoever else has image or its loop device open) to exit, so
// that nothing of ours keeps running after the test and the loop device can
// be detached at once. ntfs-3g and fusefat flush the image after the
// unmount has returned.
func teardownMount(t testing.TB, mnt, daemon, image string, pids []int) {
	t.Helper()
	err := unmount(mnt)
	if err != nil {
		t.Errorf("fstest: %v", err)
	}
	if daemon == "" {
		return
	}
	// A lazily unmounted FUSE filesystem lives on, daemon and all, until
	// its last open file is closed, which may be never.
	wait := daemonWait
	if errors.Is(err, errLazy) {
		wait = time.Second
	}
	paths := []string{image}
	loops, err := loopsBackedBy(image)
	if err != nil {
		t.Errorf("fstest: %v", err)
	}
	for _, l := range loops {
		paths = append(paths, l.Dev)
	}
	var left []int
	_ = waitFor(wait, func() (bool, error) {
		left = holders(paths...)
		for _, pid := range pids {
			if Alive(pid) && !slices.Contains(left, pid) {
				left = append(left, pid)
			}
		}
		return len(left) == 0, nil
	})
	if len(left) > 0 {
		killDaemons(left, daemon)
		t.Errorf("fstest: %s (pids %v) still running %v after unmounting %s; killed", daemon, left, wait, mnt)
	}
}

func roundUp(n, m int64) int64 {
	return (n + m - 1) / m * m
}
