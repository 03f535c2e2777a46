package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sysTree builds the parts of /sys and /proc that Refuse reads: disk sdb
// (8:16) with partitions sdb1 (8:17) and sdb2 (8:18), and the mount table
// and swaps given.
func sysTree(t *testing.T, mountinfo, swaps string, edit func(sys string)) Roots {
	t.Helper()
	root := t.TempDir()
	sys, proc := filepath.Join(root, "sys"), filepath.Join(root, "proc")
	disk := filepath.Join(sys, "devices/virtual/block/sdb")
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(disk, "dev"), "8:16\n")
	write(filepath.Join(disk, "ro"), "0\n")
	for p, num := range map[string]string{"sdb1": "8:17", "sdb2": "8:18"} {
		write(filepath.Join(disk, p, "dev"), num+"\n")
		write(filepath.Join(disk, p, "partition"), "1\n")
	}
	for num, dir := range map[string]string{"8:16": disk, "8:17": filepath.Join(disk, "sdb1"), "8:18": filepath.Join(disk, "sdb2")} {
		link := filepath.Join(sys, "dev/block", num)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "holders"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proc, "self/mountinfo"), "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"+mountinfo)
	write(filepath.Join(proc, "swaps"), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"+swaps)
	if edit != nil {
		edit(sys)
	}
	return Roots{Sys: sys, Proc: proc}
}

func TestRefuse(t *testing.T) {
	disk, part := unix.Mkdev(8, 16), unix.Mkdev(8, 17)
	for _, tc := range []struct {
		name             string
		dev              uint64
		mountinfo, swaps string
		edit             func(sys string)
		want             string
	}{
		{"free", disk, "", "", nil, ""},
		{"partition", part, "", "", nil, "/dev/sdb1 is a partition of /dev/sdb: the probe needs the whole device"},
		{"unknown", unix.Mkdev(9, 9), "", "", nil, "the kernel lists no block device 9:9"},
		{"read-only", disk, "", "", func(sys string) {
			os.WriteFile(filepath.Join(sys, "devices/virtual/block/sdb/ro"), []byte("1\n"), 0o644)
		}, "is read-only"},
		{"partition mounted", disk, "30 22 8:18 / /media/pi/my\\040card rw - vfat /dev/sdb2 rw\n", "", nil,
			"/dev/sdb is mounted (/dev/sdb2 on /media/pi/my card): unmount every filesystem on it first"},
		{"fuse mount by name", disk, "31 22 0:55 / /mnt/ntfs rw - fuseblk /dev/sdb1 rw\n", "", nil, "(/dev/sdb1 on /mnt/ntfs)"},
		{"boot", disk, "32 22 8:17 / /boot/firmware rw - vfat /dev/sdb1 rw\n", "", nil,
			"/dev/sdb holds the running system (/boot/firmware is mounted from /dev/sdb1)"},
		{"swap", disk, "", "/dev/sdb2                               partition\t1048572\t\t0\t\t-2\n", nil, "holds the running system's swap (/dev/sdb2)"},
		{"held", disk, "", "", func(sys string) {
			os.MkdirAll(filepath.Join(sys, "devices/virtual/block/sdb/sdb1/holders/dm-0"), 0o755)
		}, "/dev/sdb1 is part of dm-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sysTree(t, tc.mountinfo, tc.swaps, tc.edit)
			name := "/dev/sdb"
			if tc.dev == part {
				name = "/dev/sdb1"
			}
			err := r.Refuse(name, tc.dev)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
