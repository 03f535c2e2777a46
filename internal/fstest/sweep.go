package fstest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dirPrefix names the per-process parent directory in os.TempDir(). Sweep
// matches on this prefix and on nothing else.
const dirPrefix = "thruput-fstest-"

// freshGrace protects a parent directory in the instant between its
// creation and its owner locking it; see sweepCandidate.
const freshGrace = 30 * time.Second

// parent is this process's directory. It is locked with flock(2) while in
// use: the kernel drops the lock when the process dies, no matter how, which
// is what tells Sweep in another process that whatever is inside is a
// leftover and not a test that is still running. It exists only while some
// mount needs it, so that test binaries that do not use Main leave no empty
// directories behind either.
var parent struct {
	sync.Mutex
	dir   string
	lock  *os.File // kept open (and referenced) to hold the flock
	users int
}

// acquireParent returns this process's directory, creating and locking it
// if needed. Every call must be paired with releaseParent.
func acquireParent() (string, error) {
	parent.Lock()
	defer parent.Unlock()
	if parent.lock == nil {
		dir, f, err := makeParent()
		if err != nil {
			return "", err
		}
		parent.dir, parent.lock = dir, f
	}
	parent.users++
	return parent.dir, nil
}

// releaseParent removes the directory when its last user is done with it.
// If it cannot (a cleanup failed and left something inside), it is unlocked
// anyway so that the next Sweep deals with what is left.
func releaseParent() {
	parent.Lock()
	defer parent.Unlock()
	if parent.users--; parent.users > 0 {
		return
	}
	if os.Geteuid() == 0 {
		unshareDir(parent.dir)
	}
	_ = os.Remove(parent.dir)
	parent.lock.Close()
	parent.dir, parent.lock = "", nil
}

func makeParent() (string, *os.File, error) {
	dir, err := os.MkdirTemp("", dirPrefix+"*")
	if err != nil {
		return "", nil, err
	}
	// mountinfo and sysfs show resolved paths; ours must compare equal.
	if dir, err = filepath.EvalSymlinks(dir); err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return "", nil, err
	}
	f, err := os.Open(dir) // O_CLOEXEC: FUSE daemons must not inherit the lock
	if err != nil {
		return "", nil, err
	}
	// Blocking: a Sweep in another process may hold the lock for a moment
	// while it looks at our still empty directory.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return "", nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := shareDir(dir); err != nil {
		f.Close()
		return "", nil, err
	}
	return dir, f, nil
}

