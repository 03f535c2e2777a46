package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
)

// checklist is iperf3's release checklist, test_commands.sh in esnet/iperf
// (tag 3.21, commit d39cf41526626b4e5a130f115d931cd6cbdffc19), transcribed
// command by command with these changes: -t 5 is -t 2, and the five
// commands that name no time (iperf3's default, 10 s) get -t 2 too (the
// whole list runs four times in CI); -A 2/2
// is -A 1/1 (CPU 2 needs three CPUs); the -6
// commands name ::1 (localhost is only 127.0.0.1 here); -J is added to
// read the figures. The SCTP command is in TestIperf3ChecklistSCTP.
var checklist = []checkCommand{
	{"basic", []string{"-V", "-t", "2", "-T", "test1"}, false, false, false},
	{"basic udp", []string{"-u", "-V", "-t", "2"}, true, false, false},
	{"omit", []string{"-i", ".3", "-O", "2", "-t", "2"}, false, false, false},
	{"json", []string{"-i", "1", "-t", "2"}, false, false, false},
	{"v4", []string{"-4", "-t", "2"}, false, false, false},
	{"v4 udp", []string{"-4", "-u", "-t", "2"}, true, false, false},
	{"v6", []string{"-6", "-t", "2"}, false, false, false},
	{"v6 udp", []string{"-6", "-u", "-t", "2"}, true, false, false},
	{"fq rate", []string{"-V", "-t", "2", "--fq-rate", "5m"}, true, false, false},
	{"fq rate udp", []string{"-u", "-V", "-t", "2", "--fq-rate", "5m"}, true, false, false},
	{"parallel", []string{"-P", "3", "-t", "2"}, false, false, false},
	{"parallel udp", []string{"-u", "-P", "3", "-t", "2"}, true, false, false},
	{"reverse", []string{"-P", "2", "-t", "2", "-R"}, false, false, false},
	{"reverse udp", []string{"-u", "-P", "2", "-t", "2", "-R"}, true, false, false},
	{"bidir", []string{"-P", "2", "-t", "2", "--bidir"}, false, false, false},
	{"bidir udp", []string{"-u", "-P", "2", "-t", "2", "--bidir"}, true, false, false},
	{"zerocopy", []string{"-Z", "-t", "2"}, false, false, false},
	{"zerocopy reverse", []string{"-Z", "-t", "2", "-R"}, false, false, false},
	{"window", []string{"-t", "2", "-w", "8M"}, false, false, false},
	{"bytes", []string{"-n", "5M"}, false, true, false},
	{"bytes udp", []string{"-n", "5M", "-u", "-b1G"}, false, true, false},
	{"bytes reverse", []string{"-n", "5M", "-R"}, false, true, false},
	{"bytes udp reverse", []string{"-n", "5M", "-u", "-b1G", "-R"}, false, true, false},
	{"bytes and time", []string{"-n", "5M", "-t", "2"}, false, true, true},
	{"blocks", []string{"-k", "1K"}, false, true, false},
	{"blocks udp", []string{"-k", "1K", "-u", "-b1G"}, false, true, false},
	{"blocks reverse", []string{"-k", "1K", "-R"}, false, true, false},
	{"blocks udp reverse", []string{"-k", "1K", "-u", "-b1G", "-R"}, false, true, false},
	{"affinity", []string{"-A", "1/1", "-t", "2"}, false, false, false},
	{"affinity udp", []string{"-A", "1/1", "-u", "-b1G", "-t", "2"}, false, false, false},
	{"burst", []string{"-u", "-b1G/100", "-t", "2"}, false, false, false},
	{"congestion", []string{"-C", "reno", "-V", "-t", "2"}, false, false, false},
	{"mss", []string{"-M", "1000", "-V", "-t", "2"}, false, false, false},
}

type checkCommand struct {
	name string
	args []string
	// paced: the senders are held to a rate, so both servers' figures
	// must agree closely; counted: -n or -k, the bytes must; refused:
	// iperf3's client itself refuses the command.
	paced, counted, refused bool
}

// lossy: a UDP sender sends until the client has received the count, so
// what it sends is the count plus what the loopback lost, which no two
// runs share: against its own server, iperf3 3.12's -n 5M -u -b1G -R
// sent 5.7 to 11.6 MB in 12 runs.
func (c checkCommand) lossy() bool {
	return c.counted && slices.Contains(c.args, "-u") && slices.Contains(c.args, "-R")
}

// checklistHost is the server address a command of the checklist names.
func checklistHost(args []string) string {
	for _, a := range args {
		if a == "-6" {
			return "::1"
		}
	}
	return "localhost"
}

