package main

import (
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

func ioJSON(t *testing.T, args ...string) *result.Document {
	t.Helper()
	o := thruput(t, append([]string{"disk", "io", "--json", "-q"}, args...)...)
	if o.code != 0 {
		t.Fatalf("thruput disk io %v: exit %d\n%s", args, o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.IO == nil {
		t.Fatalf("thruput disk io %v: %v\n%s", args, err, o.stdout)
	}
	return doc
}

// TestIOPatterns runs every --rw with both engines on ext4 and xfs: one
// pass over an 8 MiB file must be exactly 2048 requests of 4 KiB.
func TestIOPatterns(t *testing.T) {
	fstest.RequireRoot(t)
	for _, fs := range []string{"ext4", "xfs"} {
		t.Run(fs, func(t *testing.T) {
			dir := fstest.Mount(t, fs, 320<<20)
			for _, engine := range []string{"io_uring", "sync"} {
				for _, rw := range []string{"read", "write", "randread", "randwrite", "randrw"} {
					doc := ioJSON(t, dir, "--rw", rw, "--engine", engine, "--bs", "4k", "--iodepth", "8", "--size", "8M", "--mix", "70")
					name := fs + " " + engine + " " + rw
					if doc.IO.Engine != engine || len(doc.IO.Runs) != 1 {
						t.Fatalf("%s: engine %q, %d runs", name, doc.IO.Engine, len(doc.IO.Runs))
					}
					run := doc.IO.Runs[0]
					var ios int64
					for _, d := range []*result.IODirection{run.Read, run.Write} {
						if d == nil {
							continue
						}
						ios += d.IOs
						if d.Bytes != d.IOs*4096 || d.IOPS <= 0 || d.MiBPerSec <= 0 {
							t.Errorf("%s: %+v", name, d)
						}
						checkLatency(t, name, d.Latency, d.IOs)
					}
					if ios != 2048 {
						t.Errorf("%s: %d requests for one pass of 2048 blocks", name, ios)
					}
					wantRead := strings.Contains(rw, "read") || rw == "randrw"
					wantWrite := strings.Contains(rw, "write") || rw == "randrw"
					if (run.Read != nil) != wantRead || (run.Write != nil) != wantWrite {
						t.Errorf("%s: read %v write %v", name, run.Read != nil, run.Write != nil)
					}
					if rw == "randrw" {
						if share := float64(run.Read.IOs) / 2048; math.Abs(share-0.7) > 0.06 {
							t.Errorf("%s: %.2f reads, want 0.70", name, share)
						}
					}
				}
			}
			fstest.AssertNoScratch(t, dir)
		})
	}
}

// TestIOVerify writes verifiable blocks and reads them back; a byte
// flipped on disk in between must be caught and named.
func TestIOVerify(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", 64<<20)
	doc := ioJSON(t, dir, "--rw", "randwrite", "--verify", "--size", "4M", "--iodepth", "16")
	if v := doc.IO.Verify; v == nil || v.Blocks != 1024 || v.Errors != 0 {
		t.Fatalf("clean verify: %+v", v)
	}
	o := thruput(t, "disk", "io", dir, "--rw", "write", "--verify", "--size", "4M", "--corrupt-at", "10000", "--json", "-q")
	if o.code != 1 || !strings.Contains(o.stderr, "verify: 1 of 1024 blocks came back wrong; first at offset 8192") {
		t.Fatalf("corrupted verify: exit %d, stderr %q", o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Status != result.StatusPartial || doc.IO.Verify.Errors != 1 || doc.IO.Verify.Detail != "checksum mismatch" {
		t.Errorf("corrupted verify result: %v %+v", err, doc.IO.Verify)
	}
	// Every byte counts: the checksum field's neighbours, and the offset.
	for at, detail := range map[string]string{"8206": "checksum mismatch", "12290": "block says it belongs at offset"} {
		o := thruput(t, "disk", "io", dir, "--rw", "write", "--verify", "--size", "1M", "--corrupt-at", at)
		if o.code != 1 || !strings.Contains(o.stderr, detail) {
			t.Errorf("--corrupt-at %s: exit %d, stderr %q", at, o.code, o.stderr)
		}
	}
	fstest.AssertNoScratch(t, dir)
}

// TestIORepeatAndRamp checks the spread over repeats and that the ramp is
// left out of the measured span.
func TestIORepeatAndRamp(t *testing.T) {
	fstest.Long(t, "measures for seconds")
	dir := t.TempDir()
	doc := ioJSON(t, dir, "--rw", "randread", "--size", "4M", "--repeat", "3", "--iodepth", "4", "--direct=false")
	s := doc.IO.Summary
	if len(doc.IO.Runs) != 3 || s == nil || s.ReadIOPS.N != 3 || s.ReadIOPS.Min > s.ReadIOPS.Mean || s.ReadIOPS.Mean > s.ReadIOPS.Max || s.WriteIOPS != nil {
		t.Errorf("repeat 3: %d runs, summary %+v", len(doc.IO.Runs), s)
	}
	if doc.IO.Parameters.Direct {
		t.Error("--direct=false not recorded")
	}
	// The span is judged against the clock it ran by, not a fixed band a
	// loaded machine stretches: it ends no earlier than the runtime less
	// the slowest request (one in flight when the time was up), and it
	// leaves the ramp out, so it is at most the whole process's time less
	// the ramp.
	start := time.Now()
	doc = ioJSON(t, dir, "--rw", "randread", "--size", "4M", "--runtime", "600ms", "--ramp", "400ms", "--time-based", "--direct=false")
	wall := time.Since(start)
	run := doc.IO.Runs[0]
	if run.Read == nil || run.Read.Latency == nil {
		t.Fatalf("600 ms run: no read latency recorded: %+v", run)
	}
	el, slowest := time.Duration(run.ElapsedNs), time.Duration(run.Read.Latency.MaxNs)
	if low, high := 600*time.Millisecond-slowest, wall-400*time.Millisecond; el < low || el > high {
		t.Errorf("600 ms run after a 400 ms ramp measured %v, want %v to %v (the process took %v, the slowest request %v)", el, low, high, wall, slowest)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestMark(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", 64<<20)
	o := thruput(t, "disk", "mark", dir, "--size", "8M", "--duration", "150ms", "--json", "-q")
	doc, err := result.Read(strings.NewReader(o.stdout))
	if o.code != 0 || err != nil || len(doc.Mark.Results) != 8 {
		t.Fatalf("mark: exit %d, %v, %s", o.code, err, o.stderr)
	}
	for _, r := range doc.Mark.Results {
		if r.MBPerSec <= 0 || math.Abs(r.MBPerSec/r.MiBPerSec-1.048576) > 1e-6 || r.IOPS <= 0 {
			t.Errorf("%s %s: %+v", r.Preset, r.Phase, r)
		}
	}
	// MiB/s like every storage page, MB/s as CrystalDiskMark on request.
	for units, want := range map[string]string{"": "MiB/s, 8.0 MiB file", "mb": "MB/s, 8.0 MiB file"} {
		o = thruput(t, "disk", "mark", dir, "--size", "8M", "--duration", "100ms", "--units="+units)
		for _, want := range []string{want, "SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"} {
			if !strings.Contains(o.stdout, want) {
				t.Errorf("mark --units %q: table lacks %q:\n%s", units, want, o.stdout)
			}
		}
	}
	tmp := fstest.Tmpfs(t, 32<<20)
	o = thruput(t, "disk", "mark", tmp, "--size", "8M")
	if o.code != 2 || !strings.Contains(o.stderr, "--direct: "+tmp+" is tmpfs") {
		t.Errorf("mark on tmpfs: exit %d, %q", o.code, o.stderr)
	}
	fstest.AssertNoScratch(t, dir)
	fstest.AssertNoScratch(t, tmp)
}

func TestIOBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--iodepth", "0"}, "--iodepth 0: must be 1 to 1024"},
		{[]string{"--mix", "101", "--rw", "randrw"}, "--mix 101"},
		{[]string{"--rw", "trim"}, `--rw "trim"`},
		{[]string{"--bs", "1000", "--size", "1M"}, "--direct: --bs 1000 B is not a multiple of"},
		{[]string{"--size", "1000T"}, "not enough free space"},
		{[]string{"--time-based"}, "--time-based needs -t"},
		{[]string{"--engine", "libaio"}, `--engine "libaio"`},
		{[]string{"--verify"}, "--verify checks what a write job wrote"},
		{[]string{"--rw", "write", "--verify", "--runtime", "1s"}, "--verify needs every block written"},
		{[]string{"--corrupt-at", "5"}, "--corrupt-at only makes sense with --verify"},
		{[]string{"--rw", "write", "--verify", "--size", "1M", "--corrupt-at", "5000000"}, "--corrupt-at 5000000 is past the 1048576 bytes"},
		{[]string{"--repeat", "0"}, "--repeat 0"},
		{[]string{"--iodepth", "1024", "--bs", "16M"}, "keep it within 1 GiB"},
	} {
		dir := t.TempDir()
		o := thruput(t, append([]string{"disk", "io", dir}, c.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, o.code, o.stderr, c.msg)
		}
		if left := entries(t, dir); len(left) != 0 {
			t.Errorf("%v: left behind %v", c.args, left)
		}
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"--units", "gb"}, {"--size", "100k"}, {"--duration", "0s"}} {
		o := thruput(t, append([]string{"disk", "mark", dir}, args...)...)
		if o.code != 2 {
			t.Errorf("mark %v: exit %d, %q", args, o.code, o.stderr)
		}
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("mark: left behind %v", left)
	}
}

// TestCompressionRecorded: a btrfs mounted with compression says so in the
// result, since zeros would look fast on it.
func TestCompressionRecorded(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "btrfs", 0)
	if out, err := exec.Command("mount", "-o", "remount,compress=zstd", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount compress=zstd: %v %s", err, out)
	}
	doc := ioJSON(t, dir, "--rw", "write", "--size", "1M")
	if c := doc.Targets[0].Compression; !strings.HasPrefix(c, "compress=zstd") {
		t.Errorf("compression %q, mount options %q", c, doc.Targets[0].MountOptions)
	}
	o := thruput(t, "disk", "io", dir, "--rw", "write", "--size", "1M")
	if !strings.Contains(o.stdout, "compressed: compress=zstd") {
		t.Errorf("table does not show the compression:\n%s", o.stdout)
	}
}