// unmountWithin unmounts what is mounted below dir (and on dir itself
// with self), deepest first, and again until nothing is left, for stacked
// mounts.
func unmountWithin(dir string, self bool) []error {
	var errs []error
	for range 10 {
		mounts, err := readMounts()
		if err != nil {
			return append(errs, err)
		}
		var mine []string
		for _, m := range mounts {
			if within(m.MountPoint, dir) && (self || m.MountPoint != dir) {
				mine = append(mine, m.MountPoint)
			}
		}
		if len(mine) == 0 {
			break
		}
		slices.SortFunc(mine, func(a, b string) int { return len(b) - len(a) })
		for _, mnt := range slices.Compact(mine) {
			if err := unmount(mnt); err != nil && !errors.Is(err, errLazy) {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// unshareDir undoes shareDir. A filesystem unmounted lazily while a file
// in it is open keeps the bind busy; with nothing else mounted inside, the
// bind is detached lazily too. A mount left inside stays, for Sweep to see.
func unshareDir(dir string) {
	if syscall.Unmount(dir, 0) == nil {
		return
	}
	mounts, err := readMounts()
	if err != nil {
		return
	}
	for _, m := range mounts {
		if m.MountPoint != dir && within(m.MountPoint, dir) {
			return
		}
	}
	_ = syscall.Unmount(dir, syscall.MNT_DETACH)
}

// shareDir makes dir a mount point of its own with shared propagation.
// Without it the test filesystems are private mounts (as everything is on
// a machine whose root is private): every mount namespace made meanwhile
// (ip netns exec makes one for each command it runs, and a test's sshd
// lives on in it) keeps a copy of them, which the unmount here does not
// reach, and the copy holds the loop device open for as long as that
// process runs. Below a shared mount the namespace's copies are slaves,
// and the unmount propagates to them.
func shareDir(dir string) error {
	if os.Geteuid() != 0 {
		return nil // no mounts without root, so nothing to share
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", dir, err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_SHARED, ""); err != nil {
		_ = syscall.Unmount(dir, 0)
		return fmt.Errorf("share %s: %w", dir, err)
	}
	return nil
}

// tempBase is os.TempDir() as the kernel reports paths below it.
func tempBase() string {
	base := os.TempDir()
	if b, err := filepath.EvalSymlinks(base); err == nil {
		base = b
	}
	if b, err := filepath.Abs(base); err == nil {
		base = b
	}
	return base
}

// ownedDir returns the thruput-fstest-* directory directly in base that path
// lies in, if any.
func ownedDir(base, path string) (string, bool) {
	rel, ok := strings.CutPrefix(path, base+string(filepath.Separator))
	if !ok {
		return "", false
	}
	top, _, _ := strings.Cut(rel, string(filepath.Separator))
	if !strings.HasPrefix(top, dirPrefix) || len(top) == len(dirPrefix) {
		return "", false
	}
	return filepath.Join(base, top), true
}

// Sweep removes what crashed or killed test processes left behind: mounts
// whose mount point lies in os.TempDir()/thruput-fstest-*, loop devices whose
// backing file lies there, and those directories. It only looks at
// directories with that prefix that belong to the current user, and skips
// those locked by a live process (their owner, or another Sweep already
// cleaning them up), so it is safe to call while other test binaries using
// this package are running. Without root there can be no leftovers of ours
// that we could remove, and Sweep does nothing.
//
// Main calls Sweep before running any test.
func Sweep() error {
	if os.Geteuid() != 0 {
		return nil
	}
	base := tempBase()
	candidates := map[string]bool{}
	// Mounts and loop devices are looked at too, not just the directories,
	// in case a directory was removed (rm -rf /tmp/*) while still in use.
	dirs, err := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		candidates[d] = true
	}
	mounts, err := readMounts()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if d, ok := ownedDir(base, m.MountPoint); ok {
			candidates[d] = true
		}
	}
	loops, err := attachedLoops()
	if err != nil {
		return err
	}
	for _, l := range loops {
		if d, ok := ownedDir(base, l.Backing); ok {
			candidates[d] = true
		}
	}

	var errs []error
	for _, d := range slices.Sorted(maps.Keys(candidates)) {
		if err := sweepCandidate(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sweepCandidate cleans dir if it is a leftover.
func sweepCandidate(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		// Only loop devices on deleted images can point here; nobody can be
		// using a directory that no longer exists.
		return cleanDir(dir)
	}
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() {
		// Not made by us (another user can create names in /tmp).
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close() // releases the lock
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if err == syscall.EWOULDBLOCK {
			return nil // its owner is alive, or another Sweep is on it
		}
		return fmt.Errorf("lock %s: %w", dir, err)
	}
	// Its owner creates the directory and then locks it. Between the two an
	// empty directory is unlocked but not abandoned; it is only removed once
	// it is old enough that its owner cannot still be about to lock it.
	names, err := f.Readdirnames(1)
	if len(names) == 0 && (err == nil || errors.Is(err, io.EOF)) && time.Since(fi.ModTime()) < freshGrace {
		return nil
	}
	return cleanDir(dir)
}

// cleanDir unmounts, detaches and removes everything of ours in dir.
func cleanDir(dir string) error {
	// dir's own shared bind (shareDir) goes last, after the loop devices:
	// their files keep the bind busy, and a bind unmounted lazily under
	// them leaves the devices naming paths no longer in dir.
	// A loop device whose file is served by a FUSE mount in dir (a
	// fakecard) must go before that mount, which it keeps busy: unmounted
	// lazily, the mount would leave the device naming a path outside dir.
	// So the loop devices' own mounts go first, then the devices, then the
	// rest.
	errs := unmountLoops(dir)
	errs = append(errs, detachWithin(dir)...)
	errs = append(errs, unmountWithin(dir, false)...)
	errs = append(errs, detachWithin(dir)...)
	errs = append(errs, unmountWithin(dir, true)...)
	// Never remove a directory tree that still has something mounted in it:
	// RemoveAll would descend into the mounted filesystem.
	mounts, err := readMounts()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if within(m.MountPoint, dir) {
			errs = append(errs, fmt.Errorf("%s is still mounted; not removing %s", m.MountPoint, dir))
			return errors.Join(errs...)
		}
	}
	// Orphaned FUSE daemons exit once their mount is gone; give them the
	// chance so that they do not outlive the sweep.
	if files := openFilesIn(dir); len(files) > 0 {
		waitUnheld(daemonWait, files...)
	}
	if err := os.RemoveAll(dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// unmountLoops unmounts what is mounted in dir from a loop device whose
// file lies in dir.
func unmountLoops(dir string) []error {
	loops, err := attachedLoops()
	if err != nil {
		return []error{err}
	}
	mounts, err := readMounts()
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, l := range loops {
		if !within(l.Backing, dir) {
			continue
		}
		for _, m := range mounts {
			if m.Source == l.Dev && within(m.MountPoint, dir) {
				if err := unmount(m.MountPoint); err != nil && !errors.Is(err, errLazy) {
					errs = append(errs, err)
				}
			}
		}
	}
	return errs
}

// detachWithin detaches the loop devices whose file lies in dir.
func detachWithin(dir string) []error {
	loops, err := attachedLoops()
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, l := range loops {
		if within(l.Backing, dir) {
			if err := detachLoops(l.Backing); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// openFilesIn lists the regular files directly or indirectly in dir.
func openFilesIn(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// Main is for TestMain in packages that use this package:
//
//	func TestMain(m *testing.M) { fstest.Main(m) }
//
// It sweeps leftovers of earlier crashed runs (see Sweep), runs the tests,
// then checks that nothing of this process is still mounted or attached,
// cleans it up if it is, removes this process's directory and exits. A
// failed sweep or anything left behind makes the test binary fail: on the
// shared CI machine a leak is as bad as a failing test.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has work of its own to do after the tests:
// it returns the exit code instead of exiting.
func Run(m *testing.M) int {
	if err := Sweep(); err != nil {
		fmt.Fprintf(os.Stderr, "fstest: cleaning up after earlier test runs failed: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := release(); err != nil {
		fmt.Fprintf(os.Stderr, "fstest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// release is the safety net after all tests have run: every mount should
// have been cleaned up, and the directory removed, by the tests' cleanups.
// Anything still there is cleaned up now and reported.
func release() error {
	parent.Lock()
	defer parent.Unlock()
	if parent.lock == nil {
		return nil
	}
	dir := parent.dir
	var leaks []string
	mounts, err := readMounts()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if within(m.MountPoint, dir) {
			leaks = append(leaks, "mount "+m.MountPoint)
		}
	}
	loops, err := attachedLoops()
	if err != nil {
		return err
	}
	for _, l := range loops {
		if within(l.Backing, dir) {
			leaks = append(leaks, "loop device "+l.Dev+" on "+l.Backing)
		}
	}
	cleanErr := cleanDir(dir)
	parent.lock.Close()
	parent.dir, parent.lock, parent.users = "", nil, 0
	if len(leaks) > 0 {
		return errors.Join(fmt.Errorf("left behind after the tests: %s", strings.Join(leaks, ", ")), cleanErr)
	}
	return cleanErr
}
