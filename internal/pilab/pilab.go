// Package pilab boots Debian's own arm64 kernel on QEMU's emulated
// Raspberry Pi 3 Model B (the raspi3b machine), so that `thruput sysinfo`
// can be checked against what a real kernel shows on Pi hardware: the
// device tree, the BCM2837's four cores, a dwc2 USB bus with a hub, a
// disk and a network adapter on it, and an SD card. The fixture trees in
// internal/sysinfo are written by hand and share the reader's
// assumptions; a kernel is not.
//
// The same guest runs the 32-bit ARM builds (armv7, armv6) in a 32-bit
// userland (Debian's armhf busybox) on that 64-bit kernel, as Raspberry
// Pi OS 32-bit runs on a Pi 3 or 4, where neither qemu-user (which has
// no io_uring) nor an amd64 machine can: every disk method on the SD
// card formatted ext4 and the USB disk formatted vfat, io_uring through
// the kernel's compat system calls, and network tests over the guest's
// loopback and, with a client on this side through QEMU's forward, over
// the emulated USB adapter (Machine.Runs, Machine.ServerPort); a guest
// in a test's network namespace dials servers on this side
// (Machine.Namespace).
//
// The kernel and busybox come from Debian's arm64 packages, and the
// 32-bit busybox from its armhf one, fetched and unpacked by
// scripts/pilab-fetch into a cache directory (Dir). The guest runs a
// small initramfs built here: busybox, the modules the devices and
// filesystems need and a thruput binary, with an init script that prints
// the files it was asked about, and the output of the commands it was
// given, between markers on the serial console.
package pilab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Dir is where scripts/pilab-fetch keeps the packages and their unpacked
// files, unless THRUPUT_PILAB_DIR names another.
func Dir() string {
	if d := os.Getenv("THRUPUT_PILAB_DIR"); d != "" {
		return d
	}
	return "/var/cache/thruput-pilab"
}

// Kit is what the guest boots from, as paths on this machine.
type Kit struct {
	// Kernel is Debian's arm64 kernel image (boot/vmlinuz-*).
	Kernel string
	// DTB is the device tree the kernel package ships for the Pi 3 B.
	DTB string
	// Modules is the kernel's module directory (lib/modules/RELEASE).
	Modules string
	// Busybox is the static arm64 busybox.
	Busybox string
	// Busybox32 is the static armhf busybox (armhf/bin/busybox beside
	// root): the 32-bit userland of a guest that runs a 32-bit thruput,
	// as Raspberry Pi OS 32-bit is on a 64-bit kernel. Empty when an
	// older scripts/pilab-fetch left it out.
	Busybox32 string
	// Armhf is the unpacked armhf tree (Dir()/armhf) when it holds
	// Debian's armhf iperf3 with its libraries and dynamic loader, which
	// the guest runs as peer of the 32-bit builds; empty when an older
	// scripts/pilab-fetch left them out.
	Armhf string
}

// ErrNoKit says scripts/pilab-fetch has not been run (or failed).
var ErrNoKit = errors.New("no unpacked arm64 kernel and busybox")

// FindKit finds the unpacked packages under root (Dir()/root). With more
// than one kernel there (an older fetch left behind), the last in name
// order, the newest ABI, is used.
func FindKit(root string) (Kit, error) {
	kernels, _ := filepath.Glob(filepath.Join(root, "boot/vmlinuz-*"))
	if len(kernels) == 0 {
		return Kit{}, fmt.Errorf("%w in %s (scripts/pilab-fetch puts them there)", ErrNoKit, root)
	}
	kernel := kernels[len(kernels)-1]
	release := filepath.Base(kernel)[len("vmlinuz-"):]
	k := Kit{
		Kernel:  kernel,
		DTB:     filepath.Join(root, "usr/lib/linux-image-"+release, "broadcom/bcm2837-rpi-3-b.dtb"),
		Modules: filepath.Join(root, "lib/modules", release),
		Busybox: filepath.Join(root, "bin/busybox"),
	}
	for _, p := range []string{k.DTB, k.Modules, k.Busybox} {
		if _, err := os.Stat(p); err != nil {
			return Kit{}, fmt.Errorf("%w: %v (scripts/pilab-fetch puts it there)", ErrNoKit, err)
		}
	}
	armhf := filepath.Join(filepath.Dir(root), "armhf")
	if b := filepath.Join(armhf, "bin/busybox"); fileExists(b) {
		k.Busybox32 = b
	}
	if fileExists(filepath.Join(armhf, "usr/bin/iperf3")) {
		k.Armhf = armhf
	}
	return k, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
