package disk

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
)

// evict pushes a file out of the page cache so that the read that follows
// comes from the device. The file must have been fsynced: DONTNEED drops only
// clean pages. dropAll also asks the kernel to drop every clean cache (root
// only), which reaches caches fadvise cannot, such as a FUSE daemon's reads of
// its image file.
func evict(path string, dropAll bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return "", fmt.Errorf("posix_fadvise DONTNEED: %w", err)
	}
	if !dropAll {
		return "fadvise", nil
	}
	if err := dropAllCaches(); err != nil {
		return "", err
	}
	return "fadvise+drop_caches", nil
}

// dropAllCaches writes every dirty page back and drops every clean cache
// (root only).
func dropAllCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop caches: %w", err)
	}
	return nil
}

// residency measures which share of a file's pages sit in the page cache,
// with mincore over read-only mappings of at most 64 MiB at a time (a 32-bit
// Pi cannot map a whole large file). It is what makes a cached read
// impossible to mistake for a device read.
func residency(path string) (state string, fraction *float64) {
	f, err := os.Open(path)
	if err != nil {
		return result.CacheUnknown, nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return result.CacheUnknown, nil
	}
	size := info.Size()
	if size == 0 {
		return result.CacheCold, new(float64)
	}
	const window = 64 << 20
	page := int64(os.Getpagesize())
	vec := make([]byte, window/page)
	var resident, total int64
	for off := int64(0); off < size; off += window {
		n := min(window, size-off)
		m, err := unix.Mmap(int(f.Fd()), off, int(n), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return result.CacheUnknown, nil
		}
		pages := (n + page - 1) / page
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(n), uintptr(unsafe.Pointer(&vec[0])))
		_ = unix.Munmap(m)
		if errno != 0 {
			return result.CacheUnknown, nil
		}
		for _, v := range vec[:pages] {
			resident += int64(v & 1)
		}
		total += pages
	}
	fr := float64(resident) / float64(total)
	switch {
	case resident == 0:
		state = result.CacheCold
	case resident == total:
		state = result.CacheCached
	default:
		state = result.CachePartial
	}
	return state, &fr
}
