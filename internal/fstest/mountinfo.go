package fstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// mountEntry is the part of a /proc/self/mountinfo line this package needs.
type mountEntry struct {
	MountPoint string
	Options    string // per-mount options, e.g. "rw,relatime"
	FSType     string
	Source     string
	Line       string // the raw line, for messages
}

// readMounts parses /proc/self/mountinfo rather than calling findmnt so that
// cleanup keeps working when util-linux output formats change.
func readMounts() ([]mountEntry, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mounts []mountEntry
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		e, err := parseMountInfoLine(line)
		if err != nil {
			return nil, err
		}
		mounts = append(mounts, e)
	}
	return mounts, nil
}

func parseMountInfoLine(line string) (mountEntry, error) {
	// Fields: id parent major:minor root mountpoint options [optional...] - fstype source superoptions
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 6 || sep < 0 || sep+2 >= len(f) {
		return mountEntry{}, fmt.Errorf("malformed mountinfo line %q", line)
	}
	return mountEntry{
		MountPoint: unescapeMountInfo(f[4]),
		Options:    f[5],
		FSType:     unescapeMountInfo(f[sep+1]),
		Source:     unescapeMountInfo(f[sep+2]),
		Line:       line,
	}, nil
}

// unescapeMountInfo undoes the kernel's octal escaping of space, tab,
// newline and backslash, which would otherwise make a TMPDIR with a space in
// it invisible to cleanup.
func unescapeMountInfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountAt returns the topmost mount whose mount point is exactly path.
func mountAt(path string) (mountEntry, bool, error) {
	mounts, err := readMounts()
	if err != nil {
		return mountEntry{}, false, err
	}
	// Later lines are mounted on top of earlier ones.
	for i := len(mounts) - 1; i >= 0; i-- {
		if mounts[i].MountPoint == path {
			return mounts[i], true, nil
		}
	}
	return mountEntry{}, false, nil
}

// within reports whether path is dir or lies below it; a plain prefix test
// would let /tmp/thruput-fstest-1 match /tmp/thruput-fstest-10.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// loopDevice is an attached loop device and the file behind it.
type loopDevice struct {
	Dev     string // /dev/loopN
	Backing string // absolute path, without the kernel's " (deleted)" suffix
	Deleted bool
}

// attachedLoops reads sysfs instead of parsing `losetup -a`, whose output
// truncates long backing-file names.
func attachedLoops() ([]loopDevice, error) {
	paths, err := filepath.Glob("/sys/block/loop*/loop/backing_file")
	if err != nil {
		return nil, err
	}
	var loops []loopDevice
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			// Detached between Glob and ReadFile: the attribute then
			// fails with ENXIO, or is gone.
			if errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.ENODEV) || errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
		backing := strings.TrimSuffix(string(data), "\n")
		deleted := false
		if b, ok := strings.CutSuffix(backing, " (deleted)"); ok {
			backing, deleted = b, true
		}
		name := filepath.Base(filepath.Dir(filepath.Dir(p)))
		loops = append(loops, loopDevice{Dev: "/dev/" + name, Backing: backing, Deleted: deleted})
	}
	return loops, nil
}

// loopsBackedBy lists the loop devices whose backing file is image.
func loopsBackedBy(image string) ([]loopDevice, error) {
	loops, err := attachedLoops()
	if err != nil {
		return nil, err
	}
	var out []loopDevice
	for _, l := range loops {
		if l.Backing == image {
			out = append(out, l)
		}
	}
	return out, nil
}
