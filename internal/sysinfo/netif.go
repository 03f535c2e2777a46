package sysinfo

import (
	"path/filepath"
	"slices"
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
	byIndex := map[string]int{}
	iflinks := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if name == "lo" {
			continue
		}
		p := filepath.Join(dir, name)
		n := fs.netInterface(p, name)
		// A veth's iflink is its peer's ifindex; other interfaces'
		// is their own, or their parent's (VLAN), which lower_ names.
		ifindex, iflink := readValue(filepath.Join(p, "ifindex")), readValue(filepath.Join(p, "iflink"))
		byIndex[ifindex] = len(out)
		if n.Kind == "" && n.Bus == "virtual" && iflink != "" && iflink != ifindex && len(n.Lower) == 0 {
			n.Kind = "veth"
			iflinks[len(out)] = iflink
		}
		if n.WiFi != nil {
			wireless = append(wireless, len(out))
		}
		out = append(out, n)
	}
	for i, peer := range iflinks {
		if j, ok := byIndex[peer]; ok {
			out[i].Peer = out[j].Name
		}
	}
	if len(wireless) > 0 {
		names := make([]string, len(wireless))
		for k, i := range wireless {
			names[k] = out[i].Name
		}
		live := fs.wifiLinks(names)
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
	n.PCIePath = pcieLinks(a)
	if n.Bus == "sdio" {
		if host := a.nearest(mmcHost); host != "" {
			n.SDIOHost = filepath.Base(host)
			_, n.SDIOClockHz, n.SDIOBusWidth = fs.mmcIOS(n.SDIOHost)
		}
	}
	// A virtual interface's address, or one the driver made up at random
	// (addr_assign_type 1: a USB adapter without its own), is made anew
	// with the interface and names no hardware.
	if n.Bus != "virtual" && readValue(filepath.Join(p, "addr_assign_type")) != "1" {
		n.DeviceID = result.MACDeviceID(readValue(filepath.Join(p, "address")))
	}
	fs.netLinks(p, &n)
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

// netLinks reads what a virtual interface stacks on: its kind from the
// uevent's DEVTYPE (bridge, bond, vlan, wlan), the bridge or bond it is a
// port of, and the interfaces under it (lower_* links: a bond's slaves, a
// VLAN's parent, a macvlan's; brif/*: a bridge's ports).
func (fs FS) netLinks(p string, n *result.NetInterface) {
	_ = eachLine(filepath.Join(p, "uevent"), func(line string) error {
		if v, ok := strings.CutPrefix(line, "DEVTYPE="); ok {
			n.Kind = v
		}
		return nil
	})
	if t, err := readlink(filepath.Join(p, "master")); err == nil {
		n.Master = filepath.Base(t)
	}
	for _, l := range glob(filepath.Join(p, "lower_*")) {
		n.Lower = append(n.Lower, strings.TrimPrefix(filepath.Base(l), "lower_"))
	}
	if n.Kind == "bridge" {
		ports, _ := readDir(filepath.Join(p, "brif"))
		for _, e := range ports {
			if !slices.Contains(n.Lower, e.Name()) {
				n.Lower = append(n.Lower, e.Name())
			}
		}
	}
}
