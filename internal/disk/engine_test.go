package disk

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// target is a fresh directory on the machine's disk (ext4 here, not tmpfs:
// t.TempDir is under /tmp), described as the commands describe theirs.
func target(t *testing.T) result.Target {
	t.Helper()
	tg, err := Target(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// noScratchLeft fails when a run left its scratch directory in dir.
func noScratchLeft(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left in the target", e.Name())
	}
}

// Any n consecutive draws of a permutation visit every block exactly once,
// whatever the block count (a power of two or not, one block, two) and
// wherever the walk starts; the order is scattered, not sequential.
func TestPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 1000, 4096, 4097, 65537} {
		p := newPermutation(n)
		for pass := range 3 {
			seen := make([]bool, n)
			for range n {
				b := p.next()
				if b < 0 || uint64(b) >= n {
					t.Fatalf("n=%d: block %d out of range", n, b)
				}
				if seen[b] {
					t.Fatalf("n=%d pass %d: block %d visited twice", n, pass, b)
				}
				seen[b] = true
			}
		}
	}
	p := newPermutation(4096)
	prev, runs := p.next(), 0
	for range 4095 {
		b := p.next()
		if b == prev+1 {
			runs++
		}
		prev = b
	}
	// A scattered order puts a block right after its predecessor about
	// once in 4096 draws; a sequential one every time.
	if runs > 40 {
		t.Errorf("%d of 4095 steps went to the next block: not scattered", runs)
	}
}

// A stamped block carries its offset and a CRC32C of everything after the
// checksum: the verify pass reads both back.
func TestStamp(t *testing.T) {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i * 7)
	}
	stamp(b, 1<<20)
	if got := binary.LittleEndian.Uint64(b[0:8]); got != 1<<20 {
		t.Errorf("offset %d, want %d", got, 1<<20)
	}
	sum := binary.LittleEndian.Uint32(b[8:12])
	b[4000] ^= 1
	stamp(b, 1<<20)
	if binary.LittleEndian.Uint32(b[8:12]) == sum {
		t.Error("a changed byte past the header left the checksum as it was")
	}
}

// ioConfig is a small buffered job of 4 KiB blocks on a 1 MiB file.
func ioConfig(rw, engine string) IOConfig {
	return IOConfig{IOParameters: result.IOParameters{RW: rw, BlockSize: 4 << 10, IODepth: 4, Jobs: 1, Size: 1 << 20,
		Engine: engine, Repeat: 1}, Corrupt: -1}
}

// Every block written with --verify comes back as written; a byte flipped
// on disk between writing and reading is caught, in the block it was in,
// whether it hit the block's data (checksum) or its header (offset).
func TestVerifyStamps(t *testing.T) {
	for _, engine := range []string{EngineSync, EngineUring} {
		tg := target(t)
		c := ioConfig("randwrite", engine)
		c.Verify = true
		var out result.IO
		if err := IO(context.Background(), c, tg, "20260101T000000Z-abcdef", &out, progress.Hooks{}); err != nil {
			t.Fatalf("%s: clean run: %v", engine, err)
		}
		if v := out.Verify; v == nil || v.Blocks != 256 || v.Errors != 0 {
			t.Fatalf("%s: clean run verified %+v, want 256 blocks and no error", engine, v)
		}
		noScratchLeft(t, tg.Path)

		for _, bad := range []struct {
			at, block int64
			detail    string
		}{
			{10000, 8192, "checksum mismatch"},
			{4096 + 1, 4096, "block says it belongs at offset"},
		} {
			c.Corrupt = bad.at
			out = result.IO{}
			err := IO(context.Background(), c, tg, "20260101T000000Z-abcdef", &out, progress.Hooks{})
			if err == nil || !strings.Contains(err.Error(), "verify: 1 of 256 blocks came back wrong") {
				t.Fatalf("%s: byte %d flipped: error %v", engine, bad.at, err)
			}
			v := out.Verify
			if v.Errors != 1 || v.FirstBadOffset == nil || *v.FirstBadOffset != bad.block || v.FirstBadJob != 0 || !strings.HasPrefix(v.Detail, bad.detail) {
				t.Errorf("%s: byte %d flipped: %+v (offset %v), want block %d, %q", engine, bad.at, v, v.FirstBadOffset, bad.block, bad.detail)
			}
			noScratchLeft(t, tg.Path)
		}
	}
}

