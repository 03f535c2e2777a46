package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// Config is what disk check --probe was asked.
type Config struct {
	// Device is the whole block device to probe.
	Device string
	// Destructive skips the backup: the blocks the probe writes keep its
	// stamps.
	Destructive bool
	// CacheFlush is how much to write after each pass's stamps (--cache).
	CacheFlush int64
	// BackupDir holds the backup file; empty means Dir().
	BackupDir string
}

// Run probes cfg.Device. ctx ending (Ctrl-C, SIGTERM) stops it between
// two writes; the blocks it overwrote are written back in every case but
// a write or read error of the device itself, after which the backup file
// stays for Restore and the error names it.
func Run(ctx context.Context, cfg Config, h progress.Hooks) (*result.Probe, error) {
	if cfg.CacheFlush < 0 {
		return nil, usage.Errorf("--cache %d: must not be negative", cfg.CacheFlush)
	}
	f, err := openDevice(cfg.Device, unix.O_RDWR)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	start := time.Now()
	size, bs, err := geometry(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Device, err)
	}
	if size < 2*reserved {
		return nil, usage.Errorf("%s has %s: the probe needs at least 2 MiB (it never writes the first MiB, which holds the partition table)", cfg.Device, units.IEC(size))
	}
	buf, err := unix.Mmap(-1, 0, chunk, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("allocate the probe's buffer: %w", err)
	}
	defer unix.Munmap(buf)
	out := &result.Probe{Device: cfg.Device, Announced: size, BlockSize: int(bs), FirstBad: -1}
	p := &prober{dev: f, bs: bs, n: size / bs, tag: rand.Uint64(), buf: buf, h: h, label: cfg.Device, out: out, start: start}
	p.ref = reserved / bs
	// The flush begins at the reference block, which every pass writes.
	p.zone = max(1, min(cfg.CacheFlush/bs, p.n-p.ref))
	if p.zone > 1 {
		out.CacheFlush = p.zone * bs
	}
	if !cfg.Destructive {
		dir := cfg.BackupDir
		if dir == "" {
			if dir, err = Dir(); err != nil {
				return nil, err
			}
		}
		if p.backup, err = newBackup(dir, cfg.Device, size, bs); err != nil {
			return nil, err
		}
		h.Notef("probing %s; the blocks it overwrites are kept in %s until they are written back (after a crash: thruput disk check --probe %s --restore %s)", cfg.Device, p.backup.path, cfg.Device, p.backup.path)
	}
	searchErr := p.search(ctx)
	if p.backup != nil {
		// Written back even when interrupted: ctx is not asked here.
		n, err := p.backup.restore(f, buf, f.Sync)
		out.Written += n
		if err != nil {
			return nil, errors.Join(searchErr, err)
		}
		out.Restored = true
	}
	out.ElapsedNs = time.Since(start).Nanoseconds()
	switch {
	case errors.Is(searchErr, context.Canceled) && out.Restored:
		// Not wrapped: the command's usual interrupt line speaks of test
		// files, and the probe made none.
		return nil, fmt.Errorf("probing %s: interrupted; every block it overwrote was written back", cfg.Device)
	case errors.Is(searchErr, context.Canceled):
		return nil, fmt.Errorf("probing %s: interrupted; the blocks it wrote keep its stamps (--destructive)", cfg.Device)
	case searchErr != nil && out.Restored:
		return nil, fmt.Errorf("probing %s: %w; every block it overwrote was written back", cfg.Device, searchErr)
	case searchErr != nil:
		return nil, fmt.Errorf("probing %s: %w", cfg.Device, searchErr)
	}
	if out.Verdict != result.ProbeGenuine && out.Usable > reserved {
		out.Fix = fixCommand(cfg.Device, out.Usable)
	}
	out.Summary = words(out)
	return out, nil
}

// fixCommand is f3fix done with parted: a new msdos partition table with
// one FAT32 partition from sector 2048 (1 MiB, as f3fix and most cards
// have it) to the last usable 512-byte sector, inclusive, as parted counts
// an end given in sectors.
func fixCommand(device string, usable int64) string {
	return fmt.Sprintf("parted -s %s unit s mklabel msdos mkpart primary fat32 2048 %d", device, usable/512-1)
}

// Restore writes back the blocks a probe killed outright (SIGKILL, power
// loss) left in the backup file, then removes it. It returns the bytes
// written back.
func Restore(device, file string) (int64, error) {
	b, dev, size, bs, err := openBackup(file)
	if err != nil {
		return 0, usage.Errorf("--restore %w", err)
	}
	defer b.f.Close()
	f, err := openDevice(device, unix.O_RDWR)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	gotSize, gotBS, err := geometry(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", device, err)
	}
	if gotSize != size || gotBS != bs {
		return 0, usage.Errorf("--restore %s is of %s (%d bytes, %d-byte blocks), not of %s (%d bytes, %d-byte blocks)", file, dev, size, bs, device, gotSize, gotBS)
	}
	buf, err := unix.Mmap(-1, 0, chunk, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(buf)
	return b.restore(f, buf, f.Sync)
}

// openDevice checks device (Roots.Refuse) and opens it with O_DIRECT, so
// that the host's page cache answers no read, and O_EXCL, which the kernel
// refuses while anything has it mounted or claimed.
func openDevice(device string, mode int) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Stat(device, &st); err != nil {
		return nil, usage.Errorf("%s: %w", device, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
	case unix.S_IFREG:
		return nil, usage.Errorf("%s is a regular file, not a block device: the probe reads and writes a card's device (/dev/sdX, /dev/mmcblkN)", device)
	default:
		return nil, usage.Errorf("%s is not a block device: the probe reads and writes a card's device (/dev/sdX, /dev/mmcblkN)", device)
	}
	if err := (Roots{Sys: "/sys", Proc: "/proc"}).Refuse(device, uint64(st.Rdev)); err != nil {
		return nil, err
	}
	fd, err := unix.Open(device, mode|unix.O_DIRECT|unix.O_EXCL|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.EBUSY):
		return nil, usage.Errorf("%s is in use: the kernel refuses it exclusive access (mounted in another namespace, or claimed by another program)", device)
	case errors.Is(err, unix.EROFS) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		return nil, usage.Errorf("%s cannot be opened for writing: %w", device, err)
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", device, err)
	}
	return os.NewFile(uintptr(fd), device), nil
}

// geometry returns the device's size and logical block size.
func geometry(f *os.File) (int64, int64, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, 0, err
	}
	bs, err := unix.IoctlGetInt(int(f.Fd()), unix.BLKSSZGET)
	if err != nil {
		return 0, 0, fmt.Errorf("logical block size (BLKSSZGET): %w", err)
	}
	return size, int64(bs), nil
}
