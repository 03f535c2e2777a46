package ceiling

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Storage is the chain of links under a filesystem target: its block
// device, then the bus up to the root, and the other devices sharing a hop.
func Storage(sys result.System, t result.Target) (hops []result.Hop, shared []string) {
	if t.FSType == "tmpfs" || t.FSType == "ramfs" {
		return []result.Hop{{Name: t.FSType + " " + t.Path, Link: "memory", Basis: "files in RAM cross no link"}}, nil
	}
	i := slices.IndexFunc(sys.BlockDevices, func(d result.BlockDevice) bool { return d.Name == t.Device })
	if t.Device == "" || i < 0 {
		return []result.Hop{{Name: orUnknown(t.Device, "the device under "+t.Path), Basis: "the block device and its bus could not be read"}}, nil
	}
	d := sys.BlockDevices[i]
	hop := result.Hop{Name: d.Name}
	switch d.Bus {
	case "usb":
		if u := usbNode(sys, d.USBPath); u != nil && u.SpeedMbps == 480 && d.Driver == "usb-storage" {
			hop.Link, hop.CeilingBytesPerSec = "USB 2.0 mass storage (Bulk-Only)", bulkOnlyUSB2
			hop.Basis = "usb-storage at 480M: one command, data and status per request, usually 30 to 42 MB/s"
		} else {
			hop.Link, hop.Basis = "USB disk ("+orUnknown(d.Driver, "driver unknown")+")", "its link is the next hop"
		}
		hops = append(hops, hop)
		hops = append(hops, usbChain(sys, d.USBPath)...)
		shared = usbShared(sys, d.USBPath, d.Name)
	case "mmc":
		if name, c, ok := mmcCeiling(d); ok {
			hop.Link, hop.CeilingBytesPerSec = name, c
			hop.Basis = "bus mode read from the mmc host's ios"
		} else {
			hop.Link, hop.Basis = "SD/MMC bus", "bus mode unknown (it is in debugfs, readable by root)"
		}
		hops = append(hops, hop)
	case "sata":
		if name, c, ok := sataCeiling(d.SATALinkGbps); ok {
			hop.Link, hop.CeilingBytesPerSec, hop.Basis = name, c, "negotiated link speed, 8b/10b coded"
		} else {
			hop.Link, hop.Basis = "SATA", "link speed unknown"
		}
		hops = append(hops, hop)
	case "nvme":
		if name, c, ok := pcieCeiling(d.PCIeLinkGTs, d.PCIeLinkWidth); ok {
			hop.Link, hop.CeilingBytesPerSec, hop.Basis = name, c, "negotiated PCIe link of "+d.PCISlot
		} else {
			hop.Link, hop.Basis = "NVMe on PCIe", "link speed unknown"
		}
		hops = append(hops, hop)
	default:
		hop.Link = orUnknown(d.Bus, "unknown bus")
		hop.Basis = "no ceiling is known for this bus"
		if d.Bus == "virtio" || d.Bus == "loop" {
			hop.Basis = "a virtual disk: its speed is the host's, not a link's"
		}
		hops = append(hops, hop)
	}
	if d.Bus != "nvme" && d.PCIeLinkGTs > 0 {
		if name, c, ok := pcieCeiling(d.PCIeLinkGTs, d.PCIeLinkWidth); ok {
			hops = append(hops, result.Hop{Name: "controller " + d.PCISlot, Link: name, CeilingBytesPerSec: c, Basis: "negotiated PCIe link"})
		}
	}
	return hops, shared
}

// Network is the chain under a network interface.
func Network(sys result.System, ifname string) (hops []result.Hop, shared []string) {
	i := slices.IndexFunc(sys.NetInterfaces, func(n result.NetInterface) bool { return n.Name == ifname })
	if i < 0 {
		return []result.Hop{{Name: orUnknown(ifname, "the interface"), Basis: "the interface could not be read"}}, nil
	}
	n := sys.NetInterfaces[i]
	hop := result.Hop{Name: n.Name}
	switch {
	case n.WiFi != nil && n.WiFi.TxBitrateMbps > 0:
		hop.Link = fmt.Sprintf("WiFi, PHY rate %g Mbit/s", n.WiFi.TxBitrateMbps)
		hop.CeilingBytesPerSec = n.WiFi.TxBitrateMbps * 1e6 / 8 * wifiShare
		hop.Basis = "TCP commonly gets 50 to 65 % of the PHY rate"
	case n.WiFi != nil:
		hop.Link, hop.Basis = "WiFi", "PHY rate unknown"
	case n.SpeedMbps > 0:
		mtu := n.MTU
		if mtu == 0 {
			mtu = 1500
		}
		hop.Link = fmt.Sprintf("Ethernet %d Mbit/s", n.SpeedMbps)
		hop.CeilingBytesPerSec = EthernetGoodput(n.SpeedMbps, mtu)
		hop.Basis = fmt.Sprintf("TCP over MTU %d with timestamps: %d payload bytes per %d on the wire", mtu, mtu-52, mtu+38)
	default:
		hop.Link, hop.Basis = orUnknown(n.Driver, "interface"), "link speed unknown"
	}
	hops = append(hops, hop)
	if n.Bus == "usb" {
		hops = append(hops, usbChain(sys, n.USBPath)...)
		shared = usbShared(sys, n.USBPath, n.Name)
	}
	return hops, shared
}

func usbNode(sys result.System, path string) *result.USBDevice {
	i := slices.IndexFunc(sys.USB, func(u result.USBDevice) bool { return u.Path == path })
	if i < 0 {
		return nil
	}
	return &sys.USB[i]
}

