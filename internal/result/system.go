package result

import (
	"fmt"
	"strconv"
	"strings"
)

// System is the hardware a run's data crosses, as `thruput sysinfo` shows
// it: what people record by hand with lsusb -t, ethtool, iw and
// /proc/interrupts before they explain a figure. Every field read from the
// machine; absent means it could not be read.
type System struct {
	CPU CPU `json:"cpu"`
	// BlockDevices are the whole disks (no partitions, loop or ram devices
	// unless a target sits on one).
	BlockDevices []BlockDevice `json:"block_devices,omitempty"`
	// USB is every device on every USB bus, root hubs included, in the
	// order lsusb -t prints them (depth first).
	USB []USBDevice `json:"usb,omitempty"`
	// NetInterfaces are the network interfaces except loopback.
	NetInterfaces []NetInterface `json:"net_interfaces,omitempty"`
	// Interrupts are the lines of /proc/interrupts that belong to the
	// devices above (USB controllers, mmc, NICs, disks).
	Interrupts []Interrupt `json:"interrupts,omitempty"`
	// Activity is what each disk and network interface moved while the
	// run lasted; absent outside a run (thruput sysinfo).
	Activity []DeviceActivity `json:"activity,omitempty"`
}

// DeviceActivity is one device's traffic over a run: bytes read plus
// written, or received plus sent, per second.
type DeviceActivity struct {
	Device      string  `json:"device"`
	BytesPerSec float64 `json:"bytes_per_sec"`
}

// CPU is the processor's clock and throttling state.
type CPU struct {
	// Frequencies of CPU 0 in kHz: now, and the bounds the governor keeps.
	// CurKHz is cpufreq's scaling_cur_freq, the clock the kernel asked
	// for: a Raspberry Pi's firmware runs the ARM slower behind it when it
	// throttles, which only Throttled tells.
	CurKHz int64 `json:"cur_khz,omitempty"`
	MinKHz int64 `json:"min_khz,omitempty"`
	MaxKHz int64 `json:"max_khz,omitempty"`
	// Governor is CPU 0's cpufreq governor.
	Governor string `json:"governor,omitempty"`
	// Throttled is the Raspberry Pi firmware's get_throttled bit field as
	// it reads it ("0x50005"), where the platform exposes it.
	Throttled string `json:"throttled,omitempty"`
	// ThrottledNow is true when the firmware says the clock is capped or
	// under-voltage right now (bits 0-3 of Throttled).
	ThrottledNow *bool `json:"throttled_now,omitempty"`
	// ThrottledSource says where Throttled was read: "vcio" (the firmware
	// mailbox, as vcgencmd asks) or "get_throttled" (the driver's file).
	ThrottledSource string `json:"throttled_source,omitempty"`
	// UnderVoltageNow is the raspberrypi-hwmon driver's under-voltage
	// alarm (rpi_volt in0_lcrit_alarm), where that driver is loaded.
	UnderVoltageNow *bool `json:"under_voltage_now,omitempty"`
	// ThrottledBits name the bits of Throttled that are set, as the
	// Raspberry Pi documentation words them ("under-voltage detected").
	ThrottledBits []string `json:"throttled_bits,omitempty"`
	// Temperatures are the thermal zones as read, now.
	Temperatures []ZoneTemperature `json:"temperatures,omitempty"`
}

// ZoneTemperature is one thermal zone's temperature at one moment.
type ZoneTemperature struct {
	// Zone is the sysfs name ("thermal_zone0"), Type what the driver calls
	// it ("cpu-thermal", "x86_pkg_temp").
	Zone    string  `json:"zone"`
	Type    string  `json:"type,omitempty"`
	Celsius float64 `json:"celsius"`
}

