package pilab

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

//go:embed init.sh
var initScript []byte

// DeviceModules are the modules the emulated devices need beyond what
// Debian builds into its arm64 kernel (the mini UART, the clocks, the
// pin controller and mmc_block are built in): the Pi's dwc2 USB host and
// its nop PHY, the USB disk (usb-storage, sd_mod), the USB network
// adapter (QEMU's usb-net offers CDC Ethernet and RNDIS configurations:
// cdc_ether and rndis_host), and both SD hosts of the BCM2837 (the
// Arasan one, sdhci-iproc, and the SD host controller, bcm2835), and the
// watchdog, whose reset is the only way the guest can end QEMU.
var DeviceModules = []string{
	"phy-generic", "dwc2", "usb-storage", "sd_mod", "cdc_ether", "rndis_host",
	"sdhci-iproc", "bcm2835", "bcm2835_wdt",
}

// FilesystemModules are the modules the guest's two filesystems need:
// ext4 on the SD card, as Raspberry Pi OS formats its root, with the
// crc32c its metadata checksums ask the crypto API for (a soft
// dependency, which .modinfo's depends= does not name), and vfat on the
// USB disk, as a USB stick comes, with the code page and character set
// Debian's kernel mounts it with by default (437 and ascii).
var FilesystemModules = []string{"ext4", "crc32c_generic", "vfat", "nls_cp437", "nls_ascii"}

// Initramfs writes the guest's initramfs to path: busybox (the file
// busybox names: the guest's whole userland, init included), the modules
// (in load order, under /modules), the thruput binary, the init script
// and, when runs is not empty, the script init runs after its dump
// (/runs.sh). Each of trees, a directory on this machine, is copied in at
// the root too (directories, files and symbolic links), leaving out
// what is already there: Debian's armhf iperf3 with its libraries and
// dynamic loader, or more programs for a bench.
func Initramfs(path string, kit Kit, busybox, thruput string, runs []byte, trees ...string) error {
	mods, err := OpenModules(kit.Modules)
	if err != nil {
		return err
	}
	files, err := mods.Closure(append(slices.Clone(DeviceModules), FilesystemModules...)...)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	c := NewCpio(f)
	for _, d := range []string{"bin", "dev", "modules", "proc", "sys", "tmp", "run"} {
		c.Dir(d)
	}
	// The kernel opens /dev/console for init before devtmpfs is mounted.
	c.CharDev("dev/console", 5, 1)
	for i, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		c.File(fmt.Sprintf("modules/%02d-%s", i, filepath.Base(p)), 0o644, data)
	}
	for _, bin := range []struct{ name, path string }{{"bin/busybox", busybox}, {"bin/thruput", thruput}} {
		data, err := os.ReadFile(bin.path)
		if err != nil {
			return err
		}
		c.File(bin.name, 0o755, data)
	}
	c.Symlink("bin/sh", "busybox")
	c.File("init", 0o755, initScript)
	if len(runs) > 0 {
		c.File("runs.sh", 0o755, runs)
	}
	have := map[string]bool{"bin": true, "dev": true, "modules": true, "proc": true, "sys": true, "tmp": true, "run": true,
		"bin/busybox": true, "bin/thruput": true, "bin/sh": true, "init": true, "runs.sh": true}
	for _, tree := range trees {
		if err := copyTree(c, tree, have); err != nil {
			return err
		}
	}
	if err := c.Close(); err != nil {
		return err
	}
	return f.Close()
}

// copyTree adds what is under tree to the archive at the same paths,
// parents first (the kernel makes no missing directory), skipping the
// names in have and adding the ones it writes.
func copyTree(c *Cpio, tree string, have map[string]bool) error {
	return filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == tree {
			return err
		}
		name, err := filepath.Rel(tree, p)
		if err != nil || have[name] {
			return err
		}
		have[name] = true
		switch {
		case d.IsDir():
			c.Dir(name)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			c.Symlink(name, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			c.File(name, int(info.Mode().Perm()), data)
		}
		return nil
	})
}

// ErrNoMkfs says e2fsprogs' mkfs.ext4 is not installed.
var ErrNoMkfs = errors.New("no mkfs.ext4 (Debian's e2fsprogs) to format the SD card's image")

