package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// cost is what one process took: CPU seconds (user+sys) and peak RSS.
type cost struct {
	cpu    float64
	rssKiB int64
}

func (c cost) add(o cost) cost { return cost{c.cpu + o.cpu, max(c.rssKiB, o.rssKiB)} }

// side is one tool's run of a case: its figure (MiB/s or IOPS), the bytes
// its timed phase moved, and what its processes cost.
type side struct {
	figure float64
	bytes  int64
	cost   cost
}

// oneCore runs name with args in the throttle's cgroup, pinned to CPU 1,
// and returns its standard output and error and its cost. The CPU time
// is the kernel's rusage of the whole chain as reaped, to the
// microsecond (GNU time prints hundredths; the shell and taskset before
// the exec and GNU time around the tool add about a millisecond to both
// sides). The peak RSS is GNU time's %M: the tool's own, as a process
// forked from a small one (the rusage of the chain would carry this test
// binary's, inherited through the fork and exec).
func oneCore(t *testing.T, th *fstest.Throttle, name string, args ...string) (string, string, cost) {
	t.Helper()
	tf := filepath.Join(t.TempDir(), "time")
	cmd := th.Command("taskset", append([]string{"-c", "1", "/usr/bin/time", "-o", tf, "-f", "%M", name}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && !(name == thruputBin && cmd.ProcessState.ExitCode() == exitVerdict) {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, stdout.String(), stderr.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	b, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	// GNU time puts "Command exited with non-zero status N" first when it did.
	lines := strings.Fields(string(b))
	rss, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("GNU time's %q: %v", b, err)
	}
	return stdout.String(), stderr.String(), cost{cpu.Seconds(), rss}
}

// thruputDoc runs thruput on one core in the throttle and reads its result.
func thruputDoc(t *testing.T, th *fstest.Throttle, args ...string) (*result.Document, cost) {
	t.Helper()
	out, _, c := oneCore(t, th, thruputBin, append(args, "--json", "-q", "--no-save", "--no-health")...)
	doc, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return doc, c
}

var (
	ddCopied      = regexp.MustCompile(`(\d+) bytes .* copied, ([0-9.]+) s`)
	sysbenchTotal = regexp.MustCompile(`total number of events:\s+(\d+)`)
)

// dd runs dd on one core and returns its bytes per its own clock.
func dd(t *testing.T, th *fstest.Throttle, args ...string) side {
	t.Helper()
	_, b, c := oneCore(t, th, "dd", args...)
	m := ddCopied.FindStringSubmatch(b)
	if m == nil {
		t.Fatalf("dd %v: no 'copied' line:\n%s", args, b)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	s, _ := strconv.ParseFloat(m[2], 64)
	return side{figure: float64(n) / mib / s, bytes: n, cost: c}
}

// diskCase is one row of TestDiskOneCoreBench: thruput and its peer on
// the same work; group is the bench script that selects it; served is
// the throttle's counter of the timed phase's direction, in unit.
type diskCase struct {
	name, unit, peer, group string
	thruput, other          func() side
	served                  func(servedSample) int64
}

// lastSpan is the index of the last sample at least d before the last
// one at which the counter moved.
func lastSpan(samples []servedSample, bytes func(servedSample) int64, d time.Duration) int {
	last := len(samples) - 1
	for last > 0 && bytes(samples[last-1]) == bytes(samples[last]) {
		last--
	}
	from := last
	for from > 0 && samples[last].at.Sub(samples[from].at) < d {
		from--
	}
	return from
}

// servedOf is the counter of the throttle that a case's timed phase moves:
// bytes for a rate in MiB/s, requests for IOPS, read or written.
func servedOf(unit, dir string) func(servedSample) int64 {
	return map[string]func(servedSample) int64{
		"MiB/s read": func(s servedSample) int64 { return s.read }, "MiB/s write": func(s servedSample) int64 { return s.write },
		"IOPS read": func(s servedSample) int64 { return s.readIOs }, "IOPS write": func(s servedSample) int64 { return s.writeIOs },
	}[unit+" "+dir]
}

// TestDiskOneCoreBench is bench/sweep, bench/random and bench/io's
// BENCH_ONECORE=1 mode (issue 36), a measurement, not a test: on a
// loop-backed ext4 throttled like an SD card (20 MiB/s and 1,500
// requests/s each way, O_DIRECT so the throttle applies), thruput and
// its peer (dd, sysbench fileio, fio) take turns, both pinned to CPU 1
// in the same cgroup: each side's rate, its CPU seconds per GB moved
// (user+sys of its processes, preparation included on both sides) and
// peak RSS, medians of BENCH_REPS runs (3) of BENCH_TIME seconds (30).
func TestDiskOneCoreBench(t *testing.T) {
	want := strings.Fields(os.Getenv("BENCH_ONECORE_DISK"))
	if len(want) == 0 {
		t.Skip("bench/sweep, bench/random and bench/io run this with BENCH_ONECORE=1 (BENCH_ONECORE_DISK names their cases: sweep, random, io)")
	}
	secs, reps := 30, 3
	if s := os.Getenv("BENCH_TIME"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("BENCH_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	if secs < 1 || reps < 1 {
		t.Fatalf("BENCH_TIME %q and BENCH_REPS %q must be whole numbers from 1", os.Getenv("BENCH_TIME"), os.Getenv("BENCH_REPS"))
	}
	const rate, iops = 20 * mib, 1500
	mnt := fstest.Mount(t, "ext4", 2<<30)
	th := fstest.NewThrottle(t, mnt)
	th.Set(t, rate, rate)
	th.SetIOPS(t, iops, iops)
	dur := strconv.Itoa(secs) + "s"
	// A sweep step moves what the throttle passes in secs; the random
	// cases' file set is small beside what they move.
	sweepMiB := int64(rate / mib * secs)
	const setSize = "64M"

	var cases []diskCase
	// thruput --read-only lays out its file untimed, inside the process;
	// dd's file for the read is laid out by a dd in the same cgroup and
	// its cost added, so both sides pay for a layout.
	for _, phase := range []string{"write", "read"} {
		cases = append(cases, diskCase{"sweep " + phase + " 1M", "MiB/s", "dd", "sweep",
			func() side {
				doc, c := thruputDoc(t, th, "disk", "sweep", mnt, "--direct", "--"+phase+"-only", "--bs", "1M", "--data", "zero",
					"--file-size", fmt.Sprintf("%dM", sweepMiB), "--max-time", "1h")
				st := doc.Sweep.Steps[0]
				return side{st.MiBPerSec, st.Bytes, c}
			},
			func() side {
				f := filepath.Join(mnt, "dd.dat")
				s := dd(t, th, "if=/dev/zero", "of="+f, "bs=1M", fmt.Sprintf("count=%d", sweepMiB), "oflag=direct", "conv=fsync")
				if phase == "read" {
					r := dd(t, th, "if="+f, "of=/dev/null", "bs=1M", "iflag=direct")
					r.cost = r.cost.add(s.cost)
					s = r
				}
				fstest.MustExec(t, time.Minute, "rm", f)
				return s
			}, servedOf("MiB/s", phase)})
	}
	for _, mode := range []string{"rndrd", "rndwr"} {
		dir := map[string]string{"rndrd": "reads", "rndwr": "writes"}[mode]
		cases = append(cases, diskCase{"random " + mode + " 4k", "IOPS", "sysbench", "random",
			func() side {
				doc, c := thruputDoc(t, th, "disk", "random", mnt, "--mode", mode, "--bs", "4k", "--direct", "--files", "16",
					"--size", setSize, "--fsync-every", "0", "--fsync-end=false", "-t", dur)
				r := doc.Random
				return side{r.RequestsPerSec, r.ReadBytes + r.WrittenBytes, c}
			},
			func() side {
				sb := func(verb string) (string, cost) {
					out, _, c := oneCore(t, th, "/bin/sh", "-c", `cd "$0" && exec sysbench fileio "$@"`, mnt, "--file-num=16", "--file-total-size="+setSize,
						"--file-test-mode="+mode, "--file-block-size=4096", "--file-extra-flags=direct", "--file-fsync-freq=0",
						"--file-fsync-end=off", "--time="+strconv.Itoa(secs), verb)
					return out, c
				}
				_, prep := sb("prepare")
				out, c := sb("run")
				sb("cleanup")
				m, n := regexp.MustCompile(dir+`/s:\s+([0-9.]+)`).FindStringSubmatch(out), sysbenchTotal.FindStringSubmatch(out)
				if m == nil || n == nil {
					t.Fatalf("sysbench: no %s/s or event count:\n%s", dir, out)
				}
				v, _ := strconv.ParseFloat(m[1], 64)
				events, _ := strconv.ParseInt(n[1], 10, 64)
				return side{v, events * 4096, c.add(prep)}
			}, servedOf("IOPS", map[string]string{"rndrd": "read", "rndwr": "write"}[mode])})
	}
	for _, rw := range []string{"randread", "randwrite"} {
		cases = append(cases, diskCase{"io " + rw + " 4k QD32", "IOPS", "fio", "io",
			func() side {
				doc, c := thruputDoc(t, th, "disk", "io", mnt, "--rw", rw, "--bs", "4k", "--iodepth", "32", "--engine", "io_uring",
					"--size", setSize, "-t", dur, "--time-based")
				r := doc.IO.Runs[0].Read
				if rw == "randwrite" {
					r = doc.IO.Runs[0].Write
				}
				return side{r.IOPS, r.Bytes, c}
			},
			// fio lays out its file in the same process, as thruput does.
			func() side {
				f := filepath.Join(mnt, "fio.dat")
				out, _, c := oneCore(t, th, "fio", "--name=t", "--filename="+f, "--size="+setSize, "--rw="+rw, "--bs=4k", "--iodepth=32",
					"--ioengine=io_uring", "--direct=1", "--time_based", "--runtime="+strconv.Itoa(secs), "--output-format=json")
				fstest.MustExec(t, time.Minute, "rm", f)
				var j struct {
					Jobs []map[string]json.RawMessage `json:"jobs"`
				}
				var d struct {
					IOPS  float64 `json:"iops"`
					Bytes int64   `json:"io_bytes"`
				}
				err := json.Unmarshal([]byte(out), &j)
				if err == nil && len(j.Jobs) == 1 {
					err = json.Unmarshal(j.Jobs[0][map[string]string{"randread": "read", "randwrite": "write"}[rw]], &d)
				}
				if err != nil || d.Bytes == 0 {
					t.Fatalf("fio: %v\n%s", err, out)
				}
				return side{d.IOPS, d.Bytes, c}
			}, servedOf("IOPS", map[string]string{"randread": "read", "randwrite": "write"}[rw])})
	}
	spread := func(x []float64) float64 { return (slices.Max(x) - slices.Min(x)) / stats.Median(x) * 100 }
	fmt.Printf("one core (taskset -c 1), ext4 on a loop device throttled to 20 MiB/s and %d IOPS each way (cgroup v1 blkio, O_DIRECT), %d s runs, median of %d, alternating\n", iops, secs, reps)
	fmt.Printf("%-20s %-8s %6s %10s %10s %7s %12s %12s %7s %9s %9s\n", "case", "peer", "unit", "thruput", "peer", "ratio", "thr CPU s/GB", "peer CPU s/GB", "ratio", "thr RSS", "peer RSS")
	for _, c := range cases {
		if !slices.Contains(want, c.group) {
			continue
		}
		var fig, cpu, rss, thr [2][]float64
		for rep := range reps {
			order := []int{0, 1}
			if rep%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				stop := sampleServed(t, th, nil)
				s := []func() side{c.thruput, c.other}[i]()
				// What the throttle let through in the timed phase's
				// direction over most of its last secs (a layout before
				// it moves the same counter), the middle of what its
				// 20 ms samples resolve.
				samples := stop()
				lo, hi, _, _ := servedRate(samples, lastSpan(samples, c.served, time.Duration(secs)*time.Second*9/10), c.served)
				let := (lo + hi) / 2 / map[string]float64{"MiB/s": mib, "IOPS": 1}[c.unit]
				thr[i] = append(thr[i], let)
				fig[i] = append(fig[i], s.figure)
				cpu[i] = append(cpu[i], s.cost.cpu/(float64(s.bytes)/1e9))
				rss[i] = append(rss[i], float64(s.cost.rssKiB)/1024)
				fmt.Fprintf(os.Stderr, "%s rep %d %s: %.1f %s (the throttle let through %.1f), %.3f CPU s for %d bytes, %d KiB RSS\n", c.name, rep+1, []string{"thruput", c.peer}[i], s.figure, c.unit, let, s.cost.cpu, s.bytes, s.cost.rssKiB)
			}
		}
		fmt.Printf("%-20s %-8s %6s %10.1f %10.1f %6.3fx %12.2f %12.2f %6.2fx %6.1f MiB %6.1f MiB\n", c.name, c.peer, c.unit,
			stats.Median(fig[0]), stats.Median(fig[1]), stats.Median(fig[0])/stats.Median(fig[1]), stats.Median(cpu[0]), stats.Median(cpu[1]), stats.Median(cpu[0])/stats.Median(cpu[1]), slices.Max(rss[0]), slices.Max(rss[1]))
		fmt.Printf("%-20s spread (max-min)/median: figure %.1f %% / %.1f %%, CPU %.1f %% / %.1f %%\n", "", spread(fig[0]), spread(fig[1]), spread(cpu[0]), spread(cpu[1]))
		fmt.Printf("%-20s the throttle let through (its own counters): %.1f / %.1f %s, each side's figure %.3fx / %.3fx of it\n", "", stats.Median(thr[0]), stats.Median(thr[1]), c.unit, stats.Median(fig[0])/stats.Median(thr[0]), stats.Median(fig[1])/stats.Median(thr[1]))
		limit := map[string]float64{"MiB/s": rate / mib, "IOPS": iops}[c.unit]
		v := map[bool]string{true: "PASS", false: "FAIL"}
		fmt.Printf("%s  %s: thruput within 1 %% of the throttle (%.3fx) at no more CPU than %s (%.2fx)\n", v[math.Abs(stats.Median(fig[0])/limit-1) <= 0.01 && stats.Median(cpu[0]) <= stats.Median(cpu[1])], c.name, stats.Median(fig[0])/limit, c.peer, stats.Median(cpu[0])/stats.Median(cpu[1]))
	}
}
