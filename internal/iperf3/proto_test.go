package iperf3

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestParseParams(t *testing.T) {
	// As Debian's iperf3 3.12 sent it on the wire.
	p, err := ParseParams([]byte(`{"tcp":true,"omit":1,"time":5,"num":0,"blockcount":0,"parallel":2,"bidirectional":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.UDP || !p.Bidir || p.Parallel != 2 || p.Omit != time.Second || p.Time != 5*time.Second || p.Len != 131072 || p.streams() != 4 {
		t.Fatalf("parsed %+v", p)
	}
	p, err = ParseParams([]byte(`{"udp":true,"time":3,"udp_counters_64bit":1,"unknown_key":{"x":[1]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.UDP || !p.Counters64 || p.Len != defaultUDPBlockSize || p.Bitrate != 0 || p.Parallel != 1 {
		t.Fatalf("UDP defaults: %+v", p)
	}
	// Our own encoding reads back the same.
	in := Params{UDP: false, Omit: 2 * time.Second, Time: 10 * time.Second, Parallel: 4, Len: 65536, Bitrate: 40e6,
		PacingTimer: 1000, Reverse: true, Window: 1 << 20, MSS: 1400, NoDelay: true, ClientVersion: "thruput dev", Auth: "1:ab"}
	b, _ := json.Marshal(in.wire())
	out, err := ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	if *out != in {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *out, in)
	}
}

func TestParseParamsRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"tcp":true,"time":"10"}`, `"time": want a number`},
		{`{"tcp":true,"time":10,"parallel":{}}`, `"parallel": want a number`},
		{`{"tcp":true,"time":10,"parallel":129}`, `outside 1..128`},
		{`{"tcp":true,"time":10,"parallel":-1}`, `outside 1..128`},
		{`{"tcp":true,"time":10,"len":2000000}`, `outside 0..1048576`},
		{`{"tcp":true,"time":10,"window":1e12}`, `"window"`},
		{`{"tcp":true,"time":10,"reverse":"yes"}`, `want true, false or a number`},
		{`{"tcp":true,"time":10,"client_version":7}`, `want a string`},
		{`{"tcp":true,"udp":true,"time":1}`, `exactly one of tcp and udp`},
		{`{"time":1}`, `exactly one of tcp and udp`},
		{`{"tcp":true}`, `no time, bytes or blocks`},
		{`{"tcp":true,"time":1,"reverse":true,"bidirectional":true}`, `reverse and bidirectional`},
		{`{"udp":true,"time":1,"len":8}`, `UDP block size 8`},
		{`{"tcp":true,"time":1}{}`, `trailing data`},
		{`[1,2]`, `not a JSON object`},
		{`null`, `not a JSON object`},
		{`{"tcp":true,"time":1`, `not a JSON object`},
		{`{"tcp":true,"time":100000}`, `outside 0..86400`},
		{`{"tcp":true,"time":1,"num":18446744073709551616}`, `"num"`},
	} {
		_, err := ParseParams([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseParams(%s) = %v; want an error containing %q", c.in, err, c.want)
		}
		var pe *paramError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("ParseParams(%s): %v carries no iperf3 error code", c.in, err)
		}
	}
	if _, err := ParseParams(bytes.Repeat([]byte(" "), maxParamsSize+1)); err == nil {
		t.Error("oversized parameters accepted")
	}
}

func TestLimits(t *testing.T) {
	p := &Params{Time: 10 * time.Second, Omit: 5 * time.Second, Parallel: 4, Bidir: true}
	for _, c := range []struct {
		l    Limits
		code int32
	}{
		{Limits{MaxDuration: 10 * time.Second}, ieMaxDuration},
		{Limits{MaxStreams: 4}, ieNumStreams},
		{Limits{MaxBitrate: 1e9}, ieTotalRate},
	} {
		var pe *paramError
		if err := c.l.check(p); !errors.As(err, &pe) || pe.code != c.code {
			t.Errorf("%+v: %v, want code %d", c.l, err, c.code)
		}
	}
	capped := *p
	capped.Bitrate = 100e6
	if err := (Limits{MaxDuration: 15 * time.Second, MaxStreams: 8, MaxBitrate: 800e6}).check(&capped); err != nil {
		t.Errorf("within limits: %v", err)
	}
	capped.Bitrate = 1 << 61 // the product overflows int64
	if err := (Limits{MaxBitrate: 800e6}).check(&capped); err == nil {
		t.Error("overflowing total bitrate accepted")
	}
}

func TestParseResults(t *testing.T) {
	// iperf3 3.12 writes an unknown count as 2^64-1.
	r, err := ParseResults([]byte(`{"cpu_util_total":12.5,"cpu_util_user":2.5,"cpu_util_system":10,"sender_has_retransmits":1,"congestion_used":"cubic",
		"streams":[{"id":1,"bytes":123456,"retransmits":18446744073709551615,"jitter":0.001,"errors":2,"packets":100,"start_time":0,"end_time":10.001}],
		"server_output_text":"ignored"}`))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Streams[0]
	if r.CPUTotal != 12.5 || r.Congestion != "cubic" || s.ID != 1 || s.Bytes != 123456 || s.Retransmits != -1 || s.Errors != 2 || s.EndTime != 10.001 {
		t.Fatalf("parsed %+v %+v", r, s)
	}
	for _, bad := range []string{
		`{"streams":"x"}`, `{}`, `{"streams":[{"bytes":1}]}`, `{"streams":[{"id":"1"}]}`,
		`{"cpu_util_total":"high","streams":[]}`, `{"streams":[{"id":1,"bytes":-5}]}`,
	} {
		if _, err := ParseResults([]byte(bad)); err == nil {
			t.Errorf("ParseResults(%s) accepted", bad)
		}
	}
}

func TestRecvJSONLimit(t *testing.T) {
	t.Parallel() // waits on timeouts and a server of its own, beside the others that do
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { _, _ = a.Write([]byte{0xFF, 0xFF, 0xFF, 0xFF}) }()
	if _, err := recvJSON(b, maxParamsSize, time.Second); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("4 GiB length prefix: %v, want ErrTooLarge", err)
	}
	go func() { _ = sendJSON(a, map[string]int{"x": 1}, time.Second) }()
	body, err := recvJSON(b, maxParamsSize, time.Second)
	if err != nil || string(body) != `{"x":1}` {
		t.Fatalf("round trip: %q, %v", body, err)
	}
	// A peer that promises more than it sends runs into the deadline.
	go func() { _, _ = a.Write([]byte{0, 0, 0, 10, '{'}) }()
	if _, err := recvJSON(b, maxParamsSize, 50*time.Millisecond); err == nil {
		t.Fatal("truncated message accepted")
	}
}

func TestCookie(t *testing.T) {
	c := newCookie()
	if len(c) != CookieSize || c[CookieSize-1] != 0 {
		t.Fatalf("cookie %q", c)
	}
	for _, ch := range c[:CookieSize-1] {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz234567", rune(ch)) {
			t.Fatalf("cookie %q has %q", c, ch)
		}
	}
	if bytes.Equal(c, newCookie()) {
		t.Fatal("two equal cookies")
	}
}

func TestUDPCounters(t *testing.T) {
	var u udpCounters
	for _, seq := range []int64{1, 2, 5, 4, 6} { // 3 lost, 4 late
		u.add(seq, 0.010)
	}
	if u.packets != 6 || u.lost != 1 || u.outOfOrder != 1 {
		t.Fatalf("counters %+v: want packets 6, lost 1, out of order 1", u)
	}
	var j udpCounters
	j.add(1, 0.010)
	j.add(2, 0.026) // transit grew by 16 ms: jitter = 16/16 = 1 ms
	if j.jitter < 0.00099 || j.jitter > 0.00101 {
		t.Fatalf("jitter %v, want 0.001", j.jitter)
	}
}

func TestAuth(t *testing.T) {
	secret, cookie := []byte("correct horse"), newCookie()
	now := time.Now()
	a := &authChecker{secret: secret}
	tok := authToken(secret, cookie, now)
	if err := a.check(cookie, tok, now); err != nil {
		t.Fatal(err)
	}
	if err := a.check(cookie, tok, now); err == nil {
		t.Error("replayed token accepted")
	}
	if err := a.check(newCookie(), authToken(secret, cookie, now), now); err == nil {
		t.Error("token for another cookie accepted")
	}
	if err := a.check(cookie, authToken([]byte("wrong secret"), cookie, now), now); err == nil {
		t.Error("wrong secret accepted")
	}
	if err := a.check(cookie, authToken(secret, cookie, now.Add(-time.Hour)), now); err == nil {
		t.Error("stale token accepted")
	}
	for _, bad := range []string{"", "x", "1:zz", ":", "99999999999999999999:00"} {
		if err := a.check(cookie, bad, now); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
}

func FuzzParseParams(f *testing.F) {
	for _, s := range []string{
		`{"tcp":true,"omit":1,"time":5,"num":0,"blockcount":0,"parallel":2,"bidirectional":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"}`,
		`{"udp":true,"time":3,"bandwidth":1000000,"len":1460,"udp_counters_64bit":1}`,
		`{"udp":true,"time":3,"TOS":40,"fqrate":1e6,"burst":4,"gso":1,"gso_dg_size":1400,"gso_bf_size":65507,"gro":1,"gro_bf_size":65507,"title":"t","extra_data":"e","get_server_output":1,"dont_fragment":1,"skip_rx_copy":1,"repeating_payload":1}`,
		`{"sctp":true,"time":1}`, `{"tcp":true,"time":1,"mptcp":true,"zerocopy":1,"flowlabel":1048575}`,
		`{"tcp":true,"time":1e300}`, `{"tcp":true,"time":-0}`, `{"tcp":true,"time":18446744073709551615}`, `{`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseParams(b)
		if err != nil {
			var pe *paramError
			if !errors.As(err, &pe) {
				t.Fatalf("error without an iperf3 code: %v", err)
			}
			return
		}
		if p.Parallel < 1 || p.Parallel > maxStreams || p.Len <= 0 || p.Len > maxBlockSizeTCP ||
			p.Time < 0 || p.Omit < 0 || p.Bytes < 0 || p.Blocks < 0 || p.Window < 0 || p.MSS < 0 || p.Bitrate < 0 ||
			(p.Time == 0 && p.Bytes == 0 && p.Blocks == 0) || (p.Reverse && p.Bidir) ||
			p.TOS < 0 || p.TOS > 255 || p.Burst < 0 || p.Burst > MaxBurst || p.FQRate < 0 || p.GSOBuf < 0 || p.GSODg < 0 {
			t.Fatalf("accepted out-of-range parameters %+v from %q", p, b)
		}
	})
}

func FuzzParseResults(f *testing.F) {
	for _, s := range []string{
		`{"cpu_util_total":1,"sender_has_retransmits":1,"streams":[{"id":1,"bytes":10,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1}]}`,
		`{"streams":[]}`, `{"streams":[{"id":1e3}]}`,
		`{"streams":[{"id":1,"packets":5,"errors":1,"omitted_packets":9,"omitted_errors":3}],"server_output_json":{"a":1},"server_output_text":"x"}`,
		`{"streams":[],"server_unmet":"flow label 0x1 not set"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseResults(b)
		if err != nil {
			return
		}
		if len(r.Streams) > 2*maxStreams || len(r.Unmet) > maxUnmet || strings.ContainsFunc(r.Unmet, unicode.IsControl) {
			t.Fatalf("%d streams, server_unmet %q accepted", len(r.Streams), r.Unmet)
		}
		for _, s := range r.Streams {
			if s.ID < 1 || s.Bytes < 0 || s.Retransmits < -1 {
				t.Fatalf("accepted %+v", s)
			}
		}
	})
}

// TestSetupError: a server that went quiet after the parameters is named
// with the step it stopped at; one that never answered may be no iperf3
// server at all; a lost connection during the test is a server gone.
func TestSetupError(t *testing.T) {
	c := &client{addr: "192.0.2.1:5201"}
	for _, tc := range []struct {
		want    int8
		running bool
		err     error
		says    string
	}{
		{stateTestStart, false, os.ErrDeadlineExceeded, "took the test's parameters, then said nothing for 30s (the client waited for TEST_START)"},
		{stateCreateStreams, false, os.ErrDeadlineExceeded, "(the client waited for CREATE_STREAMS)"},
		{stateParamExchange, false, os.ErrDeadlineExceeded, "did not answer on the control connection within 30s (is it an iperf3 server?)"},
		{stateTestRunning, false, io.EOF, "closed the control connection"},
		{stateDisplayResults, true, os.ErrDeadlineExceeded, "stopped answering during the test"},
	} {
		c.running = tc.running
		if got := c.setupError(tc.err, tc.want, 30*time.Second).Error(); !strings.Contains(got, tc.says) {
			t.Errorf("state %d, %v: %q, want %q", tc.want, tc.err, got, tc.says)
		}
	}
}