// MkfsExt4 finds mkfs.ext4 on PATH, or in /usr/sbin and /sbin, which a
// user's PATH may leave out: formatting an image file needs no root.
func MkfsExt4() (string, error) {
	if p, err := exec.LookPath("mkfs.ext4"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", ErrNoMkfs
}

// Machine is one boot of the emulated Pi 3 B.
type Machine struct {
	// Dir holds the initramfs and the disk images.
	Dir string
	Kit Kit
	// Qemu is the qemu-system-aarch64 binary.
	Qemu string
	// Ended says how QEMU ended after Run: "by the guest's watchdog
	// reset" or "killed after the dump".
	Ended string
	// Busybox is the guest's userland: Kit.Busybox (arm64) when empty,
	// Kit.Busybox32 for a 32-bit one.
	Busybox string
	// Trees are directories on this machine copied into the guest's root
	// (Initramfs): Kit.Armhf for Debian's armhf iperf3, or programs of a
	// bench's own.
	Trees []string
	// ServerPort, when not 0, is the port on this machine's 127.0.0.1
	// that QEMU forwards to port 5201 of the guest's USB network adapter
	// (10.0.2.15, the address QEMU's user-mode network gives a guest),
	// where a net server in the guest can take a client from here.
	ServerPort int
	// Namespace, when set, is a network namespace of the test's own
	// (nettest.NewLink) that QEMU runs in. Its user-mode network is then
	// not restricted: the guest (10.0.2.15, its gateway 10.0.2.2) can dial
	// the namespace's peers through QEMU, over TCP and UDP, and the
	// namespace has no route beyond the test's link.
	Namespace string
	// OneCore brings up one of the BCM2837's four cores (maxcpus=1), as
	// on a Pi 1 or Zero: the guest's programs and its kernel's network and
	// USB work share it.
	OneCore bool
	// Runs is a shell script the guest's init runs after its dump, inside
	// the dump's markers, with the disks mounted (the SD card's ext4 on
	// /mnt/sd, the USB disk's vfat on /mnt/usb) and /bin/thruput in
	// place; what it prints between "@@F name" and "@@E" lines is parsed
	// as the dump's files are. Empty runs nothing.
	Runs []byte
	// Stderr is what QEMU itself printed (its usb-net's complaints):
	// kept off the console, where it could cut into the dump.
	Stderr  bytes.Buffer
	console console
}

// console collects what the mini UART sends and notes when the init
// script's dump is complete.
type console struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	had := bytes.Contains(c.buf.Bytes(), endMarker)
	c.buf.Write(p)
	if !had && bytes.Contains(c.buf.Bytes(), endMarker) {
		close(c.done)
	}
	return len(p), nil
}

var endMarker = []byte("@@PILAB-END")

// Console returns everything the guest's console carried so far.
func (m *Machine) Console() []byte {
	m.console.mu.Lock()
	defer m.console.mu.Unlock()
	return bytes.Clone(m.console.buf.Bytes())
}

