package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/usage"
)

// sysinfoArg is an argument sorted out: a network interface, a block
// device (a whole disk), or else a path.
type sysinfoArg struct {
	given, iface, disk, path string
}

// readSysinfo gathers the document. An argument that names nothing on the
// machine is the user's mistake; a path whose mount cannot be found is the
// machine's.
func readSysinfo(sfs sysinfo.FS, args []string) (result.Sysinfo, error) {
	doc := result.Sysinfo{Host: sfs.Host(), Targets: []result.Target{}, Chains: []result.Chain{}}
	ifaces := sfs.InterfaceNames()
	var sorted []sysinfoArg
	var paths, disks []string
	for _, arg := range args {
		a, err := sortArg(sfs, ifaces, arg)
		if err != nil {
			return doc, err
		}
		if a.path != "" {
			t, err := sfs.Target(a.path)
			if err != nil {
				if !sfs.Live && errors.Is(err, sysinfo.ErrNoMount) {
					return doc, usage.Errorf("%s: %v", arg, err)
				}
				return doc, fmt.Errorf("%s: %w", arg, err)
			}
			var st unix.Statfs_t
			if sfs.Live && unix.Statfs(a.path, &st) == nil {
				t.FreeBytes = int64(st.Bavail) * int64(st.Bsize)
			}
			doc.Targets = append(doc.Targets, t)
			paths = append(paths, a.path)
		}
		if a.disk != "" {
			disks = append(disks, a.disk)
		}
		sorted = append(sorted, a)
	}
	doc.System = sfs.SystemWith(disks, paths...)
	ti := 0
	for _, a := range sorted {
		c := result.Chain{Of: a.given}
		switch {
		case a.iface != "":
			c.Kind = "interface"
			c.Hops, c.SharedWith = ceiling.Network(doc.System, a.iface)
		case a.disk != "":
			c.Kind = "device"
			c.Hops, c.SharedWith = ceiling.Storage(doc.System, result.Target{Path: a.given, Device: a.disk})
		default:
			c.Kind = "path"
			c.Hops, c.SharedWith = ceiling.Storage(doc.System, doc.Targets[ti])
			ti++
		}
		c.Limit = ceiling.Lowest(c.Hops)
		doc.Chains = append(doc.Chains, c)
	}
	return doc, nil
}

// sortArg tells an interface (br0) from a block device (sda, /dev/sda,
// /dev/disk/by-id/...) from a path. A path is checked on this machine;
// under --root it is looked up in that machine's mount table instead.
func sortArg(sfs sysinfo.FS, ifaces []string, arg string) (sysinfoArg, error) {
	a := sysinfoArg{given: arg}
	for _, n := range ifaces {
		if n == arg {
			a.iface = arg
			return a, nil
		}
	}
	name := arg
	if dev, ok := strings.CutPrefix(arg, "/dev/"); ok {
		name = dev
		if sfs.Live {
			if real, err := filepath.EvalSymlinks(arg); err == nil {
				name = strings.TrimPrefix(real, "/dev/")
			}
		}
	}
	if disk := sfs.DiskOf(name); disk != "" {
		a.disk = disk
		return a, nil
	}
	if strings.HasPrefix(arg, "/dev/") {
		where := "this machine"
		if !sfs.Live {
			where = "the machine under --root"
		}
		return a, usage.Errorf("%s is not a block device %s has", arg, where)
	}
	if !sfs.Live {
		if !filepath.IsAbs(arg) {
			return a, usage.Errorf("%s is no interface or block device there, and a path under --root must be absolute", arg)
		}
		a.path = filepath.Clean(arg)
		return a, nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return a, usage.Errorf("%s: %w", arg, err)
	}
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return a, usage.Errorf("%s is no path, block device or network interface here", arg)
		}
		return a, fmt.Errorf("%s: %w", arg, err)
	}
	a.path = abs
	return a, nil
}
