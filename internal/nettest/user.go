package nettest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

// userPrefix names the login users tests make for SSH sessions.
const userPrefix = "tptu"

// NewUser makes a system user with /bin/sh as its shell and home (which
// it owns), for SSH sessions of a test: root's own shell would read the
// build machine's ~/.bashrc, whose side effects (pyenv's rehash lock, for
// one) are no part of what is tested, and fleet must work without root
// on its hosts. The user is deleted when the test ends; Sweep deletes
// those of crashed test processes.
func NewUser(t testing.TB, home string) *user.User {
	t.Helper()
	fstest.RequireRoot(t)
	name := fmt.Sprintf("%s%d_%d", userPrefix, os.Getpid(), linkCount.Add(1))
	t.Cleanup(func() {
		if _, err := user.Lookup(name); err == nil {
			if _, err := run("userdel", "-f", name); err != nil {
				t.Errorf("nettest: %v", err)
			}
		}
	})
	// Password "*": no password, yet not locked ("!"), which sshd
	// without PAM would take for a locked account and refuse keys too.
	mustRun(t, "useradd", "--system", "--password", "*", "--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--user-group", name)
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	return u
}

// sweepUsers deletes the users of test processes that no longer run.
func sweepUsers() error {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return err
	}
	defer f.Close()
	var stale []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), ":")
		rest, ok := strings.CutPrefix(name, userPrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.Split(rest, "_")[0])
		if err == nil && !fstest.Alive(pid) {
			stale = append(stale, name)
		}
	}
	var errs []error
	for _, name := range stale {
		if _, err := run("userdel", "-f", name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
