package sysinfo

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

var (
	// ErrNoMount is returned by Target when no mount in the table holds
	// the path: the table describes a machine the path is not on.
	ErrNoMount = errors.New("no mount holds the path")
	// ErrMountInfo is returned by Target when the mount table could not be
	// parsed; the path may well be on the machine.
	ErrMountInfo = errors.New("malformed mountinfo line")
)

// Target describes the filesystem and block device the absolute path lives
// on. It fails only when the path's mount cannot be found; facts about the
// device that cannot be read are left empty. FreeBytes is left to the
// caller, who can statfs the path itself.
//
// FSType is the type as the mount table gives it. For FUSE the kernel
// already writes the server's declared subtype there (fuse.sshfs); a mount
// without one stays plain "fuse" or "fuseblk" (ntfs-3g mounts usually do),
// because nothing else in the table names the server reliably.
//
// An error reading the table itself is returned wrapped, so errors.Is with
// io/fs.ErrNotExist tells a machine without /proc.
func (fs FS) Target(path string) (result.Target, error) {
	t := result.Target{Path: path}
	if !filepath.IsAbs(path) {
		return t, fmt.Errorf("%w: %q is not absolute", ErrNoMount, path)
	}
	// The table lists where mounts are, not where symlinks lead, so a live
	// path is matched by the directory it resolves to.
	match := filepath.Clean(path)
	if fs.Live {
		if resolved, err := filepath.EvalSymlinks(match); err == nil {
			match = resolved
		}
	}
	m, err := fs.findMount(match)
	if err != nil {
		return t, err
	}
	t.FSType = m.fsType
	t.MountPoint = m.point
	t.MountOptions = joinOptions(m.options, m.superOptions)
	t.MountSource = m.source
	fs.fillDevice(&t, m)
	if m.fsType == "overlay" {
		t.OverlayUpperFS = fs.overlayUpper(m)
	}
	return t, nil
}

// overlayUpper is the filesystem type under an overlay's upperdir, where
// its writes land: raspi-config's overlay root keeps it on a tmpfs
// (/media/root-rw), so every write goes to RAM. The path is as it was at
// mount time; "" when it is now held by no other mount.
func (fs FS) overlayUpper(m mount) string {
	for opt := range strings.SplitSeq(m.superOptions, ",") {
		dir, ok := strings.CutPrefix(opt, "upperdir=")
		if !ok {
			continue
		}
		u, err := fs.findMount(unescape(dir))
		if err != nil || u.point == m.point {
			return ""
		}
		return u.fsType
	}
	return ""
}

// mount is the part of a mountinfo line that Target reports on.
type mount struct {
	major, minor uint32
	point        string
	options      string
	fsType       string
	source       string
	superOptions string
}

// findMount returns the mount that holds path: the one with the longest
// mount point containing it and, of several at that point, the last, which
// the kernel lists after the mounts it covers.
func (fs FS) findMount(path string) (mount, error) {
	var best mount
	found := false
	err := fs.eachMount(func(m mount) {
		if holds(m.point, path) && (!found || len(m.point) >= len(best.point)) {
			best, found = m, true
		}
	})
	if err != nil {
		return mount{}, err
	}
	if !found {
		return mount{}, fmt.Errorf("%w: %s in %s", ErrNoMount, path, filepath.Join(fs.Proc, "self/mountinfo"))
	}
	return best, nil
}

// eachMount calls fn with every line of the mount table, parsed.
func (fs FS) eachMount(fn func(mount)) error {
	file := filepath.Join(fs.Proc, "self/mountinfo")
	n := 0
	err := eachLine(file, func(line string) error {
		n++
		m, err := parseMountInfo(line)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", file, n, err)
		}
		fn(m)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the mount table: %w", err)
	}
	return nil
}

// holds reports whether the mount point contains path, comparing whole path
// components so that /srv/data does not hold /srv/database.
func holds(point, path string) bool {
	return point == "/" || path == point || strings.HasPrefix(path, point+"/")
}

// parseMountInfo parses one line of /proc/<pid>/mountinfo (see proc(5)):
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Fields are split on single spaces rather than runs of them so that an
// empty source keeps its place. Option lists stay escaped as the kernel
// wrote them, so a comma inside a value cannot be taken for a separator.
func parseMountInfo(line string) (mount, error) {
	f := strings.Split(line, " ")
	if len(f) < 10 {
		return mount{}, fmt.Errorf("%w: %d fields in %q", ErrMountInfo, len(f), line)
	}
	// The optional fields between the options and "-" vary in number.
	sep := slices.Index(f[6:], "-") + 6
	if sep < 6 || len(f) < sep+4 {
		return mount{}, fmt.Errorf("%w: no \"-\" before the last three fields in %q", ErrMountInfo, line)
	}
	majText, minText, ok := strings.Cut(f[2], ":")
	major, err1 := strconv.ParseUint(majText, 10, 32)
	minor, err2 := strconv.ParseUint(minText, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return mount{}, fmt.Errorf("%w: device %q is not major:minor", ErrMountInfo, f[2])
	}
	m := mount{
		major:        uint32(major),
		minor:        uint32(minor),
		point:        unescape(f[4]),
		options:      f[5],
		fsType:       unescape(f[sep+1]),
		source:       unescape(f[sep+2]),
		superOptions: f[sep+3],
	}
	if !strings.HasPrefix(m.point, "/") {
		return mount{}, fmt.Errorf("%w: mount point %q is not absolute", ErrMountInfo, m.point)
	}
	return m, nil
}

// unescape undoes the kernel's octal escapes (\040 for a space, \011 tab,
// \012 newline, \134 backslash); anything else is kept as written.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1], '3') && isOctal(s[i+2], '7') && isOctal(s[i+3], '7') {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isOctal reports whether c is an octal digit no greater than top.
func isOctal(c, top byte) bool {
	return '0' <= c && c <= top
}

// joinOptions joins comma-separated option lists, dropping repeats: the
// per-mount and superblock lists both start with rw or ro.
func joinOptions(lists ...string) string {
	var out []string
	for _, list := range lists {
		for o := range strings.SplitSeq(list, ",") {
			if o != "" && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return strings.Join(out, ",")
}
