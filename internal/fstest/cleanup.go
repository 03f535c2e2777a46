package fstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// busyRetry is how long an EBUSY unmount is retried before falling back
	// to a lazy unmount: long enough for a just-closed file or an exiting
	// goroutine to let go, short enough not to stall the test run.
	busyRetry = 2 * time.Second
	// vanishWait bounds how long we wait for a mount to leave mountinfo or
	// a loop device to lose its backing file after we asked for it.
	vanishWait = 5 * time.Second
	// daemonWait is how long a FUSE daemon gets to flush and exit after its
	// mount is gone; ntfs-3g and fusefat take a few hundred milliseconds.
	daemonWait = 10 * time.Second
	pollEvery  = 20 * time.Millisecond
)

// errLazy reports that a mount was still busy and had to be detached
// lazily. The mount is gone from the namespace, but whatever kept it busy
// (an open file, a cwd) is a leak in the code under test.
var errLazy = errors.New("mount point still busy, unmounted lazily (umount -l)")

// unmount removes the mount at mnt and waits until mountinfo agrees. It
// uses umount2(2) directly instead of umount(8) or fusermount so that EBUSY
// is recognised by errno rather than by parsing localised messages; as root
// umount2 is also what fusermount -u does for FUSE mounts.
//
// Unmounting something that is not mounted is not an error: the mount
// command may have failed before mounting anything.
func unmount(mnt string) error {
	var lazy bool
	deadline := time.Now().Add(busyRetry)
	for {
		_, mounted, err := mountAt(mnt)
		if err != nil {
			return err
		}
		if !mounted {
			break
		}
		err = syscall.Unmount(mnt, 0)
		if err == nil || err == syscall.EINVAL {
			// EINVAL: someone else unmounted it between our two looks.
			continue
		}
		if err != syscall.EBUSY {
			return fmt.Errorf("unmount %s: %w", mnt, err)
		}
		if time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil && err != syscall.EINVAL {
			return fmt.Errorf("lazy unmount %s: %w", mnt, err)
		}
		lazy = true
	}
	if err := waitFor(vanishWait, func() (bool, error) {
		_, mounted, err := mountAt(mnt)
		return !mounted, err
	}); err != nil {
		return fmt.Errorf("%s still in /proc/self/mountinfo after unmount: %w", mnt, err)
	}
	if lazy {
		return fmt.Errorf("%s: %w", mnt, errLazy)
	}
	return nil
}

// detachLoops detaches every loop device backed by image. Looking devices up
// by backing file rather than remembering the name printed by losetup also
// catches a device attached by a losetup that then failed or timed out.
func detachLoops(image string) error {
	loops, err := loopsBackedBy(image)
	if err != nil {
		return err
	}
	var errs []error
	for _, l := range loops {
		// A FUSE daemon (exfat) may still be closing the device; detaching
		// a device that is open only schedules an autoclear.
		waitUnheld(daemonWait, l.Dev)
		if _, err := run("losetup", "-d", l.Dev); err != nil {
			// Fine if it is detached anyway: a device set to autoclear
			// by an earlier losetup -d goes away on its own once closed.
			if left, lerr := loopsBackedBy(image); lerr != nil || slices.Contains(left, l) {
				errs = append(errs, err)
			}
			continue
		}
		if err := waitFor(vanishWait, func() (bool, error) {
			left, err := loopsBackedBy(image)
			return len(left) == 0, err
		}); err != nil {
			errs = append(errs, fmt.Errorf("%s still attached to %s after losetup -d (something still has it open): %w", l.Dev, image, err))
		}
	}
	return errors.Join(errs...)
}

// holders returns the processes that have one of paths open. FUSE daemons
// keep running after their mount is gone until they have flushed and closed
// the image, so this is how cleanup knows they are done.
func holders(paths ...string) []int {
	want := make(map[string]bool, 2*len(paths))
	for _, p := range paths {
		want[p] = true
		want[p+" (deleted)"] = true
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			// Exited, or a zombie.
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err == nil && want[target] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// waitUnheld waits until no process has any of paths open and returns the
// processes still holding them when d ran out.
func waitUnheld(d time.Duration, paths ...string) []int {
	deadline := time.Now().Add(d)
	for {
		pids := holders(paths...)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(pollEvery)
	}
}

// killDaemons kills the given processes, but only those whose command name
// is comm, so that a pid reused by an unrelated process is left alone.
func killDaemons(pids []int, comm string) {
	// The kernel truncates comm to 15 bytes (mount.exfat-fus).
	if len(comm) > 15 {
		comm = comm[:15]
	}
	for _, pid := range pids {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		if err != nil || strings.TrimSpace(string(data)) != comm {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Alive reports whether pid is running. A zombie counts as gone: it has
// closed all its files and left its namespaces, and reaping it is up to its
// parent (init, for a daemon), not us.
func Alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The command name in parentheses may contain spaces; the state follows
	// the last ')'.
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || !strings.HasPrefix(string(data[i+1:]), " Z")
}

// waitFor polls cond until it is true or d has passed.
func waitFor(d time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %v", d)
		}
		time.Sleep(pollEvery)
	}
}
