package sysinfo

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
)

// fillDevice adds what sysfs says about the block device under the mount.
// The device's sysfs directory is read directly: /sys/block/<dev> is only a
// symlink to it.
func (fs FS) fillDevice(t *result.Target, m mount) {
	node := fs.blockNode(m)
	if node == "" {
		return
	}
	dev := node
	if exists(filepath.Join(node, "partition")) {
		t.Partition = filepath.Base(node)
		dev = filepath.Dir(node)
	}
	t.Device = filepath.Base(dev)
	t.DeviceModel = deviceModel(dev)
	t.DeviceID = fs.blockDevice(t.Device, dev).DeviceID
	t.LoopBackingFile = readValue(filepath.Join(dev, "loop/backing_file"))
	if n, err := strconv.Atoi(readValue(filepath.Join(dev, "queue/logical_block_size"))); err == nil && n > 0 {
		t.LogicalBlockSize = n
	}
	switch readValue(filepath.Join(dev, "queue/rotational")) {
	case "0":
		t.Rotational = new(false)
	case "1":
		t.Rotational = new(true)
	}
}

// blockNode returns the sysfs directory of the disk or partition holding
// the mount, or "" when there is none.
func (fs FS) blockNode(m mount) string {
	if m.major != 0 {
		return fs.devBlock(m.major, m.minor)
	}
	// Major 0 is an anonymous device: tmpfs and the like have no disk, but
	// btrfs reports one too although it has, and names it as the source.
	if !strings.HasPrefix(m.source, "/dev/") {
		return ""
	}
	if !fs.Live {
		return resolve(filepath.Join(fs.Sys, "class/block", filepath.Base(m.source)))
	}
	// The node's own device number finds the disk even when the node's
	// name is not the kernel's (/dev/disk/by-uuid/..., /dev/mapper/...).
	// A character device's number could name an unrelated block device.
	var st unix.Stat_t
	if unix.Stat(m.source, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return ""
	}
	rdev := uint64(st.Rdev) // not uint64 on every architecture
	return fs.devBlock(unix.Major(rdev), unix.Minor(rdev))
}

// devBlock resolves a device number to the device's sysfs directory.
func (fs FS) devBlock(major, minor uint32) string {
	return resolve(filepath.Join(fs.Sys, "dev/block", fmt.Sprintf("%d:%d", major, minor)))
}

// deviceModel names the device as it reports itself: vendor and model for
// SCSI, SATA and USB disks, model for NVMe (which has no vendor file), card
// type and product name for MMC and SD cards ("SD SC32G"). Without a model
// there is nothing to report: a vendor alone names no device, and virtio's
// vendor file holds a PCI vendor number. libata fills the SCSI vendor field
// with "ATA" for every SATA disk, which names no vendor either.
func deviceModel(dev string) string {
	vendorFile, modelFile := "vendor", "model"
	if strings.HasPrefix(filepath.Base(dev), "mmcblk") {
		vendorFile, modelFile = "type", "name"
	}
	model := readValue(filepath.Join(dev, "device", modelFile))
	if model == "" {
		return ""
	}
	vendor := readValue(filepath.Join(dev, "device", vendorFile))
	if vendor == "ATA" {
		vendor = ""
	}
	return strings.TrimSpace(vendor + " " + model)
}
