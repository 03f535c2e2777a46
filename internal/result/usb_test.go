package result

import "testing"

// TestSlowerThanDeclared: a device's bcdUSB against the speed it
// negotiated, at each speed a USB 2 or 3 device can end up at.
func TestSlowerThanDeclared(t *testing.T) {
	for _, tc := range []struct {
		version string
		speed   float64
		parent  string
		want    string
	}{
		{"3.20", 5000, "usb2", ""},
		{"3.00", 480, "usb1", "USB 3.0 device running at 480M: a USB 2 port, hub or cable"},
		{"3.10", 12, "1-1", "USB 3.1 device running at 12M: a USB 2 port, hub or cable"},
		{"2.00", 480, "usb1", ""},
		{"2.00", 12, "usb1", "USB 2.0 device running at 12M: a USB 1.1 port or hub"},
		{"1.10", 12, "usb1", ""},
		// A root hub (no parent), an unread version or speed: nothing
		// to say.
		{"3.00", 480, "", ""},
		{"", 480, "usb1", ""},
		{"3.00", 0, "usb1", ""},
	} {
		u := USBDevice{Path: "1-1", Parent: tc.parent, USBVersion: tc.version, SpeedMbps: tc.speed}
		if got := u.SlowerThanDeclared(); got != tc.want {
			t.Errorf("bcdUSB %q at %gM: %q, want %q", tc.version, tc.speed, got, tc.want)
		}
	}
}
