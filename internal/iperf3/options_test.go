package iperf3

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
)

func TestParseOptions(t *testing.T) {
	// The keys iperf3 3.21's send_parameters writes for a UDP test with
	// every option on (src/iperf_api.c at tag 3.21, send_parameters).
	p, err := ParseParams([]byte(`{"udp":true,"omit":0,"time":3,"num":0,"blockcount":0,"parallel":1,"len":1400,
		"bandwidth":50000000,"fqrate":60000000,"pacing_timer":1000,"burst":8,"gso":1,"gso_dg_size":1400,
		"gso_bf_size":65507,"gro":1,"gro_bf_size":65507,"TOS":40,"flowlabel":77,"title":"lab A",
		"extra_data":"{\"rack\":3}","get_server_output":1,"repeating_payload":1,"dont_fragment":1,
		"skip_rx_copy":1,"client_version":"3.21"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Options{TOS: 40, FlowLabel: 77, FQRate: 60e6, Burst: 8, DontFragment: true, SkipRxCopy: true,
		RepeatingPayload: true, GSO: true, GRO: true, GSODg: 1400, GSOBuf: 65507, GROBuf: 65507,
		GetServerOutput: true, Title: "lab A", ExtraData: `{"rack":3}`}
	if p.Options != want {
		t.Fatalf("parsed\n %+v\nwant\n %+v", p.Options, want)
	}
	// Our client's encoding reads back the same, UDP and TCP.
	for _, in := range []Params{
		{UDP: true, Time: time.Second, Parallel: 1, Len: 1400, PacingTimer: 1000, ClientVersion: "x", Options: want},
		{Time: time.Second, Parallel: 1, Len: 1 << 17, PacingTimer: 1000, ClientVersion: "x",
			Options: Options{TOS: 0xb8, FQRate: 1e6, ZeroCopy: true, MPTCP: mptcpAvailable(), Title: "t"}},
	} {
		b, _ := json.Marshal(in.wire())
		out, err := ParseParams(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if *out != in {
			t.Fatalf("round trip of %s:\n got %+v\nwant %+v", b, *out, in)
		}
	}
}

// TestOptionsRefused: what the server cannot or will not do is refused
// with iperf3's own error number, which an iperf3 client prints in its own
// words (src/iperf_error.c).
func TestOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		in   string
		code int32
		text string
	}{
		{`{"sctp":true,"time":1}`, ieNoSCTP, "no SCTP support available"},
		{`{"tcp":true,"time":1,"burst":1001}`, ieBurst, "invalid burst count (maximum = 1000)"},
		{`{"tcp":true,"time":1,"TOS":256}`, ieBadTOS, "bad TOS value (must be between 0 and 255 inclusive)"},
		{`{"tcp":true,"time":1,"TOS":"ef"}`, ieBadTOS, "bad TOS value"},
		{`{"tcp":true,"time":1,"fqrate":-1}`, ieRecvParams, "unable to receive parameters from client"},
		{`{"udp":true,"time":1,"gso":2}`, ieRecvParams, "unable to receive parameters"},
		{`{"tcp":true,"time":1,"title":7}`, ieRecvParams, "unable to receive parameters"},
	} {
		_, err := ParseParams([]byte(c.in))
		var pe *paramError
		if !errors.As(err, &pe) || pe.code != c.code {
			t.Errorf("%s: %v, want i_errno %d", c.in, err, c.code)
			continue
		}
		if msg := (&PeerError{Code: pe.code}).Error(); !strings.Contains(msg, c.text) {
			t.Errorf("%s: the client would print %q, want %q", c.in, msg, c.text)
		}
	}
	if !mptcpAvailable() {
		_, err := ParseParams([]byte(`{"tcp":true,"time":1,"mptcp":true}`))
		var pe *paramError
		if !errors.As(err, &pe) || pe.code != ieProtocol {
			t.Errorf("MPTCP without kernel support: %v", err)
		}
	}
	// The operator's --max-bitrate holds for fair-queue pacing too, as in
	// iperf3.
	p, _ := ParseParams([]byte(`{"tcp":true,"time":1,"bandwidth":1000,"fqrate":90000000,"parallel":2}`))
	var pe *paramError
	if err := (Limits{MaxBitrate: 100e6}).check(p); !errors.As(err, &pe) || pe.code != ieTotalRate {
		t.Errorf("2 streams paced at 90 Mbit/s under --max-bitrate 100M: %v", err)
	}
}

func TestStrftime(t *testing.T) {
	at := time.Date(2026, 3, 7, 9, 5, 2, 0, time.UTC)
	for format, want := range map[string]string{
		"%c ":         "Sat Mar  7 09:05:02 2026 ",
		"%F %T|":      "2026-03-07 09:05:02|",
		"%Y%m%d %s":   "20260307 1772874302",
		"100%% %q %j": "100% %q 066",
		"trailing %":  "trailing %",
	} {
		if got := Strftime(format, at); got != want {
			t.Errorf("%q: %q, want %q", format, got, want)
		}
	}
	var b bytes.Buffer
	w := &TimestampWriter{W: &b, Format: "T "}
	for _, s := range []string{"one\ntw", "o\n", "\nthree"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "T one\nT two\nT \nT three" {
		t.Errorf("prefixed %q", got)
	}
}

// jsonKeys lists the paths of every key in an iperf3 JSON document; arrays
// contribute their elements' keys under [].
func jsonKeys(v any, prefix string, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			into[prefix+k] = true
			jsonKeys(e, prefix+k+".", into)
		}
	case []any:
		for _, e := range v {
			jsonKeys(e, prefix+"[].", into)
		}
	}
}

// iperf321Keys are the keys iperf3 3.21's client writes with -J for a TCP
// test beside those of the 3.9 fixture (src/iperf_api.c at tag 3.21: the
// timestamp, test_start, interval stream and end stream formats).
var iperf321Keys = []string{
	"start.timestamp.timemillisecs", "start.target_bitrate", "start.fq_rate",
	"start.test_start.target_bitrate", "start.test_start.bidir", "start.test_start.fqrate",
	"start.test_start.interval", "start.test_start.gso", "start.test_start.gro",
	"intervals.[].streams.[].snd_wnd", "intervals.[].streams.[].reorder",
	"end.streams.[].sender.reorder", "end.streams.[].sender.max_snd_wnd",
}

// TestCompatKeys: thruput's -J carries every key of a real iperf3 -J
// output (iperf3 3.9, testdata/iperf3-3.9-tcp-omit.json) and those iperf3
// 3.21 added, for a real test on loopback.
func TestCompatKeys(t *testing.T) {
	fstest.Long(t, "a one-second transfer")
	b, err := os.ReadFile("testdata/iperf3-3.9-tcp-omit.json")
	if err != nil {
		t.Fatal(err)
	}
	var real any
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	jsonKeys(real, "", want)
	if !want["end.sum_sent.retransmits"] || !want["intervals.[].streams.[].rttvar"] {
		t.Fatalf("fixture keys: %v", want)
	}
	for _, k := range iperf321Keys {
		want[k] = true
	}
	ts := startServer(t, ServerConfig{})
	cfg := quickTest(ts.port)
	cfg.NetParameters = result.NetParameters{DurationNs: second, OmitNs: second, Title: "lab", ExtraData: "e",
		IntervalNs: int64(500 * time.Millisecond)}
	cfg.GetServerOutput = true
	n, err := runTest(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	doc := &result.Document{Net: n, StartedAt: time.Now()}
	var out bytes.Buffer
	if err := WriteCompat(&out, doc); err != nil {
		t.Fatal(err)
	}
	var ours any
	if err := json.Unmarshal(out.Bytes(), &ours); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	jsonKeys(ours, "", got)
	if missing := lacking(want, got); len(missing) > 0 {
		t.Errorf("thruput's -J lacks %v", missing)
	}
	for _, k := range []string{"title", "extra_data", "server_output_text"} {
		if !got[k] {
			t.Errorf("no %s with -T, --extra-data and --get-server-output", k)
		}
	}
	if txt := n.ServerOutputText; !strings.Contains(txt, "Accepted connection from 127.0.0.1") || !strings.Contains(txt, "  receiver") {
		t.Errorf("server output:\n%s", txt)
	}
	// --json-stream: one event a line, iperf3 3.17's line format.
	var stream bytes.Buffer
	cs := NewCompatStream(&stream, &result.Document{Net: &result.Net{Parameters: n.Parameters}})
	cs.Connected(1, n.Streams[0].LocalAddr, n.Streams[0].RemoteAddr)
	for _, iv := range n.Intervals {
		cs.Interval(iv)
	}
	if err := cs.End(doc); err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(&stream)
	for sc.Scan() {
		var e struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || len(e.Data) == 0 {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		events = append(events, e.Event)
	}
	if len(events) < 4 || events[0] != "start" || events[1] != "interval" || events[len(events)-1] != "end" ||
		events[len(events)-2] != "server_output_text" {
		t.Errorf("events %v", events)
	}
}

// TestServerHonoursOptions runs thruput's client against its server with
// the options whose effect the sockets show: the server's sender in -R
// paces at the fair-queue rate and sends the repeating payload, and MSG_TRUNC
// receivers count every byte.
func TestServerHonoursOptions(t *testing.T) {
	fstest.Long(t, "transfers for seconds")
	// A paced sender's queue takes a while to drain after the end: give
	// the control connection iperf3's own patience.
	ts := startServer(t, ServerConfig{ControlTimeout: 10 * time.Second})
	peer := iperf3Peer(t)
	for _, c := range []struct {
		name string
		p    result.NetParameters
	}{
		{"fq-rate reverse", result.NetParameters{DurationNs: 2 * second, Direction: result.DirDown, FQRateBps: 80e6}},
		{"fq-rate bidir", result.NetParameters{DurationNs: 2 * second, Direction: "bidir", FQRateBps: 60e6}},
		{"burst udp reverse", result.NetParameters{Protocol: "udp", DurationNs: 2 * second, Direction: result.DirDown, BitrateBps: 30e6, BlockSize: 1400, Burst: 10}},
		{"gsro udp reverse", result.NetParameters{Protocol: "udp", DurationNs: 2 * second, Direction: result.DirDown, BitrateBps: 100e6, BlockSize: 1400, GSO: true, GRO: true}},
		{"skip-rx-copy tcp", result.NetParameters{DurationNs: 2 * second, BitrateBps: 100e6, SkipRxCopy: true, RepeatingPayload: true, TOS: 0x20}},
		// Paced more than parkMin apart: the senders park between blocks.
		{"paced parked tcp bidir", result.NetParameters{DurationNs: 2 * second, Direction: "bidir", BitrateBps: 5e6, BlockSize: 16 << 10}},
		{"skip-rx-copy udp reverse", result.NetParameters{Protocol: "udp", DurationNs: 2 * second, Direction: result.DirDown, BitrateBps: 20e6, BlockSize: 1200, SkipRxCopy: true, DontFragment: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := quickTest(ts.port)
			cfg.NetParameters = c.p
			udp := c.p.Protocol == "udp"
			ctx := context.Background()
			var (
				n   *result.Net
				err error
			)
			// The rate is held to stock iperf3 paced alike at the same
			// time (referenceArgs says where it runs the nearest test it
			// can), not to a fixed share of the set rate.
			refs := withReferences(ctx, t, peer, c.p, func() { n, err = runTest(ctx, cfg) })
			if err != nil {
				t.Fatal(err)
			}
			// A TCP receiver gets what the pacing let through; a UDP
			// sender is paced by itself, and on a loaded machine its
			// receiver may miss some.
			judgeRates(t, n, refs, udp)
			for _, s := range n.Sums {
				// Sequence numbers read wrong would make nearly all count
				// as lost; a loaded machine drops some for real.
				if udp && (s.Receiver.Lost == nil || *s.Receiver.Lost > *s.Receiver.Packets/2) {
					t.Errorf("%s: lost %d of %d datagrams", s.Direction, deref(s.Receiver.Lost), deref(s.Receiver.Packets))
				}
			}
			ts.idle(t)
		})
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestParseResultsIperf314: an iperf3 3.14+ peer counts datagrams from the
// start of the test and says which fell in the omitted start; a server's
// own output rides along when the client asked for it.
func TestParseResultsIperf314(t *testing.T) {
	r, err := ParseResults([]byte(`{"cpu_util_total":1,"cpu_util_user":0.5,"cpu_util_system":0.5,"sender_has_retransmits":-1,
		"server_output_text":"Accepted connection from 10.0.0.2, port 40000\n",
		"streams":[{"id":1,"bytes":1400000,"retransmits":-1,"jitter":0.0001,"errors":12,"omitted_errors":2,"packets":1000,"omitted_packets":200}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Streams[0]; s.Packets != 800 || s.Errors != 10 || !strings.HasPrefix(r.ServerOutputText, "Accepted") {
		t.Errorf("parsed %+v, output %q", s, r.ServerOutputText)
	}
	for _, bad := range []string{
		`{"streams":[{"id":1,"bytes":1,"omitted_errors":2}]}`,
		`{"streams":[{"id":1,"bytes":1,"omitted_errors":"2","omitted_packets":1}]}`,
		`{"streams":[],"server_output_json":[1]}`,
		`{"streams":[],"server_output_text":3}`,
		`{"streams":[],"server_unmet":["x"]}`,
		`{"streams":[],"server_unmet":"` + strings.Repeat("x", maxUnmet+1) + `"}`,
	} {
		if _, err := ParseResults([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	// A server's words reach the client's terminal without its escapes.
	if r, err := ParseResults([]byte(`{"streams":[],"server_unmet":"a\u001b[2Jb\n"}`)); err != nil {
		t.Error(err)
	} else if r.Unmet != "a[2Jb" {
		t.Errorf("server_unmet with escapes: %q", r.Unmet)
	}
	// What thruput sends reads back, its output included.
	in := &Results{SenderHasRetransmits: 0, ServerOutputJSON: json.RawMessage(`{"start":{}}`), Unmet: "flow label 0x1 not set",
		Streams: []StreamResults{{ID: 1, Bytes: 10, Retransmits: -1, Packets: 7, Errors: 1}}}
	b, _ := json.Marshal(in.wire())
	out, err := ParseResults(b)
	if err != nil || out.Streams[0].Packets != 7 || out.Streams[0].Errors != 1 || string(out.ServerOutputJSON) != `{"start":{}}` || out.Unmet != in.Unmet {
		t.Errorf("round trip of %s: %+v, %v", b, out, err)
	}
}

// TestJSONKeysLikeIperf3: thruput's -J carries every key iperf3's own -J
// writes for the same test against the same iperf3 server, for TCP and UDP
// each way. The iperf3 is Debian's, or the one $IPERF3 names (a 3.21 built
// from source, as bench/net takes it).
func TestJSONKeysLikeIperf3(t *testing.T) {
	fstest.Long(t, "runs against the real iperf3")
	peer := iperf3Peer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve := func() (int, func()) { return serveIperf3(ctx, t, peer) }
	for _, mode := range []struct {
		args []string
		p    result.NetParameters
	}{
		{nil, result.NetParameters{}},
		{[]string{"-R"}, result.NetParameters{Direction: result.DirDown}},
		{[]string{"--bidir"}, result.NetParameters{Direction: "bidir"}},
		{[]string{"-u", "-b", "10M"}, result.NetParameters{Protocol: "udp", BitrateBps: 10e6}},
		{[]string{"-u", "-b", "10M", "-R"}, result.NetParameters{Protocol: "udp", BitrateBps: 10e6, Direction: result.DirDown}},
	} {
		port, wait := serve()
		out, err := exec.CommandContext(ctx, peer, append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "-J"}, mode.args...)...).Output()
		wait()
		if err != nil {
			t.Fatalf("iperf3 %v: %v\n%s", mode.args, err, out)
		}
		var theirs any
		if err := json.Unmarshal(out, &theirs); err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		jsonKeys(theirs, "", want)
		port, wait = serve()
		cfg := ClientConfig{Host: "127.0.0.1", Port: port, NetParameters: mode.p, Version: "test"}
		cfg.DurationNs, cfg.IntervalNs = second, second
		n, err := runTest(ctx, cfg)
		wait()
		if err != nil {
			t.Fatalf("%v: %v", mode.args, err)
		}
		var b bytes.Buffer
		if err := WriteCompat(&b, &result.Document{Net: n, StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		var ours any
		if err := json.Unmarshal(b.Bytes(), &ours); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		jsonKeys(ours, "", got)
		if missing := lacking(want, got); len(missing) > 0 {
			t.Errorf("%v: thruput's -J lacks %v", mode.args, missing)
		}
	}
}

// lacking lists the keys of want that got does not have.
func lacking(want, got map[string]bool) []string {
	var missing []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return missing
}

// TestSkipRxCopyEveryByte: receivers asked to skip the copy (MSG_TRUNC on
// TCP) count every byte of every stream, in both directions and at full
// speed over loopback, where the other receivers batch. Reading with
// MSG_TRUNC beside the batching once lost a stream's bytes in about one
// test in six, so the test runs a dozen times.
func TestSkipRxCopyEveryByte(t *testing.T) {
	fstest.Long(t, "transfers for seconds")
	ts := startServer(t, ServerConfig{})
	for i := range 12 {
		cfg := quickTest(ts.port)
		// -n 48M may be over before a stream that started late sent
		// anything (the others moved it in tens of milliseconds): such
		// a stream is empty at both ends. A timed test keeps every
		// stream sending for a second.
		timed := i%3 != 0
		cfg.NetParameters = result.NetParameters{Bytes: 48 << 20, Streams: 6, SkipRxCopy: true}
		if i%2 == 1 {
			cfg.Direction = result.DirDown
		}
		if timed {
			cfg.Bytes, cfg.DurationNs = 0, second
		}
		if i%4 == 2 {
			cfg.NetParameters = result.NetParameters{DurationNs: second, Streams: 3, Direction: "bidir", SkipRxCopy: true}
		}
		n, err := runTest(context.Background(), cfg)
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if len(n.Streams) != 6 {
			t.Fatalf("run %d: %d streams", i+1, len(n.Streams))
		}
		for _, s := range n.Streams {
			if s.Sender.Bytes == 0 && cfg.DurationNs > 0 || s.Receiver.Bytes != s.Sender.Bytes {
				t.Errorf("run %d (%+v): stream %d %s sent %d, received %d", i+1, cfg.NetParameters, s.ID, s.Direction, s.Sender.Bytes, s.Receiver.Bytes)
			}
		}
		ts.idle(t)
	}
}

// iperf3Peer is the iperf3 to test against: $IPERF3, else Debian's.
func iperf3Peer(t *testing.T) string {
	t.Helper()
	if peer := os.Getenv("IPERF3"); peer != "" {
		return peer
	}
	if _, err := exec.LookPath("iperf3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("iperf3 not installed (scripts/setup installs it)")
		}
		t.Skip("iperf3 not installed")
	}
	return "iperf3"
}

// serveIperf3 runs `iperf3 -s -1` on a free port until its one test
// ended; wait waits for that.
func serveIperf3(ctx context.Context, t *testing.T, peer string) (port int, wait func()) {
	t.Helper()
	// The port is free when picked and handed over closed: another
	// process on the machine (test binaries run side by side) can take
	// it first, and then iperf3's server exits, unable to bind. That
	// one server is started again on another port, said why; a server
	// that neither listens nor exits within 10 s fails the test.
	for try := 1; ; try++ {
		port = nettest.FreePort(t)
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, peer, "-s", "-1", "-p", strconv.Itoa(port))
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			// Ended first: a listener seen on the port after the server
			// ended would be another process's.
			select {
			case err := <-exited:
				if try < 3 {
					t.Logf("iperf3's server on port %d ended before it listened (%v: %s): starting it again on another port", port, err, bytes.TrimSpace(stderr.Bytes()))
				} else {
					t.Fatalf("iperf3's server ended before it listened, three times; the last on port %d: %v: %s", port, err, stderr.Bytes())
				}
			default:
				// Seen in the socket tables (iperf3 listens on ::):
				// connecting to see would be its one test.
				if nettest.CountSockets("/proc/net", port, nettest.Listen) > 0 {
					return port, func() { <-exited }
				}
				if time.Now().After(deadline) {
					// Its output is read once it has ended.
					_ = cmd.Process.Kill()
					<-exited
					t.Fatalf("iperf3's server on port %d not listening after 10 s: %s", port, stderr.Bytes())
				}
				continue
			}
			break
		}
	}
}

// TestParkedPacerKeepsRate: a sending client alone in its process, paced
// parkMin or more between blocks, sleeps on runtime timers (park), and
// still sends at its rate to a stock iperf3 server, TCP and UDP; and a
// receiving one (-R) waits for the iperf3 server's paced blocks in the
// netpoller (recvPolled) and receives all of them.
func TestParkedPacerKeepsRate(t *testing.T) {
	fstest.Long(t, "transfers for seconds against the real iperf3")
	peer := iperf3Peer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, p := range []result.NetParameters{
		{DurationNs: 2 * second, BitrateBps: 5e6, BlockSize: 16 << 10},
		{Protocol: "udp", DurationNs: 2 * second, BitrateBps: 5e6, BlockSize: 1400, Burst: 10},
		{DurationNs: 2 * second, BitrateBps: 5e6, BlockSize: 16 << 10, Direction: result.DirDown},
	} {
		if sockio.Held() {
			t.Fatal("a P is held before the test: the pacer would not park")
		}
		port, wait := serveIperf3(ctx, t, peer)
		cfg := ClientConfig{Host: "127.0.0.1", Port: port, NetParameters: p, Version: "test"}
		var (
			n   *result.Net
			err error
		)
		// The rate is held to iperf3's own client paced alike against
		// its own server at the same time, not to a fixed share of 5
		// Mbit/s.
		refs := withReferences(ctx, t, peer, p, func() { n, err = runTest(ctx, cfg) })
		wait()
		if err != nil {
			t.Fatal(err)
		}
		judgeRates(t, n, refs, true)
		for _, s := range n.Sums {
			if p.Protocol == "" && s.Receiver.Bytes != s.Sender.Bytes {
				t.Errorf("%s: sent %d bytes, received %d", s.Direction, s.Sender.Bytes, s.Receiver.Bytes)
			}
		}
	}
}
