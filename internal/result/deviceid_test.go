package result

import (
	"strings"
	"testing"
)

// TestDeviceIDForms: each kind's id from the facts sysfs gives. The
// naa wwid is one a WSL user printed from /sys/block/sdf/device/wwid in a
// note on Docker's virtual disks (a public repository, found with the
// search tool's find_string "/device/wwid"); the t10 form is how the
// kernel writes a SATA disk's id without a WWN (vendor, model, serial).
func TestDeviceIDForms(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{CardIdentity{ManufacturerID: "0x03", OEMID: "0x5344", Name: "SR64G", Serial: "0x1a2b3c4d", Date: "08/2018"}.DeviceID(false), "sd:03-5344-sr64g-1a2b3c4d-2018-08"},
		{CardIdentity{ManufacturerID: "0x15", OEMID: "0x0100", Name: "BJTD4R", Date: "07/2024"}.DeviceID(true), "emmc:15-0100-bjtd4r--2024-07"},
		{CardIdentity{Name: "SR64G"}.DeviceID(false), ""},
		{WWNDeviceID("naa.600224803d3e456bbbac99ef61f785ae\n"), "wwn:naa.600224803d3e456bbbac99ef61f785ae"},
		{WWNDeviceID("eui.0025388B71B0FB11"), "wwn:eui.0025388b71b0fb11"},
		{WWNDeviceID("t10.ATA     Samsung SSD 850 EVO 250GB               S21PNXAG123456K"), "disk:ata_samsung_ssd_850_evo_250gb_s21pnxag123456k"},
		{WWNDeviceID("naa."), ""},
		{WWNDeviceID("naa.0000000000000000"), ""},
		{WWNDeviceID(""), ""},
		{SerialDeviceID("Samsung SSD 980", " S12345 "), "disk:samsung_ssd_980_s12345"},
		{SerialDeviceID("QEMU HARDDISK", ""), ""},
		{SerialDeviceID("", "overlayblk"), "disk:overlayblk"},
		{SerialDeviceID("", "0000000000"), ""},
		{USBDeviceID("152d", "0578", "000000000000", ""), "usb:152d:0578:"},
		{USBDeviceID("152d", "0578", "0000000000FF", "0"), "usb:152d:0578:0000000000ff"},
		{USBDeviceID("152d", "0578", "", ""), "usb:152d:0578:"},
		{USBDeviceID("1058", "0a10", "", "1"), "usb:1058:0a10::1"},
		{USBDeviceID("", "0578", "x", ""), ""},
		{MACDeviceID("DC:A6:32:01:02:03\n"), "mac:dc:a6:32:01:02:03"},
		{MACDeviceID("00:00:00:00:00:00"), ""},
		{MACDeviceID("00:11:22:33:44"), ""},
		{MACDeviceID("00:11:22:33:44:zz"), ""},
	} {
		if c.got != c.want {
			t.Errorf("id %q; want %q", c.got, c.want)
		}
		if c.got == "" {
			continue
		}
		if back, err := ParseDeviceID(c.got); err != nil || back != c.got {
			t.Errorf("ParseDeviceID(%q) = %q, %v; want it back", c.got, back, err)
		}
	}
}

// TestShortDeviceID: what a legend keeps of each kind.
func TestShortDeviceID(t *testing.T) {
	for id, want := range map[string]string{
		"sd:03-5344-sr64g-1a2b3c4d-2018-08": "sd …1a2b3c4d",
		"emmc:15-0100-bjtd4r--2024-07":      "emmc bjtd4r 2024-07",
		"usb:152d:0578:0000000000ff":        "usb …000000ff",
		"mac:dc:a6:32:01:02:03":             "mac …01:02:03",
		"usb:152d:0578:":                    "usb …2d:0578:",
		"sd:x":                              "sd:x",
	} {
		if got := ShortDeviceID(id); got != want {
			t.Errorf("ShortDeviceID(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestParseDeviceIDRefuses: what --device and device_id= refuse, each
// with a message naming the problem.
func TestParseDeviceIDRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "device id is empty",
		"sd":                              "want KIND:",
		"s:03":                            "want KIND:",
		"SDX:03":                          "want KIND:",
		"sd:03 5344":                      `holds ' '`,
		"sd:03%":                          `holds '%'`,
		"mac:" + strings.Repeat("a", 200): "longer than 160",
	} {
		_, err := ParseDeviceID(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDeviceID(%q) = %v; want an error saying %q", in, err, want)
		}
	}
	if id, err := ParseDeviceID(" SD:03-5344 "); err != nil || id != "sd:03-5344" {
		t.Errorf("ParseDeviceID of a prefix in capitals = %q, %v", id, err)
	}
}

// TestDocumentDeviceIDs: a disk run's ids are its targets', once each; a
// network run's the interface it crossed, from its System.
func TestDocumentDeviceIDs(t *testing.T) {
	d := &Document{Method: MethodSweep, Targets: []Target{{Path: "/a", DeviceID: "sd:1"}, {Path: "/b", DeviceID: "sd:1"}, {Path: "/c"}, {Path: "/d", DeviceID: "usb:2"}}}
	if got := strings.Join(d.DeviceIDs(), " "); got != "sd:1 usb:2" {
		t.Errorf("disk run ids %q", got)
	}
	n := &Document{Method: MethodNetClient, Net: &Net{Parameters: NetParameters{Interface: "eth0"}},
		System: &System{NetInterfaces: []NetInterface{{Name: "wlan0", DeviceID: "mac:1"}, {Name: "eth0", DeviceID: "mac:2"}}}}
	if got := strings.Join(n.DeviceIDs(), " "); got != "mac:2" {
		t.Errorf("network run ids %q", got)
	}
	if got := (&Document{}).DeviceIDs(); len(got) != 0 {
		t.Errorf("empty run ids %q", got)
	}
}

// FuzzParseDeviceID: no input panics; an accepted one is lower case, of
// the id alphabet, and accepted again unchanged.
func FuzzParseDeviceID(f *testing.F) {
	for _, s := range []string{"sd:03-5344-sr64g--2018-08", "usb:152d:0578:", "mac:dc:a6:32:01:02:03", "", "sd", "x:y", "wwn:naa.5\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseDeviceID(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty message")
			}
			return
		}
		if id != strings.ToLower(id) || len(id) > maxDeviceID {
			t.Fatalf("ParseDeviceID(%q) = %q", s, id)
		}
		if again, err := ParseDeviceID(id); err != nil || again != id {
			t.Fatalf("ParseDeviceID(%q) = %q, %v; want it back", id, again, err)
		}
	})
}

// FuzzDeviceIDFromSysfs: whatever a sysfs file holds, an id made of it is
// none or one that ParseDeviceID takes back unchanged, so that the store
// never keeps an id its filter cannot find.
func FuzzDeviceIDFromSysfs(f *testing.F) {
	for _, s := range []string{"naa.600224803d3e456b\n", "t10.ATA     Samsung SSD", "0x1a2b3c4d", "dc:a6:32:01:02:03", "08/2018", "SR 64G\x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range []string{WWNDeviceID(s), SerialDeviceID(s, s), USBDeviceID(s, s, s, s), MACDeviceID(s),
			CardIdentity{ManufacturerID: s, OEMID: s, Name: s, Serial: s, Date: s}.DeviceID(false)} {
			if id == "" {
				continue
			}
			if back, err := ParseDeviceID(id); err != nil || back != id {
				t.Fatalf("id %q from %q: ParseDeviceID gives %q, %v", id, s, back, err)
			}
		}
	})
}
