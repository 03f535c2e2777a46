package nettest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/fstest"
)

// killWait bounds the wait for killed processes to leave a namespace.
const killWait = 5 * time.Second

// deleteNamespace kills the processes in namespace ns and deletes it. It
// returns the pids it killed. A namespace that does not exist (any more:
// another Sweep may have got there first) is not an error.
func deleteNamespace(ns string) (killed []int, err error) {
	killed, err = killAll(ns)
	if err == nil {
		_, err = run("ip", "netns", "del", ns)
	}
	if err != nil && gone(ns) {
		err = nil
	}
	return killed, err
}

// gone reports whether namespace ns no longer has a name.
func gone(ns string) bool {
	_, err := os.Lstat(nsFile(ns))
	return errors.Is(err, fs.ErrNotExist)
}

// killAll SIGKILLs the processes in namespace ns and waits until they have
// left it. They must be gone before the namespace is deleted: each one
// keeps it alive, with its veth and addresses, but without the name that
// lets Sweep find it.
func killAll(ns string) ([]int, error) {
	var st unix.Stat_t
	if err := unix.Stat(nsFile(ns), &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, nil
		}
		return nil, fmt.Errorf("stat %s: %w", nsFile(ns), err)
	}
	var killed []int
	deadline := time.Now().Add(killWait)
	for {
		pids, err := nsPids(ns)
		if err != nil || len(pids) == 0 {
			return killed, err
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("processes %v still in namespace %s %v after SIGKILL; not deleting it", pids, ns, killWait)
		}
		for _, pid := range pids {
			if kill(pid, &st) && !slices.Contains(killed, pid) {
				killed = append(killed, pid)
			}
		}
		time.Sleep(pollEvery)
	}
}

// nsPids lists the processes in namespace ns, other than this one.
func nsPids(ns string) ([]int, error) {
	out, err := run("ip", "netns", "pids", ns)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("ip netns pids %s printed %q", ns, out)
		}
		// ip looks at each process's first thread only. When that thread
		// of ours happens to be inside Enter, this process is listed; it is
		// not ours to kill.
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// kill SIGKILLs pid if it is still in the namespace st is the file of.
// Through a pidfd, opened before that check, so that a pid reused in the
// meantime by an unrelated process cannot be hit.
func kill(pid int, st *unix.Stat_t) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var pst unix.Stat_t
	if err := unix.Stat(filepath.Join("/proc", strconv.Itoa(pid), "ns", "net"), &pst); err != nil || pst.Dev != st.Dev || pst.Ino != st.Ino {
		return false
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil
}

// namespaces lists the names in /run/netns that are ours (see parseName)
// and satisfy keep.
func namespaces(keep func(pid int) bool) ([]string, error) {
	entries, err := os.ReadDir(netnsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if pid, ok := parseName(e.Name()); ok && keep(pid) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Sweep deletes what crashed or killed test processes left behind: the
// namespaces named tpt-<pid>-<n>-a/-b whose pid is not a running process,
// after killing the processes inside them. Namespaces of running processes
// are left alone, so it is safe to call while other test binaries using
// this package run. A dead binary's pid that has been reused keeps its
// namespaces until that process, too, has exited. Without root there can
// be no leftovers of ours that we could remove, and Sweep does nothing.
//
// Main calls Sweep before running any test.
func Sweep() error {
	if os.Geteuid() != 0 {
		return nil
	}
	names, err := namespaces(func(pid int) bool { return !fstest.Alive(pid) })
	if err != nil {
		return err
	}
	errs := []error{sweepUsers()}
	for _, ns := range names {
		if _, err := deleteNamespace(ns); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Main is for TestMain in packages that use this package:
//
//	func TestMain(m *testing.M) { nettest.Main(m) }
//
// It sweeps leftovers of earlier crashed runs (see Sweep), runs the tests,
// then deletes any namespace of this process still there and exits. A
// failed sweep or a namespace left behind makes the test binary fail: on
// the shared CI machine a leak is as bad as a failing test.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has work of its own to do after the tests:
// it returns the exit code instead of exiting.
func Run(m *testing.M) int {
	if err := Sweep(); err != nil {
		fmt.Fprintf(os.Stderr, "nettest: cleaning up after earlier test runs failed: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := Release(); err != nil {
		fmt.Fprintf(os.Stderr, "nettest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Release is the safety net after all tests have run: the tests' cleanups
// should have deleted every namespace of this process. Any still there is
// deleted now and reported.
func Release() error {
	if os.Geteuid() != 0 {
		return nil
	}
	names, err := namespaces(func(pid int) bool { return pid == os.Getpid() })
	if err != nil || len(names) == 0 {
		return err
	}
	errs := []error{fmt.Errorf("namespaces left behind after the tests: %s", strings.Join(names, ", "))}
	for _, ns := range names {
		if _, err := deleteNamespace(ns); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
