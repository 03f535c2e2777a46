package main

import (
	"testing"

	"github.com/thruput/thruput/internal/compare"
)

func TestBaselineIndex(t *testing.T) {
	c := &compare.Comparison{Columns: []compare.Column{{Name: "20261121T0953"}, {Name: "20261122T1010"}, {Name: "fs=ext4"}}}
	for b, want := range map[string]int{"1": 0, "3": 2, "20261122": 1, "20261121T0953": 0, "fs=": 2, "fs=ext4": 2} {
		if got, err := baselineIndex(c, b); err != nil || got != want {
			t.Errorf("--baseline %s: %d, %v; want column %d", b, got, err, want)
		}
	}
	for _, b := range []string{"2026", "4", "0", "fs=vfat"} {
		if got, err := baselineIndex(c, b); err == nil {
			t.Errorf("--baseline %s: column %d, want an error", b, got)
		}
	}
}
