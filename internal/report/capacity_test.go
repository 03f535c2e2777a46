package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestCapacityTables: a fake's run prints the sector classes, the
// usable size, the overwritten runs with the offsets they hold, the
// verdict, and each file; the CSV has a row per file.
func TestCapacityTables(t *testing.T) {
	fail := false
	doc := &result.Document{Method: result.MethodCapacity, Status: result.StatusOK, Host: result.Host{Hostname: "pi"},
		Targets: []result.Target{{Path: "/media/sd", FSType: "vfat"}},
		Capacity: &result.Capacity{CapacityParameters: result.CapacityParameters{StartAt: 1}, FreeBytes: 3 << 29,
			Files: []result.CapacityFile{
				{Number: 1, Bytes: 1 << 30, WriteMiBPerSec: 12.5, ReadMiBPerSec: 20, Sectors: result.SectorCounts{OK: 262144, Overwritten: 1835008}},
				{Number: 2, Bytes: 1 << 29, WriteMiBPerSec: 12, ReadError: "input/output error"},
			},
			Write: &result.CapacityPhase{Bytes: 3 << 29, MiBPerSec: 12.3,
				OverTime: []result.RateSample{{AtNs: 1e9, Bytes: 15 << 20, MiBPerSec: 15}, {AtNs: 2e9, Bytes: 9 << 20, MiBPerSec: 9.5}}},
			Read:    &result.CapacityPhase{Bytes: 1 << 30, MiBPerSec: 20},
			Sectors: result.SectorCounts{OK: 262144, Overwritten: 1835008}, UsableBytes: 128 << 20,
			Aliases: []result.CapacityAlias{{At: 128 << 20, Holds: 0, Sectors: 1835008}},
			Pass:    &fail, Verdict: "FAIL: fake: ...", Kept: true}}
	var b bytes.Buffer
	if err := Write(&b, doc, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"thruput disk check --capacity on pi",
		"overwritten  1835008  896.0 MiB",
		"usable (read back intact): 128.0 MiB",
		"! 1835008 sectors at 128.0 MiB of the fill hold what was written at 0 B",
		"FAIL: fake: ...",
		"the .h2w files are left in /media/sd",
		"2.h2w not read to its end: input/output error",
		"all, write    1.5 GiB   12.3",
		"write over time: 9.5 to 15.0 MiB/s in 2 spans of about a second",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := Write(&b, doc, Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 3 || lines[2] != "2,536870912,12.000,0.000,0,0,0,0,input/output error" {
		t.Errorf("csv:\n%s", b.String())
	}
}
