package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// sweep is a run over targets; mib[t] maps a block size to its write and
// read MiB/s, a step left out where the map has no entry.
func sweep(id string, paths []string, mib []map[int64][2]float64) *result.Document {
	d := &result.Document{ID: id, Method: "disk.sweep", Sweep: &result.Sweep{}}
	for ti, p := range paths {
		d.Targets = append(d.Targets, result.Target{Path: p, FSType: "ext4"})
		for bs, wr := range mib[ti] {
			d.Sweep.Steps = append(d.Sweep.Steps,
				result.SweepStep{Target: ti, Phase: result.PhaseWrite, BlockSize: bs, MiBPerSec: wr[0]},
				result.SweepStep{Target: ti, Phase: result.PhaseRead, BlockSize: bs, MiBPerSec: wr[1]})
		}
	}
	return d
}

// netRun is a TCP upload whose receiver got mbit Mbit/s.
func netRun(id, method string, labels map[string]string, mbit float64) *result.Document {
	fig := result.NetFigure{BitsPerSecond: mbit * 1e6}
	return &result.Document{ID: id, Method: result.Method(method), Labels: labels, Net: &result.Net{
		Sums: []result.NetSum{{Direction: result.DirUp, Sender: fig, Receiver: fig}},
	}}
}

// ioRun is a disk io job repeated once per figure in iops.
func ioRun(id string, iops ...float64) *result.Document {
	d := &result.Document{ID: id, Method: "disk.io", Targets: []result.Target{{Path: "/mnt"}}, IO: &result.IO{
		Parameters: result.IOParameters{RW: "randread", BlockSize: 4096, IODepth: 32, Jobs: 1}}}
	for _, x := range iops {
		d.IO.Runs = append(d.IO.Runs, result.IORun{Read: &result.IODirection{IOPS: x, MiBPerSec: x / 256,
			Latency: &result.Latency{P50Ns: 100e3, P99Ns: 900e3}}})
	}
	return d
}

func one(d *result.Document) Group { return Group{Name: d.ID, Docs: []*result.Document{d}} }

func mustNew(t *testing.T, baseline int, groups ...Group) *Comparison {
	t.Helper()
	c, err := New(groups, baseline)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rowNames lists the rows as "section|step|metric".
func rowNames(c *Comparison) string {
	var s []string
	for _, r := range c.Rows {
		s = append(s, r.Section+"|"+r.Step+"|"+r.Metric)
	}
	return strings.Join(s, "\n")
}

func find(t *testing.T, c *Comparison, section, step, metric string) Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Section == section && r.Step == step && r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no row %s|%s|%s in\n%s", section, step, metric, rowNames(c))
	return Row{}
}

func TestAlignsMissingSteps(t *testing.T) {
	a := sweep("a", []string{"/sd"}, []map[int64][2]float64{{4096: {10, 20}, 1 << 20: {15, 22}}})
	b := sweep("b", []string{"/usb"}, []map[int64][2]float64{{8: {0.5, 1}, 4096: {30, 40}}})
	b.Sweep.Steps = slices.DeleteFunc(b.Sweep.Steps, func(s result.SweepStep) bool { // b's 4k read never ran
		return s.Phase == result.PhaseRead && s.BlockSize == 4096
	})
	c := mustNew(t, 0, one(a), one(b))
	want := strings.Join([]string{
		"sweep write|8|MiB/s", "sweep write|4k|MiB/s", "sweep write|1M|MiB/s",
		"sweep read|8|MiB/s", "sweep read|4k|MiB/s", "sweep read|1M|MiB/s",
	}, "\n")
	if got := rowNames(c); got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
	present := func(r Row) string { return fmt.Sprint(r.Cells[0].Present, r.Cells[1].Present) }
	for _, x := range []struct {
		section, step, want string
	}{{"sweep write", "8", "false true"}, {"sweep write", "4k", "true true"}, {"sweep write", "1M", "true false"}, {"sweep read", "4k", "true false"}} {
		if got := present(find(t, c, x.section, x.step, "MiB/s")); got != x.want {
			t.Errorf("%s %s present %s; want %s", x.section, x.step, got, x.want)
		}
	}
	r := find(t, c, "sweep write", "4k", "MiB/s")
	if *r.Cells[0].Ratio != 1 || *r.Cells[1].Ratio != 3 || math.Abs(*r.Cells[1].Diff-2) > 1e-12 || r.Cells[1].Noise {
		t.Errorf("4k write cells %+v", r.Cells)
	}
	if r := find(t, c, "sweep write", "8", "MiB/s"); r.Cells[1].Ratio != nil || r.Cells[1].Noise {
		t.Errorf("a ratio against a missing baseline: %+v", r.Cells[1])
	}
	if c.Method != "disk.sweep" || c.Columns[0].Target != "/sd" || c.Columns[1].Name != "b" {
		t.Errorf("columns %+v", c.Columns)
	}
}

