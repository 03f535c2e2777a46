package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/pgtest"
)

// TestPostgresStore: every results command and report gives the same
// output on PostgreSQL as on SQLite, push and pull copy once, twenty
// processes saving at once lose nothing, an unreachable store stops a
// run in its first second, and a run whose save failed is spooled and
// delivered.
// silent listens on loopback, accepts and never says a word: a server
// that hangs. It returns its address.
func silent(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestPostgresStore(t *testing.T) {
	t.Parallel()
	c := pgtest.New(t)
	dir := t.TempDir()
	lite := filepath.Join(dir, "results.db")
	a := quickSweep(t, lite, t.TempDir(), "fs=tmp", "card=a")
	b := quickSweep(t, lite, t.TempDir(), "fs=tmp", "card=b")
	pg := c.NewDatabase(t)

	o := thruput(t, "results", "push", "--db", lite, "--to", pg)
	if o.code != 0 || !strings.Contains(o.stdout, "pushed 2 run(s)") || strings.Contains(o.stdout, pgtest.Password) {
		t.Fatalf("push: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	if o := thruput(t, "results", "push", "--db", lite, "--to", pg); !strings.Contains(o.stdout, "pushed 0 run(s)") || !strings.Contains(o.stdout, "2 already there") {
		t.Errorf("a second push: %q %s", o.stdout, o.stderr)
	}
	back := filepath.Join(dir, "back.db")
	if o := thruput(t, "results", "pull", "--db", back, "--from", pg, "--label", "card=b"); o.code != 0 || !strings.Contains(o.stdout, "pulled 1 run(s)") {
		t.Errorf("pull: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	for _, args := range [][]string{
		{"results", "list"},
		{"results", "list", "--json", "--label", "card=a"},
		{"results", "show", a.ID[:len(a.ID)-2]},
		{"results", "export", "--format", "csv"},
		{"compare", "card=a", "card=b"},
		{"report", "--format", "markdown", a.ID, b.ID},
	} {
		want := thruput(t, append(args, "--db", lite)...)
		got := thruput(t, append(args, "--db", pg)...)
		if got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%v: PostgreSQL gives (exit %d %s)\n%s\nSQLite gives\n%s", args, got.code, got.stderr, got.stdout, want.stdout)
		}
	}
	// libpq's environment fills what the URL leaves out: here the
	// password and the socket directory.
	pu, _ := url.Parse(pg)
	bare := exec.Command(thruputBin, "results", "list", "--db", "postgres://"+pgtest.User+"@"+pu.Path+"?sslmode=disable")
	bare.Env = append(os.Environ(), "PGPASSWORD="+pgtest.Password, "PGHOST="+c.Socket)
	if o := runOutcome(t, bare, nil); o.code != 0 || !strings.Contains(o.stdout, a.ID[:15]) {
		t.Errorf("a URL completed by PGHOST and PGPASSWORD: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
	// Labels change the same way on both.
	for _, db := range []string{lite, pg} {
		if o := thruput(t, "results", "label", "--db", db, a.ID[:len(a.ID)-2], "slot=3", "card="); o.code != 0 || !strings.Contains(o.stderr, "is labelled fs=tmp slot=3") {
			t.Errorf("results label on %s: exit %d %s", db, o.code, o.stderr)
		}
		if o := thruput(t, "results", "list", "--db", db, "--label", "slot=3", "--format", "csv"); !strings.Contains(o.stdout, a.ID) || strings.Contains(o.stdout, "card=a") {
			t.Errorf("the list after labelling on %s:\n%s", db, o.stdout)
		}
		for _, args := range [][]string{{"nope-nope", "a=b"}, {a.ID, "bad key=x"}, {a.ID, "a=b", "a="}} {
			if o := thruput(t, append([]string{"results", "label", "--db", db}, args...)...); o.code != 2 {
				t.Errorf("results label %q on %s: exit %d %s", args, db, o.code, o.stderr)
			}
		}
		if o := thruput(t, "results", "label", "--db", db, a.ID, "card=a", "slot="); o.code != 0 {
			t.Errorf("restoring the labels on %s: exit %d %s", db, o.code, o.stderr)
		}
	}
	// Text PostgreSQL refuses is the user's to fix, not a failure.
	for _, args := range [][]string{{"results", "list", "--host", "\xff"}, {"results", "list", "--label", "card=\xff"}, {"results", "show", "\xff\xfe\xfd\xfc"}, {"compare", "card=\xff", "card=a"}} {
		if o := thruput(t, append(args, "--db", pg)...); o.code != 2 {
			t.Errorf("%q on PostgreSQL: exit %d %s", args, o.code, o.stderr)
		}
	}
	u := startDashboard(t, "--db", pg)
	if code, body := get(t, u+"/?label=card%3Da"); code != 200 || !strings.Contains(body, a.ID) || strings.Contains(body, b.ID) {
		t.Errorf("serve on PostgreSQL: %d\n%.500s", code, body)
	}
	if code, body := get(t, u+"/metrics"); code != 200 || !strings.Contains(body, "thruput_disk_sweep_bytes_per_second{") {
		t.Errorf("/metrics on PostgreSQL: %d\n%s", code, body)
	}
	if o := thruput(t, "results", "delete", "--db", pg, b.ID); o.code != 0 {
		t.Errorf("delete: exit %d %s", o.code, o.stderr)
	}
	if o := thruput(t, "results", "list", "--db", pg, "--json"); strings.Contains(o.stdout, b.ID) || !strings.Contains(o.stdout, a.ID) {
		t.Errorf("after delete: %s", o.stdout)
	}

	t.Run("twenty savers", func(t *testing.T) {
		pg := c.NewDatabase(t)
		var wg sync.WaitGroup
		outs := make([]outcome, 20)
		for i := range 20 {
			d := *a
			d.ID = fmt.Sprintf("20261125T0600%02dZ-par%03d", i, i)
			f := filepath.Join(t.TempDir(), "run.json")
			var js strings.Builder
			d.Write(&js)
			os.WriteFile(f, []byte(js.String()), 0o600)
			// Twenty processes, as twenty machines saving at once: an
			// in-process run would wait for the one before it.
			args := []string{"results", "import", "--db", pg, f}
			wg.Go(func() { outs[i] = runOutcome(t, exec.Command(thruputBin, args...), args) })
		}
		wg.Wait()
		for i, o := range outs {
			if o.code != 0 {
				t.Errorf("saver %d: exit %d %s", i, o.code, o.stderr)
			}
		}
		if o := thruput(t, "results", "list", "--db", pg, "--format", "csv"); strings.Count(o.stdout, "par0") != 20 {
			t.Errorf("twenty runs saved at once, found:\n%s", o.stdout)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		long := []string{"disk", "random", t.TempDir(), "-t", "300", "--size", "8M", "--files", "4"}
		for _, u := range []string{c.URL("wrong-password"), "postgres://thruput:pw@127.0.0.1:1/x?connect_timeout=1", "postgresql:///x?host=" + t.TempDir(),
			"postgres://thruput@127.0.0.1:1/x?password=qsecret", "host=127.0.0.1 port=1 dbname=x user=thruput password=kvsecret",
			// A server that accepts and never answers: the default timeout.
			"postgres://thruput:pw@" + silent(t) + "/x"} {
			start := time.Now()
			o := thruput(t, append([]string{"--db", u}, long...)...)
			if o.code != 1 || !strings.Contains(o.stderr, "cannot reach the result store") || strings.Contains(o.stderr, "wrong-password") || strings.Contains(o.stderr, ":pw@") ||
				strings.Contains(o.stderr, "secret") {
				t.Errorf("%s: exit %d %q, want 1 and the reason without the password", u, o.code, o.stderr)
			}
			if strings.Count(o.stderr, "connection refused") > 1 {
				t.Errorf("%s: the reason is given more than once: %s", u, o.stderr)
			}
			// Not after the 300 s test, and the silent server within
			// the 1 s default connect timeout: 5 s leaves a loaded
			// machine room and still tells a longer default apart.
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: refused after %v", u, d)
			}
		}
		if _, err := os.Stat("host=127.0.0.1 port=1 dbname=x user=thruput password=kvsecret"); err == nil {
			t.Error("a libpq connection string was taken for a file name")
		}
		if o := thruput(t, append([]string{"--db", "postgres://h:notaport/x"}, long...)...); o.code != 2 {
			t.Errorf("a URL that does not parse: exit %d %s", o.code, o.stderr)
		}
	})

	t.Run("spool", func(t *testing.T) {
		pg := c.NewDatabase(t)
		state := t.TempDir()
		target := t.TempDir()
		cmd := exec.Command(thruputBin, "--db", pg, "disk", "random", target, "-t", "3", "--size", "8M", "--files", "4", "-q", "--label", "spooled=yes")
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		done := make(chan outcome)
		go func() { done <- runOutcome(t, cmd, nil) }()
		// The server goes away once the run lays out its files (it opened
		// the store before), not after a fixed time: a loaded machine
		// may not have reached the store by then, or be done measuring.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if es, _ := os.ReadDir(target); len(es) > 0 {
				break
			}
		}
		c.Stop()
		o := <-done
		c.Start()
		spooled, _ := filepath.Glob(filepath.Join(state, "thruput", "spool", "*", "*.json"))
		if o.code != 1 || len(spooled) != 1 || !strings.Contains(o.stderr, spooled[0]) || !strings.Contains(o.stderr, "`thruput results push --db ") ||
			strings.Contains(o.stderr, pgtest.Password) {
			t.Fatalf("a save that failed: exit %d %q, spool %v", o.code, o.stderr, spooled)
		}
		// A run saved into another store leaves the spooled run waiting
		// for its own.
		other := filepath.Join(t.TempDir(), "other.db")
		run := exec.Command(thruputBin, "--db", other, "disk", "random", t.TempDir(), "-t", "1", "--size", "8M", "--files", "4", "-q")
		run.Env = cmd.Env
		if o := runOutcome(t, run, nil); o.code != 0 || strings.Contains(o.stderr, "delivered") {
			t.Errorf("a run into another store: exit %d %s", o.code, o.stderr)
		}
		if o := thruput(t, "results", "list", "--db", other, "--label", "spooled=yes", "--format", "csv"); strings.Contains(o.stdout, "disk.random") {
			t.Errorf("the run spooled for PostgreSQL went into %s:\n%s", other, o.stdout)
		}
		// push without --db delivers it where it was meant to go (the
		// password from the environment, as the spool keeps none), naming
		// the store.
		push := exec.Command(thruputBin, "results", "push")
		push.Env = append(cmd.Env, "PGPASSWORD="+pgtest.Password, "HOME="+t.TempDir())
		pu, _ := url.Parse(pg)
		if o := runOutcome(t, push, nil); o.code != 0 || !strings.Contains(o.stdout, "delivered 1 spooled run(s) to postgres://"+pgtest.User+"@"+pu.Path) {
			t.Errorf("push of the spool: exit %d %q %s", o.code, o.stdout, o.stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(state, "thruput", "spool", "*", "*.json")); len(left) != 0 {
			t.Errorf("delivered runs left in the spool: %v", left)
		}
		if o := thruput(t, "results", "list", "--db", pg, "--label", "spooled=yes", "--format", "csv"); strings.Count(o.stdout, "disk.random") != 1 {
			t.Errorf("the spooled run is not in the store:\n%s%s", o.stdout, o.stderr)
		}
	})
}
