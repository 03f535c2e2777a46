package main

import (
	"cmp"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fakecard"
	"github.com/thruput/thruput/internal/fstest"
)

// benchLatency is what each of the fake card's requests costs in
// bench/probe: a card takes about a millisecond or two for a small write
// and less for a read (an A1 card's 500 write IOPS are 2 ms each), so the
// count of requests, not the process's start, sets a probe's time, as on
// a card in a reader. Every request, read or write, costs it here.
const benchLatency = time.Millisecond

// TestProbeBench is bench/probe: thruput's probe against f3probe on the
// same 1 GiB fake keeping 128 MiB whose requests take benchLatency each,
// both kinds of fake, backed up and --destructive, runs alternating, each
// timed as a whole process (start to exit, restore included), medians,
// their ratio and the card's requests a run. Issue 37's criterion:
// thruput takes at most f3probe's time, each case PASS or FAIL.
func TestProbeBench(t *testing.T) {
	if os.Getenv("BENCH_PROBE") == "" {
		t.Skip("a benchmark: run bench/probe")
	}
	fstest.RequireRoot(t)
	const runs = 7
	for _, mode := range []fakecard.Mode{fakecard.ModeWrap, fakecard.ModeDrop} {
		c := fakecard.Start(t, fakecard.Options{Announced: 1 << 30, Real: 128 * mib, Mode: mode, Latency: benchLatency})
		fillDevice(t, c.Device, c.Real)
		// tally is one tool's runs of one case: times, and the card's
		// write and read requests over all of them.
		type tally struct {
			times         []time.Duration
			writes, reads int64
		}
		timed := func(to *tally, name string, args ...string) {
			w, r := c.Writes(), c.Reads()
			start := time.Now()
			// thruput exits 3 for a fake (exitVerdict), f3probe 101-104.
			out, err := exec.Command(name, args...).CombinedOutput()
			to.times = append(to.times, time.Since(start))
			if ee, ok := err.(*exec.ExitError); name == thruputBin && err != nil && (!ok || ee.ExitCode() != exitVerdict) {
				t.Fatalf("%s %v: %v\n%s", name, args, err, out)
			}
			to.writes += c.Writes() - w
			to.reads += c.Reads() - r
		}
		// Backed up: thruput syncs its backup file before it writes (it
		// survives SIGKILL and power loss), f3probe keeps its copy in
		// memory; --destructive on both sides compares the probing alone.
		cases := []struct {
			how          string
			flags        []string
			ours, theirs tally
		}{{how: "backed up"}, {how: "--destructive", flags: []string{"--destructive"}}}
		for i := range runs {
			for k := range cases {
				cs := &cases[k]
				ours := func() {
					timed(&cs.ours, thruputBin, append([]string{"disk", "check", "--probe", c.Device, "-q", "--json"}, cs.flags...)...)
				}
				theirs := func() { timed(&cs.theirs, "f3probe", append(slices.Clone(cs.flags), c.Device)...) }
				// Alternating which goes first, so that neither always
				// finds the card as the other left it.
				if i%2 == 0 {
					ours()
					theirs()
				} else {
					theirs()
					ours()
				}
			}
		}
		for _, cs := range cases {
			mo, mt := median(cs.ours.times), median(cs.theirs.times)
			verdict := "PASS"
			if mo > mt {
				verdict = "FAIL"
			}
			t.Logf("%s fake, 1 GiB announced, 128 MiB real, %v a request, %s: thruput median %v (runs %v), f3probe median %v (runs %v), thruput/f3probe %.2f: %s (at most f3probe's time); requests a run, write+read: thruput %d+%d, f3probe %d+%d",
				mode, benchLatency, cs.how, mo.Round(time.Millisecond), rounded(cs.ours.times), mt.Round(time.Millisecond), rounded(cs.theirs.times), float64(mo)/float64(mt), verdict,
				cs.ours.writes/runs, cs.ours.reads/runs, cs.theirs.writes/runs, cs.theirs.reads/runs)
		}
	}
}

// median is the median of xs (the upper one of an even count), for the
// benches' durations and figures alike.
func median[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func rounded(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, v := range d {
		out[i] = v.Round(time.Millisecond)
	}
	return out
}