func TestSplitsTargets(t *testing.T) {
	two := []string{"/media/fat32", "/media/ntfs"}
	d := sweep("r1", two, []map[int64][2]float64{{4096: {27, 30}}, {4096: {20, 25}}})
	c := mustNew(t, 1, one(d))
	if len(c.Columns) != 2 || c.Columns[0].Name != "r1 /media/fat32" || c.Columns[1].Target != "/media/ntfs" || c.Baseline != 1 {
		t.Fatalf("columns %+v", c.Columns)
	}
	if r := find(t, c, "sweep write", "4k", "MiB/s"); *r.Cells[0].Ratio != 27.0/20 {
		t.Errorf("fat32 over ntfs %v", *r.Cells[0].Ratio)
	}
	// Several runs of two targets: still a column per target, the runs
	// as its repeats.
	e := sweep("r2", two, []map[int64][2]float64{{4096: {29, 31}}, {4096: {21, 26}}})
	c = mustNew(t, 0, Group{Name: "fs=mixed", Docs: []*result.Document{d, e}})
	r := find(t, c, "sweep write", "4k", "MiB/s")
	if len(c.Columns) != 2 || c.Columns[1].Name != "fs=mixed /media/ntfs" || len(c.Columns[1].Runs) != 2 {
		t.Fatalf("columns %+v", c.Columns)
	}
	if r.Cells[0].Value != 28 || r.Cells[1].Spread == nil || r.Cells[1].Spread.N != 2 {
		t.Errorf("cells %+v", r.Cells)
	}
}

func TestRepeats(t *testing.T) {
	// One run: its --repeat runs are the samples.
	c := mustNew(t, 0, one(ioRun("a", 1000, 1010, 990)), one(ioRun("b", 1500)))
	r := find(t, c, "io read", "randread 4k Q32T1", "IOPS")
	if len(r.Cells[0].Samples) != 3 || r.Cells[0].Spread.Stddev != 10 || r.Cells[1].Spread != nil || r.Cells[1].Noise {
		t.Errorf("cells %+v", r.Cells)
	}
	if p99 := find(t, c, "io read", "randread 4k Q32T1", "p99 µs"); p99.HigherIsBetter || p99.Cells[0].Value != 900 {
		t.Errorf("p99 row %+v", p99)
	}
	// Several runs: one sample per run, its mean.
	c = mustNew(t, 0, Group{Name: "q", Docs: []*result.Document{ioRun("a", 1000, 1010, 990), ioRun("b", 1200)}})
	if r := find(t, c, "io read", "randread 4k Q32T1", "IOPS"); fmt.Sprint(r.Cells[0].Samples) != "[1000 1200]" {
		t.Errorf("samples %v", r.Cells[0].Samples)
	}
}

func TestLabelsAndMethods(t *testing.T) {
	g := Group{Name: "channel=6", Docs: []*result.Document{
		netRun("a", "net.client", map[string]string{"channel": "6", "site": "attic", "time": "am"}, 50),
		netRun("b", "net.server", map[string]string{"channel": "6", "site": "attic", "time": "pm"}, 52),
	}}
	c := mustNew(t, 0, g)
	if fmt.Sprint(c.Columns[0].Labels) != "map[channel:6 site:attic]" || c.Method != "net.client+net.server" {
		t.Errorf("labels %v, method %s", c.Columns[0].Labels, c.Method)
	}
	if r := find(t, c, "net up", "sum", "receiver Mbit/s"); r.Cells[0].Value != 51 {
		t.Errorf("mean %v", r.Cells[0].Value)
	}
}

func TestErrors(t *testing.T) {
	s := one(sweep("s", []string{"/a"}, []map[int64][2]float64{{4096: {1, 2}}}))
	n := one(netRun("n", "net.client", nil, 10))
	for _, x := range []struct {
		groups   []Group
		baseline int
		want     string
	}{
		{[]Group{s, n}, 0, "cannot compare disk.sweep with net.client"},
		{[]Group{s, s}, 2, "baseline 2 is out of range"},
		{[]Group{s, s}, -1, "baseline -1 is out of range"},
		{nil, 0, "nothing to compare"},
		{[]Group{s, {Name: "fs=zfs"}}, 0, "fs=zfs: no runs"},
	} {
		if _, err := New(x.groups, x.baseline); err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("New = %v; want an error containing %q", err, x.want)
		}
	}
}

