package main

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// TestStableBench is bench/stable's measurement, not a test: it runs only
// with BENCH_STABLE=1. On a loop-backed ext4 throttled to 20 MiB/s reads
// and 10 MiB/s writes (O_DIRECT), a sweep of 4 KiB..4 MiB runs with fixed
// 30 s steps and with --until-stable, and each figure and the total time
// are set side by side, with a PASS/FAIL line per criterion of issue 17.
func TestStableBench(t *testing.T) {
	if os.Getenv("BENCH_STABLE") == "" {
		t.Skip("bench/stable runs this measurement (BENCH_STABLE=1)")
	}
	step := 30 * time.Second
	if s := os.Getenv("BENCH_STABLE_STEP"); s != "" {
		step, _ = time.ParseDuration(s)
	}
	mnt := fstest.Mount(t, "ext4", 2<<30)
	th := fstest.NewThrottle(t, mnt)
	th.Set(t, 20*mib, 10*mib)
	sweep := func(extra ...string) (*result.Document, time.Duration) {
		doc, took, _ := throttled(t, th, append([]string{"disk", "sweep", mnt, "--direct", "--bs", "4k-4M", "--file-size", "1G", "--max-time", step.String()}, extra...)...)
		return doc, took
	}
	fixed, fixedTook := sweep()
	adaptive, adaptiveTook := sweep("--until-stable")
	worst := 0.0
	fmt.Printf("%-6s %-5s %12s %12s %8s %10s\n", "block", "phase", "fixed MiB/s", "stable MiB/s", "diff", "stable s")
	for i, f := range fixed.Sweep.Steps {
		a := adaptive.Sweep.Steps[i]
		d := a.MiBPerSec/f.MiBPerSec - 1
		worst = math.Max(worst, math.Abs(d))
		fmt.Printf("%-6d %-5s %12.2f %12.2f %+7.2f%% %10.1f\n", f.BlockSize, f.Phase, f.MiBPerSec, a.MiBPerSec, d*100, time.Duration(a.ElapsedNs).Seconds())
	}
	ratio := adaptiveTook.Seconds() / fixedTook.Seconds()
	v := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Printf("%s  --until-stable took %v, fixed %v steps %v: %.3fx (<= 0.25x)\n", v(ratio <= 0.25), adaptiveTook.Round(time.Second), step, fixedTook.Round(time.Second), ratio)
	fmt.Printf("%s  every figure within 2%% of the fixed run's (worst %.2f%%)\n", v(worst <= 0.02), worst*100)
}
