package importer

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/nettest"
)

// The fixtures are made by the real tools at test time, so the tests
// follow whatever the installed fio, iperf3 and sysbench print.

// tool finds a program; without it the test is skipped, except on CI
// where every tool is expected to be installed.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed, and CI=true requires it (apt-get install %s)", name, name)
		}
		t.Skipf("%s is not installed: skipping the test that imports its real output (apt-get install %s)", name, name)
	}
	return path
}

// run runs a tool in dir and returns its standard output.
func run(t *testing.T, dir string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool(t, name), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// fioOutput runs three small jobs: a time-based random read, a buffered
// sequential write and a mixed random job, with the engine given once as
// a global option.
func fioOutput(t *testing.T) []byte {
	dir := t.TempDir()
	return run(t, dir, "fio", "--output-format=json", "--ioengine=psync", "--directory="+dir,
		"--name=a", "--rw=randread", "--bs=4k", "--size=8M", "--runtime=1", "--time_based",
		"--name=b", "--rw=write", "--bs=64k", "--size=8M", "--direct=0",
		"--name=c", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--size=8M", "--runtime=1")
}

// iperf3Pair runs one test over 127.0.0.1 and returns the client's and
// the server's -J output.
func iperf3Pair(t *testing.T, args ...string) (client, server []byte) {
	bin := tool(t, "iperf3")
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		srv := exec.CommandContext(ctx, bin, "-s", "-1", "-B", "127.0.0.1", "-p", port, "-J")
		var srvOut bytes.Buffer
		srv.Stdout = &srvOut
		if err := srv.Start(); err != nil {
			cancel()
			t.Fatalf("iperf3 -s: %v", err)
		}
		var out []byte
		// The server needs a moment to listen; a probe connection would
		// use up its one test, so the client itself retries.
		for try := 0; try < 50; try++ {
			cmd := exec.CommandContext(ctx, bin, append([]string{"-c", "127.0.0.1", "-p", port, "-J", "-t", "1"}, args...)...)
			out, _ = cmd.Output()
			if !bytes.Contains(out, []byte("Connection refused")) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		err := srv.Wait()
		cancel()
		if err == nil && !bytes.Contains(out, []byte(`"error"`)) {
			return out, srvOut.Bytes()
		}
		if attempt == 2 {
			t.Fatalf("iperf3 %v on port %s: server: %v\nclient output:\n%s\nserver output:\n%s", args, port, err, out, srvOut.Bytes())
		}
	}
}

// freePort is nettest.FreePort as the tools' flags take it.
func freePort(t *testing.T) string {
	return strconv.Itoa(nettest.FreePort(t))
}

// sysbenchRuns prepares a small file set, runs rndrw and seqwr for a
// second each and cleans up, returning the two runs' text.
func sysbenchRuns(t *testing.T) (rndrw, seqwr []byte) {
	dir := t.TempDir()
	set := []string{"fileio", "--file-num=4", "--file-total-size=16M"}
	run(t, dir, "sysbench", append(set, "prepare")...)
	rndrw = run(t, dir, "sysbench", append(set, "--file-test-mode=rndrw", "--time=1", "run")...)
	seqwr = run(t, dir, "sysbench", append(set, "--file-test-mode=seqwr", "--time=1", "run")...)
	run(t, dir, "sysbench", append(set, "cleanup")...)
	return rndrw, seqwr
}

// fioServers starts n fio servers on 127.0.0.1, each stopped when the
// test ends, and returns their --client arguments, each followed by the
// job file: fio --client=ip:127.0.0.1,PORT job.fio ...
func fioServers(t *testing.T, n int, job string) []string {
	bin := tool(t, "fio")
	var args []string
	for range n {
		port := freePort(t)
		srv := exec.Command(bin, "--server=ip:127.0.0.1,"+port)
		if err := srv.Start(); err != nil {
			t.Fatalf("fio --server: %v", err)
		}
		t.Cleanup(func() {
			_ = srv.Process.Kill()
			_ = srv.Wait()
		})
		// The server listens a moment after it starts.
		for try := 0; ; try++ {
			c, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err == nil {
				c.Close()
				break
			}
			if try == 100 {
				t.Fatalf("fio --server on port %s does not listen: %v", port, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		args = append(args, "--client=ip:127.0.0.1,"+port, job)
	}
	return args
}