func TestZeroBaseline(t *testing.T) {
	c := mustNew(t, 0, one(netRun("a", "net.client", nil, 0)), one(netRun("b", "net.client", nil, 5)))
	for _, cell := range find(t, c, "net up", "sum", "receiver Mbit/s").Cells {
		if !cell.Present || cell.Ratio != nil || cell.Diff != nil {
			t.Errorf("cell %+v: a ratio to zero", cell)
		}
	}
}

func TestNoiseRule(t *testing.T) {
	c := mustNew(t, 0,
		Group{Name: "base", Docs: []*result.Document{netRun("a1", "net.client", nil, 100), netRun("a2", "net.client", nil, 102), netRun("a3", "net.client", nil, 98)}},
		Group{Name: "same", Docs: []*result.Document{netRun("b1", "net.client", nil, 101), netRun("b2", "net.client", nil, 97), netRun("b3", "net.client", nil, 103)}},
		Group{Name: "worse", Docs: []*result.Document{netRun("c1", "net.client", nil, 80), netRun("c2", "net.client", nil, 82), netRun("c3", "net.client", nil, 79)}},
		one(netRun("inside", "net.client", nil, 101)),
		one(netRun("outside", "net.client", nil, 103)),
	)
	r := find(t, c, "net up", "sum", "receiver Mbit/s")
	if s := noiseMarks(c, r); s != "base:false same:true worse:false inside:true outside:false" {
		t.Errorf("noise %s", s)
	}
}

// noiseMarks lists a row's cells as "column:noise".
func noiseMarks(c *Comparison, r Row) string {
	var got []string
	for i, cell := range r.Cells {
		got = append(got, fmt.Sprintf("%s:%v", c.Columns[i].Name, cell.Noise))
	}
	return strings.Join(got, " ")
}

func TestNoise(t *testing.T) {
	for _, x := range []struct {
		a, b   []float64
		want   bool
		ha, hb float64
	}{
		{[]float64{10}, []float64{10.1}, false, 0, 0},               // no repeats: nothing to judge by
		{[]float64{10}, []float64{10.3}, true, 0.2, 0.2},            // single runs whose intervals overlap
		{[]float64{10}, []float64{10.5}, false, 0.2, 0.2},           // and whose intervals do not
		{[]float64{10}, []float64{10.3}, false, 0.2, 0},             // one side without an interval
		{[]float64{10, 12}, []float64{11}, true, 0, 0},              // inside the repeats' range
		{[]float64{11}, []float64{10, 12}, true, 0, 0},              // either side may hold the repeats
		{[]float64{10, 12}, []float64{12.5}, false, 0, 0},           // outside it
		{[]float64{10, 10}, []float64{10, 10}, true, 0, 0},          // no spread, no gap
		{[]float64{10, 10}, []float64{11, 11}, false, 0, 0},         // no spread, a gap
		{[]float64{10, 14}, []float64{15, 19}, true, 0, 0},          // t = 1.8, df 2: t95 is 4.303
		{[]float64{10, 11, 12}, []float64{15, 16, 17}, false, 0, 0}, // t = 6.1, df 4: t95 is 2.776
		{[]float64{10, 10, 10}, []float64{12, 13, 14}, false, 0, 0}, // one side steady: df 2, t = 5.2 > 4.303
	} {
		if got := Noise(Cell{Samples: x.a, HalfWidth: x.ha}, Cell{Samples: x.b, HalfWidth: x.hb}); got != x.want {
			t.Errorf("Noise(%v, %v) = %v; want %v", x.a, x.b, got, x.want)
		}
	}
}

