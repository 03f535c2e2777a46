package main

import (
	"cmp"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
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
		p, err := c.f.prober(0)
		if p != nil || err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error %q", c.f, err, c.want)
		}
	}
	if p, err := (&latencyFlags{off: true, interval: "bad"}).prober(0); p != nil || err != nil {
		t.Errorf("--no-latency: %v, %v; want no probes and no error", p, err)
	}
	if p, err := (&latencyFlags{interval: "10ms", idle: "3s"}).prober(0); p == nil || err != nil || p.Idle().Seconds() != 3 {
		t.Errorf("defaults: %v, %v", p, err)
	}
	// A slow test's longer interval (100 ms at -b 1M) is the load's: the
	// idle phase is probed every 10 ms, so a short one is no error.
	if p, err := (&latencyFlags{idle: "0.1"}).prober(1e6); p == nil || err != nil {
		t.Errorf("--idle 0.1 at -b 1M, no --latency-interval: %v, %v", p, err)
	}
}

// TestLatencyIntervalFollowsPacing: with no --latency-interval a test paced
// at 1 Mbit/s probes its load every 100 ms (every 10 ms would add 10 % to
// it on the wire) and its idle path every 10 ms, one at 100 Mbit/s both
// every 10 ms, and a --latency-interval given is kept; the document says
// which, and each phase's probes are what its interval allows. Against a
// stock iperf3 server the handshake probes' idle phase, after the load,
// goes back to 10 ms.
func TestLatencyIntervalFollowsPacing(t *testing.T) {
	fstest.Long(t, "runs four short tests against a thruput server and iperf3")
	needIperf3(t)
	port := nettest.FreePort(t)
	startBackground(t, exec.Command(thruputBin, "net", "server", "-q", "--no-save", "--bind", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	for _, c := range []struct {
		iperf3     bool
		args       []string
		want, idle time.Duration
	}{
		{false, []string{"-b", "1M", "-t", "2"}, 100 * time.Millisecond, 10 * time.Millisecond},
		{false, []string{"-b", "1M", "-t", "1", "--latency-interval", "10ms"}, 10 * time.Millisecond, 0},
		{false, []string{"-b", "100M", "-t", "1"}, 10 * time.Millisecond, 0},
		// A short idle phase after the load: at the load's 100 ms it would
		// hold two probes.
		{true, []string{"-b", "1M", "-t", "2", "--idle", "0.2"}, 100 * time.Millisecond, 10 * time.Millisecond},
	} {
		p := port
		if c.iperf3 {
			p = nettest.FreePort(t)
			startBackground(t, exec.Command("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", strconv.Itoa(p)))
			waitListening(t, p)
		}
		args := append([]string{"net", "client", "127.0.0.1", "-p", strconv.Itoa(p), "--idle", "1", "--no-save", "--json"}, c.args...)
		o := thruput(t, args...)
		var d result.Document
		if err := json.Unmarshal([]byte(o.stdout), &d); o.code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v\n%s", c.args, o.code, err, o.stderr)
		}
		l := d.LoadLatency
		if l == nil || len(l.Loaded) != 1 {
			t.Fatalf("%v: latency under load %+v", c.args, l)
		}
		// A probe a due time at most: a late timer sends fewer, never more.
		load := time.Duration(l.Loaded[0].EndNs - l.Loaded[0].StartNs)
		most := int(load/c.want) + 2
		if time.Duration(l.IntervalNs) != c.want || l.Loaded[0].Sent < 1 || l.Loaded[0].Sent > most {
			t.Errorf("%v: interval %v, %d probes through %v of load; want %v, 1 to %d probes", c.args, time.Duration(l.IntervalNs), l.Loaded[0].Sent, load, c.want, most)
		}
		// The idle phase's probes came at the idle interval: more than the
		// load's would allow where that is longer.
		idleEvery := cmp.Or(c.idle, c.want)
		if time.Duration(l.IdleIntervalNs) != c.idle || l.Idle == nil || l.IdleAfter != c.iperf3 {
			t.Fatalf("%v (iperf3's server: %v): idle interval %v, idle phase %+v, after the load %v; want %v", c.args, c.iperf3, time.Duration(l.IdleIntervalNs), l.Idle, l.IdleAfter, c.idle)
		}
		idle := time.Duration(l.Idle.EndNs - l.Idle.StartNs)
		if l.Idle.Sent > int(idle/idleEvery)+2 || c.idle != 0 && l.Idle.Sent <= int(idle/c.want)+2 {
			t.Errorf("%v: %d idle probes in %v; want them every %v", c.args, l.Idle.Sent, idle, idleEvery)
		}
		t.Logf("%v (%s): %d idle probes in %v, %d under %v of load", c.args, l.Probe, l.Idle.Sent, idle, l.Loaded[0].Sent, load)
	}
}