// usbChain walks from a USB device up to its root hub: each hop is the link
// into that node at the speed it negotiated.
func usbChain(sys result.System, path string) []result.Hop {
	var hops []result.Hop
	for seen := 0; path != "" && seen < 16; seen++ {
		u := usbNode(sys, path)
		if u == nil {
			hops = append(hops, result.Hop{Name: "USB device " + path, Basis: "not found in the USB tree"})
			break
		}
		hop := result.Hop{Name: usbName(*u)}
		if name, c, ok := usbCeiling(u.SpeedMbps); ok {
			hop.Link, hop.CeilingBytesPerSec = name, c
			hop.Basis = fmt.Sprintf("%gM negotiated", u.SpeedMbps)
			if u.SpeedMbps == 480 {
				hop.Basis += ": 13 bulk packets of 512 bytes per 125 us microframe"
			}
		} else {
			hop.Basis = "speed unknown"
		}
		hops = append(hops, hop)
		path = u.Parent
	}
	return hops
}

func usbName(u result.USBDevice) string {
	kind := "USB device"
	if u.Parent == "" {
		kind = "USB root hub"
	} else if u.Class == "Hub" {
		kind = "USB hub"
	}
	s := kind + " " + u.Path
	if len(u.Drivers) > 0 {
		s += " (" + strings.Join(u.Drivers, ", ") + ")"
	}
	return s
}

// usbShared lists the other disks and network interfaces on the same USB
// bus as path, with the hub they share: on a Pi 1 to 3 the Ethernet chip
// and every USB port sit behind one hub of one USB 2.0 bus.
func usbShared(sys result.System, path, self string) []string {
	if path == "" {
		return nil
	}
	ancestors := map[string]bool{}
	for p, n := path, 0; p != "" && n < 16; n++ {
		ancestors[p] = true
		u := usbNode(sys, p)
		if u == nil {
			break
		}
		p = u.Parent
	}
	var out []string
	add := func(name, kind, other string) {
		if name == self || other == "" || other == path {
			return
		}
		// The deepest hub both hang off.
		for p, n := other, 0; p != "" && n < 16; n++ {
			if ancestors[p] {
				u := usbNode(sys, p)
				out = append(out, fmt.Sprintf("%s (%s) behind %s%s", name, kind, usbName(*u), busy(sys, name)))
				return
			}
			u := usbNode(sys, p)
			if u == nil {
				return
			}
			p = u.Parent
		}
	}
	for _, d := range sys.BlockDevices {
		add(d.Name, orUnknown(d.Driver, "disk"), d.USBPath)
	}
	for _, n := range sys.NetInterfaces {
		add(n.Name, orUnknown(n.Driver, "network"), n.USBPath)
	}
	return out
}

// Judge finds the lowest ceiling on the chain and says what it means for
// a figure of bytesPerSec; network figures are worded in Mbit/s.
func Judge(figure string, bytesPerSec float64, hops []result.Hop, shared []string, network bool) result.Bottleneck {
	b := result.Bottleneck{Figure: figure, BytesPerSec: bytesPerSec, Hops: hops, Limit: -1, SharedWith: shared}
	for i, h := range hops {
		if h.CeilingBytesPerSec > 0 && (b.Limit < 0 || h.CeilingBytesPerSec < hops[b.Limit].CeilingBytesPerSec) {
			b.Limit = i
		}
	}
	rate := func(v float64) string {
		if network {
			return strconv.FormatFloat(v*8/1e6, 'f', 1, 64) + " Mbit/s"
		}
		return fmt.Sprintf("%.1f MiB/s", v/(1<<20))
	}
	if b.Limit < 0 {
		b.Verdict = fmt.Sprintf("%s: no ceiling is known on the way (%s), so no bottleneck can be named.", rate(bytesPerSec), hops[0].Basis)
		return b
	}
	lim := hops[b.Limit]
	b.Share = bytesPerSec / lim.CeilingBytesPerSec
	pct := fmt.Sprintf("%.0f %%", b.Share*100)
	ceil := rate(lim.CeilingBytesPerSec)
	what := fmt.Sprintf("the %s ceiling of %s at %s", lim.Link, ceil, lim.Name)
	switch {
	case b.Share > 1.05:
		b.Verdict = fmt.Sprintf("%s is %s of %s: above the link, so caches made part of it, or the link is faster than it reports.", rate(bytesPerSec), pct, what)
	case b.Share >= 0.75:
		b.Verdict = fmt.Sprintf("%s is %s of %s: that link is the likely bottleneck.", rate(bytesPerSec), pct, what)
	case b.Share >= 0.3:
		b.Verdict = fmt.Sprintf("%s is %s of %s, the lowest on the way: the link caps it there, but the device, filesystem or CPU holds it below.", rate(bytesPerSec), pct, what)
	default:
		b.Verdict = fmt.Sprintf("%s is only %s of %s, the lowest on the way: the device itself or the CPU is the limit, not a link.", rate(bytesPerSec), pct, what)
	}
	if len(shared) > 0 {
		b.Verdict += " The bus is shared with " + strings.Join(shared, "; ") + ": traffic there takes from this figure."
	}
	return b
}

func orUnknown(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// busyFloor is the traffic above which a device counts as busy during a
// run: more than a shell session or a log, enough to take from a bus.
const busyFloor = 100e3

// busy says what a device sharing the bus did while the run lasted, when
// that was measured.
func busy(sys result.System, name string) string {
	i := slices.IndexFunc(sys.Activity, func(a result.DeviceActivity) bool { return a.Device == name })
	switch {
	case i < 0:
		return ""
	case sys.Activity[i].BytesPerSec >= busyFloor:
		return fmt.Sprintf(", busy at %.1f MiB/s during the run", sys.Activity[i].BytesPerSec/(1<<20))
	}
	return ", idle during the run"
}
