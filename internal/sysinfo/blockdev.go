package sysinfo

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// virtualDisks are the name prefixes of block devices that are not hardware:
// listing every idle loop and ram disk would bury the disks that matter.
var virtualDisks = []string{"loop", "ram", "zram", "dm-"}

// mmcHardwarePart matches an eMMC's boot and RPMB areas, which the kernel
// lists as disks of their own although they are parts of the same chip.
var mmcHardwarePart = pattern.Lazy(`^mmcblk[0-9]+(boot[0-9]+|rpmb)$`)

// blockDevices lists the whole disks under /sys/block; keep names virtual
// ones that a target lives on.
func (fs FS) blockDevices(keep []string) []result.BlockDevice {
	entries, err := readDir(filepath.Join(fs.Sys, "block"))
	if err != nil {
		return nil
	}
	var out []result.BlockDevice
	for _, e := range entries {
		name := e.Name()
		skip := mmcHardwarePart().MatchString(name)
		for _, p := range virtualDisks {
			skip = skip || strings.HasPrefix(name, p)
		}
		if skip && !slices.Contains(keep, name) {
			continue
		}
		dir := resolve(filepath.Join(fs.Sys, "block", name))
		if dir == "" {
			continue
		}
		if exists(filepath.Join(dir, "partition")) {
			continue
		}
		out = append(out, fs.blockDevice(name, dir))
	}
	return out
}

func (fs FS) blockDevice(name, dir string) result.BlockDevice {
	d := result.BlockDevice{Name: name}
	dev := filepath.Join(dir, "device")
	q := filepath.Join(dir, "queue")
	if sectors := readPositive(filepath.Join(dir, "size")); sectors > 0 {
		// sysfs counts 512-byte sectors whatever the device's block size.
		d.SizeBytes = sectors * 512
	}
	d.Rotational = readBool(filepath.Join(q, "rotational"))
	d.Scheduler = scheduler(readValue(filepath.Join(q, "scheduler")))
	d.LogicalBlockSize = int(readPositive(filepath.Join(q, "logical_block_size")))
	d.PhysicalBlockSize = int(readPositive(filepath.Join(q, "physical_block_size")))

	a := fs.ancestry(dir)
	if subsys := a.nearest(nvmeSubsys); subsys != "" {
		// With native NVMe multipath the disk hangs off a virtual
		// subsystem; its controllers (nvme0 ...) link to the PCI devices.
		d.Bus = "nvme"
		d.Model = readValue(filepath.Join(subsys, "model"))
		ctrls := glob(filepath.Join(subsys, "nvme[0-9]*"))
		if len(ctrls) == 0 {
			return d
		}
		a = fs.ancestry(resolve(ctrls[0]))
	}
	d.PCISlot, d.PCIeLinkGTs, d.PCIeLinkWidth = pciLink(a)
	d.PCIePath = pcieLinks(a)
	switch {
	case a.nearest(usbIface) != "":
		iface := a.nearest(usbIface)
		d.Bus = "usb"
		d.Driver = linkBase(filepath.Join(iface, "driver"))
		d.USBPath = filepath.Base(filepath.Dir(iface))
		d.Model, d.Vendor = scsiIdentity(dev)
		d.DeviceID = usbDiskID(a, dev, filepath.Dir(iface))
	case a.nearest(ataPort) != "":
		port := a.nearest(ataPort)
		d.Bus = "sata"
		d.Driver = linkBase(filepath.Join(filepath.Dir(port), "driver"))
		d.SATALinkGbps = fs.sataSpeed(port)
		d.Model, d.Vendor = scsiIdentity(dev)
	case a.has("nvme"):
		d.Bus = "nvme"
		if d.Model == "" {
			d.Model = readValue(filepath.Join(dev, "model"))
		}
		if pci := a.nearest(pciAddr); pci != "" {
			d.Driver = linkBase(filepath.Join(pci, "driver"))
		}
	case a.has("mmc_host"):
		d.Bus = "mmc"
		d.Driver = linkBase(filepath.Join(dev, "driver"))
		d.Model = readValue(filepath.Join(dev, "name"))
		d.MMCCardType = readValue(filepath.Join(dev, "type"))
		d.Card = fs.cardIdentity(dev)
		if d.Card != nil {
			d.DeviceID = d.Card.DeviceID(d.MMCCardType == "MMC")
		}
		if host := a.nearest(mmcHost); host != "" {
			d.MMCTiming, d.MMCClockHz, d.MMCBusWidth = fs.mmcIOS(filepath.Base(host))
		}
	case a.nearest(virtioDev) != "":
		d.Bus = "virtio"
		d.Driver = linkBase(filepath.Join(dev, "driver"))
	case strings.HasPrefix(name, "loop"):
		d.Bus = "loop"
	case a.nearest(scsiHost) != "":
		d.Bus = "scsi"
		d.Driver = linkBase(filepath.Join(filepath.Dir(a.nearest(scsiHost)), "driver"))
		d.Model, d.Vendor = scsiIdentity(dev)
	}
	if d.DeviceID == "" && d.Bus != "usb" && d.Bus != "mmc" {
		d.DeviceID = diskID(dir, dev, d.Model)
	}
	return d
}