// TestRowsPerMethod pins the row order every method gives.
func TestRowsPerMethod(t *testing.T) {
	mark := &result.Document{ID: "m", Method: "disk.mark", Mark: &result.Mark{}}
	for _, p := range []string{"RND4K Q1T1", "SEQ1M Q1T1", "RND4K Q32T1", "SEQ1M Q8T1"} {
		for _, ph := range []string{"write", "read"} {
			mark.Mark.Results = append(mark.Mark.Results, result.MarkResult{Preset: p, Phase: ph, MBPerSec: 10})
		}
	}
	random := &result.Document{ID: "r", Method: "disk.random", Random: &result.Random{
		Parameters: result.RandomParameters{Mode: "rndwr", BlockSize: 16 << 10, Threads: 2},
		Writes:     10, WritesPerSec: 1, RequestsPerSec: 1, Latency: &result.Latency{P95Ns: 2e6}}}
	retr, lost, packets, jitter := int64(3), int64(5), int64(1000), 0.2
	net := &result.Document{ID: "n", Method: "net.server", Net: &result.Net{
		Sums:    []result.NetSum{{Direction: "down", Sender: result.NetFigure{Retransmits: &retr}}, {Direction: "up", Receiver: result.NetFigure{Lost: &lost, Packets: &packets, JitterMs: &jitter}}},
		Streams: []result.NetStream{{ID: 5, Direction: "up"}, {ID: 7, Direction: "up"}, {ID: 9, Direction: "down"}}}}
	http := &result.Document{ID: "h", Method: "net.http", HTTP: &result.HTTP{Runs: []result.HTTPRun{
		{MiBPerSec: 10, PeakMiBPerSec: 12, TTFBNs: 2e6}, {MiBPerSec: 11, PeakMiBPerSec: 13, TTFBNs: 3e6}, {MiBPerSec: 1, Error: "reset"}}}}
	for _, x := range []struct {
		doc  *result.Document
		want string
	}{
		{mark, "mark|SEQ1M Q8T1 read|MiB/s mark|SEQ1M Q8T1 write|MiB/s mark|SEQ1M Q1T1 read|MiB/s mark|SEQ1M Q1T1 write|MiB/s " +
			"mark|RND4K Q32T1 read|MiB/s mark|RND4K Q32T1 write|MiB/s mark|RND4K Q1T1 read|MiB/s mark|RND4K Q1T1 write|MiB/s"},
		{ioRun("i", 1), "io read|randread 4k Q32T1|IOPS io read|randread 4k Q32T1|MiB/s io read|randread 4k Q32T1|p50 µs io read|randread 4k Q32T1|p99 µs"},
		{random, "random|rndwr 16k, 2 threads|requests/s random|rndwr 16k, 2 threads|writes/s random|rndwr 16k, 2 threads|write MiB/s random|rndwr 16k, 2 threads|p95 ms"},
		{net, "net up|sum|receiver Mbit/s net up|sum|sender Mbit/s net up|sum|jitter ms net up|sum|lost % " +
			"net up|stream 1|receiver Mbit/s net up|stream 2|receiver Mbit/s " +
			"net down|sum|receiver Mbit/s net down|sum|sender Mbit/s net down|sum|retransmits"},
		{http, "http|download|MiB/s http|download|peak MiB/s http|download|TTFB ms"},
	} {
		c := mustNew(t, 0, one(x.doc))
		if got := strings.ReplaceAll(rowNames(c), "\n", " "); got != x.want {
			t.Errorf("%s rows:\n%s\nwant\n%s", x.doc.Method, got, x.want)
		}
	}
	c := mustNew(t, 0, one(http))
	if r := find(t, c, "http", "download", "MiB/s"); fmt.Sprint(r.Cells[0].Samples) != "[10 11]" {
		t.Errorf("a failed download counted: %v", r.Cells[0].Samples)
	}
	if r := find(t, c, "http", "download", "TTFB ms"); r.HigherIsBetter || r.Cells[0].Value != 2.5 {
		t.Errorf("TTFB row %+v", r)
	}
}

// TestSetBaseline: moving the baseline gives what New with that baseline
// gives, and leaves no ratio or noise mark of the old one behind.
func TestSetBaseline(t *testing.T) {
	groups := []Group{one(ioRun("a", 1000, 1010, 990)), one(ioRun("b", 1500)), one(ioRun("c", 1005))}
	want := mustNew(t, 2, groups...)
	got := mustNew(t, 0, groups...)
	if err := got.SetBaseline(2); err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if string(w) != string(g) {
		t.Errorf("SetBaseline(2):\n%s\nNew(…, 2):\n%s", g, w)
	}
	if err := got.SetBaseline(3); err == nil {
		t.Error("SetBaseline(3) of 3 columns accepted")
	}
}