// summarize gives each figure's spread over the runs that have it, and
// nothing for a single run.
func TestSummarize(t *testing.T) {
	run := func(iops, mib float64) result.IORun {
		return result.IORun{ElapsedNs: 1e9, Read: &result.IODirection{IOPS: iops, MiBPerSec: mib}}
	}
	if s := summarize([]result.IORun{run(100, 1)}); s != nil {
		t.Errorf("one run summarised: %+v", s)
	}
	s := summarize([]result.IORun{run(100, 1), run(200, 2), run(300, 6)})
	if s == nil || s.ReadIOPS == nil || s.ReadMiBPerSec == nil {
		t.Fatalf("three runs: %+v", s)
	}
	if got := *s.ReadIOPS; got != (result.Spread{N: 3, Mean: 200, Stddev: 100, Min: 100, Max: 300}) {
		t.Errorf("IOPS spread %+v", got)
	}
	if got := *s.ReadMiBPerSec; got.Mean != 3 || got.Min != 1 || got.Max != 6 {
		t.Errorf("MiB/s spread %+v", got)
	}
	if s.WriteIOPS != nil || s.WriteMiBPerSec != nil {
		t.Errorf("a read job has a write spread: %+v %+v", s.WriteIOPS, s.WriteMiBPerSec)
	}

	// A real job repeated three times: the summary is the spread of the
	// runs it recorded, and progress came through the hooks.
	tg := target(t)
	c := ioConfig("randread", EngineSync)
	c.Repeat = 3
	var out result.IO
	var reports atomic.Int64
	h := progress.Hooks{Progress: func(progress.Report) { reports.Add(1) }}
	if err := IO(context.Background(), c, tg, "20260101T000000Z-abcdef", &out, h); err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 3 || out.Summary == nil || out.Summary.ReadIOPS == nil {
		t.Fatalf("%d runs, summary %+v", len(out.Runs), out.Summary)
	}
	var sum float64
	for _, r := range out.Runs {
		if r.Read == nil || r.Read.IOs != 256 || r.Write != nil {
			t.Fatalf("run %+v: want 256 reads and no write", r)
		}
		sum += r.Read.IOPS
	}
	if got := out.Summary.ReadIOPS; got.N != 3 || got.Mean != sum/3 {
		t.Errorf("IOPS summary %+v, runs' mean %v", got, sum/3)
	}
	if out.Parameters != c.IOParameters {
		t.Errorf("recorded parameters %+v, want the config's %+v", out.Parameters, c.IOParameters)
	}
	if reports.Load() == 0 {
		t.Error("no progress reported (the file's lay-out reports every MiB)")
	}
	noScratchLeft(t, tg.Path)
}

