package sysinfo

// Mount is one line of the mount table, as those who must know what is
// mounted from a device read it.
type Mount struct {
	// Major and Minor are the mounted device's number (0:N for FUSE and
	// other filesystems without a block device of their own).
	Major, Minor uint32
	// Point is where it is mounted, Source what (/dev/sdb1), as the table
	// gives them, unescaped.
	Point, Source string
}

// Mounts lists the mount table of this process's namespace.
func (fs FS) Mounts() ([]Mount, error) {
	var out []Mount
	err := fs.eachMount(func(m mount) { out = append(out, Mount{m.major, m.minor, m.point, m.source}) })
	return out, err
}
