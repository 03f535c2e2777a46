package sysinfo

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// usbClasses names USB class codes as lsusb -t does (from usb.ids).
var usbClasses = map[string]string{
	"01": "Audio",
	"02": "Communications",
	"03": "Human Interface Device",
	"05": "Physical Interface Device",
	"06": "Imaging",
	"07": "Printer",
	"08": "Mass Storage",
	"09": "Hub",
	"0a": "CDC Data",
	"0b": "Chip/SmartCard",
	"0d": "Content Security",
	"0e": "Video",
	"0f": "Personal Healthcare",
	"10": "Audio/Video",
	"11": "Billboard",
	"12": "Type-C Bridge",
	"dc": "Diagnostic",
	"e0": "Wireless",
	"ef": "Miscellaneous Device",
	"fe": "Application Specific Interface",
	"ff": "Vendor Specific Class",
}

// usbTree lists the devices under /sys/bus/usb/devices, depth first as
// lsusb -t draws them.
func (fs FS) usbTree() []result.USBDevice {
	dir := filepath.Join(fs.Sys, "bus/usb/devices")
	entries, err := readDir(dir)
	if err != nil {
		return nil
	}
	// Interfaces carry the drivers and, for composite devices, the class.
	ifaces := map[string][]string{}
	uasIgnored := fs.uasIgnored()
	var devs []result.USBDevice
	for _, e := range entries {
		name := e.Name()
		if usbIface().MatchString(name) {
			// A root hub's interfaces are named after its bus: 1-0:1.0.
			dev, _, _ := strings.Cut(name, ":")
			ifaces[dev] = append(ifaces[dev], name)
		} else if usbDev().MatchString(name) {
			d := fs.usbDevice(dir, name)
			if d.VendorID != "" {
				id := strings.ToLower(d.VendorID + ":" + d.ProductID)
				d.Bridge = bridgeName(d.VendorID, d.ProductID)
				d.UASIgnored = uasIgnored[id]
			}
			devs = append(devs, d)
		}
	}
	for i := range devs {
		d := &devs[i]
		key := d.Path
		if d.Parent == "" {
			key = strconv.Itoa(d.Bus) + "-0"
		}
		names := ifaces[key]
		slices.SortFunc(names, func(a, b string) int { return cmp.Compare(ifaceNumber(a), ifaceNumber(b)) })
		for _, n := range names {
			idir := filepath.Join(dir, n)
			if d.Class == "" {
				d.Class = usbClasses[strings.ToLower(readValue(filepath.Join(idir, "bInterfaceClass")))]
			}
			if drv := linkBase(filepath.Join(idir, "driver")); drv != "" && !slices.Contains(d.Drivers, drv) {
				d.Drivers = append(d.Drivers, drv)
			}
		}
	}
	return usbOrder(devs)
}

// usbDevice reads one device (not interface) node.
func (fs FS) usbDevice(dir, name string) result.USBDevice {
	p := filepath.Join(dir, name)
	d := result.USBDevice{
		Path:      name,
		Bus:       int(readPositive(filepath.Join(p, "busnum"))),
		DevNum:    int(readPositive(filepath.Join(p, "devnum"))),
		VendorID:  readValue(filepath.Join(p, "idVendor")),
		ProductID: readValue(filepath.Join(p, "idProduct")),
		Product:   readValue(filepath.Join(p, "product")),
		Ports:     int(readPositive(filepath.Join(p, "maxchild"))),
		// bcdUSB, printed with a leading space (" 3.20").
		USBVersion: readValue(filepath.Join(p, "version")),
	}
	if v, err := strconv.ParseFloat(readValue(filepath.Join(p, "speed")), 64); err == nil && v > 0 {
		d.SpeedMbps = v
	}
	// The class code 00 defers to the interfaces, read afterwards.
	if c := strings.ToLower(readValue(filepath.Join(p, "bDeviceClass"))); c != "00" {
		d.Class = usbClasses[c]
	}
	if bus, ok := strings.CutPrefix(name, "usb"); ok {
		if d.Bus == 0 {
			d.Bus, _ = strconv.Atoi(bus)
		}
		// The root hub's parent device is the host controller, whose
		// driver (dwc_otg, xhci_hcd, ehci-pci) names the real hardware.
		if real := resolve(p); real != "" {
			if hcd := linkBase(filepath.Join(filepath.Dir(real), "driver")); hcd != "" {
				d.Drivers = append(d.Drivers, hcd)
			}
		}
		return d
	}
	busText, chain, _ := strings.Cut(name, "-")
	if d.Bus == 0 {
		d.Bus, _ = strconv.Atoi(busText)
	}
	if i := strings.LastIndexByte(chain, '.'); i >= 0 {
		d.Parent = busText + "-" + chain[:i]
		d.Port, _ = strconv.Atoi(chain[i+1:])
	} else {
		d.Parent = "usb" + busText
		d.Port, _ = strconv.Atoi(chain)
	}
	return d
}

// ifaceNumber orders "1-1.2:1.0" by configuration and interface.
func ifaceNumber(name string) int {
	_, ci, _ := strings.Cut(name, ":")
	c, i, _ := strings.Cut(ci, ".")
	cn, _ := strconv.Atoi(c)
	in, _ := strconv.Atoi(i)
	return cn<<16 | in
}

// usbOrder puts devices in lsusb -t's order: buses by number, then each
// hub's children by port, depth first.
func usbOrder(devs []result.USBDevice) []result.USBDevice {
	children := map[string][]result.USBDevice{}
	known := map[string]bool{}
	for _, d := range devs {
		known[d.Path] = true
	}
	var roots []result.USBDevice
	for _, d := range devs {
		// A device whose hub is not listed still belongs in the output.
		if d.Parent == "" || !known[d.Parent] {
			roots = append(roots, d)
			continue
		}
		children[d.Parent] = append(children[d.Parent], d)
	}
	byPlace := func(a, b result.USBDevice) int {
		return cmp.Or(cmp.Compare(a.Bus, b.Bus), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Path, b.Path))
	}
	out := make([]result.USBDevice, 0, len(devs))
	var walk func([]result.USBDevice)
	walk = func(level []result.USBDevice) {
		slices.SortFunc(level, byPlace)
		for _, d := range level {
			out = append(out, d)
			walk(children[d.Path])
		}
	}
	walk(roots)
	return out
}
