package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fleet"
	"github.com/thruput/thruput/internal/result"
)

// TestFleetNetConcurrent loads one server behind a 100 Mbit/s link with six
// clients on 100 Mbit/s links of their own, all at once (fleet net
// --pairs star:h1 --concurrent): the link is shared, so the clients'
// aggregate is what a lone client gets through it, and Jain's index says
// how evenly they shared it.
//
// The lone client is the reference, run before and after the six in the
// same window, and the tolerance is its own spread: each lone run's
// figure with its 95 % interval, the band from the lowest to the highest,
// which the six's sum, with its interval, must meet. A fixed 2 % was
// missed by the load alone: inside make check the other packages' tests
// share the two CPUs with the seven hosts (six together got 93.40 and,
// their SSH starts spread by that load, 99.66 against a lone 95.44; lone
// flows themselves 93 to 95.4). Where the six miss the band, the six and
// a lone client run once more, in the same order, and every run of the
// six is judged against the band of all the lone runs: more of the
// reference's spread, never a try left out.
func TestFleetNetConcurrent(t *testing.T) {
	l := newFleetLab(t, 100, 100, 100, 100, 100, 100, 100)
	run := func(pairs string) (fleet.ConcurrentOutput, float64) {
		t.Helper()
		// Without the probes: a client whose SSH start came late would
		// probe its idle path behind the others' load, up to --idle's 3
		// s, and its load would overlap theirs only in part.
		o := l.thruput(t, "fleet", "net", "--json", "--hosts", l.hosts(7), "--pairs", pairs, "--concurrent", "--", "-t", "8", "-O", "2", "--no-latency")
		var out fleet.ConcurrentOutput
		if err := json.Unmarshal([]byte(o.stdout), &out); err != nil || o.code != 0 {
			t.Fatalf("--pairs %s: exit %d %v\n%s%s", pairs, o.code, err, o.stdout, o.stderr)
		}
		if len(out.Groups) != 1 || out.Groups[0].Server != "h1" {
			t.Fatalf("--pairs %s: groups %+v", pairs, out.Groups)
		}
		var ids []string
		for _, c := range out.Groups[0].Clients {
			if c.MbitPerSecond == nil || c.Error != "" {
				t.Fatalf("--pairs %s: %s -> h1 failed: %s", pairs, c.Client, c.Error)
			}
			ids = append(ids, c.Run)
		}
		return out, groupHalfWidth(t, l, pairs, out.Groups[0], ids)
	}
	// lone and all are each run's sum and the half-width of its 95 %
	// interval, in Mbit/s.
	var lone, all [][2]float64
	loneRun := func() {
		out, half := run("h2:h1")
		lone = append(lone, [2]float64{out.Groups[0].AggregateMbitPerSecond, half})
	}
	var last fleet.ConcurrentOutput
	starRun := func() {
		out, half := run("star:h1")
		if len(out.Groups[0].Clients) != 6 {
			t.Fatalf("star: %d clients, want 6", len(out.Groups[0].Clients))
		}
		last = out
		all = append(all, [2]float64{out.Groups[0].AggregateMbitPerSecond, half})
	}
	// band is what the lone runs say the link carries; miss the first run
	// of the six outside it.
	band := func() (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, r := range lone {
			lo, hi = min(lo, r[0]-r[1]), max(hi, r[0]+r[1])
		}
		return lo, hi
	}
	miss := func() int {
		lo, hi := band()
		for i, r := range all {
			if r[0]+r[1] < lo || r[0]-r[1] > hi {
				return i
			}
		}
		return -1
	}
	refs := l.iperf3Runs(t, 2, 1)
	loneRun()
	starRun()
	loneRun()
	refs = append(refs, l.iperf3Runs(t, 2, 1)...)
	// Each lone run, with its interval, meets what iperf3 got through the
	// same link just before and just after: a stall (a retransmission
	// timeout) lowers a run and widens its interval alike (77.82 ± 33.69
	// Mbit/s seen), and the band with it.
	rlo, rhi := rateBand(t, "iperf3 h2 -> h1", refs)
	for _, r := range lone {
		if r[0]+r[1] < rlo/1e6 || r[0]-r[1] > rhi/1e6 {
			t.Errorf("a lone client got %.2f ± %.2f Mbit/s through a 100 Mbit/s link, iperf3 %.2f..%.2f in the same window", r[0], r[1], rlo/1e6, rhi/1e6)
		}
	}
	if i := miss(); i >= 0 {
		lo, hi := band()
		t.Logf("six clients together got %.2f ± %.2f Mbit/s, lone ones %.2f..%.2f: the six and a lone one once more, all judged", all[i][0], all[i][1], lo, hi)
		starRun()
		loneRun()
	}
	lo, hi := band()
	t.Logf("lone clients (Mbit/s, ± the 95 %% interval) %.2f, the band %.2f..%.2f; six at once %.2f", lone, lo, hi, all)
	if i := miss(); i >= 0 {
		t.Errorf("six clients together got %.2f ± %.2f Mbit/s, outside what a lone client got through the same link in the same window, %.2f..%.2f", all[i][0], all[i][1], lo, hi)
	}
	// TCP through a tail-drop queue shares unevenly (flows that lost in
	// slow start sit in retransmit backoff): the index is reported, and
	// only checked to be one.
	if j := last.Groups[0].Jain; j == nil || *j < 1.0/6 || *j > 1 {
		t.Fatalf("Jain's index %v of six flows, want between 1/6 and 1", j)
	}
	tbl := l.thruput(t, "fleet", "net", "--no-save", "-q", "--hosts", l.hosts(7), "--pairs", "h2,h3:h1", "--concurrent", "--", "-t", "2", "-O", "1")
	if tbl.code != 0 || !strings.Contains(tbl.stdout, "Jain's fairness index") || strings.Count(tbl.stdout, " h1 ") != 3 {
		t.Errorf("table: exit %d\n%s%s", tbl.code, tbl.stdout, tbl.stderr)
	}
	t.Logf("Jain's index %.3f:\n%s", *last.Groups[0].Jain, tbl.stdout)
}