// The sync engine is taken as asked; io_uring is taken where the kernel
// sets up a ring, and where a ring cannot be had the run falls back to the
// sync engine and says why. Either way the run records the engine that
// ran beside the one asked for.
func TestEngineChoice(t *testing.T) {
	if e, note := pickEngine(EngineSync, 32); e != EngineSync || note != "" {
		t.Errorf("sync asked: %q, note %q", e, note)
	}
	// More entries than a ring takes: refused before the kernel is asked,
	// which is the path a kernel's refusal takes too.
	if e, note := pickEngine(EngineUring, 1<<20); e != EngineSync || !strings.Contains(note, "io_uring not available") {
		t.Errorf("a ring that cannot be had: %q, note %q", e, note)
	}
	want, wantNote := pickEngine(EngineUring, 4)
	if want == EngineSync && !strings.Contains(wantNote, "io_uring not available") {
		t.Errorf("fell back without saying why: %q", wantNote)
	}
	for _, asked := range []string{EngineUring, EngineSync} {
		tg := target(t)
		var out result.IO
		if err := IO(context.Background(), ioConfig("read", asked), tg, "20260101T000000Z-abcdef", &out, progress.Hooks{}); err != nil {
			t.Fatalf("%s: %v", asked, err)
		}
		ran, note := want, wantNote
		if asked == EngineSync {
			ran, note = EngineSync, ""
		}
		if out.Parameters.Engine != asked || out.Engine != ran || out.EngineNote != note {
			t.Errorf("%s asked: recorded %q, ran %q (%q), want %q (%q)", asked, out.Parameters.Engine, out.Engine, out.EngineNote, ran, note)
		}
		if len(out.Runs) != 1 || out.Runs[0].Read == nil || out.Runs[0].Read.IOs != 256 {
			t.Errorf("%s: runs %+v, want one of 256 reads", asked, out.Runs)
		}
	}
}