// BlockDevice is one disk and the bus it hangs off.
type BlockDevice struct {
	Name string `json:"name"`
	// DeviceID names the hardware itself, as Target.DeviceID.
	DeviceID          string `json:"device_id,omitempty"`
	Model             string `json:"model,omitempty"`
	Vendor            string `json:"vendor,omitempty"`
	SizeBytes         int64  `json:"size_bytes,omitempty"`
	Rotational        *bool  `json:"rotational,omitempty"`
	Scheduler         string `json:"scheduler,omitempty"`
	LogicalBlockSize  int    `json:"logical_block_size,omitempty"`
	PhysicalBlockSize int    `json:"physical_block_size,omitempty"`
	// Bus is mmc, usb, sata, nvme, virtio, scsi or loop.
	Bus string `json:"bus,omitempty"`
	// Driver is the driver closest to the device: usb-storage or uas on
	// USB, ahci, nvme, mmcblk, virtio_blk.
	Driver string `json:"driver,omitempty"`
	// USBPath is the USB device's sysfs name (1-1.2) when Bus is usb.
	USBPath string `json:"usb_path,omitempty"`
	// PCISlot is the PCI address of the controller or the NVMe device.
	PCISlot string `json:"pci_slot,omitempty"`
	// PCIeLinkGTs and PCIeLinkWidth are the negotiated PCIe link speed
	// (GT/s per lane) and lanes of that PCI device.
	PCIeLinkGTs   float64 `json:"pcie_link_gts,omitempty"`
	PCIeLinkWidth int     `json:"pcie_link_width,omitempty"`
	// SATALinkGbps is the negotiated SATA link speed (1.5, 3, 6).
	SATALinkGbps float64 `json:"sata_link_gbps,omitempty"`
	// MMCTiming is the SD or eMMC bus mode from debugfs or the card's
	// ios ("sd high-speed", "uhs sdr50", "mmc hs200"); MMCClockHz the clock.
	MMCTiming   string `json:"mmc_timing,omitempty"`
	MMCClockHz  int64  `json:"mmc_clock_hz,omitempty"`
	MMCBusWidth int    `json:"mmc_bus_width,omitempty"`
	// MMCCardType is the card's own "type" (SD, MMC, SDIO): an eMMC chip
	// and an SD card on the same host differ in the modes they can reach.
	MMCCardType string `json:"mmc_card_type,omitempty"`
	// Card is an SD card's or eMMC chip's identity and claims.
	Card *CardIdentity `json:"card,omitempty"`
	// PCIePath are the PCIe links between the device (or its USB or SATA
	// controller) and the root port, nearest first: a switch adds one.
	PCIePath []PCIeLink `json:"pcie_path,omitempty"`
}

// CardIdentity is what an SD card or eMMC chip says of itself: its CID
// register (decoded by the kernel and here) and, for SD cards, the spec
// version and classes in its SCR and SSR registers.
type CardIdentity struct {
	// CID is the raw register, 32 hex digits.
	CID string `json:"cid,omitempty"`
	// ManufacturerID ("0x03") and OEMID ("0x5344") as sysfs prints them.
	ManufacturerID string `json:"manufacturer_id,omitempty"`
	OEMID          string `json:"oem_id,omitempty"`
	// Maker is named only from a manufacturer/OEM pair genuine cards use.
	Maker    string `json:"maker,omitempty"`
	Name     string `json:"name,omitempty"`
	Revision string `json:"revision,omitempty"`
	Serial   string `json:"serial,omitempty"`
	// Date is the manufacturing month, "MM/YYYY".
	Date string `json:"date,omitempty"`
	// SpecVersion is the SD spec the card claims ("3.0x", "6.xx").
	SpecVersion string `json:"spec_version,omitempty"`
	// SpeedClass (C10), UHSClass (U1, U3), VideoClass (V30) and AppClass
	// (A1, A2) are the card's own claims from its SD Status.
	SpeedClass string `json:"speed_class,omitempty"`
	UHSClass   string `json:"uhs_class,omitempty"`
	VideoClass string `json:"video_class,omitempty"`
	AppClass   string `json:"app_class,omitempty"`
	// Suspect says why the ids match a known counterfeit pattern.
	Suspect string `json:"suspect,omitempty"`
}

