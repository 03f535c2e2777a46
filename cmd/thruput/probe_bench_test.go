package main

import (
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
		for range runs {
			ours = append(ours, timed(thruputBin, "disk", "check", "--probe", c.Device, "-q", "--json"))
			// f3probe exits 101-104 for a fake or damaged card.
			theirs = append(theirs, timed("f3probe", c.Device))
		}
		mo, mt := median(ours), median(theirs)
		verdict := "PASS"
		if mo > mt {
			verdict = "FAIL"
		}
		t.Logf("%s fake, 1 GiB announced, 128 MiB real: thruput median %v (runs %v), f3probe median %v (runs %v), thruput/f3probe %.2f: %s (at most f3probe's time)",
			mode, mo.Round(time.Millisecond), rounded(ours), mt.Round(time.Millisecond), rounded(theirs), float64(mo)/float64(mt), verdict)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
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
