// Package pgtest starts throwaway PostgreSQL clusters for tests: Debian's
// initdb and pg_ctl on a Unix socket in a temporary directory, password
// login, stopped and removed when the test ends.
package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
)

// User and Password are the cluster's login.
const (
	User     = "thruput"
	Password = "s3cret-pw"
)

// Cluster is a running server.
type Cluster struct {
	// Dir holds the data directory and the socket.
	Dir string
	// Socket is the directory of the Unix socket (libpq's host).
	Socket string

	t    testing.TB
	bin  string
	cred *syscall.Credential
}

// URL is a postgres:// URL of the database "postgres", with the password
// given.
func (c *Cluster) URL(password string) string {
	return c.url("postgres", password)
}

func (c *Cluster) url(db, password string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(User, password), Path: "/" + db,
		RawQuery: url.Values{"host": {c.Socket}, "sslmode": {"disable"}}.Encode()}
	return u.String()
}

var databases atomic.Int64

// NewDatabase makes an empty database and returns its URL.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", databases.Add(1))
	cmd := exec.Command(filepath.Join(c.bin, "createdb"), "-h", c.Socket, "-U", User, name)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+Password)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: createdb: %v\n%s", err, out)
	}
	return c.url(name, Password)
}

// bin finds Debian's newest PostgreSQL programs.
func bin() (string, bool) {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		return "", false
	}
	sort.Slice(m, func(i, j int) bool { return version(m[i]) < version(m[j]) })
	return filepath.Dir(m[len(m)-1]), true
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// New starts a cluster for t. The programs refuse to run as root, so
// as root they run as a test user of their own. Without PostgreSQL the
// test is skipped, except under CI.
func New(t testing.TB) *Cluster {
	t.Helper()
	fstest.Long(t, "it starts a PostgreSQL server")
	dir, ok := bin()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgtest: no PostgreSQL (/usr/lib/postgresql/*/bin): install postgresql (scripts/setup does)")
		}
		t.Skip("pgtest: no PostgreSQL installed (apt-get install postgresql)")
	}
	c := &Cluster{Dir: t.TempDir(), t: t, bin: dir}
	// Socket paths are limited to 107 bytes: the socket gets a short
	// directory of its own.
	sock, err := os.MkdirTemp("", "pg")
	if err != nil {
		t.Fatal(err)
	}
	c.Socket = sock
	t.Cleanup(func() { os.RemoveAll(sock) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		home := filepath.Join(c.Dir, "home")
		os.Mkdir(home, 0o700)
		u := nettest.NewUser(t, home)
		cred = credential(t, u)
		c.cred = cred
		for _, d := range []string{filepath.Dir(c.Dir), c.Dir, sock} {
			os.Chmod(d, 0o755)
		}
		os.Chown(c.Dir, int(cred.Uid), int(cred.Gid))
		os.Chown(sock, int(cred.Uid), int(cred.Gid))
	}
	data := filepath.Join(c.Dir, "data")
	pw := filepath.Join(c.Dir, "pw")
	os.WriteFile(pw, []byte(Password+"\n"), 0o644)
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, name), args...)
		cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pgtest: %s %v: %v\n%s", name, args, err, out)
		}
	}
	run("initdb", "-D", data, "-U", User, "--pwfile", pw, "-A", "scram-sha-256", "-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions")
	t.Cleanup(func() {
		if c.running() {
			c.Stop()
		}
	})
	c.Start()
	return c
}

func (c *Cluster) ctl(args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, "pg_ctl"), append([]string{"-D", filepath.Join(c.Dir, "data")}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: pg_ctl %v: %v\n%s", args, err, out)
	}
	return nil
}

func (c *Cluster) running() bool { return c.ctl("status") == nil }

// Start starts the server again after Stop.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.ctl("-l", filepath.Join(c.Dir, "log"), "-w", "-t", "30", "-o",
		fmt.Sprintf("-k %s -c listen_addresses='' -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=100", c.Socket), "start"); err != nil {
		c.t.Fatal(err)
	}
}

// Stop stops the server at once, as a crash or a lost network would.
func (c *Cluster) Stop() {
	if err := c.ctl("-m", "immediate", "-w", "stop"); err != nil {
		c.t.Error(err)
	}
}

func credential(t testing.TB, u *user.User) *syscall.Credential {
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		t.Fatal(err)
	}
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}
