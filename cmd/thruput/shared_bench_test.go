package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/pgtest"
	"github.com/thruput/thruput/internal/result"
)

// TestSharedStoreBench is bench/shared's measurement, not a test: it runs
// only with BENCH_SHARED=1 and prints its figures and a PASS/FAIL line per
// criterion of issue 16. A throwaway PostgreSQL cluster is filled with
// clones of real runs (ids, times over a year, 20 hosts, labels), then
// results list and compare of two label queries are timed at 10,000 runs,
// and serve's first page and /metrics at 100,000, with serve's peak RSS.
func TestSharedStoreBench(t *testing.T) {
	if os.Getenv("BENCH_SHARED") == "" {
		t.Skip("bench/shared runs this measurement (BENCH_SHARED=1)")
	}
	reps := 7
	c := pgtest.New(t)
	pg := c.NewDatabase(t)
	dir := t.TempDir()
	seedDB := filepath.Join(dir, "seed.db")
	quickSweep(t, seedDB, t.TempDir(), "seed=1")
	if o := thruput(t, "disk", "random", t.TempDir(), "--db", seedDB, "-q", "-t", "1", "--size", "8M", "--files", "4"); o.code != 0 {
		t.Fatal(o.stderr)
	}
	o := thruput(t, "results", "export", "--db", seedDB)
	var seeds []*result.Document
	for _, l := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		d, err := result.Read(strings.NewReader(l))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, d)
	}
	fss := []string{"ext2", "ext3", "ext4", "xfs", "btrfs", "vfat", "ntfs", "exfat"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// clones writes runs [from, to) as JSON lines.
	clones := func(from, to int) string {
		path := filepath.Join(dir, fmt.Sprintf("runs-%d.jsonl", from))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := from; i < to; i++ {
			d := *seeds[i%len(seeds)]
			at := t0.Add(time.Duration(i) * 5 * time.Minute)
			d.ID = fmt.Sprintf("%s-%06x", at.Format("20060102T150405Z"), i)
			d.StartedAt, d.EndedAt = at, at.Add(time.Minute)
			d.Host.Hostname = fmt.Sprintf("pi%d", i%20)
			d.Labels = map[string]string{"fs": fss[i%len(fss)], "device": fmt.Sprintf("card%d", i/8%125), "channel": strconv.Itoa(1 + i%11)}
			js, _ := json.Marshal(&d)
			w.Write(append(js, '\n'))
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	load := func(from, to int) {
		start := time.Now()
		if o := thruput(t, "results", "import", "--db", pg, clones(from, to)); o.code != 0 {
			t.Fatalf("import: %s", o.stderr)
		}
		fmt.Printf("imported runs %d..%d into PostgreSQL in %v\n", from, to, time.Since(start).Round(time.Millisecond))
	}
	median := func(f func() time.Duration) (time.Duration, time.Duration) {
		var ds []time.Duration
		for range reps {
			ds = append(ds, f())
		}
		slices.Sort(ds)
		return ds[len(ds)/2], ds[len(ds)-1]
	}
	verdict := func(ok bool, format string, args ...any) {
		v := "PASS"
		if !ok {
			v = "FAIL"
		}
		fmt.Printf(v+"  "+format+"\n", args...)
	}
	command := func(name string, args ...string) {
		med, worst := median(func() time.Duration {
			start := time.Now()
			if o := thruput(t, append(args, "--db", pg)...); o.code != 0 {
				t.Fatalf("%s: %s", name, o.stderr)
			}
			return time.Since(start)
		})
		verdict(med < 200*time.Millisecond, "%-32s median %v (max %v) at 10,000 runs (< 200 ms)", name, med.Round(100*time.Microsecond), worst.Round(100*time.Microsecond))
	}

	load(0, 10000)
	command("results list", "results", "list")
	command("results compare of 2 label queries", "compare", "fs=ext4,device=card3", "fs=btrfs,device=card5", "--method", "disk.sweep")

	load(10000, 100000)
	cmd := exec.Command(thruputBin, "serve", "--db", pg, "--listen", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	line, _ := bufio.NewReader(stderr).ReadString('\n')
	_, u, _ := strings.Cut(strings.TrimSpace(line), " on ")
	fetch := func(path string) time.Duration {
		start := time.Now()
		resp, err := http.Get(strings.TrimSuffix(u, "/") + path)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		buf := make([]byte, 64<<10)
		for {
			k, err := resp.Body.Read(buf)
			n += int64(k)
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || n == 0 {
			t.Fatalf("GET %s: %d, %d bytes", path, resp.StatusCode, n)
		}
		return time.Since(start)
	}
	for _, p := range []string{"/", "/metrics"} {
		first := fetch(p)
		med, worst := median(func() time.Duration { return fetch(p) })
		verdict(med < 300*time.Millisecond && first < 300*time.Millisecond, "serve GET %-10s first %v, median %v (max %v) at 100,000 runs (< 300 ms)", p, first.Round(100*time.Microsecond), med.Round(100*time.Microsecond), worst.Round(100*time.Microsecond))
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	var hwm int
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwm, _ = strconv.Atoi(strings.Fields(v)[0])
		}
	}
	verdict(hwm > 0 && hwm < 64<<10, "serve peak RSS %.1f MiB (< 64 MiB)", float64(hwm)/1024)
}