// A sweep fills its section in place, a write and a read step per block
// size in order, and tells its progress and its notes through the hooks.
func TestSweepFillsInPlace(t *testing.T) {
	tg := target(t)
	// A stale scratch directory of a killed run, for the sweep's note.
	stale := tg.Path + "/" + ScratchPrefix + "20200101T000000Z-000000"
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale+"/"+ownerFile, []byte(`{"hostname":"`+hostname(t)+`","boot_id":"gone","pid":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := SweepConfig{SweepParameters: result.SweepParameters{BlockSizes: []int64{4 << 10, 64 << 10}, FileSize: 1 << 20,
		MaxTimeNs: 10e9, Write: true, Read: true, Data: "random"}}
	var out result.Sweep
	var notes []string
	var last progress.Report
	h := progress.Hooks{Progress: func(r progress.Report) { last = r }, Note: func(s string) { notes = append(notes, s) }}
	if err := Sweep(context.Background(), c, []result.Target{tg}, "20260101T000000Z-abcdef", &out, h); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Parameters, c.SweepParameters) {
		t.Errorf("recorded %+v, want the config's %+v", out.Parameters, c.SweepParameters)
	}
	want := []struct {
		phase string
		bs    int64
	}{{"write", 4 << 10}, {"read", 4 << 10}, {"write", 64 << 10}, {"read", 64 << 10}}
	if len(out.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(out.Steps), len(want))
	}
	for i, w := range want {
		s := out.Steps[i]
		if s.Phase != w.phase || s.BlockSize != w.bs || s.Bytes != 1<<20 || s.Ops != (1<<20)/w.bs || s.MiBPerSec <= 0 {
			t.Errorf("step %d: %+v, want %s at %d moving 1 MiB", i, s, w.phase, w.bs)
		}
	}
	if last.Target != tg.Label() || last.BlockSize != 64<<10 || last.Total != 1<<20 {
		t.Errorf("last progress %+v", last)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "removed "+stale) {
		t.Errorf("notes %q, want the stale directory's removal", notes)
	}
	noScratchLeft(t, tg.Path)
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A random run fills its section in place: the requests asked for, split
// over the threads, each thread's share summarised in its fairness, and
// every request in the latency histogram's count.
func TestRandomFillsInPlace(t *testing.T) {
	tg := target(t)
	c := RandomConfig{RandomParameters: result.RandomParameters{Files: 4, TotalSize: 1 << 20, Mode: "rndrw", RWRatio: 1.5,
		BlockSize: 4 << 10, FsyncEvery: 10, FsyncEnd: true, FsyncMode: "fsync", Threads: 2, Requests: 500}}
	var out result.Random
	if err := Random(context.Background(), c, tg, "20260101T000000Z-abcdef", &out, progress.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if out.Reads+out.Writes != 500 || out.Reads == 0 || out.Writes == 0 || out.EndFsyncs != 4 {
		t.Errorf("%d reads, %d writes, %d final fsyncs; want 500 requests of both kinds and one fsync a file", out.Reads, out.Writes, out.EndFsyncs)
	}
	if p := out.Parameters; p.FileSize != 256<<10 || p.TotalSize != 1<<20 || !p.CacheDropped || p.Mode != "rndrw" {
		t.Errorf("recorded parameters %+v", p)
	}
	var requests int64
	for _, th := range out.Threads {
		requests += th.Requests
	}
	f := out.Fairness.Requests
	if len(out.Threads) != 2 || requests != out.Reads+out.Writes+out.Fsyncs || f.N != 2 || f.Mean != float64(requests)/2 || f.Min == nil || f.Max == nil || *f.Min > *f.Max {
		t.Errorf("threads %+v, fairness %+v: want two threads sharing %d requests", out.Threads, f, out.Reads+out.Writes+out.Fsyncs)
	}
	if l := out.Latency; l == nil || l.Count != out.Reads+out.Writes+out.Fsyncs || l.MinNs > l.P50Ns || l.P50Ns > l.P999Ns || l.P999Ns > l.MaxNs {
		t.Errorf("latency %+v over %d requests", l, out.Reads+out.Writes+out.Fsyncs)
	}
	noScratchLeft(t, tg.Path)
}

// The presets run in CrystalDiskMark's order, each read then write,
// filling the section in place.
func TestMarkFillsInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: eight timed tests")
	}
	tg := target(t)
	c := MarkConfig{MarkParameters: result.MarkParameters{Size: 1 << 20, DurationNs: int64(100e6)}, Engine: EngineSync}
	var out result.Mark
	if err := Mark(context.Background(), c, tg, "20260101T000000Z-abcdef", &out, progress.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if out.MarkParameters != c.MarkParameters || out.Engine != EngineSync || len(out.Results) != 8 {
		t.Fatalf("%+v: want the config's parameters, the sync engine and eight results", out)
	}
	for i, r := range out.Results {
		p := markPresets[i/2]
		phase := []string{result.PhaseRead, result.PhaseWrite}[i%2]
		if r.Preset != p.name || r.Phase != phase || r.IOPS <= 0 || r.MBPerSec != r.MiBPerSec*(1<<20)/1e6 {
			t.Errorf("result %d: %+v, want %s %s", i, r, p.name, phase)
		}
	}
	noScratchLeft(t, tg.Path)
}

// The engines' refusals name their config's fields, never a command's
// flags, and are usage errors; usage.Named gives the command's words.
func TestValidateNamesFields(t *testing.T) {
	io := ioConfig("read", EngineSync)
	io.IODepth = 0
	random := RandomConfig{RandomParameters: result.RandomParameters{Files: 1, TotalSize: 1 << 20, Mode: "rndrd", RWRatio: 1,
		BlockSize: 4096, FsyncMode: "fsync", Threads: 1}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{SweepConfig{}.Validate(), "BlockSizes: no block size given"},
		{io.Validate(), "IODepth 0: must be 1 to 1024"},
		{random.Validate(), "give TimeNs or Requests (or both): the run needs a bound"},
		{MarkConfig{MarkParameters: result.MarkParameters{Size: 1 << 30}, Engine: EngineSync}.Validate(), "DurationNs must be positive"},
	} {
		if c.err == nil || c.err.Error() != c.want || !usage.Is(c.err) {
			t.Errorf("refusal %v, want the usage error %q", c.err, c.want)
		}
	}
	named := usage.Named(io.Validate(), map[string]string{"IODepth": "--iodepth"})
	if named.Error() != "--iodepth 0: must be 1 to 1024" {
		t.Errorf("named: %q", named)
	}
	var inv *usage.Invalid
	if !errors.As(io.Validate(), &inv) {
		t.Error("a refusal is not a usage.Invalid the command can name")
	}
}
