package sysinfo

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// netInterfaces lists /sys/class/net except loopback, which crosses no
// hardware.
func (fs FS) netInterfaces() []result.NetInterface {
	dir := filepath.Join(fs.Sys, "class/net")
	entries, err := readDir(dir)
	if err != nil {
		return nil
	}
	var out []result.NetInterface
	var wireless []int
	for _, e := range entries {
		name := e.Name()
		if name == "lo" {
			continue
		}
		n := fs.netInterface(filepath.Join(dir, name), name)
		if n.WiFi != nil {
			wireless = append(wireless, len(out))
		}
		out = append(out, n)
	}
	if fs.Live && len(wireless) > 0 {
		live := liveWiFi()
		for _, i := range wireless {
			mergeWiFi(out[i].WiFi, live[out[i].Name])
		}
	}
	return out
}

func (fs FS) netInterface(p, name string) result.NetInterface {
	n := result.NetInterface{
		Name:    name,
		Driver:  linkBase(filepath.Join(p, "device/driver")),
		MTU:     int(readPositive(filepath.Join(p, "mtu"))),
		Carrier: readBool(filepath.Join(p, "carrier")),
	}
	// A link without carrier reads speed as -1 or fails with EINVAL, and
	// its duplex as "unknown": neither is a figure.
	if n.Carrier != nil && *n.Carrier {
		n.SpeedMbps = int(readPositive(filepath.Join(p, "speed")))
		if d := readValue(filepath.Join(p, "duplex")); d == "full" || d == "half" {
			n.Duplex = d
		}
	}
	real := resolve(p)
	a := fs.ancestry(real)
	switch {
	case real == "":
	case a.nearest(usbIface) != "":
		n.Bus = "usb"
		n.USBPath = filepath.Base(filepath.Dir(a.nearest(usbIface)))
	case a.has("mmc_host"):
		n.Bus = "sdio"
	case a.nearest(pciAddr) != "":
		n.Bus = "pci"
	case fs.under(a, "virtual"):
		n.Bus = "virtual"
	case fs.under(a, "platform"):
		n.Bus = "platform"
	}
	if n.Bus == "pci" {
		n.PCISlot, _, _ = pciLink(a)
	}
	if exists(filepath.Join(p, "wireless")) || exists(filepath.Join(p, "phy80211")) {
		n.WiFi = fs.procWireless(name)
	}
	return n
}

// procWireless reads the interface's line of /proc/net/wireless:
//
//	Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
//	 face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
//	 wlan0: 0000   70.  -40.  -256        0      0      0      0      0        0
//
// It always returns a link, empty when the interface is not associated
// (no line), so a wireless interface is still marked as one.
func (fs FS) procWireless(name string) *result.WiFiLink {
	w := &result.WiFiLink{}
	_ = eachLine(filepath.Join(fs.Proc, "net/wireless"), func(line string) error {
		iface, rest, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(iface) != name {
			return nil
		}
		f := strings.Fields(rest)
		if len(f) < 3 {
			return nil
		}
		// A trailing "." marks a value the driver updated since the last
		// read; a driver that does not know the level writes 0.
		if v, err := strconv.Atoi(strings.TrimSuffix(f[1], ".")); err == nil && v > 0 {
			w.LinkQuality = v
		}
		if v, err := strconv.Atoi(strings.TrimSuffix(f[2], ".")); err == nil && v < 0 && v > -256 {
			w.SignalDBm = v
		}
		return nil
	})
	return w
}

// mergeWiFi lays what nl80211 says over /proc/net/wireless: its signal is
// the last frame's, in dBm for every driver.
func mergeWiFi(w *result.WiFiLink, live result.WiFiLink) {
	if live.TxBitrateMbps > 0 {
		w.TxBitrateMbps = live.TxBitrateMbps
	}
	if live.FreqMHz > 0 {
		w.FreqMHz = live.FreqMHz
		w.Channel = channel(live.FreqMHz)
	}
	if live.SignalDBm < 0 {
		w.SignalDBm = live.SignalDBm
	}
}

// channel is the IEEE 802.11 channel number of a centre frequency in MHz,
// 0 when it is in none of the 2.4, 5 and 6 GHz bands.
func channel(mhz int) int {
	switch {
	case mhz == 2484:
		return 14
	case mhz >= 2412 && mhz <= 2472:
		return (mhz - 2407) / 5
	case mhz == 5935:
		return 2
	case mhz >= 5955 && mhz <= 7115:
		return (mhz - 5950) / 5
	case mhz >= 5160 && mhz <= 5885:
		return (mhz - 5000) / 5
	}
	return 0
}
