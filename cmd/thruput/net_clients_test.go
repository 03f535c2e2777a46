package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// TestClientsLatency: net client --clients 3 into a server taking three
// measures the latency under their load with one probe stream: the group
// and the first client's run carry it (UDP echoes, an idle phase and the
// load), and the other two tests start only once the idle phase is over,
// as the server's documents of the three tests show.
func TestClientsLatency(t *testing.T) {
	fstest.Long(t, "runs three clients for seconds")
	port := nettest.FreePort(t)
	srv := startBackground(t, exec.Command(thruputBin, "net", "server", "--max-clients", "3", "--json", "-q",
		"--bind", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	res := thruput(t, "net", "client", "127.0.0.1", "-p", strconv.Itoa(port), "--clients", "3", "-t", "2", "-b", "100M",
		"--idle", "0.5s", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var groups []result.ClientGroup
	if err := json.Unmarshal([]byte(res.stdout), &groups); err != nil || len(groups) != 1 || len(groups[0].Clients) != 3 {
		t.Fatalf("output %v:\n%s", err, res.stdout)
	}
	l := groups[0].LoadLatency
	if l == nil || l.Probe != "udp-echo" || l.Idle == nil || l.Idle.RTT == nil || len(l.Loaded) != 1 || l.Loaded[0].Phase != "up" || l.Loaded[0].RTT == nil {
		t.Fatalf("the group's latency under load: %+v", l)
	}
	for i, c := range groups[0].Clients {
		show := thruput(t, "results", "show", c.Run, "--json")
		var d result.Document
		if err := json.Unmarshal([]byte(show.stdout), &d); err != nil {
			t.Fatalf("client %s's run %s: %v\n%s", c.Client, c.Run, err, show.stderr)
		}
		if (d.LoadLatency != nil) != (i == 0) {
			t.Errorf("client %s's run carries latency: %v; want the first client's alone", c.Client, d.LoadLatency != nil)
		}
	}
	_ = srv.cmd.Process.Signal(os.Interrupt)
	srv.wait(t)
	var starts []time.Time
	dec := json.NewDecoder(&srv.stdout)
	for {
		var d result.Document
		if err := dec.Decode(&d); err != nil {
			break
		}
		starts = append(starts, d.StartedAt)
	}
	if len(starts) != 3 {
		t.Fatalf("the server saved %d tests, want 3\n%s", len(starts), srv.stderr.String())
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	// The server takes a test's parameters before the first client's
	// idle phase; the others' after it.
	idle := time.Duration(l.Idle.EndNs - l.Idle.StartNs)
	for _, s := range starts[1:] {
		if gap := s.Sub(starts[0]); gap < idle-20*time.Millisecond {
			t.Errorf("a client started %v after the first, within its %v idle phase", gap, idle)
		}
	}
}
