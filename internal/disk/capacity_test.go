package disk

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func TestJudgeCapacity(t *testing.T) {
	for _, c := range []struct {
		name    string
		sectors result.SectorCounts
		readErr string
		pass    bool
		verdict string
	}{
		{"intact", result.SectorCounts{OK: 2048}, "", true, "genuine: all 1.0 MiB written read back intact"},
		{"wrapped", result.SectorCounts{OK: 1024, Overwritten: 1024}, "", false,
			"FAIL: fake: 512.0 KiB of the 1.0 MiB written came back holding data written elsewhere (the card wraps around); usable 512.0 KiB"},
		{"worn", result.SectorCounts{OK: 2040, Corrupted: 6, Changed: 2}, "", false,
			"FAIL: damaged: 4.0 KiB of the 1.0 MiB written came back corrupted or changed; usable 1020.0 KiB"},
		{"unreadable", result.SectorCounts{OK: 2048}, "input/output error", false,
			"FAIL: damaged: files could not be read to their end; usable 1.0 MiB"},
		{"empty", result.SectorCounts{}, "", false, "FAIL: nothing to judge: the files hold no whole sector"},
	} {
		out := &result.Capacity{Files: []result.CapacityFile{{Number: 1, ReadError: c.readErr}}, Sectors: c.sectors, UsableBytes: c.sectors.OK * 512}
		judgeCapacity(out)
		if out.Pass == nil || *out.Pass != c.pass || out.Verdict != c.verdict {
			t.Errorf("%s: pass %v, verdict %q; want %v, %q", c.name, out.Pass, out.Verdict, c.pass, c.verdict)
		}
	}
}

func TestCapacityConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  CapacityConfig
		want string
	}{
		{CapacityConfig{CapacityParameters: result.CapacityParameters{StartAt: 1}}, ""},
		{CapacityConfig{CapacityParameters: result.CapacityParameters{StartAt: 0}}, "StartAt 0: files are numbered from 1"},
		{CapacityConfig{CapacityParameters: result.CapacityParameters{StartAt: 4, EndAt: 3}}, "EndAt 3 is before StartAt 4"},
	} {
		err := c.cfg.Validate()
		if got := ""; err != nil {
			got = err.Error()
			if !strings.Contains(got, c.want) || c.want == "" {
				t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%+v: accepted, want %q", c.cfg, c.want)
		}
	}
}
