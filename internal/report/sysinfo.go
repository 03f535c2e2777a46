package report

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

const unknown = "unknown"

// or gives s, or "unknown" when it is empty.
func or(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

// num prints a figure, or "unknown" for the zero that stands for absent.
func num[T int | int64 | float64](v T, suffix string) string {
	if v == 0 {
		return unknown
	}
	return strconv.FormatFloat(float64(v), 'f', -1, 64) + suffix
}

// yesNoUnknown is yesNo with the unknown named.
func yesNoUnknown(b *bool) string { return cmp.Or(yesNo(b), unknown) }

// WriteSysinfo prints `thruput sysinfo`'s table: the machine, then a section for each part of
// it, each a table of its own below a blank line.
func WriteSysinfo(w io.Writer, doc result.Sysinfo) error {
	for i, t := range sysinfoTables(doc) {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := t.Print(w, false); err != nil {
			return err
		}
	}
	return nil
}

func sysinfoTables(doc result.Sysinfo) []Table {
	h := doc.Host
	board := or(h.Board)
	if h.SoC != "" {
		board += " (" + h.SoC + ")"
	}
	cpu := or(h.CPUModel)
	if h.CPUCore != "" && h.CPUCore != h.CPUModel {
		cpu += " (" + h.CPUCore + ")"
	}
	userland := or(h.UserlandArch)
	if h.UserlandBits > 0 {
		userland += fmt.Sprintf(" (%d-bit)", h.UserlandBits)
	}
	host := Table{Left: true, Rows: [][]string{
		{"Host", fmt.Sprintf("%s: %s, %s, %s cores, %s RAM", or(h.Hostname), board, cpu, num(h.CPUCores, ""), sizeOr(h.MemoryBytes))},
		{"OS", fmt.Sprintf("%s, kernel %s %s, userland %s", or(h.OS), or(h.Kernel), or(h.Arch), userland)},
		{"CPU", CPULine(doc.System.CPU)},
	}}
	if line := inferredLine(h); line != "" {
		host.Rows = append(host.Rows, []string{"Inferred", line})
	}

	usb := Table{Title: "USB", Left: true}
	if len(doc.System.USB) == 0 {
		usb.Rows = append(usb.Rows, []string{"no USB devices found"})
	}
	depth := map[string]int{}
	speeds := map[string]float64{}
	for _, d := range doc.System.USB {
		usb.Rows = append(usb.Rows, []string{usbLine(d, depth)})
		if warn := d.SlowerThanDeclared(); warn != "" {
			usb.Rows = append(usb.Rows, []string{strings.Repeat("    ", depth[d.Path]) + "    ! " + warn})
		}
		speeds[d.Path] = d.SpeedMbps
	}

	disks := Table{Title: "Block devices", Left: true,
		Header: []string{"NAME", "MODEL", "SIZE", "BUS", "DRIVER", "LINK", "ROTATIONAL", "SCHEDULER", "BLOCK (LOGICAL/PHYSICAL)"}}
	for _, d := range doc.System.BlockDevices {
		model := strings.TrimSpace(d.Vendor + " " + d.Model)
		disks.Rows = append(disks.Rows, []string{d.Name, or(model), sizeOr(d.SizeBytes), or(d.Bus), or(d.Driver),
			d.LinkText(speeds), yesNoUnknown(d.Rotational), or(d.Scheduler), num(d.LogicalBlockSize, "") + "/" + num(d.PhysicalBlockSize, "")})
		if d.DeviceID != "" {
			disks.Rows = append(disks.Rows, []string{"  id", d.DeviceID})
		}
		if c := d.Card; c != nil {
			disks.Rows = append(disks.Rows, []string{"  card", c.Text()})
		}
		for _, l := range d.PCIePath {
			if l.Downgraded {
				disks.Rows = append(disks.Rows, []string{"  PCIe " + l.Slot, fmt.Sprintf("%g GT/s x%d, downgraded from %g GT/s x%d %s", l.GTs, l.Width, l.MaxGTs, l.MaxWidth, l.Hint)})
			}
		}
	}

	nics := Table{Title: "Network interfaces", Left: true, Header: []string{"NAME", "DRIVER", "BUS", "AT", "CARRIER", "LINK", "MTU", "WIFI", "ID"}}
	for _, n := range doc.System.NetInterfaces {
		at := n.USBPath + n.PCISlot
		if n.USBPath != "" {
			at = fmt.Sprintf("%s (%s)", n.USBPath, num(speeds[n.USBPath], "M"))
		}
		link := unknown
		if n.SpeedMbps > 0 {
			link = strings.TrimSpace(fmt.Sprintf("%d Mbit/s %s", n.SpeedMbps, n.Duplex))
		}
		nics.Rows = append(nics.Rows, []string{n.Name, or(n.Driver), or(n.Bus), or(at), yesNoUnknown(n.Carrier), link, num(n.MTU, ""), n.WiFi.Text(), n.DeviceID})
	}

	tables := []Table{host, usb, disks, nics, interruptsTable(doc.System.Interrupts)}
	for _, c := range doc.Chains {
		t := Table{Title: fmt.Sprintf("Chain of %s (%s)", c.Of, c.Kind), Left: true, Header: []string{"HOP", "LINK", "CEILING", "BASIS"}}
		for i, h := range c.Hops {
			mark := ""
			if i == c.Limit {
				mark = " <- lowest"
			}
			t.Rows = append(t.Rows, []string{h.Name, or(h.Link), ceilingText(h.CeilingBytesPerSec, c.Kind == "interface") + mark, h.Basis})
		}
		for _, s := range c.SharedWith {
			t.Rows = append(t.Rows, []string{"shared with", s})
		}
		tables = append(tables, t)
	}

	if len(doc.Targets) > 0 {
		t := Table{Title: "Targets", Left: true, Header: []string{"PATH", "FILESYSTEM", "MOUNT", "SOURCE", "DEVICE", "MODEL", "FREE", "ID"}}
		for _, tg := range doc.Targets {
			dev := tg.Device
			if tg.Partition != "" {
				dev = tg.Partition
			}
			t.Rows = append(t.Rows, []string{tg.Path, or(tg.FSType), or(tg.MountPoint), or(tg.MountSource), or(dev), or(tg.DeviceModel), sizeOr(tg.FreeBytes), tg.DeviceID})
		}
		tables = append(tables, t)
	}
	return tables
}

// interruptsTable counts each device's interrupts on each CPU.
func interruptsTable(irqs []result.Interrupt) Table {
	t := Table{Title: "Interrupts", Left: true}
	if len(irqs) == 0 {
		t.Rows = [][]string{{"none found for these devices"}}
		return t
	}
	t.Header = []string{"IRQ"}
	for i := range irqs[0].PerCPU {
		t.Header = append(t.Header, "CPU"+strconv.Itoa(i))
	}
	t.Header = append(t.Header, "NAME")
	for _, irq := range irqs {
		row := []string{irq.IRQ}
		for _, c := range irq.PerCPU {
			row = append(row, strconv.FormatInt(c, 10))
		}
		t.Rows = append(t.Rows, append(row, irq.Name))
	}
	return t
}

func sizeOr(n int64) string { return cmp.Or(sizeOrEmpty(n), unknown) }

// usbLine draws one node as lsusb -t does, a device per line rather than
// an interface per line: the drivers of all its interfaces are listed.
func usbLine(d result.USBDevice, depth map[string]int) string {
	speed := num(d.SpeedMbps, "M")
	ids := usbProduct(d)
	if d.VendorID != "" {
		ids = "  " + ids
	}
	if d.Parent == "" {
		depth[d.Path] = 0
		drv := unknown
		if len(d.Drivers) > 0 {
			drv = d.Drivers[0]
		}
		if d.Ports > 0 {
			drv += fmt.Sprintf("/%dp", d.Ports)
		}
		return fmt.Sprintf("/:  Bus %02d.Port 1: Dev %s, Class=root_hub, Driver=%s, %s%s", d.Bus, num(d.DevNum, ""), drv, speed, strings.TrimRight(ids, " "))
	}
	level := depth[d.Parent] + 1
	depth[d.Path] = level
	drv := or(strings.Join(d.Drivers, ","))
	if d.Ports > 0 {
		drv += fmt.Sprintf("/%dp", d.Ports)
	}
	return fmt.Sprintf("%s|__ Port %d: Dev %s, Class=%s, Driver=%s, %s%s", strings.Repeat("    ", level), d.Port, num(d.DevNum, ""), or(d.Class), drv, speed, strings.TrimRight(ids, " "))
}

// usbProduct describes a USB device for the sysinfo tree and the HTML
// table: its ids and product when it has ids, then the USB version a
// device under a hub speaks, its bridge chip and a UAS quirk.
func usbProduct(d result.USBDevice) string {
	s := ""
	if d.VendorID != "" {
		s = strings.TrimSpace(d.VendorID + ":" + d.ProductID + " " + strings.TrimSpace(d.Product))
	}
	if d.USBVersion != "" && d.Parent != "" {
		s += ", USB " + d.USBVersion
	}
	if d.Bridge != "" {
		s += ", " + d.Bridge
	}
	if d.UASIgnored {
		s += ", UAS off by quirk"
	}
	return s
}

// ceilingText prints a hop's ceiling, in Mbit/s for a network chain.
func ceilingText(bytesPerSec float64, network bool) string {
	switch {
	case bytesPerSec <= 0:
		return unknown
	case network:
		return fmt.Sprintf("%.0f Mbit/s", bytesPerSec*8/1e6)
	}
	return fmt.Sprintf("%.1f MB/s", bytesPerSec/1e6)
}

// inferredLine says which host facts were worked out rather than read,
// and from what: "soc, cpu_core, arch from kernel release suffix -v7+,
// peripheral address 3f980000"; "" when all were read.
func inferredLine(h result.Host) string {
	if len(h.Inferred) == 0 {
		return ""
	}
	line := strings.Join(h.Inferred, ", ")
	if len(h.InferredFrom) > 0 {
		line += " from " + strings.Join(h.InferredFrom, ", ")
	}
	return line
}
