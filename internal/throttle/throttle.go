// Package throttle reads and decodes the Raspberry Pi firmware's throttling
// bits: under-voltage, ARM frequency capping, throttling and the soft
// temperature limit, now and since boot. The firmware lowers the ARM clock
// behind cpufreq's back, so scaling_cur_freq is what the kernel asked for,
// not what runs; only these bits tell. `thruput sysinfo` reads them once and
// the health sampler during every run, through the one Source found here.
package throttle

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Bit is one documented bit of get_throttled, as the Raspberry Pi
// documentation's vcgencmd page lays them out: 0-3 what holds now, 16-19
// the same "has occurred" since boot (sticky).
type Bit struct {
	N int
	// Meaning is the documentation's words; Reason the short name a
	// suspect figure is marked with.
	Meaning, Reason string
}

// Bits are the documented bits, lowest first.
var Bits = []Bit{
	{0, "under-voltage detected", "under-voltage"},
	{1, "arm frequency capped", "frequency capped"},
	{2, "currently throttled", "throttled"},
	{3, "soft temperature limit active", "soft temperature limit"},
	{16, "under-voltage has occurred", "under-voltage"},
	{17, "arm frequency capping has occurred", "frequency capped"},
	{18, "throttling has occurred", "throttled"},
	{19, "soft temperature limit has occurred", "soft temperature limit"},
}

// Now is the mask of the bits that say what holds at the moment read.
const Now = 0xf

// Decode names the bits of v that are set, lowest first; bits the
// firmware documents no meaning for are named by number.
func Decode(v uint32) []string {
	var out []string
	for b := range 32 {
		if v&(1<<b) == 0 {
			continue
		}
		name := "bit " + strconv.Itoa(b)
		for _, t := range Bits {
			if t.N == b {
				name = t.Meaning
			}
		}
		out = append(out, name)
	}
	return out
}

// Parse reads the bit field as the firmware driver prints it, hex without
// a prefix ("50005"), or as vcgencmd does ("throttled=0x50005", "0x50005").
func Parse(s string) (uint32, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "throttled="))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || s == "" {
		return 0, false
	}
	return uint32(v), true
}

// Source is where the bits are read from.
type Source struct {
	// Kind is "vcio" (the firmware mailbox), "get_throttled" (the
	// firmware driver's sysfs file) or "rpi_volt" (the hwmon alarm, which
	// carries bit 0 alone: under-voltage now).
	Kind string
	// Path is the file read, or /dev/vcio.
	Path string
	read func() (uint32, bool)
}

// Read reads the bits now.
func (s *Source) Read() (uint32, bool) { return s.read() }

// Find returns the first source that answers, or nil, in this order:
//   - the VideoCore mailbox (/dev/vcio, the property GET_THROTTLED, what
//     vcgencmd get_throttled uses) when mailbox is set (the live machine);
//   - the firmware driver's get_throttled file, which some 4.19 kernels
//     answer with a deprecation warning in the kernel log, so it comes
//     only after the mailbox;
//   - the raspberrypi-hwmon driver's under-voltage alarm (rpi_volt,
//     in0_lcrit_alarm).
//
// sys stands in for /sys; readValue reads a one-value file ("" when it
// cannot), so that a caller capturing the files it reads sees these too.
func Find(sys string, mailbox bool, readValue func(string) string) *Source {
	if mailbox {
		return FindWith(sys, Mailbox, readValue)
	}
	return FindWith(sys, nil, readValue)
}

// FindWith is Find with the mailbox asked through ask (nil: no mailbox),
// so that a reader can keep its answer and give it back when it reads a
// capture of the machine instead of the machine.
func FindWith(sys string, ask func() (uint32, bool), readValue func(string) string) *Source {
	if ask != nil {
		if _, ok := ask(); ok {
			return &Source{Kind: "vcio", Path: "/dev/vcio", read: ask}
		}
	}
	for _, pat := range []string{
		"devices/platform/soc/soc:firmware/get_throttled",
		"devices/platform/*firmware/get_throttled",
		"devices/platform/*/*firmware/get_throttled",
	} {
		m, _ := filepath.Glob(filepath.Join(sys, pat))
		for _, p := range m {
			if _, ok := Parse(readValue(p)); ok {
				return &Source{Kind: "get_throttled", Path: p, read: func() (uint32, bool) { return Parse(readValue(p)) }}
			}
		}
	}
	if p := AlarmPath(sys, readValue); p != "" {
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
			return &Source{Kind: "rpi_volt", Path: p, read: read}
		}
	}
	return nil
}

// AlarmPath is the rpi_volt hwmon device's under-voltage alarm file, ""
// when the driver is not loaded. The driver registers one voltage
// channel with an lcrit alarm, which the hwmon core numbers in0.
func AlarmPath(sys string, readValue func(string) string) string {
	hw, _ := filepath.Glob(filepath.Join(sys, "class/hwmon/hwmon*"))
	for _, h := range hw {
		if readValue(filepath.Join(h, "name")) == "rpi_volt" {
			return filepath.Join(h, "in0_lcrit_alarm")
		}
	}
	return ""
}
