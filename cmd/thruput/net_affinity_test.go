package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
)

// cpusAllowed is the Cpus_allowed_list of every thread of process pid,
// from /proc/<pid>/task/*/status, as one list when all threads agree and
// "mixed: ..." when they do not.
func cpusAllowed(t *testing.T, pid int) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
	if err != nil || len(files) == 0 {
		t.Fatalf("threads of %d: %v", pid, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				seen[strings.TrimSpace(v)] = true
			}
		}
	}
	if len(seen) == 1 {
		for v := range seen {
			return v
		}
	}
	var all []string
	for v := range seen {
		all = append(all, v)
	}
	return "mixed: " + strings.Join(all, " ")
}

// during looks at the test of a client started a moment ago while it runs:
// check's answer once it is want, or its last within 10 s. Polled, not
// read at a fixed time, which a loaded machine's start-up can outlast; the
// tests last 3 s after that, so a binding that comes is seen.
func during(want string, check func() string) string {
	got := check()
	for deadline := time.Now().Add(10 * time.Second); got != want && time.Now().Before(deadline); got = check() {
		time.Sleep(20 * time.Millisecond)
	}
	return got
}

// TestAffinity: -A n,m binds every thread of the client to CPU n and the
// server to CPU m for the test, both ways: thruput's client against
// Debian's iperf3 3.12 server, and an iperf3 client ($IPERF3, or Debian's)
// against thruput's server, which lets the CPU go after the test.
func TestAffinity(t *testing.T) {
	fstest.Long(t, "runs tests against the real iperf3")
	needIperf3(t)
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: nothing to bind apart")
	}
	all := cpusAllowed(t, os.Getpid())

	t.Run("thruput client", func(t *testing.T) {
		port := nettest.FreePort(t)
		srv := startBackground(t, exec.Command("iperf3", "-s", "-1", "-p", strconv.Itoa(port)))
		waitListening(t, port)
		cl := startBackground(t, exec.Command(thruputBin, "net", "client", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "3", "--no-save", "-A", "1,0"))
		if got := during("1", func() string { return cpusAllowed(t, cl.cmd.Process.Pid) }); got != "1" {
			t.Errorf("client -A 1,0: its threads may run on %q, want 1", got)
		}
		if got := during("0", func() string { return cpusAllowed(t, srv.cmd.Process.Pid) }); got != "0" {
			t.Errorf("client -A 1,0: iperf3 -s may run on %q, want 0", got)
		}
		if code := cl.wait(t); code != 0 {
			t.Fatalf("client: exit %d\n%s", code, cl.stderr.String())
		}
	})

	t.Run("iperf3 client", func(t *testing.T) {
		peer := os.Getenv("IPERF3")
		if peer == "" {
			peer = "iperf3"
		}
		port := nettest.FreePort(t)
		srv := startBackground(t, exec.Command(thruputBin, "net", "server", "-q", "--no-save", "-i", "0", "-p", strconv.Itoa(port)))
		waitListening(t, port)
		cl := startBackground(t, exec.Command(peer, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "3", "-A", "0,1"))
		if got := during("1", func() string { return cpusAllowed(t, srv.cmd.Process.Pid) }); got != "1" {
			t.Errorf("%s -A 0,1: thruput's server may run on %q, want 1", peer, got)
		}
		if code := cl.wait(t); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", peer, code, cl.stdout.String(), cl.stderr.String())
		}
		deadline := time.Now().Add(5 * time.Second)
		for cpusAllowed(t, srv.cmd.Process.Pid) != all && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := cpusAllowed(t, srv.cmd.Process.Pid); got != all {
			t.Errorf("after the test thruput's server may run on %q, want %q again", got, all)
		}
	})

	t.Run("server -A", func(t *testing.T) {
		port := nettest.FreePort(t)
		srv := startBackground(t, exec.Command(thruputBin, "net", "server", "-q", "--no-save", "-A", "0", "-p", strconv.Itoa(port)))
		waitListening(t, port)
		if got := cpusAllowed(t, srv.cmd.Process.Pid); got != "0" {
			t.Errorf("net server -A 0: may run on %q", got)
		}
		// A client moves it for its test; it goes back to its own -A.
		cl := startBackground(t, exec.Command("iperf3", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "3", "-A", "0,1"))
		if got := during("1", func() string { return cpusAllowed(t, srv.cmd.Process.Pid) }); got != "1" {
			t.Errorf("net server -A 0, client -A 0,1: the server may run on %q during the test, want 1", got)
		}
		if code := cl.wait(t); code != 0 {
			t.Fatalf("iperf3: exit %d\n%s", code, cl.stderr.String())
		}
		deadline := time.Now().Add(5 * time.Second)
		for cpusAllowed(t, srv.cmd.Process.Pid) != "0" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := cpusAllowed(t, srv.cmd.Process.Pid); got != "0" {
			t.Errorf("net server -A 0: may run on %q after a test on CPU 1, want 0 again", got)
		}
	})
}