// diskID is a disk's own id: its world wide name or t10 id (wwid, beside
// the disk for NVMe, on the SCSI device for SATA and SCSI), else its
// serial (virtio's beside the disk, NVMe's on the controller).
func diskID(dir, dev, model string) string {
	for _, f := range []string{filepath.Join(dir, "wwid"), filepath.Join(dev, "wwid")} {
		if id := result.WWNDeviceID(readValue(f)); id != "" {
			return id
		}
	}
	for _, f := range []string{filepath.Join(dir, "serial"), filepath.Join(dev, "serial")} {
		if id := result.SerialDeviceID(model, readValue(f)); id != "" {
			return id
		}
	}
	return ""
}

// usbDiskID is a USB disk's id: the disk's world wide name when the bridge
// passes it on (UAS bridges to SATA and NVMe often do), else the bridge's
// vendor, product and serial, which is what a card reader or stick has,
// with the SCSI LUN when it is not 0 (a dual-disk bridge's second disk).
// A bridge's t10 id is not taken: it names the bridge's model, not a unit.
func usbDiskID(a ancestry, dev, usb string) string {
	if id := result.WWNDeviceID(readValue(filepath.Join(dev, "wwid"))); strings.HasPrefix(id, "wwn:") {
		return id
	}
	return result.USBDeviceID(readValue(filepath.Join(usb, "idVendor")), readValue(filepath.Join(usb, "idProduct")), readValue(filepath.Join(usb, "serial")), scsiLUN(a))
}

// scsiLUN is the LUN of the SCSI device in the chain (its name is
// host:channel:target:lun), "" when there is none.
func scsiLUN(a ancestry) string {
	if d := a.nearest(scsiDevice); d != "" {
		return filepath.Base(d)[strings.LastIndexByte(filepath.Base(d), ':')+1:]
	}
	return ""
}

var (
	ataPort    = pattern.Lazy(`^ata[0-9]+$`)
	mmcHost    = pattern.Lazy(`^mmc[0-9]+$`)
	virtioDev  = pattern.Lazy(`^virtio[0-9]+$`)
	scsiHost   = pattern.Lazy(`^host[0-9]+$`)
	nvmeSubsys = pattern.Lazy(`^nvme-subsys[0-9]+$`)
	scsiDevice = pattern.Lazy(`^[0-9]+:[0-9]+:[0-9]+:[0-9]+$`)
)

// scsiIdentity is the SCSI inquiry's model and vendor. libata writes "ATA"
// as the vendor of every SATA disk, which names nobody.
func scsiIdentity(dev string) (model, vendor string) {
	model = readValue(filepath.Join(dev, "model"))
	vendor = readValue(filepath.Join(dev, "vendor"))
	if vendor == "ATA" {
		vendor = ""
	}
	return model, vendor
}

// scheduler is the active I/O scheduler, the bracketed one of
// "mq-deadline kyber [bfq] none". A device with no choice prints one name
// bare.
func scheduler(s string) string {
	if open := strings.IndexByte(s, '['); open >= 0 {
		if end := strings.IndexByte(s[open:], ']'); end > 0 {
			return s[open+1 : open+end]
		}
		return ""
	}
	if f := strings.Fields(s); len(f) == 1 {
		return f[0]
	}
	return ""
}

// sataSpeed is the negotiated speed of the port's link in Gbit/s. Each ATA
// port holds its links as linkN/ata_link/linkN (linkN.M behind a port
// multiplier); /sys/class/ata_link has the same under the port's number.
func (fs FS) sataSpeed(port string) float64 {
	files := glob(filepath.Join(port, "link*/ata_link/link*/sata_spd"))
	files = append(files, filepath.Join(fs.Sys, "class/ata_link", "link"+strings.TrimPrefix(filepath.Base(port), "ata"), "sata_spd"))
	for _, f := range files {
		// "6.0 Gbps"; "<unknown>" on a link that is down.
		if fields := strings.Fields(readValue(f)); len(fields) > 0 {
			if v, err := strconv.ParseFloat(fields[0], 64); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

// mmcIOS reads the host's bus settings from debugfs, which only root can
// read and which may not be mounted: then they stay unknown.
//
//	clock:		50000000 Hz
//	actual clock:	50000000 Hz
//	bus width:	2 (4 bits)
//	timing spec:	2 (sd high-speed)
func (fs FS) mmcIOS(host string) (timing string, clockHz int64, busWidth int) {
	var clock, actual int64
	off := false
	_ = eachLine(filepath.Join(fs.Sys, "kernel/debug", host, "ios"), func(line string) error {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil
		}
		value = strings.TrimSpace(value)
		switch strings.TrimSpace(key) {
		case "clock":
			clock = leadingInt(value)
		case "actual clock":
			actual = leadingInt(value)
		case "bus width":
			// "2 (4 bits)": the code is log2 of the width.
			if _, rest, ok := strings.Cut(value, "("); ok {
				busWidth = int(leadingInt(rest))
			}
		case "power mode":
			// "0 (off)": the host is idle (an empty slot, or a card
			// the driver powered down); its other lines then describe
			// no bus.
			off = strings.HasPrefix(value, "0 ")
		case "timing spec":
			if _, rest, ok := strings.Cut(value, "("); ok {
				timing = strings.TrimSuffix(rest, ")")
			}
		}
		return nil
	})
	// The actual clock is what the host divider reached, which can be
	// below the clock the card was set up for.
	clockHz = clock
	if actual > 0 {
		clockHz = actual
	}
	if off || clockHz == 0 && timing == "legacy" {
		return "", 0, 0
	}
	return timing, clockHz, busWidth
}

// leadingInt parses the number a value starts with ("50000000 Hz").
func leadingInt(s string) int64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}