// PCIeLink is one PCIe link, read at its downstream end: the device, or a
// switch's upstream port.
type PCIeLink struct {
	// Slot is the PCI address of that end ("0000:01:00.0").
	Slot   string `json:"slot"`
	Driver string `json:"driver,omitempty"`
	// GTs and Width are what the link trained to; MaxGTs and MaxWidth
	// the most both ends allow (the lower of the two ends' maxima).
	GTs      float64 `json:"gts,omitempty"`
	Width    int     `json:"width,omitempty"`
	MaxGTs   float64 `json:"max_gts,omitempty"`
	MaxWidth int     `json:"max_width,omitempty"`
	// Downgraded is true when the link trained below what both ends allow.
	Downgraded bool `json:"downgraded,omitempty"`
	// Hint says how to raise a link held down by the board's setting
	// (a Raspberry Pi 5 runs its PCIe connector at Gen 2 unless
	// dtparam=pciex1_gen=3 is set).
	Hint string `json:"hint,omitempty"`
}

// USBDevice is one node of the USB tree.
type USBDevice struct {
	// Path is the sysfs name: usb1 for a root hub, 1-1, 1-1.3 below it.
	Path string `json:"path"`
	// Parent is the Path of the hub it is plugged into; empty for a root hub.
	Parent string `json:"parent,omitempty"`
	Bus    int    `json:"bus"`
	// Port on the parent hub; 0 for a root hub.
	Port int `json:"port,omitempty"`
	// DevNum is the device's address on its bus, lsusb's "Dev".
	DevNum int `json:"devnum,omitempty"`
	// Ports is a hub's number of downstream ports (lsusb -t's "hub/3p"):
	// a device behind a hub shares the hub's upstream link with the rest.
	Ports int `json:"ports,omitempty"`
	// SpeedMbps is the negotiated speed: 1.5, 12, 480, 5000, 10000, 20000.
	SpeedMbps float64 `json:"speed_mbps,omitempty"`
	VendorID  string  `json:"vendor_id,omitempty"`
	ProductID string  `json:"product_id,omitempty"`
	Product   string  `json:"product,omitempty"`
	// Class is the device class, or of its first interface when the
	// device defers to them, as lsusb -t names it: Hub, Mass Storage,
	// Vendor Specific Class, Communications ...
	Class string `json:"class,omitempty"`
	// Drivers bound to its interfaces (hub, usb-storage, uas, smsc95xx,
	// r8152 ...); for a root hub, the host controller's driver first
	// (dwc_otg, xhci_hcd, ehci-pci).
	Drivers []string `json:"drivers,omitempty"`
	// USBVersion is the USB version the device declares (bcdUSB, sysfs
	// "version": "2.00", "3.20"); beside SpeedMbps it tells a USB 3 device
	// held at 480M by a USB 2 port, hub or cable.
	USBVersion string `json:"usb_version,omitempty"`
	// Bridge names a USB-SATA or USB-NVMe bridge chip from its VID:PID.
	Bridge string `json:"bridge,omitempty"`
	// UASIgnored is true when a usb-storage quirk ("u") makes the kernel
	// skip UAS for this device, leaving it on Bulk-Only usb-storage.
	UASIgnored bool `json:"uas_ignored,omitempty"`
}

// SlowerThanDeclared says when a device runs below the USB version it
// declares: "USB 3.0 device running at 480M: a USB 2 port, hub or cable".
func (u USBDevice) SlowerThanDeclared() string {
	v, err := strconv.ParseFloat(u.USBVersion, 64)
	if err != nil || u.SpeedMbps <= 0 || u.Parent == "" {
		return ""
	}
	if v >= 3 && u.SpeedMbps < 5000 {
		return fmt.Sprintf("USB %.1f device running at %gM: a USB 2 port, hub or cable", v, u.SpeedMbps)
	}
	if v >= 2 && u.SpeedMbps < 480 {
		return fmt.Sprintf("USB %.1f device running at %gM: a USB 1.1 port or hub", v, u.SpeedMbps)
	}
	return ""
}

