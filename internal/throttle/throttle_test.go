package throttle

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDecodePublishedBits(t *testing.T) {
	for _, c := range []struct {
		v    uint32
		want []string
	}{
		{0x0, nil},
		{0x50005, []string{"under-voltage detected", "currently throttled", "under-voltage has occurred", "throttling has occurred"}},
		{0x50000, []string{"under-voltage has occurred", "throttling has occurred"}},
		{0xa0002, []string{"arm frequency capped", "arm frequency capping has occurred", "soft temperature limit has occurred"}},
		{0x8, []string{"soft temperature limit active"}},
		{0x20, []string{"bit 5"}},
	} {
		if got := Decode(c.v); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Decode(%#x) = %q, want %q", c.v, got, c.want)
		}
	}
	for in, want := range map[string]uint32{"50005": 0x50005, "0x50000": 0x50000, "throttled=0xa0002\n": 0xa0002, "0": 0} {
		if v, ok := Parse(in); !ok || v != want {
			t.Errorf("Parse(%q) = %#x, %v", in, v, ok)
		}
	}
	for _, bad := range []string{"", "0x", "zz", "123456789"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestFindOrder: the firmware driver's file wins over the hwmon alarm,
// wherever the firmware node sits under /sys/devices/platform; the alarm,
// in0 as the raspberrypi-hwmon driver registers it, is the fallback; a
// tree with neither has no source.
func TestFindOrder(t *testing.T) {
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	write := func(root, rel, v string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	none := t.TempDir()
	if s := Find(none, false, read); s != nil {
		t.Errorf("empty tree: source %+v", s)
	}

	both := t.TempDir()
	write(both, "class/hwmon/hwmon0/name", "rpi_volt\n")
	write(both, "class/hwmon/hwmon0/in0_lcrit_alarm", "1\n")
	write(both, "devices/platform/axi/axi:firmware/get_throttled", "50005\n")
	s := Find(both, false, read)
	if s == nil || s.Kind != "get_throttled" || !strings.HasSuffix(s.Path, "axi:firmware/get_throttled") {
		t.Fatalf("source %+v, want the firmware driver's file", s)
	}
	if v, ok := s.Read(); !ok || v != 0x50005 {
		t.Errorf("read %#x %v", v, ok)
	}

	alarm := t.TempDir()
	write(alarm, "class/hwmon/hwmon2/name", "rpi_volt\n")
	write(alarm, "class/hwmon/hwmon2/in0_lcrit_alarm", "0\n")
	s = Find(alarm, false, read)
	if s == nil || s.Kind != "rpi_volt" || AlarmPath(alarm, read) != s.Path {
		t.Fatalf("source %+v, want the rpi_volt alarm", s)
	}
	write(alarm, "class/hwmon/hwmon2/in0_lcrit_alarm", "1\n")
	if v, ok := s.Read(); !ok || v != 1 {
		t.Errorf("alarm set: read %#x %v, want bit 0", v, ok)
	}
	write(alarm, "class/hwmon/hwmon2/in0_lcrit_alarm", "x\n")
	if _, ok := s.Read(); ok {
		t.Error("an unreadable alarm read as a value")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"50005", "throttled=0x50000", "0x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse(s)
		if !ok && v != 0 {
			t.Errorf("Parse(%q) refused but gave %#x", s, v)
		}
	})
}

// TestMailboxLayout checks the messages against the layout the
// raspberrypi/firmware wiki "Mailbox property interface" publishes
// (mirrored in raspberrypi/utils vcmailbox/vcmailbox.7 at 2b9cb66f):
// size, request code, tag, value buffer size, request size, value, end
// tag; "Get clock rate" answers u32 clock id, u32 rate in Hz. The tag
// values are the kernel's (torvalds/linux
// include/soc/bcm2835/raspberrypi-firmware.h at 0410c612:
// RPI_FIRMWARE_GET_THROTTLED 0x00030046, RPI_FIRMWARE_GET_CLOCK_MEASURED
// 0x00030047, RPI_FIRMWARE_ARM_CLK_ID 3). No /dev/vcio answers on this
// machine, so the answers are written as the firmware writes them.
func TestMailboxLayout(t *testing.T) {
	words := func(b []byte) []uint32 {
		out := make([]uint32, len(b)/4)
		for i := range out {
			out[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
		}
		return out
	}
	bytesOf := func(w ...uint32) []byte {
		b := make([]byte, 4*len(w))
		for i, x := range w {
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
		}
		return b
	}
	if got := words(Request(tagThrottled, 0)); !reflect.DeepEqual(got, []uint32{28, 0, 0x00030046, 4, 4, 0, 0}) {
		t.Errorf("GET_THROTTLED request %#x", got)
	}
	if got := words(Request(tagClockMeasured, clockARM, 0)); !reflect.DeepEqual(got, []uint32{32, 0, 0x00030047, 8, 8, 3, 0, 0}) {
		t.Errorf("GET_CLOCK_RATE_MEASURED request %#x", got)
	}
	// Answered: request code 0x80000000, the size word with bit 31 set
	// and the response's length, clock id 3 and 600 MHz, a Pi 4's idle
	// clock.
	ans := bytesOf(32, 0x80000000, 0x00030047, 8, 0x80000008, 3, 600000000, 0)
	if v, ok := Response(ans, tagClockMeasured, 2); !ok || v[0] != 3 || v[1] != 600000000 {
		t.Errorf("answered measured clock read as %v %v", v, ok)
	}
	for name, bad := range map[string][]byte{
		"not answered":       bytesOf(32, 0x80000000, 0x00030047, 8, 8, 3, 0, 0),
		"parse error":        bytesOf(32, 0x80000001, 0x00030047, 8, 0x80000008, 3, 600000000, 0),
		"another tag":        bytesOf(32, 0x80000000, 0x00030046, 8, 0x80000008, 3, 600000000, 0),
		"short":              bytesOf(32, 0x80000000, 0x00030047, 8, 0x80000008, 3),
		"request unanswered": Request(tagClockMeasured, clockARM, 0),
	} {
		if v, ok := Response(bad, tagClockMeasured, 2); ok {
			t.Errorf("%s read as %v", name, v)
		}
	}
	// No /dev/vcio here: unknown, not zero read as a clock.
	if _, err := os.Stat("/dev/vcio"); err != nil {
		if hz, ok := MeasuredClock(); ok {
			t.Errorf("measured clock %d Hz without /dev/vcio", hz)
		}
	}
}

func FuzzResponse(f *testing.F) {
	f.Add(Request(tagClockMeasured, clockARM, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Response(b, tagClockMeasured, 2)
	})
}
