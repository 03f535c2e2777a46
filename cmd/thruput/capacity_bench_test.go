package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// f3Speed reads f3write's "Average writing speed: 309.18 MB/s" or
// f3read's reading one; f3's MB is 2^20 bytes (its adjust_unit divides
// by 1024).
var f3Speed = regexp.MustCompile(`Average (?:writing|reading) speed: ([0-9.]+) (Byte|KB|MB|GB)/s`)

func f3MiBPerSec(t *testing.T, out string) float64 {
	t.Helper()
	m := f3Speed.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no average speed in f3's output:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v * map[string]float64{"Byte": 1.0 / (1 << 20), "KB": 1.0 / 1024, "MB": 1, "GB": 1024}[m[2]]
}

// TestCapacityBench is bench/capacity's measurement, not a test: it runs
// only with BENCH_CAPACITY=1. On one ext4 on a direct-I/O loop device
// (1 GiB image on this machine's disk), thruput disk check
// --capacity and f3write then f3read fill and read back the same free
// space, alternating, BENCH_CAPACITY_RUNS times each (5), on both cores
// and pinned to one (taskset -c 1). Each tool's own write and read rates
// (f3's averages; thruput's bytes over the phase's time, syncs
// included) and each whole run's wall time are set side by side: medians
// and thruput/f3 ratios, with a PASS/FAIL line for issue 37's criterion
// (fill-verify at least 0.95x f3write/f3read's rates).
func TestCapacityBench(t *testing.T) {
	if os.Getenv("BENCH_CAPACITY") == "" {
		t.Skip("bench/capacity runs this measurement (BENCH_CAPACITY=1)")
	}
	runs := 5
	if s := os.Getenv("BENCH_CAPACITY_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	f3write, f3read := f3Tool(t, "f3write"), f3Tool(t, "f3read")
	// The loop device reads and writes its image with direct I/O, so
	// both tools' figures are the disk's, not the host's page cache's.
	image := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(image, nil, 0o600); err != nil || os.Truncate(image, 1<<30) != nil {
		t.Fatalf("image: %v", err)
	}
	fstest.MustExec(t, time.Minute, "mkfs.ext4", "-q", "-F", image)
	dev := fstest.AttachLoop(t, image, "--direct-io=on")
	mnt := fstest.MountPoint(t)
	fstest.MustExec(t, time.Minute, "mount", "-t", "ext4", dev, mnt)
	timed := func(name string, args []string) (string, time.Duration) {
		start := time.Now()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out), time.Since(start)
	}
	for _, pin := range [][]string{nil, {"taskset", "-c", "1"}} {
		cmd := func(args ...string) (string, []string) {
			all := append(slices.Clone(pin), args...)
			return all[0], all[1:]
		}
		var tw, tr, fw, fr, tt, ft []float64
		for range runs {
			out, took := timed(cmd(thruputBin, "disk", "check", "--capacity", mnt, "--json", "--no-health", "--no-save", "-q"))
			doc, err := result.Read(strings.NewReader(out))
			if err != nil || doc.Capacity == nil || doc.Capacity.Pass == nil || !*doc.Capacity.Pass {
				t.Fatalf("thruput: %v\n%s", err, out)
			}
			tw, tr, tt = append(tw, doc.Capacity.Write.MiBPerSec), append(tr, doc.Capacity.Read.MiBPerSec), append(tt, took.Seconds())

			wout, wtook := timed(cmd(f3write, mnt))
			rout, rtook := timed(cmd(f3read, mnt))
			if !strings.Contains(rout, "Data LOST: 0.00 Byte") {
				t.Fatalf("f3read lost data:\n%s", rout)
			}
			fw, fr, ft = append(fw, f3MiBPerSec(t, wout)), append(fr, f3MiBPerSec(t, rout)), append(ft, (wtook+rtook).Seconds())
			matches, _ := filepath.Glob(filepath.Join(mnt, "*.h2w"))
			for _, m := range matches {
				if err := os.Remove(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		where := "both cores"
		if pin != nil {
			where = "one core (taskset -c 1)"
		}
		fmt.Printf("%s, %d runs each, alternating, medians:\n", where, runs)
		fmt.Printf("  %-22s %10s %10s %8s\n", "", "thruput", "f3", "ratio")
		fmt.Printf("  %-22s %10.1f %10.1f %7.3fx\n", "write MiB/s", stats.Median(tw), stats.Median(fw), stats.Median(tw)/stats.Median(fw))
		fmt.Printf("  %-22s %10.1f %10.1f %7.3fx\n", "read MiB/s", stats.Median(tr), stats.Median(fr), stats.Median(tr)/stats.Median(fr))
		fmt.Printf("  %-22s %10.2f %10.2f %7.3fx\n", "whole run s (lower)", stats.Median(tt), stats.Median(ft), stats.Median(tt)/stats.Median(ft))
		fmt.Printf("  runs: thruput write %v read %v; f3 write %v read %v\n", whole(tw), whole(tr), whole(fw), whole(fr))
		v := map[bool]string{true: "PASS", false: "FAIL"}
		fmt.Printf("%s  %s: write %.3fx, read %.3fx f3's (>= 0.95x)\n", v[stats.Median(tw)/stats.Median(fw) >= 0.95 && stats.Median(tr)/stats.Median(fr) >= 0.95], where, stats.Median(tw)/stats.Median(fw), stats.Median(tr)/stats.Median(fr))
	}
}

func whole(x []float64) []string {
	var out []string
	for _, v := range x {
		out = append(out, strconv.FormatFloat(v, 'f', 0, 64))
	}
	return out
}
