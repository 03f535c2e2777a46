// Package ceiling explains a measured figure against the interfaces the
// data crossed. It walks from a filesystem's block device, or a network
// interface, up through every bus and hub to the root, gives each hop the
// practical ceiling of its link (USB 2.0 mass storage, an SD bus mode,
// SATA, PCIe lanes, Ethernet after TCP/IP overhead, a WiFi PHY rate), and
// names the likely bottleneck with the facts behind it: the reasoning a
// person does by hand with lsusb, the SD bus mode and the link speed next to
// a dd or sysbench fileio figure, here from facts read off the machine
// (result.System), never guessed.
package ceiling

import (
	"fmt"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Units of the ceilings: bytes per second.
const (
	mb = 1e6
)

// usbCeiling is the practical bulk payload of a USB link at speedMbps, and
// its name. High speed: 13 bulk packets of 512 bytes per 125 us microframe.
func usbCeiling(speedMbps float64) (name string, bytesPerSec float64, ok bool) {
	switch speedMbps {
	case 1.5:
		return "USB 1.1 low speed", usbLow, true
	case 12:
		return "USB 1.1 full speed", usbFull, true
	case 480:
		return "USB 2.0 high speed", 53.248 * mb, true
	case 5000:
		return "USB 3.2 Gen 1 (5 Gbit/s)", 450 * mb, true
	case 10000:
		return "USB 3.2 Gen 2 (10 Gbit/s)", 1000 * mb, true
	case 20000:
		return "USB 3.2 Gen 2x2 (20 Gbit/s)", 2000 * mb, true
	}
	return "", 0, false
}

// usbLow and usbFull are what USB 1.1's low and full speed carry.
const (
	usbLow  = 0.15 * mb
	usbFull = 1 * mb
)

// bulkOnlyUSB2 is what usb-storage's Bulk-Only Transport gets from a USB
// 2.0 link: one command, data and status per request, usually 30 to 42 MB/s.
const bulkOnlyUSB2 = 42 * mb

// bulkOnlySuper is Bulk-Only at 5 Gbit/s and up: UAS-capable SSDs forced
// onto usb-storage measure 180 to 300 MB/s where UAS passes 400.
const bulkOnlySuper = 300 * mb

// mmcCeiling reads an SD or eMMC bus mode: clock times bus width, twice for
// DDR modes; without a clock, the mode's nominal rate.
func mmcCeiling(d result.BlockDevice) (string, float64, bool) {
	// The kernel writes "sd uhs SDR104" and "sd high-speed".
	timing := strings.Replace(strings.ToLower(d.MMCTiming), "sd uhs ", "uhs ", 1)
	width := d.MMCBusWidth
	if width == 0 {
		width = 4
	}
	nominal := map[string]float64{
		"legacy": 12.5, "sd high-speed": 25, "mmc high-speed": 52,
		"uhs sdr12": 12.5, "uhs sdr25": 25, "uhs sdr50": 50, "uhs ddr50": 50, "uhs sdr104": 104,
		"mmc ddr52": 104, "mmc hs200": 200, "mmc hs400": 400, "mmc hs400 enhanced strobe": 400,
	}
	if timing == "" {
		return "", 0, false
	}
	name := "SD/MMC bus, " + d.MMCTiming
	if d.MMCClockHz > 0 {
		bps := float64(d.MMCClockHz) * float64(width) / 8
		if strings.Contains(timing, "ddr") || strings.Contains(timing, "hs400") {
			bps *= 2
		}
		return fmt.Sprintf("%s at %g MHz, %d bit", name, float64(d.MMCClockHz)/1e6, width), bps, true
	}
	if v, ok := nominal[timing]; ok {
		return name, v * mb, true
	}
	return "", 0, false
}

// sataCeiling: 8b/10b coding, so 10 line bits per byte.
func sataCeiling(gbps float64) (string, float64, bool) {
	if gbps <= 0 {
		return "", 0, false
	}
	return fmt.Sprintf("SATA %g Gbit/s", gbps), gbps * 1e9 / 10, true
}

// pcieCeiling per lane: gen 1 and 2 lose 20 % to 8b/10b, gen 3 and later
// 1.5 % to 128b/130b.
func pcieCeiling(gts float64, width int) (string, float64, bool) {
	if gts <= 0 || width <= 0 {
		return "", 0, false
	}
	lane := gts * 1e9 / 10
	if gts >= 8 {
		lane = gts * 1e9 * 128 / 130 / 8
	}
	return fmt.Sprintf("PCIe %g GT/s x%d", gts, width), lane * float64(width), true
}

// EthernetGoodput is TCP's payload over an Ethernet link: per frame of MTU
// bytes, 52 bytes of IP and TCP headers with timestamps stay behind, and 38
// bytes of Ethernet framing, preamble and gap go on the wire (1448 of 1538
// at MTU 1500: 94.1 Mbit/s of 100). Bytes per second.
func EthernetGoodput(speedMbps, mtu int) float64 {
	if mtu <= 52 {
		mtu = 1500
	}
	return float64(speedMbps) * 1e6 / 8 * float64(mtu-52) / float64(mtu+38)
}

// wifiShare is the part of a WiFi PHY rate TCP commonly gets: 50 to 65 %.
const wifiShare = 0.65
