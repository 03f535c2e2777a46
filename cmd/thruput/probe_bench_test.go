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

// TestProbeBench is bench/probe: thruput's probe against f3probe on the
// same 1 GiB fake keeping 128 MiB, both modes, runs alternating, each
// timed as a whole process (start to exit, restore included), medians
// and their ratio. Issue 37's criterion: thruput takes at most f3probe's
// time.
func TestProbeBench(t *testing.T) {
	if os.Getenv("BENCH_PROBE") == "" {
		t.Skip("a benchmark: run bench/probe")
	}
	fstest.RequireRoot(t)
	const runs = 7
	for _, mode := range []fakecard.Mode{fakecard.ModeWrap, fakecard.ModeDrop} {
		c := fakecard.Start(t, fakecard.Options{Announced: 1 << 30, Real: 128 * mib, Mode: mode})
		fillDevice(t, c.Device, c.Real)
		var ours, theirs []time.Duration
		timed := func(name string, args ...string) time.Duration {
			start := time.Now()
			// thruput exits 3 for a fake (exitVerdict), as f3probe exits 101-104.
			out, err := exec.Command(name, args...).CombinedOutput()
			if ee, ok := err.(*exec.ExitError); name == thruputBin && err != nil && (!ok || ee.ExitCode() != exitVerdict) {
				t.Fatalf("%s %v: %v\n%s", name, args, err, out)
			}
			return time.Since(start)
		}
		// Also both without a backup: thruput's default syncs its backup
		// file before it writes (it survives SIGKILL and power loss),
		// f3probe keeps its copy in memory, so --destructive on both sides
		// compares the probing alone.
		var oursD, theirsD []time.Duration
		// The card's write requests (FUSE's, of up to 128 KiB) per run:
		// on a real card, whose writes take milliseconds, they set the
		// time, not the process's start.
		var wOurs, wTheirs int64
		for range runs {
			ours = append(ours, timed(thruputBin, "disk", "check", "--probe", c.Device, "-q", "--json"))
			// f3probe exits 101-104 for a fake or damaged card.
			theirs = append(theirs, timed("f3probe", c.Device))
			w := c.Writes()
			oursD = append(oursD, timed(thruputBin, "disk", "check", "--probe", c.Device, "--destructive", "-q", "--json"))
			wOurs += c.Writes() - w
			w = c.Writes()
			theirsD = append(theirsD, timed("f3probe", "--destructive", c.Device))
			wTheirs += c.Writes() - w
		}
		t.Logf("%s fake, --destructive: the card took %d write requests a run from thruput, %d from f3probe", mode, wOurs/runs, wTheirs/runs)
		for _, r := range []struct {
			how          string
			ours, theirs []time.Duration
		}{{"backed up", ours, theirs}, {"--destructive", oursD, theirsD}} {
			mo, mt := median(r.ours), median(r.theirs)
			verdict := "PASS"
			if mo > mt {
				verdict = "FAIL"
			}
			t.Logf("%s fake, 1 GiB announced, 128 MiB real, %s: thruput median %v (runs %v), f3probe median %v (runs %v), thruput/f3probe %.2f: %s (at most f3probe's time)",
				mode, r.how, mo.Round(time.Millisecond), rounded(r.ours), mt.Round(time.Millisecond), rounded(r.theirs), float64(mo)/float64(mt), verdict)
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
