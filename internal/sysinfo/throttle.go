package sysinfo

import (
	"path/filepath"
	"strconv"

	"github.com/thruput/thruput/internal/health"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/throttle"
)

// throttling fills what the Raspberry Pi firmware says about capping and
// under-voltage, from the mailbox on the live machine (or its answer kept
// in a capture) or the firmware driver's file (internal/throttle), and the hwmon under-voltage alarm
// beside it. The alarm alone is not the bit field: it fills
// UnderVoltageNow only.
func (fs FS) throttling(c *result.CPU) {
	if src := throttle.FindWith(fs.Sys, fs.mailbox(), readValue); src != nil && src.Kind != "rpi_volt" {
		if v, ok := src.Read(); ok {
			c.Throttled = "0x" + strconv.FormatUint(uint64(v), 16)
			now := v&throttle.Now != 0
			c.ThrottledNow = &now
			c.ThrottledSource = src.Kind
			c.ThrottledBits = throttle.Decode(v)
		}
	}
	if p := throttle.AlarmPath(fs.Sys, readValue); p != "" {
		c.UnderVoltageNow = readBool(p)
	}
}

// temperatures reads every thermal zone whose sensor answers.
func (fs FS) temperatures(c *result.CPU) {
	for _, z := range glob(filepath.Join(fs.Sys, "class/thermal/thermal_zone*")) {
		if t, ok := health.Celsius(readValue(filepath.Join(z, "temp"))); ok {
			c.Temperatures = append(c.Temperatures, result.ZoneTemperature{Zone: filepath.Base(z), Type: readValue(filepath.Join(z, "type")), Celsius: t})
		}
	}
}
