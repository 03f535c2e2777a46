package main

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestCPULineWithoutCpufreq: a machine without cpufreq (a VM) says the
// clock is not exposed, instead of "unknown now, unknown to unknown,
// governor unknown"; one with it keeps its figures.
func TestCPULineWithoutCpufreq(t *testing.T) {
	if got := cpuLine(result.CPU{}); strings.Contains(got, "unknown") || !strings.Contains(got, "no cpufreq") {
		t.Errorf("without cpufreq: %q", got)
	}
	got := cpuLine(result.CPU{CurKHz: 1500000, MinKHz: 600000, MaxKHz: 1800000, Governor: "ondemand"})
	for _, want := range []string{"1500", "600", "1800", "governor ondemand", "asked of cpufreq"} {
		if !strings.Contains(got, want) {
			t.Errorf("with cpufreq: %q lacks %q", got, want)
		}
	}
}
