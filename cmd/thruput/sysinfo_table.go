package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
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

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return unknown
	case *b:
		return "yes"
	}
	return "no"
}

func writeSysinfoTable(w io.Writer, doc sysinfoDoc) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	section := func(title string) { fmt.Fprintf(tw, "\n%s\n", title) }
	h := doc.Host
	board := or(h.Board)
	if h.SoC != "" {
		board += " (" + h.SoC + ")"
	}
	cpu := or(h.CPUModel)
	if h.CPUCore != "" && h.CPUCore != h.CPUModel {
		cpu += " (" + h.CPUCore + ")"
	}
	fmt.Fprintf(tw, "Host\t%s: %s, %s, %s cores, %s RAM\n", or(h.Hostname), board, cpu, num(h.CPUCores, ""), sizeOr(h.MemoryBytes))
	userland := or(h.UserlandArch)
	if h.UserlandBits > 0 {
		userland += fmt.Sprintf(" (%d-bit)", h.UserlandBits)
	}
	fmt.Fprintf(tw, "OS\t%s, kernel %s %s, userland %s\n", or(h.OS), or(h.Kernel), or(h.Arch), userland)
	fmt.Fprintf(tw, "CPU\t%s\n", cpuLine(doc.System.CPU))

	section("USB")
	if len(doc.System.USB) == 0 {
		fmt.Fprintln(tw, "no USB devices found")
	}
	depth := map[string]int{}
	for _, d := range doc.System.USB {
		fmt.Fprintln(tw, usbLine(d, depth))
		if warn := d.SlowerThanDeclared(); warn != "" {
			fmt.Fprintf(tw, "%s    ! %s\n", strings.Repeat("    ", depth[d.Path]), warn)
		}
	}

	speeds := map[string]float64{}
	for _, d := range doc.System.USB {
		speeds[d.Path] = d.SpeedMbps
	}
	section("Block devices")
	fmt.Fprintln(tw, "NAME\tMODEL\tSIZE\tBUS\tDRIVER\tLINK\tROTATIONAL\tSCHEDULER\tBLOCK (LOGICAL/PHYSICAL)")
	for _, d := range doc.System.BlockDevices {
		model := strings.TrimSpace(d.Vendor + " " + d.Model)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\n", d.Name, or(model), sizeOr(d.SizeBytes), or(d.Bus), or(d.Driver),
			d.LinkText(speeds), yesNo(d.Rotational), or(d.Scheduler), num(d.LogicalBlockSize, ""), num(d.PhysicalBlockSize, ""))
		if c := d.Card; c != nil {
			fmt.Fprintf(tw, "  card\t%s\n", c.Text())
		}
		for _, l := range d.PCIePath {
			if l.Downgraded {
				fmt.Fprintf(tw, "  PCIe %s\t%g GT/s x%d, downgraded from %g GT/s x%d %s\n", l.Slot, l.GTs, l.Width, l.MaxGTs, l.MaxWidth, l.Hint)
			}
		}
	}

	section("Network interfaces")
	fmt.Fprintln(tw, "NAME\tDRIVER\tBUS\tAT\tCARRIER\tLINK\tMTU\tWIFI")
	for _, n := range doc.System.NetInterfaces {
		at := n.USBPath + n.PCISlot
		if n.USBPath != "" {
			at = fmt.Sprintf("%s (%s)", n.USBPath, num(speeds[n.USBPath], "M"))
		}
		link := unknown
		if n.SpeedMbps > 0 {
			link = strings.TrimSpace(fmt.Sprintf("%d Mbit/s %s", n.SpeedMbps, n.Duplex))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, or(n.Driver), or(n.Bus), or(at), yesNo(n.Carrier), link, num(n.MTU, ""), n.WiFi.Text())
	}

	section("Interrupts")
	if len(doc.System.Interrupts) == 0 {
		fmt.Fprintln(tw, "none found for these devices")
	} else {
		head := []string{"IRQ"}
		for i := range doc.System.Interrupts[0].PerCPU {
			head = append(head, "CPU"+strconv.Itoa(i))
		}
		fmt.Fprintln(tw, strings.Join(append(head, "NAME"), "\t"))
		for _, irq := range doc.System.Interrupts {
			row := []string{irq.IRQ}
			for _, c := range irq.PerCPU {
				row = append(row, strconv.FormatInt(c, 10))
			}
			fmt.Fprintln(tw, strings.Join(append(row, irq.Name), "\t"))
		}
	}

	for _, c := range doc.Chains {
		section(fmt.Sprintf("Chain of %s (%s)", c.Of, c.Kind))
		fmt.Fprintln(tw, "HOP\tLINK\tCEILING\tBASIS")
		for i, h := range c.Hops {
			mark := ""
			if i == c.Limit {
				mark = " <- lowest"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s%s\t%s\n", h.Name, or(h.Link), ceilingText(h.CeilingBytesPerSec, c.Kind == "interface"), mark, h.Basis)
		}
		for _, s := range c.SharedWith {
			fmt.Fprintf(tw, "shared with\t%s\n", s)
		}
	}

	if len(doc.Targets) > 0 {
		section("Targets")
		fmt.Fprintln(tw, "PATH\tFILESYSTEM\tMOUNT\tSOURCE\tDEVICE\tMODEL\tFREE")
		for _, t := range doc.Targets {
			dev := t.Device
			if t.Partition != "" {
				dev = t.Partition
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Path, or(t.FSType), or(t.MountPoint), or(t.MountSource), or(dev), or(t.DeviceModel), sizeOr(t.FreeBytes))
		}
	}
	return tw.Flush()
}

func sizeOr(n int64) string {
	if n <= 0 {
		return unknown
	}
	return units.IEC(n)
}

func cpuLine(c result.CPU) string {
	var s string
	if c.CurKHz == 0 && c.MinKHz == 0 && c.MaxKHz == 0 && c.Governor == "" {
		// A VM or a kernel without cpufreq: nothing to say of the clock.
		s = "clock not exposed (no cpufreq: a virtual machine, or a kernel without it)"
	} else {
		s = fmt.Sprintf("%s now (asked of cpufreq), %s to %s, governor %s", result.MHz(c.CurKHz), result.MHz(c.MinKHz), result.MHz(c.MaxKHz), or(c.Governor))
	}
	if c.Throttled != "" {
		s += ", throttled " + c.Throttled
		if c.ThrottledNow != nil && *c.ThrottledNow {
			s += " (capped or under-voltage now: the firmware runs below that clock)"
		}
	}
	if c.UnderVoltageNow != nil && *c.UnderVoltageNow {
		s += ", under-voltage now (rpi_volt)"
	}
	return s
}

// usbLine draws one node as lsusb -t does, a device per line rather than
// an interface per line: the drivers of all its interfaces are listed.
func usbLine(d result.USBDevice, depth map[string]int) string {
	speed := num(d.SpeedMbps, "M")
	ids := ""
	if d.VendorID != "" {
		ids = fmt.Sprintf("  %s:%s %s", d.VendorID, d.ProductID, d.Product)
	}
	if d.USBVersion != "" && d.Parent != "" {
		ids += ", USB " + d.USBVersion
	}
	if d.Bridge != "" {
		ids += ", " + d.Bridge
	}
	if d.UASIgnored {
		ids += ", UAS off by quirk"
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
