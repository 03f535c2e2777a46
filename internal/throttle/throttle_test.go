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