// iperf3End is what the checklist compares of iperf3's -J: the figures of
// each side (TCP: sum_sent and sum_received; UDP 3.12: sum too).
type iperf3End struct {
	Error string `json:"error"`
	Start struct {
		TestStart struct {
			// Blksize is the block a sender writes (TCP) or a datagram's
			// payload (UDP), of each of NumStreams streams, each way with
			// Bidir 1.
			Blksize    int64 `json:"blksize"`
			NumStreams int64 `json:"num_streams"`
			Bidir      int64 `json:"bidir"`
		} `json:"test_start"`
	} `json:"start"`
	End struct {
		SumSent     iperf3Sum `json:"sum_sent"`
		SumReceived iperf3Sum `json:"sum_received"`
		Sum         iperf3Sum `json:"sum"`
		// --bidir: the other direction.
		SumReceivedReverse iperf3Sum `json:"sum_received_bidir_reverse"`
	} `json:"end"`
}

// checklistIperf3 is the iperf3 client the checklist runs: Debian's, or
// IPERF3=path (an iperf3 built from source, such as 3.21).
func checklistIperf3(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("IPERF3"); p != "" {
		return p
	}
	needIperf3(t)
	return "iperf3"
}

// runChecklist runs one command of the list with bin (iperf3 or thruput's
// client) against port, and reads its -J.
func runChecklist(t *testing.T, bin string, pre, args []string, port int) (*iperf3End, string, error) {
	t.Helper()
	full := append(append(append([]string{}, pre...), "-c", checklistHost(args), "-p", strconv.Itoa(port), "-J"), args...)
	if bin == thruputBin {
		full = append(append(append([]string{}, pre...), checklistHost(args), "-p", strconv.Itoa(port), "-J"), args...)
	}
	// A client waiting for bytes that never come fails, not hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, full...).Output()
	var e iperf3End
	// iperf3 3.12 prints -V's lines before the JSON of -J.
	doc := out
	if i := bytes.Index(out, []byte("\n{")); i >= 0 && !bytes.HasPrefix(out, []byte("{")) {
		doc = out[i+1:]
	}
	if jerr := json.Unmarshal(doc, &e); jerr != nil && err == nil {
		err = jerr
	}
	if e.Error != "" && err == nil {
		err = &exec.ExitError{}
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return &e, string(out) + string(ee.Stderr), err
	}
	return &e, string(out), err
}

// rateOf is a run's headline: the receiver's sum of TCP (both directions
// with --bidir), UDP's sum. A single-threaded iperf3 3.12 splits a --bidir
// test between its directions as its one loop happens to serve them
// (6.2 and 2.6 Gbit/s against its own server, 9.7 and 1.4 against
// thruput's in one try), so only the total says what the pair moved.
func rateOf(e *iperf3End) float64 {
	if e.End.SumReceived.BitsPerSecond > 0 {
		return e.End.SumReceived.BitsPerSecond + e.End.SumReceivedReverse.BitsPerSecond
	}
	return e.End.Sum.BitsPerSecond
}

// block is what a run's count resolves of its rate, in bit/s: one block
// (a datagram, or a write the pacing releases) of each stream each way,
// over the test's time.
func block(e *iperf3End) float64 {
	secs := testSecs(e)
	ts := e.Start.TestStart
	if secs <= 0 {
		return math.Inf(1)
	}
	return float64(ts.Blksize*max(ts.NumStreams, 1)*(1+ts.Bidir)) * 8 / secs
}

// testSecs is the time a run's count covers.
func testSecs(e *iperf3End) float64 { return max(e.End.SumReceived.Seconds, e.End.Sum.Seconds) }

// rates are runs' headlines (rateOf), each with what its count resolves
// of it (block).
func rates(es ...*iperf3End) []nettest.Rate {
	rs := make([]nettest.Rate, len(es))
	for i, e := range es {
		rs[i] = nettest.Rate{BPS: rateOf(e), Res: block(e)}
	}
	return rs
}

