package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// sysinfoDoc is what `thruput sysinfo --json` prints. Its three keys are
// always present, so scripts can index them without checking.
type sysinfoDoc struct {
	Host    result.Host     `json:"host"`
	System  result.System   `json:"system"`
	Targets []result.Target `json:"targets"`
}

func newSysinfoCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "sysinfo [PATH...]",
		Short: "Show the hardware data crosses here: USB tree, disks, NICs, CPU clock, interrupts",
		Long: `Print what people gather by hand with lsusb -t, ethtool, iw and
/proc/interrupts before they explain a figure: the USB tree with speeds and
drivers, each disk's bus and negotiated link (USB, SATA, PCIe, SD bus mode),
each network interface's driver and link, the CPU clock and Raspberry Pi
throttling, and the interrupt counts of those devices. For each PATH, the
filesystem, mount and device it lives on.

Everything is read from /proc and /sys without root, except the SD/eMMC bus
mode, which is in debugfs: run as root to see it. A fact that cannot be read
prints as "unknown" (and is absent from --json).`,
		Example: `  thruput sysinfo
  thruput sysinfo /mnt/usb /home/pi
  thruput sysinfo --json`,
		RunE: func(_ *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			if format != "table" && format != "json" {
				return usage.Errorf("sysinfo prints a table or json, not %s", format)
			}
			doc, err := readSysinfo(sysinfo.Default(), args)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error {
				if format == "json" {
					return writeJSON(w, doc)
				}
				return writeSysinfoTable(w, doc)
			})
		},
	}
}

// readSysinfo gathers the document. A path that does not exist is the
// user's mistake; one whose mount cannot be found is the machine's.
func readSysinfo(sfs sysinfo.FS, args []string) (sysinfoDoc, error) {
	doc := sysinfoDoc{Host: sfs.Host(), Targets: []result.Target{}}
	var paths []string
	for _, arg := range args {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return doc, usage.Errorf("%s: %w", arg, err)
		}
		if _, err := os.Stat(abs); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return doc, usage.Errorf("%s does not exist", arg)
			}
			return doc, fmt.Errorf("%s: %w", arg, err)
		}
		t, err := sfs.Target(abs)
		if err != nil {
			return doc, fmt.Errorf("%s: %w", arg, err)
		}
		var st unix.Statfs_t
		if unix.Statfs(abs, &st) == nil {
			t.FreeBytes = int64(st.Bavail) * int64(st.Bsize)
		}
		doc.Targets = append(doc.Targets, t)
		paths = append(paths, abs)
	}
	doc.System = sfs.System(paths...)
	return doc, nil
}

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
	fmt.Fprintf(tw, "Host\t%s: %s, %s, %s cores, %s RAM\n", or(h.Hostname), board, or(h.CPUModel), num(h.CPUCores, ""), sizeOr(h.MemoryBytes))
	fmt.Fprintf(tw, "OS\t%s, kernel %s, %s\n", or(h.OS), or(h.Kernel), or(h.Arch))
	fmt.Fprintf(tw, "CPU\t%s\n", cpuLine(doc.System.CPU))

	section("USB")
	if len(doc.System.USB) == 0 {
		fmt.Fprintln(tw, "no USB devices found")
	}
	depth := map[string]int{}
	for _, d := range doc.System.USB {
		fmt.Fprintln(tw, usbLine(d, depth))
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
	s := fmt.Sprintf("%s now, %s to %s, governor %s", result.MHz(c.CurKHz), result.MHz(c.MinKHz), result.MHz(c.MaxKHz), or(c.Governor))
	if c.Throttled != "" {
		s += ", throttled " + c.Throttled
		if c.ThrottledNow != nil && *c.ThrottledNow {
			s += " (capped or under-voltage now)"
		}
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
