package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
)

// TestMessagesNameTheFlag: every message names the flag of the command
// the user ran, usage and port errors exit 2, and cobra's own wording
// never reaches the user.
func TestMessagesNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"disk", "random", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "io", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "mark", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "sweep", dir, "--file-size", "1000T"}, "use a smaller --file-size", "--size "},
		{[]string{"disk", "sweep", dir, "--bs", "2M", "--file-size", "1M"}, "--bs: block size 2.0 MiB is larger than --file-size", "--sizes"},
		{[]string{"serve", "--listen", busy.Addr().String()}, "is in use", ""},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, "from 0 to 65535", ""},
		{[]string{"disk", "sweep", dir, "-o", dir + "/x.xlsx"}, "no format writes .xlsx files", ""},
		{[]string{"results", "show"}, "results show: wrong arguments (got no argument); usage: thruput results show ID", "arg(s)"},
		{[]string{"compare"}, "compare: wrong arguments", "arg(s)"},
	} {
		o := thruput(t, c.args...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) || (c.not != "" && strings.Contains(o.stderr, c.not)) {
			t.Errorf("%v: exit %d %q; want exit 2 and %q, never %q", c.args, o.code, o.stderr, c.want, c.not)
		}
	}
	if _, err := os.Stat(dir + "/x.xlsx"); err == nil {
		t.Error("-o x.xlsx wrote a file")
	}
}

// TestImportHost: --host names the machine of an iperf3 -J file too,
// which names one of its own; it was ignored there.
func TestImportHost(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("iperf3 is not installed")
	}
	port := nettest.FreePort(t)
	startBackground(t, exec.Command("iperf3", "-s", "-1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	out, err := exec.Command("timeout", "30", "iperf3", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-n", "4M", "-J").Output()
	if err != nil {
		t.Fatalf("iperf3 -c: %v", err)
	}
	dir := t.TempDir()
	file, db := filepath.Join(dir, "lan.json"), filepath.Join(dir, "results.db")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if o := thruput(t, "results", "import", "--db", db, file, "--host", "desktop"); o.code != 0 {
		t.Fatalf("import: exit %d %s", o.code, o.stderr)
	}
	if o := thruput(t, "results", "list", "--db", db, "--host", "desktop"); o.code != 0 || !strings.Contains(o.stdout, "desktop") {
		t.Errorf("the imported iperf3 run is not desktop's: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestNetInterruptReads: a network test interrupted mid-run says
// "interrupted", not Go's "context canceled" (on stderr nor in the page),
// mentions no test files, which only the disk methods make, and still
// lists the figures measured before the interrupt. The test is paced
// (-b), so that it can run beside tests that measure.
func TestNetInterruptReads(t *testing.T) {
	fstest.Long(t, "starts a server and measures for a second")
	t.Parallel()
	port := nettest.FreePort(t)
	startBackground(t, exec.Command(thruputBin, "net", "server", "-q", "--no-save", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	cmd := exec.Command(thruputBin, "net", "client", "127.0.0.1:"+strconv.Itoa(port), "-t", "30", "-b", "50M", "--idle", "0.1", "--no-save", "-q")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A second into the load, counted from its streams, not from the
	// start: the interrupt must find figures to sum.
	testRunning(t, port)
	time.Sleep(time.Second)
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	out := stderr.String()
	if !strings.Contains(out, "interrupted") || strings.Contains(out, "context canceled") || strings.Contains(out, "test files") {
		t.Errorf("stderr %q: want interrupted, without context canceled or test files", out)
	}
	page := stdout.String()
	// The sender's sum, here, at about the 50 Mbit/s asked.
	if !regexp.MustCompile(`(?m)^sum\s+up\s+sender \(here\)\s+[\d.]+\s+[1-9][\d.]*`).MatchString(page) ||
		!strings.Contains(page, "Run interrupted.") || strings.Contains(page, "context canceled") {
		t.Errorf("stdout: want the measured sum and \"Run interrupted.\", without context canceled:\n%s", page)
	}
}
