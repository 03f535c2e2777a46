package disk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// Target checks that dir is a directory thruput may write a scratch directory
// into, and describes it. Every refusal is a usage error: nothing has been
// written yet.
func Target(dir string) (result.Target, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return result.Target{}, usage.Errorf("target %q: %w", dir, err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return result.Target{}, usage.Errorf("target %s does not exist", abs)
	case err != nil:
		return result.Target{}, usage.Errorf("target %s: %w", abs, err)
	case info.Mode()&os.ModeDevice != 0:
		return result.Target{}, usage.Errorf("target %s is a device: thruput writes files inside a directory on a mounted filesystem and never opens devices; mount it and give the mount point", abs)
	case !info.IsDir():
		return result.Target{}, usage.Errorf("target %s is not a directory: give the directory to write test files into", abs)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(abs, &st); err != nil {
		return result.Target{}, usage.Errorf("target %s: statfs: %w", abs, err)
	}
	if name, ok := pseudoFS[int64(st.Type)]; ok {
		return result.Target{}, usage.Errorf("target %s is on %s, the kernel's view of itself, not a filesystem on a storage device: give a directory on the disk, card or stick to measure", abs, name)
	}
	if st.Flags&unix.ST_RDONLY != 0 {
		return result.Target{}, usage.Errorf("target %s is on a read-only filesystem", abs)
	}
	if err := unix.Access(abs, unix.W_OK|unix.X_OK); err != nil {
		return result.Target{}, usage.Errorf("target %s is not writable: %w", abs, err)
	}
	t, err := sysinfo.Default().Target(abs)
	if err != nil {
		// The mount table is context, not a precondition: measure anyway.
		t = result.Target{Path: abs}
	}
	t.Path = abs
	t.FreeBytes = int64(st.Bavail) * int64(st.Bsize)
	t.Compression = compression(t.MountOptions)
	return t, nil
}

// pseudoFS are the kernel's filesystems that hold no data of a device:
// measuring them is meaningless, and their free space of 0 would send the
// user after the wrong remedy.
var pseudoFS = map[int64]string{
	unix.PROC_SUPER_MAGIC: "proc", unix.SYSFS_MAGIC: "sysfs", unix.CGROUP_SUPER_MAGIC: "cgroup",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2", unix.DEBUGFS_MAGIC: "debugfs", unix.TRACEFS_MAGIC: "tracefs",
	unix.SECURITYFS_MAGIC: "securityfs", unix.BPF_FS_MAGIC: "bpf", unix.DEVPTS_SUPER_MAGIC: "devpts",
	unix.PSTOREFS_MAGIC: "pstore", unix.EFIVARFS_MAGIC: "efivarfs", unix.NSFS_MAGIC: "nsfs",
}

// compression reads transparent compression from mount options (btrfs
// compress=, compress-force=): zeros written to such a filesystem shrink to
// nothing, which is why thruput writes random data unless told otherwise.
func compression(options string) string {
	for _, o := range strings.Split(options, ",") {
		k, v, _ := strings.Cut(o, "=")
		if (k == "compress" || k == "compress-force") && v != "" && v != "no" && v != "none" {
			return o
		}
	}
	return ""
}

// spaceMargin is what a step needs beyond its file: metadata, and room for
// the rest of the system to keep working.
func spaceMargin(fileSize int64) int64 { return max(16<<20, fileSize/50) }

// checkSpace refuses a target that cannot hold one test file plus a
// margin; what is the parameter that sets the size, in usage.Invalidf's
// words ("{FileSize}").
func checkSpace(t result.Target, fileSize int64, what string) error {
	need := fileSize + spaceMargin(fileSize)
	if t.FreeBytes < need {
		return usage.Invalidf("target %s: not enough free space: need %s (file %s + margin %s), %s free; use a smaller "+what,
			t.Path, units.IEC(need), units.IEC(fileSize), units.IEC(spaceMargin(fileSize)), units.IEC(t.FreeBytes))
	}
	return nil
}

// directAlign opens a probe file in the scratch directory with O_DIRECT and
// returns the offset alignment the filesystem demands, so a block size it
// would reject is refused before anything is timed.
func directAlign(s *Scratch, t result.Target) (int64, error) {
	path := s.Path("direct-probe")
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_DIRECT, 0o600)
	if err != nil {
		if errors.Is(err, unix.EINVAL) {
			return 0, usage.Invalidf("{Direct}: target %s (%s) does not support O_DIRECT", t.Path, t.FSType)
		}
		return 0, fmt.Errorf("target %s: probe O_DIRECT: %w", t.Path, err)
	}
	defer os.Remove(path)
	defer unix.Close(fd)
	var sx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &sx); err == nil &&
		sx.Mask&unix.STATX_DIOALIGN != 0 && sx.Dio_offset_align > 0 {
		return int64(sx.Dio_offset_align), nil
	}
	if t.LogicalBlockSize > 0 {
		return int64(t.LogicalBlockSize), nil
	}
	return 512, nil
}
