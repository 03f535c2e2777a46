package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// CPULine is sysinfo's CPU line: the clock cpufreq asked for, the
// firmware's throttling bits decoded, and every thermal zone now.
func CPULine(c result.CPU) string {
	var s string
	if c.CurKHz == 0 && c.MinKHz == 0 && c.MaxKHz == 0 && c.Governor == "" {
		// A VM or a kernel without cpufreq: nothing to say of the clock.
		s = "clock not exposed (no cpufreq: a virtual machine, or a kernel without it)"
	} else {
		s = fmt.Sprintf("%s now (asked of cpufreq), %s to %s, governor %s", result.MHz(c.CurKHz), result.MHz(c.MinKHz), result.MHz(c.MaxKHz), cmp.Or(c.Governor, "unknown"))
	}
	if c.Throttled != "" {
		s += ", throttled " + c.Throttled
		if c.ThrottledNow != nil && *c.ThrottledNow {
			s += " (capped or under-voltage now: the firmware runs below that clock)"
		}
		if len(c.ThrottledBits) > 0 {
			s += ": " + strings.Join(c.ThrottledBits, ", ")
		}
	}
	if c.UnderVoltageNow != nil && *c.UnderVoltageNow {
		s += ", under-voltage now (rpi_volt)"
	}
	for _, t := range c.Temperatures {
		s += fmt.Sprintf(", %s %.1f °C", cmp.Or(t.Type, t.Zone), t.Celsius)
	}
	return s
}