// consistent compares a command's figures against two servers (or from
// two clients): paced senders meet what iperf3's pairs (refs, the first
// the one every command has) measured at the same time, within their
// spread and what their counts resolve; -n and -k move no more bytes than
// iperf3's pair, within its own spread; unpaced loopback runs, which the
// other jobs on the machine sway, move data and receive no more than they
// sent.
func consistent(t *testing.T, what string, c checkCommand, got *iperf3End, refs []*iperf3End) {
	t.Helper()
	ref := refs[0]
	a, b := rateOf(got), rateOf(ref)
	switch {
	case a <= 0 || b <= 0:
		t.Errorf("%s: no figure (%.0f and %.0f bit/s)", what, a, b)
	case c.lossy():
		// The client ends the test once it has the count: no more than
		// iperf3's client received, give or take the datagrams that
		// arrive while the test ends. thruput's client had 0.5-2.4 %
		// over 5M in 12 quiet runs, iperf3 3.12's none; 16.8 % once
		// under make check, where ending the test took 7 ms at 1 Gbit/s.
		// A quarter, as TestClientServer/udp_reverse_bytes allows.
		if slack := max(4*131072, ref.End.SumReceived.Bytes/4); got.End.SumReceived.Bytes > ref.End.SumReceived.Bytes+slack {
			t.Errorf("%s: received %d bytes, against iperf3's client %d", what, got.End.SumReceived.Bytes, ref.End.SumReceived.Bytes)
		}
		if got.End.SumSent.Bytes < got.End.SumReceived.Bytes {
			t.Errorf("%s: %d bytes sent, fewer than the %d received", what, got.End.SumSent.Bytes, got.End.SumReceived.Bytes)
		}
	case c.counted:
		// No more than iperf3 -s sends, give or take the blocks in
		// flight: in -R a server sends until the client ends the test,
		// iperf3's -s (3.12 and 3.21: iperf_send checks the count only
		// within multi-block writes) as thruput's, and iperf3 -s was
		// seen up to 37 % past the count. Less is fine: iperf3 3.12's
		// client counts its reads as blocks in -R -k and ends after
		// that many.
		if slack := max(4*131072, ref.End.SumSent.Bytes*40/100); got.End.SumSent.Bytes > ref.End.SumSent.Bytes+slack {
			t.Errorf("%s: sent %d bytes, against iperf3 -s %d", what, got.End.SumSent.Bytes, ref.End.SumSent.Bytes)
		}
	case c.paced:
		// A paced sender's rate is its pacing's. The references are two
		// of iperf3's own pairs run at the same time: the band where a
		// further run like them falls (nettest.SameWindow; with only two,
		// wide unless they agree), widened by the block a count
		// resolves, which the run under test, widened by its own, must
		// meet. 2 s of a 1 Mbit/s UDP stream on loopback is 8 datagrams
		// of 32 KiB, so a block is 12 % of it (iperf3's pacing was seen
		// 18 % over its rate, against a fixed 20 % bar; in -R iperf3
		// 3.12's client reports the sender's count, 9 datagrams a
		// stream, where thruput's reports the 8 it received); at --fq-rate 5m
		// a 128 KiB write is 10 %, and iperf3's pairs received 6.12 to
		// 6.32 Mbit/s, the first window's burst on top of the pacing.
		nettest.SameWindow(t, what, rates(got)[0], rates(refs...)...)
	default:
		// Loopback without a cap measures the CPUs, which the three
		// ways of the command (running at once) and the machine's other
		// jobs take in turns: no reference measures the same share, so
		// the rate is not judged against iperf3's pair. A factor of
		// three, once the bar, was missed by the load alone (7431
		// against 2434 Mbit/s, where iperf3's own pairs swing as much).
		// What is judged is that the figure is this test's: data moved
		// (above), and no end received more than the other sent; with
		// -O each end counts from its own end of the omitted seconds,
		// as iperf3's ends do, so there the two counts are a control
		// message apart and either may be the larger.
		t.Logf("%s: %.0f Mbit/s, against iperf3 -s %.0f (not judged: unpaced loopback measures the CPUs)", what, a/1e6, b/1e6)
		if s, r := got.End.SumSent.Bytes, got.End.SumReceived.Bytes; s > 0 && r > s && !slices.Contains(c.args, "-O") {
			t.Errorf("%s: received %d bytes of the %d sent", what, r, s)
		}
	}
}

// thruputRefuses are the checklist's commands thruput's client refuses on
// purpose (exit 2), with the words it must say. iperf3 reads -A 1/1 as
// -A 1, dropping what follows the number unread; thruput takes n or n,m
// and refuses the rest rather than guess (README, -A).
var thruputRefuses = map[string]string{
	"affinity":     "-A 1/1",
	"affinity udp": "-A 1/1",
}

