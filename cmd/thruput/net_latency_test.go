package main

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/usage"
)

// TestLatencyFlagsRefused: each bad value is a usage error (exit 2) that
// names the flag, before anything runs.
func TestLatencyFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		f    latencyFlags
		want string
	}{
		{latencyFlags{interval: "0", idle: "3s"}, "--latency-interval 0: from 1ms to 1s"},
		{latencyFlags{interval: "2s", idle: "3s"}, "--latency-interval 2s: from 1ms to 1s"},
		{latencyFlags{interval: "fast", idle: "3s"}, "--latency-interval fast: from 1ms to 1s"},
		{latencyFlags{interval: "10ms", idle: "0"}, "--idle 0: from 0.1s to 30s"},
		{latencyFlags{interval: "10ms", idle: "31s"}, "--idle 31s: from 0.1s to 30s"},
		{latencyFlags{interval: "100ms", idle: "0.5"}, "--idle 0.5 with --latency-interval 100ms: the idle phase needs at least 10 probes"},
	} {
		p, err := c.f.prober()
		if p != nil || err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error %q", c.f, err, c.want)
		}
	}
	if p, err := (&latencyFlags{off: true, interval: "bad"}).prober(); p != nil || err != nil {
		t.Errorf("--no-latency: %v, %v; want no probes and no error", p, err)
	}
	if p, err := (&latencyFlags{interval: "10ms", idle: "3s"}).prober(); p == nil || err != nil || p.Idle().Seconds() != 3 {
		t.Errorf("defaults: %v, %v", p, err)
	}
}
