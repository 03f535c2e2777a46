package iperf3

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestLatencyParams: the probe keys go out only when asked for, read back
// with their types and ranges checked like iperf3's own keys.
func TestLatencyParams(t *testing.T) {
	p := Params{Time: time.Second, Parallel: 1}
	if _, ok := p.wire()[latencyEchoKey]; ok {
		t.Fatal("the echo asked for by a client that does not probe")
	}
	p.LatencyEcho, p.LatencyIdle = true, 3*time.Second
	b, err := json.Marshal(p.wire())
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseParams(b)
	if err != nil || !got.LatencyEcho || got.LatencyIdle != 3*time.Second {
		t.Fatalf("ParseParams(%s) = %+v, %v", b, got, err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"tcp":true,"time":1,"thruput_latency_echo":"yes"}`, `"thruput_latency_echo": want true, false or a number`},
		{`{"tcp":true,"time":1,"thruput_latency_echo":1,"thruput_latency_idle_ms":30001}`, `"thruput_latency_idle_ms": 30001 is outside 0..30000`},
		{`{"tcp":true,"time":1,"thruput_latency_echo":1,"thruput_latency_idle_ms":-1}`, `"thruput_latency_idle_ms": -1 is outside 0..30000`},
	} {
		if _, err := ParseParams([]byte(c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseParams(%s) = %v, want %q", c.body, err, c.want)
		}
	}
}