// NetInterface is a network interface and what it hangs off.
type NetInterface struct {
	Name string `json:"name"`
	// DeviceID is "mac:" and the interface's permanent MAC address;
	// absent for virtual interfaces and addresses made up at random.
	DeviceID string `json:"device_id,omitempty"`
	Driver   string `json:"driver,omitempty"`
	// SpeedMbps and Duplex are the negotiated link (ethtool's figures);
	// absent without carrier or for virtual interfaces.
	SpeedMbps int    `json:"speed_mbps,omitempty"`
	Duplex    string `json:"duplex,omitempty"`
	MTU       int    `json:"mtu,omitempty"`
	Carrier   *bool  `json:"carrier,omitempty"`
	// Bus is usb, pci, platform (an SoC's own MAC), virtual, or sdio (the
	// WiFi chip of a Raspberry Pi 3, 4 and Zero W hangs off an SD host).
	Bus     string `json:"bus,omitempty"`
	USBPath string `json:"usb_path,omitempty"`
	PCISlot string `json:"pci_slot,omitempty"`
	// PCIePath are the PCIe links up to the root port, nearest first.
	PCIePath []PCIeLink `json:"pcie_path,omitempty"`
	// WiFi is the wireless link, for a wireless interface.
	WiFi *WiFiLink `json:"wifi,omitempty"`
	// Kind is the kernel's type of a virtual interface: bridge, bond,
	// vlan, veth, wlan (sysfs uevent DEVTYPE; veth from its peer link).
	Kind string `json:"kind,omitempty"`
	// Master is the bridge or bond the interface is a port of.
	Master string `json:"master,omitempty"`
	// Lower are the interfaces under this one: a bridge's ports, a bond's
	// slaves, a VLAN's parent.
	Lower []string `json:"lower,omitempty"`
	// Peer is a veth's other end, when it is in this namespace.
	Peer string `json:"peer,omitempty"`
	// SDIOHost is the mmc host of a WiFi chip on SDIO ("mmc1"), with the
	// bus clock and width from debugfs where readable.
	SDIOHost     string `json:"sdio_host,omitempty"`
	SDIOClockHz  int64  `json:"sdio_clock_hz,omitempty"`
	SDIOBusWidth int    `json:"sdio_bus_width,omitempty"`
}

// WiFiLink is the state of a wireless link.
type WiFiLink struct {
	// TxBitrateMbps is the PHY rate the last frames were sent at.
	TxBitrateMbps float64 `json:"tx_bitrate_mbps,omitempty"`
	FreqMHz       int     `json:"freq_mhz,omitempty"`
	Channel       int     `json:"channel,omitempty"`
	SignalDBm     int     `json:"signal_dbm,omitempty"`
	// LinkQuality is /proc/net/wireless's link value, where that is all
	// there is.
	LinkQuality int `json:"link_quality,omitempty"`
}

// Interrupt is one line of /proc/interrupts.
type Interrupt struct {
	IRQ string `json:"irq"`
	// Name is the last column: the device or driver ("dwc_otg", "mmc0",
	// "eth0", "xhci_hcd").
	Name   string  `json:"name"`
	PerCPU []int64 `json:"per_cpu"`
}

// Bottleneck explains one figure against the links its data crossed.
type Bottleneck struct {
	// Figure says what was measured: "read /mnt/usb", "net up via eth0".
	Figure string `json:"figure"`
	// BytesPerSec is the figure explained.
	BytesPerSec float64 `json:"bytes_per_sec"`
	// Hops are the links from the device up to the root, each with its
	// practical ceiling where one is known.
	Hops []Hop `json:"hops"`
	// Limit is the index in Hops of the lowest known ceiling, -1 if none.
	Limit int `json:"limit"`
	// Share is BytesPerSec over that ceiling.
	Share float64 `json:"share,omitempty"`
	// SharedWith names other disks and network interfaces behind a hop of
	// this chain: they compete for it when busy.
	SharedWith []string `json:"shared_with,omitempty"`
	// Verdict is the one-line explanation.
	Verdict string `json:"verdict"`
}

// Hop is one link on the way from a device to the root of its bus.
type Hop struct {
	// Name is the hop: "sda", "USB hub 1-1", "USB root hub usb1 (dwc_otg)".
	Name string `json:"name"`
	// Link is the kind of link, named with its speed ("USB 2.0 high speed").
	Link string `json:"link,omitempty"`
	// CeilingBytesPerSec is the practical bulk ceiling; absent if unknown.
	CeilingBytesPerSec float64 `json:"ceiling_bytes_per_sec,omitempty"`
	// Basis is why: the fact read and the arithmetic.
	Basis string `json:"basis,omitempty"`
}

