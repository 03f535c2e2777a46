package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/usage"
)

func newSysinfoCmd(a *app) *cobra.Command {
	var capture, root string
	var noRedact bool
	c := &cobra.Command{
		Use:   "sysinfo [PATH|DEVICE|INTERFACE...]",
		Short: "Show the hardware data crosses here: USB tree, disks, NICs, CPU clock, interrupts",
		Long: `Print what people gather by hand with lsusb -t, ethtool, iw and
/proc/interrupts before they explain a figure: the board, SoC, CPU core and
the kernel's and userland's architecture; the USB tree with speeds, USB
versions, bridge chips and drivers; each disk's bus and negotiated link (USB,
SATA, PCIe, SD bus mode) and an SD card's identity; each network interface's
driver and link; the CPU clock and Raspberry Pi throttling; and the interrupt
counts of those devices.

Each argument is a path (its filesystem, mount and device), a block device
(sda, /dev/nvme0n1) or a network interface (br0, eth0): for each, the chain
of links its data crosses is printed, hop by hop with each hop's ceiling,
down through bridges, bonds, VLANs, USB hubs and PCIe switches, and the
other devices that share a hop.

--capture FILE writes every /proc, /sys and /etc file and symlink read into
one text file (serial numbers and MAC addresses zeroed unless --no-redact);
--root FILE reads such a capture, and --root DIR a tree holding proc/, sys/
and etc/, with the same output as on the machine itself.

Everything is read from /proc and /sys without root, except the SD/eMMC and
SDIO bus modes, which are in debugfs: run as root to see them. A fact that
cannot be read prints as "unknown" (and is absent from --json).`,
		Example: `  thruput sysinfo
  thruput sysinfo /mnt/usb br0 sda
  thruput sysinfo --capture pi.txt
  thruput sysinfo --root pi.txt --json`,
		RunE: func(_ *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			if format != "table" && format != "json" {
				return usage.Errorf("sysinfo prints a table or json, not %s", format)
			}
			if capture != "" && root != "" {
				return usage.Errorf("--capture reads this machine; it cannot be used with --root")
			}
			sfs, cleanup, err := sysinfoRoot(root)
			if err != nil {
				return err
			}
			defer cleanup()
			if capture != "" {
				return writeCapture(a, sfs, capture, !noRedact, args)
			}
			doc, err := readSysinfo(sfs, args)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error {
				if format == "json" {
					return writeJSON(w, doc)
				}
				return report.WriteSysinfo(w, doc)
			})
		},
	}
	c.Flags().StringVar(&capture, "capture", "", "write what sysinfo reads into `FILE`, to be read elsewhere with --root")
	c.Flags().BoolVar(&noRedact, "no-redact", false, "keep serial numbers and MAC addresses in a --capture")
	c.Flags().StringVar(&root, "root", "", "read another machine: a capture `FILE`, or a DIR holding proc/, sys/ and etc/")
	return c
}

// sysinfoRoot opens what --root names; without it, this machine.
func sysinfoRoot(root string) (sysinfo.FS, func(), error) {
	nothing := func() {}
	if root == "" {
		return sysinfo.Default(), nothing, nil
	}
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sysinfo.FS{}, nothing, usage.Errorf("--root %s does not exist", root)
	case err != nil:
		return sysinfo.FS{}, nothing, fmt.Errorf("--root: %w", err)
	case st.IsDir():
		sfs := sysinfo.AtRoot(root)
		for _, d := range []string{sfs.Proc, sfs.Sys} {
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				return sysinfo.FS{}, nothing, usage.Errorf("--root %s has no %s directory: give the root of a machine's tree, or a capture file", root, d)
			}
		}
		return sfs, nothing, nil
	}
	sfs, dir, err := sysinfo.OpenCapture(root, "")
	if errors.Is(err, sysinfo.ErrNotCapture) {
		return sysinfo.FS{}, nothing, usage.Errorf("--root: %v", err)
	}
	if err != nil {
		return sysinfo.FS{}, nothing, fmt.Errorf("--root: %w", err)
	}
	return sfs, func() { os.RemoveAll(dir) }, nil
}

// writeCapture writes the capture next to its final name and renames it
// there, so a failed capture leaves nothing behind.
func writeCapture(a *app, sfs sysinfo.FS, file string, redact bool, args []string) error {
	save := a.output
	a.output = file
	defer func() { a.output = save }()
	if err := a.writeAtomic(func(w io.Writer) error {
		return sfs.Capture(w, !redact, func() error {
			_, err := readSysinfo(sfs, args)
			return err
		})
	}); err != nil {
		return fmt.Errorf("--capture: %w", err)
	}
	if !a.quiet {
		fmt.Fprintf(os.Stderr, "thruput: wrote %s; read it anywhere with: thruput sysinfo --root %s\n", file, file)
	}
	return nil
}