// TestCachedMark: a column whose run read from the page cache says so.
func TestCachedMark(t *testing.T) {
	d := &result.Document{ID: "r1", Method: "disk.random", Targets: []result.Target{{Path: "/mnt"}},
		Random: &result.Random{ReadMiBPerSec: 4000, ReadDevice: &result.DeviceShare{Share: 0.008, Cached: true}}}
	c, err := New([]Group{{Name: "r1", Docs: []*result.Document{d}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Columns[0].Cached; len(got) != 1 || got[0] != "random reads" {
		t.Errorf("cached steps %v, want [random reads]", got)
	}
}

// TestWelchFractionalDF: two runs a side, 1.36x apart, t 6.5 at df 1.64
// (SciPy's ttest_ind(equal_var=False): p 0.037); the test once rounded
// df down to 1 (t 12.7) and called it noise.
// A difference inside the noise says what would have been significant.
func TestWelchFractionalDF(t *testing.T) {
	c := mustNew(t, 0,
		Group{Name: "a", Docs: []*result.Document{ioRun("a1", 1000), ioRun("a2", 1100)}},
		Group{Name: "b", Docs: []*result.Document{ioRun("b1", 1400), ioRun("b2", 1460)}})
	r := find(t, c, "io read", "randread 4k Q32T1", "IOPS")
	if r.Cells[1].Noise {
		t.Errorf("1.36x with p 0.037 called noise: %+v", r.Cells[1])
	}
	if n := r.Cells[1].Needed; n <= 0 || n >= 1430-1050 {
		t.Errorf("needed %v, want between 0 and the gap", n)
	}
	c = mustNew(t, 0,
		Group{Name: "a", Docs: []*result.Document{ioRun("a1", 1000), ioRun("a2", 1400)}},
		Group{Name: "b", Docs: []*result.Document{ioRun("b1", 1300), ioRun("b2", 1500)}})
	r = find(t, c, "io read", "randread 4k Q32T1", "IOPS")
	if !r.Cells[1].Noise || r.Cells[1].Needed <= 1400-1200 {
		t.Errorf("overlapping repeats: %+v", r.Cells[1])
	}
}

// latencyRun is a download whose latency probes met a loaded median round
// trip of p50 ms, its 95 % interval [low, high].
func latencyRun(id string, p50, low, high float64) *result.Document {
	d := netRun(id, "net.client", nil, 90)
	ns := func(ms float64) int64 { return int64(ms * 1e6) }
	d.LoadLatency = &result.LoadLatency{Probe: "udp-echo", IntervalNs: 10e6, Loaded: []result.LatencyPhase{{Phase: "down", Sent: 500, Received: 500,
		RTT: &result.Delays{Samples: 500, P50Ns: ns(p50), P50LowNs: ns(low), P50HighNs: ns(high), P90Ns: ns(high + 10), P99Ns: ns(high + 12)}}}}
	return d
}

// TestLoadedLatencyNoise: single runs' loaded round trips are judged by
// their medians' intervals: overlapping ones are inside the noise,
// disjoint ones are not, and p90, which has no interval, is not judged.
func TestLoadedLatencyNoise(t *testing.T) {
	c := mustNew(t, 0,
		one(latencyRun("base", 90.5, 88.8, 92.0)),
		one(latencyRun("overlap", 92.4, 91.1, 93.9)),
		one(latencyRun("shorter", 1.2, 1.1, 1.3)),
		one(latencyRun("above", 95.5, 94.0, 97.1)),
	)
	r := find(t, c, "latency down", "rtt p50", "ms")
	if s := noiseMarks(c, r); s != "base:false overlap:true shorter:false above:false" {
		t.Errorf("noise %s", s)
	}
	if hw := r.Cells[0].HalfWidth; math.Abs(hw-1.7) > 1e-9 {
		t.Errorf("base half-width %v, want 1.7 ms (the wider side of [88.8, 92.0] around 90.5)", hw)
	}
	if r := find(t, c, "latency down", "rtt p90", "ms"); r.Cells[1].HalfWidth != 0 || r.Cells[1].Noise {
		t.Errorf("p90 judged without an interval: %+v", r.Cells[1])
	}
}

// TestIdleTailNotCompared: of the idle phase a comparison holds the
// median alone; its other quantiles and its probe loss are series for
// the metrics, not rows.
func TestIdleTailNotCompared(t *testing.T) {
	run := func(id string) *result.Document {
		d := latencyRun(id, 90.5, 88.8, 92.0)
		d.LoadLatency.Idle = &result.LatencyPhase{Phase: "idle", Sent: 100, Received: 99, Loss: 0.01,
			RTT: &result.Delays{Samples: 99, P50Ns: 84e3, P50LowNs: 80e3, P50HighNs: 90e3, P90Ns: 91e3, P99Ns: 120e3}}
		return d
	}
	c := mustNew(t, 0, one(run("a")), one(run("b")))
	var idle []string
	for _, r := range c.Rows {
		if r.Section == "latency idle" {
			idle = append(idle, r.Step+"|"+r.Metric)
		}
	}
	if s := strings.Join(idle, " "); s != "rtt p50|ms" {
		t.Errorf("idle rows %q, want the median alone", s)
	}
}
