package main

import (
	"math"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// randomJSON runs disk random, which must succeed, and returns its document.
func randomJSON(t *testing.T, args ...string) *result.Document {
	t.Helper()
	o := thruput(t, append([]string{"disk", "random", "--json", "-q"}, args...)...)
	if o.code != 0 {
		t.Fatalf("thruput disk random %v: exit %d\n%s", args, o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Random == nil {
		t.Fatalf("thruput disk random %v: %v\n%s", args, err, o.stdout)
	}
	return doc
}

// checkLatency wants percentiles that are non-zero and in order.
func checkLatency(t *testing.T, name string, l *result.Latency, count int64) {
	t.Helper()
	if l == nil {
		t.Errorf("%s: no latency", name)
		return
	}
	seq := []int64{l.MinNs, l.P50Ns, l.P95Ns, l.P99Ns, l.P999Ns, l.MaxNs}
	for i, v := range seq {
		if v <= 0 || (i > 0 && v < seq[i-1]) {
			t.Errorf("%s: latency not positive and ordered (min p50 p95 p99 p99.9 max): %v", name, seq)
			break
		}
	}
	if l.Count != count || l.MeanNs < float64(l.MinNs) || l.MeanNs > float64(l.MaxNs) {
		t.Errorf("%s: count %d (want %d), mean %.0f outside [%d, %d]", name, l.Count, count, l.MeanNs, l.MinNs, l.MaxNs)
	}
}

// checkRandom checks a run's counts against its parameters.
func checkRandom(t *testing.T, fs string, doc *result.Document) {
	t.Helper()
	r := doc.Random
	p := r.Parameters
	name := fs + " " + p.Mode
	reads, writes := r.Reads, r.Writes
	switch p.Mode {
	case "seqrd", "rndrd":
		if reads == 0 || writes != 0 || r.Fsyncs != 0 || r.EndFsyncs != 0 {
			t.Errorf("%s: reads %d writes %d fsyncs %d+%d", name, reads, writes, r.Fsyncs, r.EndFsyncs)
		}
	case "seqwr", "seqrewr", "rndwr":
		if writes == 0 || reads != 0 {
			t.Errorf("%s: reads %d writes %d", name, reads, writes)
		}
	case "rndrw":
		if ratio := float64(reads) / float64(writes); math.Abs(ratio-p.RWRatio) > 0.05*p.RWRatio {
			t.Errorf("%s: reads/writes %d/%d = %.3f, want %.2f", name, reads, writes, ratio, p.RWRatio)
		}
	}
	if writes > 0 {
		want := writes / int64(p.FsyncEvery)
		if p.FsyncAll {
			want *= int64(p.Files)
		}
		if d := r.Fsyncs - want; d < -int64(p.Threads) || d > int64(p.Threads) {
			t.Errorf("%s: %d periodic fsyncs for %d writes every %d; want %d", name, r.Fsyncs, writes, p.FsyncEvery, want)
		}
		if p.FsyncEnd && r.EndFsyncs != int64(p.Files) {
			t.Errorf("%s: %d end fsyncs for %d files", name, r.EndFsyncs, p.Files)
		}
	}
	if r.ReadBytes != reads*p.BlockSize || r.WrittenBytes != writes*p.BlockSize {
		t.Errorf("%s: bytes %d/%d for %d/%d requests of %d", name, r.ReadBytes, r.WrittenBytes, reads, writes, p.BlockSize)
	}
	if r.ElapsedNs <= 0 || r.RequestsPerSec <= 0 || len(r.Threads) != p.Threads {
		t.Errorf("%s: elapsed %d, %.1f req/s, %d thread entries", name, r.ElapsedNs, r.RequestsPerSec, len(r.Threads))
	}
	var sum int64
	for _, th := range r.Threads {
		sum += th.Requests
	}
	if sum != reads+writes+r.Fsyncs || r.Fairness.Requests.N != p.Threads {
		t.Errorf("%s: threads did %d requests, totals say %d", name, sum, reads+writes+r.Fsyncs)
	}
	checkLatency(t, name+" all", r.Latency, reads+writes+r.Fsyncs)
	if reads > 0 {
		checkLatency(t, name+" read", r.ReadLatency, reads)
	}
	if writes > 0 {
		checkLatency(t, name+" write", r.WriteLatency, writes)
	}
	if r.Fsyncs > 0 {
		checkLatency(t, name+" fsync", r.FsyncLatency, r.Fsyncs)
	}
	if p.Requests > 0 && reads+writes != p.Requests {
		t.Errorf("%s: %d requests, asked for %d", name, reads+writes, p.Requests)
	}
}

// TestRandomModes runs every mode on ext4 and xfs, short and small.
func TestRandomModes(t *testing.T) {
	fstest.RequireRoot(t)
	for _, fs := range []string{"ext4", "xfs"} {
		t.Run(fs, func(t *testing.T) {
			dir := fstest.Mount(t, fs, 320<<20)
			for _, mode := range []string{"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"} {
				doc := randomJSON(t, dir, "--mode", mode, "--files", "8", "--total-size", "16M", "--bs", "4k",
					"--requests", "3000", "--fsync-every", "50")
				checkRandom(t, fs, doc)
				if doc.Targets[0].FSType != fs || !doc.Random.Parameters.CacheDropped {
					t.Errorf("%s: target %+v, cache dropped %v", mode, doc.Targets[0], doc.Random.Parameters.CacheDropped)
				}
			}
			doc := randomJSON(t, dir, "--direct", "--mode", "rndrw", "--files", "4", "--total-size", "8M", "--bs", "4k", "--time", "500ms")
			checkRandom(t, fs+" direct", doc)
			fstest.AssertNoScratch(t, dir)
		})
	}
}

// TestRandomThreadsFsync: periodic fsync keeps counting with several
// threads (sysbench loses count there), and with --fsync-all every file
// is flushed each time.
func TestRandomThreadsFsync(t *testing.T) {
	fstest.Long(t, "measures for seconds")
	dir := t.TempDir()
	doc := randomJSON(t, dir, "--threads", "4", "--files", "16", "--total-size", "16M", "--bs", "4k", "--time", "1s", "--fsync-every", "20")
	checkRandom(t, "tmp", doc)
	for i, th := range doc.Random.Threads {
		if th.Requests == 0 {
			t.Errorf("thread %d did nothing", i)
		}
	}
	doc = randomJSON(t, dir, "--threads", "2", "--files", "4", "--total-size", "4M", "--bs", "4k", "--requests", "2000",
		"--fsync-every", "40", "--fsync-all", "--fsync-mode", "fdatasync")
	checkRandom(t, "tmp fsync-all", doc)
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestRandomOutputs(t *testing.T) {
	dir := t.TempDir()
	o := thruput(t, "disk", "random", dir, "--files", "2", "--total-size", "1M", "--bs", "4k", "--requests", "200")
	for _, want := range []string{"rndrw: 4k blocks, 2 files", "reads+writes", "Latency per request, ms", "p99.9", "Threads fairness"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, o.stdout)
		}
	}
	o = thruput(t, "disk", "random", dir, "--files", "2", "--total-size", "1M", "--bs", "4k", "--requests", "200", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(o.stdout), "\n"); o.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "path,fs_type,mode") {
		t.Errorf("csv: exit %d\n%s", o.code, o.stdout)
	}
}

func TestRandomBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--mode", "rndzz"}, `--mode "rndzz"`},
		{[]string{"--bs", "0"}, `"--bs" flag: invalid size`},
		{[]string{"--files", "0"}, "--files must be at least 1"},
		{[]string{"--total-size", "4k", "--files", "2"}, "too small for 2 files"},
		{[]string{"--rw-ratio", "0"}, "--rw-ratio must be positive"},
		{[]string{"--fsync-mode", "sometimes"}, `--fsync-mode "sometimes"`},
		{[]string{"--threads", "0"}, "--threads must be between"},
		{[]string{"--time", "0s"}, "needs a bound"},
		{[]string{"--total-size", "1000T"}, "not enough free space"},
		{[]string{"--direct", "--bs", "1000", "--total-size", "1M", "--files", "1"}, "not a multiple of"},
	} {
		dir := t.TempDir()
		o := thruput(t, append([]string{"disk", "random", dir}, c.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, o.code, o.stderr, c.msg)
		}
		if left := entries(t, dir); len(left) != 0 {
			t.Errorf("%v: left behind %v", c.args, left)
		}
	}
}