// groupHalfWidth is the half-width of the 95 % interval of a group's sum,
// in Mbit/s: each client's figure known to its own run's interval (from
// the store), the clients' errors added as independent ones; flows
// sharing one link trade rate with each other, so their errors partly
// cancel in the sum and this is the wider of the two readings.
func groupHalfWidth(t *testing.T, l *fleetLab, pairs string, g result.ClientGroup, ids []string) float64 {
	t.Helper()
	rel := l.relativeWidths(t, ids)
	var sq float64
	for _, c := range g.Clients {
		h := rel[c.Run] * *c.MbitPerSecond
		sq += h * h
	}
	return math.Sqrt(sq)
}

// relativeWidths are the relative half-widths of the 95 % intervals of
// the runs ids in the lab's store, by run.
func (l *fleetLab) relativeWidths(t *testing.T, ids []string) map[string]float64 {
	t.Helper()
	o := l.thruput(t, append([]string{"results", "export"}, ids...)...)
	rel := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		d, err := result.Read(strings.NewReader(line))
		if err != nil {
			t.Fatalf("results export: exit %d %v\n%s", o.code, err, o.stderr)
		}
		if d.Net == nil || len(d.Net.Sums) == 0 || d.Net.Sums[0].Interval == nil {
			t.Fatalf("run %s has no interval in the store", d.ID)
		}
		r := d.Net.Sums[0].Interval.Relative
		if math.IsNaN(r) || math.IsInf(r, 0) {
			t.Fatalf("run %s has no known interval: %+v", d.ID, d.Net.Sums[0].Interval)
		}
		rel[d.ID] = r
	}
	for _, id := range ids {
		if _, ok := rel[id]; !ok {
			t.Fatalf("run %s is not in the store", id)
		}
	}
	return rel
}

// iperf3Runs is the reference for the lab's links: one iperf3 run from
// host from to host to, with per-half-second intervals after a second
// of slow start, for rateBand. The server runs until the client is done
// and is then stopped: a one-off server (-1) once outlived its client's
// test by 20 s in a make check.
func (l *fleetLab) iperf3Runs(t *testing.T, from, to int) []*iperf3JSON {
	t.Helper()
	needIperf3(t)
	const port = 5399 // not fleet's, whose servers may still be stopping
	srv := startBackground(t, l.lan.Command(t.Context(), to, "iperf3", "-s", "-p", strconv.Itoa(port)))
	if !listeningIn(fmt.Sprintf("/proc/%d/net", srv.cmd.Process.Pid), port) {
		t.Fatalf("iperf3 -s never listened in h%d: %s", to, srv.stderr.String())
	}
	out, err := l.lan.Command(t.Context(), from, "iperf3", "-c", l.lan.Hosts[to].Addr, "-p", strconv.Itoa(port), "-t", "3", "-O", "1", "-i", "0.5", "-J").Output()
	_ = srv.cmd.Process.Kill()
	srv.wait(t)
	if err != nil {
		t.Fatalf("iperf3 h%d -> h%d: %v\n%s", from, to, err, out)
	}
	return []*iperf3JSON{parseIperf3(t, "iperf3", out)}
}
