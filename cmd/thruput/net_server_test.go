package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// needIperf3 skips a test without Debian's iperf3, failing under CI.
func needIperf3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("iperf3 not installed (scripts/setup installs it)")
		}
		t.Skip("iperf3 not installed")
	}
}

// iperf3Run runs Debian's iperf3 client with a bound on its time: a client
// stuck on a server that never answers fails the test instead of hanging it.
func iperf3Run(t *testing.T, limit time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	out, err := exec.CommandContext(ctx, "iperf3", args...).CombinedOutput()
	return string(out), err
}

// TestReverseLoopIperf3 runs Debian's iperf3 3.12 with -R against a fresh
// `net server --once` a hundred times. iperf3's client reads its streams
// in whole blocks once it sent TEST_END, so a server that kept its sending
// streams open past TEST_END left it waiting for the rest of a block while
// the server waited for its results: about 4 runs in 10 failed with
// "unable to send control message: Broken pipe". The hundred runs go in
// four lanes at once, each a server after server on a port of its own:
// three over loopback and one over a veth pair between two namespaces (the
// server in B, iperf3 in A), since the failure was first seen over a real
// link, where the last blocks are still in flight when TEST_END arrives.
func TestReverseLoopIperf3(t *testing.T) {
	fstest.Long(t, "runs iperf3 -R a hundred times")
	needIperf3(t)
	const lanes, runs = 4, 25
	l := nettest.NewLink(t, 0)
	errs := make(chan error, lanes)
	for lane := range lanes {
		port := nettest.FreePort(t)
		p := strconv.Itoa(port)
		ln := reverse{
			server: func() *exec.Cmd {
				return exec.CommandContext(t.Context(), thruputBin, "net", "server", "--once", "--json", "-q", "--bind", "127.0.0.1", "-p", p)
			},
			client: func(ctx context.Context) *exec.Cmd {
				return exec.CommandContext(ctx, "iperf3", "-c", "127.0.0.1", "-p", p, "-R", "-t", "1")
			},
		}
		if lane == 0 {
			ln.server = func() *exec.Cmd {
				return l.Command(t.Context(), l.B, thruputBin, "net", "server", "--once", "--json", "-q", "--bind", l.AddrB, "-p", p)
			}
			ln.client = func(ctx context.Context) *exec.Cmd {
				return l.Command(ctx, l.A, "iperf3", "-c", l.AddrB, "-p", p, "-R", "-t", "1")
			}
		}
		go func() { errs <- ln.run(lane, runs, port) }()
	}
	for range lanes {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// reverse is one lane of TestReverseLoopIperf3: how to start its server
// and its iperf3 -R client.
type reverse struct {
	server func() *exec.Cmd
	client func(context.Context) *exec.Cmd
}

// run runs the lane's client against a fresh server on port, n times in a
// row, and says how the first run to fail failed.
func (r reverse) run(lane, n, port int) error {
	for i := range n {
		var stderr bytes.Buffer
		srv := r.server()
		srv.Stderr = &stderr
		if err := srv.Start(); err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		// /proc/PID/net is the server's own namespace's table (ip netns
		// exec becomes the server, keeping its process id).
		if !listeningIn(fmt.Sprintf("/proc/%d/net", srv.Process.Pid), port) {
			srv.Process.Kill()
			<-done
			return fmt.Errorf("lane %d, run %d: the server never listened on %d: %s", lane, i+1, port, stderr.String())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := r.client(ctx).CombinedOutput()
		cancel()
		if err != nil {
			srv.Process.Kill()
			<-done
			return fmt.Errorf("lane %d, run %d: iperf3 -R: %v\n%s", lane, i+1, err, out)
		}
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			srv.Process.Kill()
			<-done
			return fmt.Errorf("lane %d, run %d: the --once server did not end: %s", lane, i+1, stderr.String())
		}
		if code := srv.ProcessState.ExitCode(); code != 0 {
			return fmt.Errorf("lane %d, run %d: thruput server exit %d: %s", lane, i+1, code, stderr.String())
		}
		if !strings.Contains(string(out), "receiver") {
			return fmt.Errorf("lane %d, run %d: iperf3 printed no summary:\n%s", lane, i+1, out)
		}
	}
	return nil
}

// TestBackToBackIperf3 runs Debian's iperf3 a hundred times in a row against
// one persistent `net server`, as a script looping `iperf3 -c` does: none
// may be told the server is busy. The server used to hold its slot while
// it tore the last test down, after the client had its results and left.
func TestBackToBackIperf3(t *testing.T) {
	fstest.Long(t, "runs iperf3 a hundred times")
	needIperf3(t)
	port := nettest.FreePort(t)
	srv := startBackground(t, exec.Command(thruputBin, "net", "server", "--json", "-q", "--bind", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	for i := range 100 {
		args := []string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-n", "10M"}
		if i%2 == 1 {
			args = append(args, "-R")
		}
		if out, err := iperf3Run(t, 20*time.Second, args...); err != nil {
			t.Fatalf("run %d: iperf3 %v: %v\n%s\nserver: %s", i+1, args, err, out, srv.stderr.String())
		}
	}
}

// TestMaxClientsIperf3 serves three of Debian's iperf3 clients at once
// (--max-clients 3): each gets its test and its own figures; a fourth
// meanwhile gets iperf3's busy answer.
func TestMaxClientsIperf3(t *testing.T) {
	fstest.Long(t, "runs three iperf3 clients for seconds")
	needIperf3(t)
	port := nettest.FreePort(t)
	srv := startBackground(t, exec.Command(thruputBin, "net", "server", "--max-clients", "3", "--json", "-q",
		"--bind", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	type outcome struct {
		out     []byte
		waited  time.Duration
		err     error
		reverse bool
	}
	done := make(chan outcome, 3)
	for i := range 3 {
		go func() {
			// 5 s: the references' servers, the wait for the three tests
			// and the second after it must end before the first client
			// does, or the fourth is served; 3 s left a loaded machine
			// about one.
			args := []string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "5", "-b", "200M", "-J"}
			if i == 1 {
				args = append(args, "-R")
			}
			// What the client and the server it shares with two others
			// waited for a CPU widens the client's figure: the
			// references can all have run while the machine was quiet
			// (the -R client 0.6 % under two that agreed within 0.01 %,
			// twice in clean-clone make checks).
			out, waited, err := nettest.OutputWaited(exec.Command("iperf3", args...), srv.cmd.Process.Pid)
			done <- outcome{out, waited, err, i == 1}
		}()
	}
	// The references: the same clients against four iperf3 servers at the
	// same time, two each way, to hold the clients' rates to, not a fixed
	// share of 200M: a receiver's count misses what is still queued at the
	// end, so the -R client (thruput's server sending) is held to iperf3's
	// -R (198.7 Mbit/s against four forward references' 199.1..201.3).
	refs := make([]*iperf3End, 4)
	var wg sync.WaitGroup
	for i := range refs {
		p := nettest.FreePort(t)
		startBackground(t, exec.Command("iperf3", "-s", "-1", "-p", strconv.Itoa(p)))
		waitListening(t, p)
		wg.Go(func() {
			var out string
			var err error
			args := []string{"-t", "5", "-b", "200M"}
			if i >= 2 {
				args = append(args, "-R")
			}
			if refs[i], out, err = runChecklist(t, "iperf3", nil, args, p); err != nil {
				t.Errorf("reference iperf3: %v\n%s", err, out)
			}
		})
	}
	// Once the three tests run (a control connection and a stream each),
	// not after a fixed time a loaded machine can outlast; then a second
	// on, mid-test, as before (the one run that sent it as they started
	// saw a client 0.6 % under the references; the cause is not shown).
	if !nettest.Sockets("/proc/net", port, nettest.Established, 6) {
		t.Fatal("the three clients' tests are not all running after 10 s")
	}
	time.Sleep(time.Second)
	out, err := iperf3Run(t, 20*time.Second, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1")
	if err == nil || !strings.Contains(out, "busy") {
		t.Errorf("fourth client: %v, want busy:\n%s", err, out)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for range 3 {
		o := <-done
		if o.err != nil {
			t.Fatalf("iperf3 client: %v\n%s", o.err, o.out)
		}
		var peer iperf3End
		if err := json.Unmarshal(o.out, &peer); err != nil {
			t.Fatalf("iperf3 client: %v\n%s", err, o.out)
		}
		what, same := "a client of three at -b 200M", refs[:2]
		if o.reverse {
			what, same = "a client of three at -b 200M -R", refs[2:]
		}
		secs := testSecs(&peer)
		t.Logf("%s: the client and the server waited %v for a CPU while it ran", what, o.waited)
		nettest.SameWindow(t, what, rates(&peer)[0].Waited(o.waited, secs), rates(same...)...)
	}
	_ = srv.cmd.Process.Signal(os.Interrupt)
	srv.wait(t)
	dec := json.NewDecoder(&srv.stdout)
	var docs int
	for {
		var doc result.Document
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc.Net == nil || doc.Status != result.StatusOK {
			t.Errorf("server document %d: %s %s", docs+1, doc.Status, doc.Error)
		}
		docs++
	}
	if docs != 3 {
		t.Errorf("the server wrote %d result documents, want 3\n%s", docs, srv.stderr.String())
	}
}

// TestMaxClientsNamespaces serves clients in their own namespaces on 100
// Mbit/s links, as boards on one switch: with --max-clients 5 five tests
// run at once (four thruput clients and a stock iperf3) and a sixth client
// meanwhile is told busy; with the default of one, one of six clients
// started together is served and the five others are told busy.
func TestMaxClientsNamespaces(t *testing.T) {
	fstest.Long(t, "runs clients in seven namespaces for seconds")
	needIperf3(t)
	lan := nettest.NewLAN(t, []int{100, 100, 100, 100, 100, 100, 100})
	srvAddr := lan.Hosts[0].Addr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve := func(maxClients string) *background {
		t.Helper()
		srv := startBackground(t, lan.Command(ctx, 0, thruputBin, "net", "server", "--max-clients", maxClients, "--json", "-q", "--no-save", "--bind", srvAddr))
		srv.listens(t, 5201)
		return srv
	}
	// client i runs thruput's client, or with iperf true Debian's iperf3.
	client := func(i int, iperf bool, secs string) *exec.Cmd {
		if iperf {
			return lan.Command(ctx, i, "iperf3", "-c", srvAddr, "-t", secs)
		}
		// Without the probes: behind the iperf3 client's load, which
		// starts at once, their idle phase could run --idle's 3 s before
		// the streams connect, past the moment the test waits for all.
		return lan.Command(ctx, i, thruputBin, "net", "client", srvAddr, "-t", secs, "--no-save", "-q", "--no-latency")
	}
	type ended struct {
		i   int
		out string
		err error
	}
	startAll := func(n int, secs string) chan ended {
		done := make(chan ended, n)
		for i := 1; i <= n; i++ {
			go func() {
				out, err := client(i, i == n, secs).CombinedOutput()
				done <- ended{i, string(out), err}
			}()
		}
		return done
	}

	srv := serve("5")
	done := startAll(5, "4")
	// Once the five tests run (a control connection and a stream each),
	// not after a fixed time that a loaded machine can outlast.
	if !nettest.Sockets(fmt.Sprintf("/proc/%d/net", srv.cmd.Process.Pid), 5201, nettest.Established, 10) {
		t.Fatalf("the five clients' tests are not all running after 10 s\n%s", srv.stderr.String())
	}
	out, err := client(6, true, "1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "busy") {
		t.Errorf("the sixth client with --max-clients 5: %v, want busy\n%s", err, out)
	}
	for range 5 {
		if e := <-done; e.err != nil {
			t.Errorf("client %d: %v\n%s", e.i, e.err, e.out)
		}
	}
	_ = srv.cmd.Process.Signal(os.Interrupt)
	srv.wait(t)

	srv = serve("1")
	// Long enough that the five others all come while the first runs,
	// on a loaded machine too: one that came after it would be served.
	done = startAll(6, "5")
	served, busy := 0, 0
	for range 6 {
		e := <-done
		switch {
		case e.err == nil:
			served++
		case strings.Contains(e.out, "busy"):
			busy++
		default:
			t.Errorf("client %d: %v\n%s", e.i, e.err, e.out)
		}
	}
	if served != 1 || busy != 5 {
		t.Errorf("--max-clients 1, six clients at once: %d served, %d busy; want 1 and 5\n%s", served, busy, srv.stderr.String())
	}
}

// TestManyClientsBadInput: --max-clients and --clients out of range, or
// with what they cannot do, exit 2 naming the flag and leave no -o file.
func TestManyClientsBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"net", "server", "--max-clients", "0"}, "--max-clients 0"},
		{[]string{"net", "server", "--max-clients", "2000"}, "--max-clients 2000"},
		{[]string{"net", "client", "127.0.0.1", "--clients", "0"}, "--clients 0"},
		{[]string{"net", "client", "127.0.0.1", "--clients", "129"}, "--clients 129"},
		{[]string{"net", "client", "127.0.0.1", "--clients", "2", "-J"}, "-J and --clients"},
		{[]string{"net", "client", "127.0.0.1", "--clients", "2", "--format", "csv"}, "--clients writes"},
		{[]string{"fleet", "net", "--hosts", "a,b,c", "--pairs", "a,z:b", "--concurrent"}, "--pairs"},
	} {
		expectUsage(t, out, c.args, c.want)
	}
}
