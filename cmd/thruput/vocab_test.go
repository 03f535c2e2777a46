package main

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// TestOneVocabulary: one flag name per idea, the old names still parsed
// but not shown, and every duration flag taking bare seconds.
func TestOneVocabulary(t *testing.T) {
	for _, c := range []struct {
		cmd      []string
		old, new string
	}{
		{[]string{"disk", "sweep"}, "--sizes", "--bs"},
		{[]string{"disk", "random"}, "--total-size", "--size"},
		{[]string{"disk", "io"}, "--runtime", "-t, --time"},
		{[]string{"disk", "mark"}, "--duration", "-t, --time"},
	} {
		help := thruput(t, append(c.cmd, "--help")...)
		if !strings.Contains(help.stdout, c.new) || strings.Contains(help.stdout, c.old) {
			t.Errorf("%v --help: want %s shown and %s hidden:\n%s", c.cmd, c.new, c.old, help.stdout)
		}
	}
	// Parsed: a flag cobra did not know would exit 2 before --help.
	for _, args := range [][]string{
		{"disk", "sweep", "--sizes", "4k", "--max-time", "5"},
		{"disk", "random", "--total-size", "8M", "--time", "2", "-t", "1.5"},
		{"disk", "io", "--runtime", "3", "--ramp", "0.5", "-t", "2m"},
		{"disk", "mark", "--duration", "2", "-t", "10s"},
		{"net", "client", "x", "-t", "3", "--connect-timeout", "5"},
		{"net", "server", "--max-duration", "60", "--idle-timeout", "30"},
		{"net", "http", "http://x/", "--timeout", "5", "--window", "0.5"},
		{"suite", "--every", "3600"},
		{"fleet", "run", "--host-timeout", "90"},
	} {
		if o := thruput(t, append(args, "--help")...); o.code != 0 {
			t.Errorf("%v: exit %d %s", args, o.code, o.stderr)
		}
	}
	if o := thruput(t, "disk", "sweep", "--max-time", "5x"); o.code != 2 || !strings.Contains(o.stderr, "--max-time") {
		t.Errorf("--max-time 5x: exit %d %q", o.code, o.stderr)
	}
	// Help speaks to users and names the tool each method reproduces.
	for cmd, tool := range map[string]string{"disk sweep": "dd", "disk random": "sysbench fileio", "disk io": "fio",
		"disk mark": "CrystalDiskMark", "net client": "iperf3", "net server": "iperf3", "net http": "wget"} {
		help := thruput(t, append(strings.Fields(cmd), "--help")...)
		if !strings.Contains(help.stdout, tool) || strings.Contains(strings.ToLower(help.stdout), "seed") {
			t.Errorf("%s --help should name %s and no seed posts:\n%s", cmd, tool, help.stdout)
		}
	}
	o := thruput(t, "--version")
	if v := thruput(t, "version"); o.code != 0 || o.stdout != v.stdout {
		t.Errorf("--version %q, version %q", o.stdout, v.stdout)
	}
}

// netClient runs a net client against a server the test has just used:
// like iperf3's, the server says it is busy while it is still closing
// the last test, so a busy answer is tried again.
func netClient(t *testing.T, args ...string) outcome {
	t.Helper()
	for try := 0; ; try++ {
		o := thruput(t, args...)
		if try == 20 || o.code != 1 || !strings.Contains(o.stderr, "busy") {
			return o
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServerAddress: HOST:PORT and [IPv6]:PORT wherever a server is named,
// -i 0 prints no interval lines, and streams are numbered from 1. Its
// runs are paced (-b), so that it can run beside tests that measure.
func TestServerAddress(t *testing.T) {
	fstest.Long(t, "starts a server and measures for seconds")
	t.Parallel()
	port := nettest.FreePort(t)
	startBackground(t, exec.Command(thruputBin, "net", "server", "-q", "--no-save", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	p := strconv.Itoa(port)
	for _, server := range []string{"127.0.0.1:" + p, "[::1]:" + p} {
		o := netClient(t, "net", "client", server, "-t", "1", "-P", "2", "-b", "50M", "--no-save", "--json", "-q")
		doc, err := result.Read(strings.NewReader(o.stdout))
		if o.code != 0 || err != nil {
			t.Fatalf("%s: exit %d %v %s", server, o.code, err, o.stderr)
		}
		var ids []int64
		for _, s := range doc.Net.Streams {
			ids = append(ids, s.ID)
		}
		for _, iv := range doc.Net.Intervals {
			for _, f := range iv.Streams {
				if f.ID < 1 || f.ID > 2 {
					t.Errorf("%s: interval stream id %d", server, f.ID)
				}
			}
		}
		if b, _ := json.Marshal(ids); string(b) != "[1,2]" {
			t.Errorf("%s: stream ids %s, want [1,2]", server, b)
		}
	}
	o := netClient(t, "net", "client", "127.0.0.1:"+p, "-t", "1", "-b", "50M", "-i", "0", "--no-save")
	if o.code != 0 || strings.Contains(o.stdout, "0.00-") || strings.Contains(o.stdout, "[SUM]") {
		t.Errorf("-i 0 printed interval lines:\n%s", o.stdout)
	}
	if o := thruput(t, "net", "client", "127.0.0.1:"+p, "-p", "1"); o.code != 2 || !strings.Contains(o.stderr, "two ports") {
		t.Errorf("two ports: exit %d %q", o.code, o.stderr)
	}
}
