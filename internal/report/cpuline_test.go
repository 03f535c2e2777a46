package report

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestCPULineWithoutCpufreq: a machine without cpufreq (a VM) says the
// clock is not exposed, instead of "unknown now, unknown to unknown,
// governor unknown"; one with it keeps its figures.
func TestCPULineWithoutCpufreq(t *testing.T) {
	if got := CPULine(result.CPU{}); strings.Contains(got, "unknown") || !strings.Contains(got, "no cpufreq") {
		t.Errorf("without cpufreq: %q", got)
	}
	got := CPULine(result.CPU{CurKHz: 1500000, MinKHz: 600000, MaxKHz: 1800000, Governor: "ondemand"})
	for _, want := range []string{"1500", "600", "1800", "governor ondemand", "asked of cpufreq"} {
		if !strings.Contains(got, want) {
			t.Errorf("with cpufreq: %q lacks %q", got, want)
		}
	}
}

// TestCPULineThrottling: the firmware's bits are named, not only shown
// in hex, and every thermal zone's temperature follows.
func TestCPULineThrottling(t *testing.T) {
	got := CPULine(result.CPU{CurKHz: 600000, MinKHz: 600000, MaxKHz: 1500000, Governor: "ondemand",
		Throttled: "0x50005", ThrottledNow: new(true), ThrottledBits: []string{"under-voltage detected", "currently throttled", "under-voltage has occurred", "throttling has occurred"},
		Temperatures: []result.ZoneTemperature{{Zone: "thermal_zone0", Type: "cpu-thermal", Celsius: 61.3}}})
	for _, want := range []string{"throttled 0x50005 (capped or under-voltage now: the firmware runs below that clock): under-voltage detected, currently throttled,", "cpu-thermal 61.3 °C"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
