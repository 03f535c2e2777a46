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
	if t.FSType == "overlay" && t.OverlayUpperFS == "tmpfs" {
		return []result.Hop{{Name: "overlay " + t.Path, Link: "memory", Basis: "the overlay's upper directory is on a tmpfs: writes land in RAM (raspi-config's overlay root)"}}, nil
	}
	i := slices.IndexFunc(sys.BlockDevices, func(d result.BlockDevice) bool { return d.Name == t.Device })
	if t.Device == "" || i < 0 {
		return []result.Hop{{Name: orUnknown(t.Device, "the device under "+t.Path), Basis: "the block device and its bus could not be read"}}, nil
	}
	return Disk(sys, sys.BlockDevices[i])
}

// bulkOnly is what usb-storage's Bulk-Only Transport gets at each USB
// speed: one command, its data and its status per request, with no queue.
// At 480M usually 30 to 42 MB/s where UAS reaches 40 to 45; at 5 Gbit/s
// SSDs forced off UAS measure 180 to 300 MB/s where UAS passes 400. At
// full and low speed the link itself is all a disk gets (UAS needs high
// speed or better), so the disk's hop carries the link's figure and is
// still named for the protocol its requests wait on.
var bulkOnly = map[float64]float64{1.5: usbLow, 12: usbFull, 480: bulkOnlyUSB2, 5000: bulkOnlySuper, 10000: bulkOnlySuper, 20000: bulkOnlySuper}

