package sysinfo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestCaptureKeepsLiveFacts: what a live machine is asked rather than read
// (uname's machine, nl80211's WiFi rate, the firmware mailbox's throttling
// word, the build's width) is kept by a capture and read back from it, so --root of the
// capture prints what the machine printed. The machine is the Pi 4
// fixture made live, its kernel answering with the values of a Pi 4 on a
// 5.10 kernel (no kernel.arch file), associated at 5 GHz, once throttled.
func TestCaptureKeepsLiveFacts(t *testing.T) {
	live := fixture(t, "pi4")
	live.Live = true
	live.facts = &liveFacts{
		machine: func() string { return "aarch64" },
		wifi: func() map[string]result.WiFiLink {
			return map[string]result.WiFiLink{"wlan0": {TxBitrateMbps: 433.3, FreqMHz: 5180, SignalDBm: -52}}
		},
		mailbox: func() (uint32, bool) { return 0x50005, true },
	}
	type machine struct {
		Host   result.Host
		System result.System
	}
	read := func(fs FS) machine { return machine{fs.Host(), fs.System()} }
	want := read(live)
	if want.Host.Arch != "aarch64" || want.System.CPU.ThrottledSource != "vcio" || want.System.CPU.Throttled != "0x50005" {
		t.Fatalf("the live facts were not read: arch %q, throttled %q from %q", want.Host.Arch, want.System.CPU.Throttled, want.System.CPU.ThrottledSource)
	}
	var wlan *result.WiFiLink
	for _, n := range want.System.NetInterfaces {
		if n.Name == "wlan0" {
			wlan = n.WiFi
		}
	}
	if wlan == nil || wlan.TxBitrateMbps != 433.3 || wlan.Channel != 36 {
		t.Fatalf("wlan0's nl80211 link was not read: %+v", wlan)
	}
	var capture bytes.Buffer
	if err := live.Capture(&capture, false, func() error { read(live); return nil }); err != nil {
		t.Fatal(err)
	}
	// The width is the test binary's own: 32 under qemu-arm.
	if want.Host.ProcessBits != strconv.IntSize {
		t.Errorf("host.process_bits = %d, want this build's %d", want.Host.ProcessBits, strconv.IntSize)
	}
	bits := fmt.Sprintf("-- thruput/process-bits --\n%d\n", strconv.IntSize)
	for _, entry := range []string{"-- thruput/uname-machine --\naarch64\n", "-- thruput/vcio-get_throttled --\n50005\n", "-- thruput/nl80211/wlan0 --\n", bits} {
		if !bytes.Contains(capture.Bytes(), []byte(entry)) {
			t.Errorf("the capture has no %q", entry)
		}
	}
	dir := t.TempDir()
	if err := Unpack(capture.Bytes(), dir); err != nil {
		t.Fatal(err)
	}
	got := read(AtRoot(dir))
	wantJSON, _ := json.MarshalIndent(want, "", " ")
	gotJSON, _ := json.MarshalIndent(got, "", " ")
	if !bytes.Equal(wantJSON, gotJSON) {
		t.Errorf("read from its capture, the machine is\n%s\nbut live it was\n%s", gotJSON, wantJSON)
	}
}