// Unknown is how the tables print a fact that could not be read.
const Unknown = "unknown"

// figure prints a value with its unit, or Unknown for the zero that stands
// for absent.
func figure(v float64, unit string) string {
	if v <= 0 {
		return Unknown
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + unit
}

// MHz prints a clock given in kHz.
func MHz(khz int64) string { return figure(float64(khz)/1000, " MHz") }

// LinkText is the negotiated link a disk's data crosses, narrowest part
// first where two are known (a USB disk behind a PCIe controller), as
// thruput sysinfo and the report print it; usbSpeeds maps USB paths to
// their speed in Mbit/s.
func (d BlockDevice) LinkText(usbSpeeds map[string]float64) string {
	var parts []string
	switch d.Bus {
	case "usb":
		parts = append(parts, fmt.Sprintf("USB %s %s", d.USBPath, figure(usbSpeeds[d.USBPath], "M")))
	case "sata":
		parts = append(parts, "SATA "+figure(d.SATALinkGbps, " Gbit/s"))
	case "mmc":
		mode := Unknown
		if d.MMCTiming != "" || d.MMCClockHz > 0 {
			mode = strings.TrimSpace(fmt.Sprintf("%s %s", d.MMCTiming, figure(float64(d.MMCClockHz)/1e6, " MHz")))
			if d.MMCBusWidth > 0 {
				mode += fmt.Sprintf(" %d-bit", d.MMCBusWidth)
			}
		}
		parts = append(parts, strings.TrimSpace(d.MMCCardType+" "+mode))
	}
	if d.PCIeLinkGTs > 0 || d.PCIeLinkWidth > 0 {
		parts = append(parts, fmt.Sprintf("PCIe %s x%s", figure(d.PCIeLinkGTs, " GT/s"), figure(float64(d.PCIeLinkWidth), "")))
	}
	if len(parts) == 0 {
		return Unknown
	}
	return strings.Join(parts, " via ")
}

// Text sums a WiFi link up in one line: rate, channel, signal, quality.
func (w *WiFiLink) Text() string {
	if w == nil {
		return ""
	}
	var parts []string
	if w.TxBitrateMbps > 0 {
		parts = append(parts, fmt.Sprintf("tx %s Mbit/s", strconv.FormatFloat(w.TxBitrateMbps, 'f', -1, 64)))
	} else {
		parts = append(parts, "tx rate unknown")
	}
	if w.FreqMHz > 0 {
		parts = append(parts, fmt.Sprintf("%d MHz (channel %s)", w.FreqMHz, figure(float64(w.Channel), "")))
	}
	if w.SignalDBm != 0 {
		parts = append(parts, fmt.Sprintf("%d dBm", w.SignalDBm))
	}
	if w.LinkQuality > 0 {
		parts = append(parts, fmt.Sprintf("quality %d", w.LinkQuality))
	}
	return strings.Join(parts, ", ")
}

// Text is an SD card's or eMMC's identity in one line, as sysinfo and
// the report print it.
func (c CardIdentity) Text() string {
	maker := c.Maker
	if maker == "" {
		maker = "unknown maker"
	}
	parts := []string{strings.TrimSpace(maker + " " + c.Name)}
	parts = append(parts, "manfid/oemid "+c.ManufacturerID+"/"+c.OEMID)
	for _, kv := range [][2]string{{"rev ", c.Revision}, {"made ", c.Date}, {"serial ", c.Serial}, {"SD ", c.SpecVersion}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+kv[1])
		}
	}
	if classes := strings.TrimSpace(strings.Join([]string{c.SpeedClass, c.UHSClass, c.VideoClass, c.AppClass}, " ")); classes != "" {
		parts = append(parts, "claims "+strings.Join(strings.Fields(classes), " "))
	}
	if c.Suspect != "" {
		parts = append(parts, "SUSPECT: "+c.Suspect)
	}
	return strings.Join(parts, ", ")
}