// WaitFor returns once the guest's console has carried marker (a line
// the guest's script prints when it is ready for something from this
// side), or with ctx's error.
func (m *Machine) WaitFor(ctx context.Context, marker string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !bytes.Contains(m.Console(), []byte(marker)) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the guest's console has no %s: %w", marker, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Args is QEMU's command line: the raspi3b machine, Debian's kernel with
// the Pi 3 B device tree, and behind the Pi's single USB port a hub with
// a disk and a network adapter on it (the Pi 3 B's own LAN9514 is a hub
// with the Ethernet chip on it too), and an SD card.
//
// The kernel's console is the mini UART (ttyS1, as the device tree's
// stdout-path says: the PL011 serves Bluetooth on a Pi 3), which QEMU
// wires to its second -serial. The network adapter's user-mode backend
// has restrict=on, so the guest reaches nothing outside, unless QEMU
// runs in a test's own network namespace (Namespace). TCG runs the
// four cores on one host thread (thread=single), so a boot takes one
// host core, not every one the machine shares with others.
func (m *Machine) Args() []string {
	netdev := "user,id=n0,restrict=on"
	if m.Namespace != "" {
		netdev = "user,id=n0"
	}
	if m.ServerPort != 0 {
		// restrict=on leaves explicit forwards working.
		netdev += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-10.0.2.15:5201", m.ServerPort)
	}
	kernelArgs := "console=ttyS1,115200 rdinit=/init panic=-1 loglevel=4"
	if m.OneCore {
		kernelArgs += " maxcpus=1"
	}
	return []string{
		"-M", "raspi3b",
		"-accel", "tcg,thread=single",
		"-kernel", m.Kit.Kernel,
		"-dtb", m.Kit.DTB,
		"-initrd", filepath.Join(m.Dir, "initramfs.cpio"),
		"-append", kernelArgs,
		"-display", "none", "-monitor", "none",
		"-serial", "null", "-serial", "stdio",
		"-no-reboot",
		"-device", "usb-hub,port=1",
		"-drive", "if=none,id=usbdisk,format=raw,file=" + filepath.Join(m.Dir, "usb.img"),
		"-device", "usb-storage,port=1.1,drive=usbdisk",
		"-netdev", netdev,
		"-device", "usb-net,port=1.2,netdev=n0",
		"-drive", "if=sd,format=raw,file=" + filepath.Join(m.Dir, "sd.img"),
	}
}

// Prepare writes the initramfs and the two disk images into m.Dir. The
// SD card's size must be a power of two for QEMU's SD model. The SD card
// is formatted ext4 here, by e2fsprogs' mkfs.ext4 (busybox's mke2fs makes
// only ext2); the guest formats the USB disk vfat with busybox's mkdosfs.
func (m *Machine) Prepare(thruput string) error {
	busybox := m.Busybox
	if busybox == "" {
		busybox = m.Kit.Busybox
	}
	if err := Initramfs(filepath.Join(m.Dir, "initramfs.cpio"), m.Kit, busybox, thruput, m.Runs, m.Trees...); err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	for name, size := range map[string]int64{"sd.img": 64 << 20, "usb.img": 32 << 20} {
		f, err := os.Create(filepath.Join(m.Dir, name))
		if err != nil {
			return err
		}
		err = f.Truncate(size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	// 4 KiB blocks, as on a card's root filesystem (mke2fs picks 1 KiB
	// for one this small), and no lazy initialisation left to the guest.
	mkfsExt4, err := MkfsExt4()
	if err != nil {
		return err
	}
	mkfs := exec.Command(mkfsExt4, "-q", "-F", "-b", "4096", "-L", "pilab-sd",
		"-E", "lazy_itable_init=0,lazy_journal_init=0", filepath.Join(m.Dir, "sd.img"))
	if out, err := mkfs.CombinedOutput(); err != nil {
		return fmt.Errorf("mkfs.ext4 on the SD card's image: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// Run boots the guest and returns once QEMU has ended: by the guest's
// watchdog reset after its dump, killed a few seconds after the dump if
// the reset does not come, or killed when ctx ends. QEMU runs in a
// process group of its own, and the whole group is killed, so no QEMU
// outlives a test that gave up on it.
func (m *Machine) Run(ctx context.Context) error {
	m.console.done = make(chan struct{})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.Qemu, m.Args()...)
	if m.Namespace != "" {
		// ip execs QEMU in place, so the process group below is QEMU's.
		cmd = exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", m.Namespace, m.Qemu}, m.Args()...)...)
	}
	cmd.Stdout = &m.console
	cmd.Stderr = &m.Stderr
	// Pdeathsig covers the test binary dying (go test's -timeout panic),
	// when no cancel runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A process that left the group and kept the console pipe open must
	// not hold Wait.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		select {
		case <-m.console.done:
			select {
			case <-time.After(5 * time.Second):
				cancel()
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
	err := cmd.Wait()
	select {
	case <-m.console.done:
		// The dump is complete; how QEMU ended does not matter.
		m.Ended = "by the guest's watchdog reset"
		if err != nil {
			m.Ended = "killed after the dump"
		}
		return nil
	default:
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: no complete dump on the console: %w", m.Qemu, ctx.Err())
	}
	if err == nil {
		err = errors.New("exited")
	}
	return fmt.Errorf("%s %w before the guest's dump was complete: %s", m.Qemu, err, bytes.TrimSpace(m.Stderr.Bytes()))
}
