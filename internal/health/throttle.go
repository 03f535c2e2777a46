package health

import (
	"path/filepath"
	"strconv"
	"strings"
)

// throttleBits are the bits of the Raspberry Pi firmware's get_throttled,
// as the Raspberry Pi documentation's vcgencmd page lays them out: 0-3
// what holds now, 16-19 the same "has occurred" since boot (sticky).
var throttleBits = []struct {
	bit     int
	meaning string
	reason  string
}{
	{0, "under-voltage detected", "under-voltage"},
	{1, "arm frequency capped", "frequency capped"},
	{2, "currently throttled", "throttled"},
	{3, "soft temperature limit active", "soft temperature limit"},
	{16, "under-voltage has occurred", "under-voltage"},
	{17, "arm frequency capping has occurred", "frequency capped"},
	{18, "throttling has occurred", "throttled"},
	{19, "soft temperature limit has occurred", "soft temperature limit"},
}

// Decode names the bits of a get_throttled value that are set, lowest
// first; bits the firmware documents no meaning for are named by number.
func Decode(v uint32) []string {
	var out []string
	for b := range 32 {
		if v&(1<<b) == 0 {
			continue
		}
		name := "bit " + strconv.Itoa(b)
		for _, t := range throttleBits {
			if t.bit == b {
				name = t.meaning
			}
		}
		out = append(out, name)
	}
	return out
}

// parseThrottled reads the bit field as the firmware driver prints it,
// hex without a prefix ("50005"), or as vcgencmd does ("throttled=0x50005").
func parseThrottled(s string) (uint32, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "throttled="))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || s == "" {
		return 0, false
	}
	return uint32(v), true
}

// throttleSource finds where get_throttled can be read without root.
// First the firmware driver's sysfs attribute (raspberrypi-firmware's
// get_throttled, world-readable, the whole bit field); else the
// rpi_volt hwmon device's in1_lcrit_alarm, which carries only bit 0,
// under-voltage now: read returns the field with that one bit.
func throttleSource(sys string) (path string, read func() (uint32, bool)) {
	for _, pat := range []string{
		"devices/platform/soc/soc:firmware/get_throttled",
		"devices/platform/*firmware/get_throttled",
		"devices/platform/*/*firmware/get_throttled",
	} {
		m, _ := filepath.Glob(filepath.Join(sys, pat))
		for _, p := range m {
			if _, ok := parseThrottled(readValue(p)); ok {
				return p, func() (uint32, bool) { return parseThrottled(readValue(p)) }
			}
		}
	}
	hw, _ := filepath.Glob(filepath.Join(sys, "class/hwmon/hwmon*"))
	for _, h := range hw {
		if readValue(filepath.Join(h, "name")) != "rpi_volt" {
			continue
		}
		p := filepath.Join(h, "in1_lcrit_alarm")
		read := func() (uint32, bool) {
			switch readValue(p) {
			case "0":
				return 0, true
			case "1":
				return 1, true
			}
			return 0, false
		}
		if _, ok := read(); ok {
			return p, read
		}
	}
	return "", nil
}
