package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func frac(f float64) *float64 { return &f }

// sweepDoc is a two-target sweep with a cached read, a partly cached read, a
// step cut by the time bound and a step missing after a failure.
func sweepDoc() *result.Document {
	t0 := time.Date(2026, 11, 21, 5, 30, 0, 0, time.UTC)
	step := func(ti int, phase string, bs int64, mib float64) result.SweepStep {
		ns := int64(1e9)
		s := result.SweepStep{Target: ti, Phase: phase, BlockSize: bs, Bytes: int64(mib * (1 << 20)), Ops: int64(mib*(1<<20)) / bs, ElapsedNs: ns, MiBPerSec: mib}
		if phase == result.PhaseWrite {
			s.FsyncNs = ns / 10
		} else {
			s.Eviction, s.Cache, s.CachedFraction = "fadvise", result.CacheCold, frac(0)
		}
		return s
	}
	steps := []result.SweepStep{
		step(0, "write", 8, 0.25), step(0, "read", 8, 1.6),
		step(0, "write", 4096, 20.8), step(0, "read", 4096, 23.6),
		step(0, "write", 1<<20, 20.9), step(0, "read", 1<<20, 23.7),
		step(1, "write", 8, 5.5), step(1, "read", 8, 310.2),
		step(1, "write", 4096, 1250), step(1, "read", 4096, 2900.25),
	}
	steps[0].Truncated = true
	steps[3].Cache = result.CacheUncertain
	steps[7].Cache, steps[7].CachedFraction = result.CacheCached, frac(1)
	steps[9].Cache, steps[9].CachedFraction = result.CachePartial, frac(0.5)
	return &result.Document{
		FormatVersion: result.FormatVersion,
		Tool:          result.Tool{Name: "thruput", Version: "test", GoVersion: "go1.26", Platform: "linux/arm/v6"},
		ID:            "20261121T053000Z-abcdef",
		Method:        "disk.sweep",
		Argv:          []string{"thruput", "disk", "sweep", "/media/ext4", "/tmp"},
		StartedAt:     t0, EndedAt: t0.Add(time.Minute),
		Status: result.StatusFailed,
		Error:  "/tmp: write at block size 1M: no space left on device",
		Host:   result.Host{Hostname: "raspberrypi", Kernel: "6.1.21+", Board: "Raspberry Pi Model B Rev 2", CPUModel: "ARMv6-compatible processor rev 7 (v6l)", CPUCores: 1, MemoryBytes: 445376 << 10},
		Targets: []result.Target{
			{Path: "/media/ext4", FSType: "ext4", MountPoint: "/media/ext4", Device: "sda", Partition: "sda3", DeviceModel: "Seagate Expansion"},
			{Path: "/tmp", FSType: "tmpfs", MountPoint: "/tmp"},
		},
		Sweep: &result.Sweep{Parameters: result.SweepParameters{
			BlockSizes: []int64{8, 4096, 1 << 20}, FileSize: 1 << 30, MaxTimeNs: int64(30 * time.Second),
			Write: true, Read: true, Data: "random",
		}, Steps: steps},
	}
}

// checkGolden renders doc as o asks and compares it with
// testdata/NAME.FORMAT.golden, rewriting the file with -update.
func checkGolden(t *testing.T, name string, doc *result.Document, o Options) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, doc, o); err != nil {
		t.Fatalf("%s %s: %v", name, o.Format, err)
	}
	matchGolden(t, name+"."+o.Format, buf.Bytes())
}

// matchGolden compares got with testdata/NAME.golden, rewriting the file
// with -update.
func matchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test -update to accept):\n%s", name, golden, got)
	}
}

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		checkGolden(t, "sweep", sweepDoc(), Options{Format: format})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	want := sweepDoc()
	var buf bytes.Buffer
	if err := Write(&buf, want, Options{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	got, err := result.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := got.Write(&again); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	_ = want.Write(&first)
	if first.String() != again.String() {
		t.Errorf("round trip changed the document:\n%s\nvs\n%s", first.String(), again.String())
	}
	if *got.Sweep.Steps[7].CachedFraction != 1 || got.Targets[0].Partition != "sda3" {
		t.Errorf("fields lost in the round trip: %+v", got.Sweep.Steps[7])
	}
}

func TestReadRejects(t *testing.T) {
	for in, msg := range map[string]string{
		"not json":             "not a thruput result document",
		`{"format_version":9}`: "format version 9 is not supported",
		`{}`:                   "format version 0 is not supported",
	} {
		if _, err := result.Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Read(%q) = %v; want an error containing %q", in, err, msg)
		}
	}
}

func TestFormatFor(t *testing.T) {
	for in, want := range map[string]string{"a.json": "json", "b.CSV": "csv", "c.md": "markdown", "d.txt": "table", "e": "", "f.html": "html", "g.jsonl": "jsonl", "h.pdf": ""} {
		if got := FormatFor(in); got != want {
			t.Errorf("FormatFor(%q) = %q; want %q", in, got, want)
		}
	}
	if err := Write(&bytes.Buffer{}, sweepDoc(), Options{Format: "yaml"}); err == nil {
		t.Error("Write accepted format yaml")
	}
}