// TestIperf3Checklist runs iperf3's release checklist with an iperf3
// client against `thruput net server` and against `iperf3 -s`, and with
// `thruput net client` against `iperf3 -s`: every command must pass with
// figures consistent with iperf3's own pair. The three ways of a command
// run at once, each against a server of its own, so that each is compared
// with iperf3's pair measured under the same load. The servers are of the
// iperf3 under test (IPERF3, else Debian's), so that with 3.21 thruput's
// client meets a 3.21 server too. thruput's client may refuse only the
// commands of thruputRefuses.
func TestIperf3Checklist(t *testing.T) {
	fstest.Long(t, "runs iperf3's release checklist, 33 commands three ways")
	iperf := checklistIperf3(t)
	// Two lanes of servers (an iperf3 server takes one test at a time),
	// so two commands run at once: the 33 commands wait on their -t far
	// more than they use the CPUs, and unpaced rates are only logged.
	type lane struct {
		// ref3 serves the second reference pair of a paced command.
		ref, ref2, ref3, port int
		srv                   *background
	}
	lanes := make(chan lane, 2)
	for range cap(lanes) {
		l := lane{ref: nettest.FreePort(t), ref2: nettest.FreePort(t), ref3: nettest.FreePort(t), port: nettest.FreePort(t)}
		for _, p := range []int{l.ref, l.ref2, l.ref3} {
			startBackground(t, exec.Command(iperf, "-s", "-p", strconv.Itoa(p)))
		}
		l.srv = startBackground(t, exec.Command(thruputBin, "net", "server", "--no-save", "-q", "-i", "0", "-p", strconv.Itoa(l.port)))
		for _, p := range []int{l.ref, l.ref2, l.ref3, l.port} {
			waitListening(t, p)
		}
		lanes <- l
	}
	for _, c := range checklist {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := <-lanes
			defer func() { lanes <- l }()
			ref, ref2, ref3, port, srv := l.ref, l.ref2, l.ref3, l.port, l.srv
			// -V is iperf3's verbose output, no setting of the test.
			args := slices.DeleteFunc(slices.Clone(c.args), func(a string) bool { return a == "-V" })
			var (
				want, want2, got, mine             *iperf3End
				wantOut, want2Out, gotOut, mineOut string
				wantErr, want2Err, gotErr, mineErr error
				wg                                 sync.WaitGroup
			)
			wg.Go(func() { want, wantOut, wantErr = runChecklist(t, iperf, nil, c.args, ref) })
			if c.paced {
				wg.Go(func() { want2, want2Out, want2Err = runChecklist(t, iperf, nil, c.args, ref3) })
			}
			wg.Go(func() { got, gotOut, gotErr = runChecklist(t, iperf, nil, c.args, port) })
			if !c.refused {
				wg.Go(func() {
					mine, mineOut, mineErr = runChecklist(t, thruputBin, []string{"net", "client", "--no-save"}, args, ref2)
				})
			}
			wg.Wait()
			if c.refused {
				if wantErr == nil {
					t.Fatalf("iperf3 %v: ran, the checklist has it refused", c.args)
				}
				if gotErr == nil {
					t.Fatalf("iperf3 %v against thruput: ran, want refused\n%s", c.args, gotOut)
				}
				return
			}
			if wantErr != nil {
				t.Fatalf("iperf3 %v against iperf3 -s: %v\n%s", c.args, wantErr, wantOut)
			}
			refs := []*iperf3End{want}
			if c.paced {
				if want2Err != nil {
					t.Fatalf("iperf3 %v against the second iperf3 -s: %v\n%s", c.args, want2Err, want2Out)
				}
				refs = append(refs, want2)
			}
			if gotErr != nil {
				t.Fatalf("iperf3 %v against thruput net server: %v\n%s\nserver: %s", c.args, gotErr, gotOut, srv.stderr.String())
			}
			consistent(t, "iperf3 against thruput", c, got, refs)
			if words, ok := thruputRefuses[c.name]; ok {
				if ee, ok := mineErr.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(mineOut, words) {
					t.Errorf("thruput net client %v: %v, want refused (exit 2) naming %q\n%s", c.args, mineErr, words, mineOut)
				}
				return
			}
			if mineErr != nil {
				t.Fatalf("thruput net client %v against iperf3 -s: %v\n%s", c.args, mineErr, mineOut)
			}
			consistent(t, "thruput against iperf3 -s", c, mine, refs)
		})
	}
}

// TestIperf3ChecklistSCTP is the checklist's SCTP command: the kernel here
// has no SCTP, and thruput's server refuses it as an error the iperf3
// client prints, as iperf3 -s does, instead of measuring TCP; then serves
// the next test.
func TestIperf3ChecklistSCTP(t *testing.T) {
	fstest.Long(t, "runs iperf3")
	iperf := checklistIperf3(t)
	port := nettest.FreePort(t)
	startBackground(t, exec.Command(thruputBin, "net", "server", "--no-save", "-q", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	out, err := exec.Command(iperf, "-c", "localhost", "-p", strconv.Itoa(port), "--sctp", "-V", "-t", "2").CombinedOutput()
	if strings.Contains(string(out), "unrecognized option") {
		// Debian's iperf3 has SCTP; one built without libsctp does not.
		t.Skipf("%s was built without SCTP", iperf)
	}
	if err == nil || !strings.Contains(string(out), "error") {
		t.Errorf("iperf3 --sctp against thruput: %v, want an error\n%s", err, out)
	}
	if out, err := exec.Command(iperf, "-c", "localhost", "-p", strconv.Itoa(port), "-t", "1").CombinedOutput(); err != nil {
		t.Errorf("a TCP test after the SCTP one: %v\n%s", err, out)
	}
}