// Disk is the chain of links under one block device.
func Disk(sys result.System, d result.BlockDevice) (hops []result.Hop, shared []string) {
	hop := result.Hop{Name: d.Name}
	if c := d.Card; c != nil {
		hop.Name += " (" + strings.TrimSpace(c.Maker+" "+c.Name) + ")"
	}
	pcie := d.PCIePath
	switch d.Bus {
	case "usb":
		u := usbNode(sys, d.USBPath)
		if u != nil && u.Bridge != "" {
			hop.Name += " (" + u.Bridge + ")"
		}
		if c, ok := bulkOnly[speedOf(u)]; ok && d.Driver == "usb-storage" {
			link, _, _ := usbCeiling(u.SpeedMbps)
			hop.Link, hop.CeilingBytesPerSec = link+" mass storage (Bulk-Only)", c
			hop.Basis = "usb-storage: one command, data and status per request, no queue"
			if u.UASIgnored {
				hop.Basis += "; UAS is disabled for this device by a usb-storage quirk"
			}
		} else {
			hop.Link, hop.Basis = "USB disk ("+orUnknown(d.Driver, "driver unknown")+")", "its link is the next hop"
		}
		if u != nil && u.SlowerThanDeclared() != "" {
			hop.Basis += "; " + u.SlowerThanDeclared()
		}
		hops = append(hops, hop)
		hops = append(hops, usbChain(sys, d.USBPath)...)
	case "mmc":
		if name, c, ok := mmcCeiling(d); ok {
			hop.Link, hop.CeilingBytesPerSec = name, c
			hop.Basis = "bus mode read from the mmc host's ios"
		} else {
			hop.Link, hop.Basis = "SD/MMC bus", "bus mode unknown (it is in debugfs, readable by root; an idle host reads as powered off)"
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
		if len(pcie) > 0 {
			hop = pcieHop(pcie[0], d.Name)
			pcie = pcie[1:]
		} else if name, c, ok := pcieCeiling(d.PCIeLinkGTs, d.PCIeLinkWidth); ok {
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
	hops = append(hops, pcieHops(pcie, d)...)
	return hops, sharedWith(sys, d.Name, d.USBPath, d.PCIePath)
}

func speedOf(u *result.USBDevice) float64 {
	if u == nil {
		return 0
	}
	return u.SpeedMbps
}

// pcieHops are the PCIe links above a device, or above its controller;
// without PCIePath (a result from before it was read), the controller's
// link alone.
func pcieHops(path []result.PCIeLink, d result.BlockDevice) []result.Hop {
	if len(path) == 0 && d.Bus != "nvme" && d.PCIeLinkGTs > 0 {
		if name, c, ok := pcieCeiling(d.PCIeLinkGTs, d.PCIeLinkWidth); ok {
			return []result.Hop{{Name: "controller " + d.PCISlot, Link: name, CeilingBytesPerSec: c, Basis: "negotiated PCIe link"}}
		}
	}
	var hops []result.Hop
	for i, l := range path {
		name := "PCIe " + l.Slot
		if l.Driver != "" {
			name += " (" + l.Driver + ")"
		}
		if i > 0 || d.Bus == "nvme" {
			name = "PCIe switch port " + l.Slot
		}
		hops = append(hops, pcieHop(l, name))
	}
	return hops
}

// pcieHop is one PCIe link with its ceiling, and whether it trained below
// what both ends allow.
func pcieHop(l result.PCIeLink, name string) result.Hop {
	h := result.Hop{Name: name}
	if link, c, ok := pcieCeiling(l.GTs, l.Width); ok {
		h.Link, h.CeilingBytesPerSec = link, c
		h.Basis = "negotiated PCIe link"
	} else {
		h.Link, h.Basis = "PCIe", "link speed unknown"
	}
	if l.Downgraded {
		h.Basis += fmt.Sprintf("; downgraded: both ends allow %g GT/s x%d", l.MaxGTs, l.MaxWidth)
	}
	if l.Hint != "" {
		h.Basis += "; " + l.Hint
	}
	return h
}

// usbNICs are USB network chips whose throughput is capped below their
// link by the USB side, keyed by VID:PID and USB speed.
var usbNICs = map[string]struct {
	speed   float64
	chip    string
	ceiling float64
	basis   string
}{
	// The Raspberry Pi 3 Model B+'s LAN7515 (enumerating as a LAN7800):
	// "Gigabit Ethernet over USB 2.0 (maximum throughput 300 Mbps)", the
	// Raspberry Pi 3 Model B+ product brief.
	"0424:7800": {480, "Microchip LAN7800/LAN7515", 300e6 / 8, "gigabit Ethernet behind USB 2.0: 300 Mbit/s at most (Raspberry Pi 3 Model B+ product brief)"},
	// The Raspberry Pi 1 B/B+, 2 B and 3 B's LAN9512/LAN9514 is a Fast
	// Ethernet controller: its link is 100 Mbit/s whatever USB 2.0 carries,
	// which matters when the link speed cannot be read (no carrier, or a
	// capture without it). usb.ids: "SMSC9512/9514 Fast Ethernet Adapter".
	"0424:ec00": {480, "Microchip LAN9512/LAN9514", EthernetGoodput(100, 1500), "10/100 Ethernet: TCP gets 94.1 Mbit/s of its 100 Mbit/s link at most"},
}

// Network is the chain under a network interface: a bridge, bond, VLAN or
// veth is walked down to the interface that has hardware under it.
func Network(sys result.System, ifname string) (hops []result.Hop, shared []string) {
	if ifname == "lo" {
		return []result.Hop{{Name: "lo", Link: "loopback", Basis: "memory to memory: no link"}}, nil
	}
	n, ok := netIf(sys, ifname)
	if !ok {
		return []result.Hop{{Name: orUnknown(ifname, "the interface"), Basis: "the interface could not be read"}}, nil
	}
	for depth := 0; n.Bus == "virtual" && depth < 8; depth++ {
		hop, next := virtualHop(sys, n)
		hops = append(hops, hop)
		if next == "" {
			return hops, nil
		}
		if n, ok = netIf(sys, next); !ok {
			return hops, nil
		}
	}
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
	switch n.Bus {
	case "usb":
		if u := usbNode(sys, n.USBPath); u != nil {
			if chip, ok := usbNICs[strings.ToLower(u.VendorID+":"+u.ProductID)]; ok && chip.speed == u.SpeedMbps {
				hops = append(hops, result.Hop{Name: fmt.Sprintf("USB network chip %s:%s (%s)", u.VendorID, u.ProductID, orUnknown(n.Driver, "driver unknown")),
					Link: chip.chip, CeilingBytesPerSec: chip.ceiling, Basis: chip.basis})
			}
		}
		hops = append(hops, usbChain(sys, n.USBPath)...)
	case "sdio":
		hops = append(hops, sdioHop(n))
	}
	hops = append(hops, pcieHops(n.PCIePath, result.BlockDevice{})...)
	return hops, sharedWith(sys, n.Name, n.USBPath, n.PCIePath)
}

func netIf(sys result.System, name string) (result.NetInterface, bool) {
	i := slices.IndexFunc(sys.NetInterfaces, func(n result.NetInterface) bool { return n.Name == name })
	if i < 0 {
		return result.NetInterface{}, false
	}
	return sys.NetInterfaces[i], true
}

// virtualHop is a hop for an interface with no hardware of its own, and
// the interface under it the traffic goes on to: a bridge's or bond's
// first port that has hardware (or its first port), a VLAN's parent.
func virtualHop(sys result.System, n result.NetInterface) (result.Hop, string) {
	h := result.Hop{Name: n.Name, Link: orUnknown(n.Kind, "virtual interface")}
	next := ""
	for _, l := range n.Lower {
		if reachesHardware(sys, l, 0) {
			next = l
			break
		}
	}
	if next == "" && len(n.Lower) > 0 {
		next = n.Lower[0]
	}
	switch n.Kind {
	case "bridge":
		h.Basis = "frames are forwarded in memory to its ports (" + strings.Join(n.Lower, ", ") + ")"
	case "bond":
		h.Basis = "one flow leaves by one of its slaves (" + strings.Join(n.Lower, ", ") + ")"
	case "vlan":
		h.Basis = "tagged frames go out on " + orUnknown(next, "its parent")
	case "veth":
		// Where the peer's frames go next (bridged, routed, NATed) is the
		// routing's choice, so the chain ends here.
		h.Basis = "frames are copied in memory to its peer"
		if n.Peer != "" {
			h.Basis += " " + n.Peer
			if p, ok := netIf(sys, n.Peer); ok && p.Master != "" {
				h.Basis += ", a port of " + p.Master
			}
		} else {
			h.Basis += " in another network namespace"
		}
		return h, ""
	default:
		h.Basis = "a virtual interface: no link of its own"
	}
	if next != "" {
		h.Basis += "; the chain follows " + next
	}
	return h, next
}

// reachesHardware reports whether an interface is hardware or stacks on
// some (a bond of NICs does; a veth does not).
func reachesHardware(sys result.System, name string, depth int) bool {
	n, ok := netIf(sys, name)
	switch {
	case !ok || depth > 8:
		return false
	case n.Bus != "virtual":
		return true
	}
	for _, l := range n.Lower {
		if reachesHardware(sys, l, depth+1) {
			return true
		}
	}
	return false
}

// sdioHop is the SDIO bus of a WiFi chip: clock times bus width.
func sdioHop(n result.NetInterface) result.Hop {
	h := result.Hop{Name: "SDIO " + orUnknown(n.SDIOHost, "host")}
	if n.SDIOClockHz > 0 && n.SDIOBusWidth > 0 {
		h.Link = fmt.Sprintf("SDIO at %g MHz, %d bit", float64(n.SDIOClockHz)/1e6, n.SDIOBusWidth)
		h.CeilingBytesPerSec = float64(n.SDIOClockHz) * float64(n.SDIOBusWidth) / 8
		h.Basis = fmt.Sprintf("bus clock from debugfs: %g Mbit/s raw", float64(n.SDIOClockHz)*float64(n.SDIOBusWidth)/1e6)
		return h
	}
	h.Link = "SDIO"
	h.Basis = "bus clock unknown (debugfs, readable by root); a Pi 3 or 4 runs it at 50 MHz x 4 bit = 200 Mbit/s"
	return h
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

// sharedWith lists the other disks and network interfaces that share a
// hop of this chain: the deepest USB hub both hang off (on a Pi 1 to 3 the
// Ethernet chip and every USB port sit behind one hub of one USB 2.0 bus),
// else a PCIe link both cross (a Pi 4's two USB buses behind the VL805's
// one lane, a Pi 5's USB and Ethernet behind RP1, two NVMe drives behind
// one switch).
func sharedWith(sys result.System, self, usbPath string, pcie []result.PCIeLink) []string {
	ancestors := map[string]bool{}
	for p, n := usbPath, 0; p != "" && n < 16; n++ {
		ancestors[p] = true
		u := usbNode(sys, p)
		if u == nil {
			break
		}
		p = u.Parent
	}
	slots := map[string]bool{}
	for _, l := range pcie {
		slots[l.Slot] = true
	}
	var out []string
	add := func(name, kind, other string, otherPCIe []result.PCIeLink) {
		if name == self {
			return
		}
		// The deepest node both hang off: the same USB device for two
		// disks of a dual-bay bridge (its LUNs), else a hub.
		for p, n := other, 0; p != "" && n < 16; n++ {
			u := usbNode(sys, p)
			if u == nil {
				break
			}
			if ancestors[p] {
				out = append(out, fmt.Sprintf("%s (%s) behind %s%s", name, kind, usbName(*u), busy(sys, name)))
				return
			}
			p = u.Parent
		}
		for _, l := range otherPCIe {
			if slots[l.Slot] {
				out = append(out, fmt.Sprintf("%s (%s) behind PCIe %s%s", name, kind, l.Slot, busy(sys, name)))
				return
			}
		}
	}
	for _, d := range sys.BlockDevices {
		add(d.Name, orUnknown(d.Driver, "disk"), d.USBPath, d.PCIePath)
	}
	for _, n := range sys.NetInterfaces {
		add(n.Name, orUnknown(n.Driver, "network"), n.USBPath, n.PCIePath)
	}
	return out
}

// Judge finds the lowest ceiling on the chain and says what it means for
// a figure of bytesPerSec; network figures are worded in Mbit/s.
func Judge(figure string, bytesPerSec float64, hops []result.Hop, shared []string, network bool) result.Bottleneck {
	b := result.Bottleneck{Figure: figure, BytesPerSec: bytesPerSec, Hops: hops, Limit: Lowest(hops), SharedWith: shared}
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

// Lowest is the index of the hop with the lowest known ceiling, -1 when
// no hop has one.
func Lowest(hops []result.Hop) int {
	low := -1
	for i, h := range hops {
		if h.CeilingBytesPerSec > 0 && (low < 0 || h.CeilingBytesPerSec < hops[low].CeilingBytesPerSec) {
			low = i
		}
	}
	return low
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
