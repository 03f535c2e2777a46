package disk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/h2w"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// CapacityConfig holds the parameters of disk check --capacity.
type CapacityConfig struct {
	result.CapacityParameters
	// Keep leaves the files in the directory at the end.
	Keep bool
}

// Validate checks the file range.
func (c CapacityConfig) Validate() error {
	switch {
	case c.StartAt < 1:
		return usage.Invalidf("{StartAt} %d: files are numbered from 1", c.StartAt)
	case c.EndAt != 0 && c.EndAt < c.StartAt:
		return usage.Invalidf("{EndAt} %d is before {StartAt} %d", c.EndAt, c.StartAt)
	case c.DropCaches && os.Geteuid() != 0:
		return usage.Invalidf("{DropCaches} needs root (it writes /proc/sys/vm/drop_caches)")
	}
	return nil
}

const (
	// capacityChunk is what one write or read moves: large enough that
	// the system calls cost nothing beside the card, small enough that a
	// stop is seen at once.
	capacityChunk = 4 << 20
	// sampleEvery is how often the rate over time is sampled; a write
	// sample ends with fdatasync, so it is the card's rate, not the page
	// cache's, as f3write's are.
	sampleEvery = time.Second
	// minFree is the least free space worth filling.
	minFree = 1 << 20
)

// Capacity fills the free space of the filesystem under t with f3write's
// N.h2w files, from cfg.StartAt on, reads every one back past the page
// cache, and fills out; with VerifyOnly it reads the files already there.
// It removes the files it wrote unless cfg.Keep, also when it fails or
// is stopped, and never writes over or removes a file it did not make.
func Capacity(ctx context.Context, cfg CapacityConfig, t result.Target, out *result.Capacity, h progress.Hooks) (err error) {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if t.FSType == "tmpfs" || t.FSType == "ramfs" {
		return usage.Errorf("%s is on %s: its files are in memory, with no card or disk behind them, so there is no capacity to check", t.Path, t.FSType)
	}
	*out = result.Capacity{CapacityParameters: cfg.CapacityParameters, Files: []result.CapacityFile{}}
	there, err := h2w.List(t.Path, cfg.StartAt, cfg.EndAt)
	if err != nil {
		return usage.Errorf("%s: %w", t.Path, err)
	}
	var numbers []int
	if cfg.VerifyOnly {
		if len(there) == 0 {
			return usage.Errorf("%s holds no .h2w files from %s on: nothing to verify", t.Path, h2w.Name(cfg.StartAt))
		}
		numbers = there
		out.Kept = true
	} else {
		if len(there) > 0 {
			return usage.Errorf("%s already holds %s: thruput does not write over files it did not make; read them with --verify-only, or remove them", t.Path, listNames(there))
		}
		var st unix.Statfs_t
		if err := unix.Statfs(t.Path, &st); err != nil {
			return fmt.Errorf("%s: statfs: %w", t.Path, err)
		}
		out.FreeBytes = int64(st.Bfree) * int64(st.Frsize) // f3write's "Free space"
		if out.FreeBytes < minFree {
			return usage.Errorf("%s has %s free: the filesystem is full, there is nothing to fill", t.Path, units.IEC(out.FreeBytes))
		}
		var written []int
		defer func() {
			if cfg.Keep {
				out.Kept = len(written) > 0
				return
			}
			for _, n := range written {
				if rerr := os.Remove(filepath.Join(t.Path, h2w.Name(n))); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
					err = errors.Join(err, rerr)
				}
			}
		}()
		written, err = fill(ctx, cfg, t, out, h)
		numbers = written
		if err != nil {
			return resumeHint(err, cfg, out, t.Path)
		}
	}
	if err := readBack(ctx, t, numbers, out, h); err != nil {
		return resumeHint(err, cfg, out, t.Path)
	}
	judgeCapacity(out)
	return nil
}

// listNames names a few files, and says how many more.
func listNames(ns []int) string {
	var names []string
	for _, n := range ns[:min(len(ns), 3)] {
		names = append(names, h2w.Name(n))
	}
	s := strings.Join(names, ", ")
	if len(ns) > 3 {
		s += fmt.Sprintf(" and %d more", len(ns)-3)
	}
	return s
}

// resumeHint says, on a stop, what is left and how to go on. Files are
// numbered from StartAt on, and Files holds the whole ones.
func resumeHint(err error, cfg CapacityConfig, out *result.Capacity, dir string) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	err = interrupted{context.Canceled}
	at := cfg.StartAt + len(out.Files)
	switch {
	case cfg.VerifyOnly:
		if len(out.Files) > 0 {
			at = out.Files[len(out.Files)-1].Number
		}
		return fmt.Errorf("%w: stopped reading %s; to read on from there: --verify-only --start-at %d", err, h2w.Name(at), at)
	case cfg.Keep && out.Read != nil:
		return fmt.Errorf("%w: the files are kept in %s; to read them: --verify-only", err, dir)
	case cfg.Keep:
		return fmt.Errorf("%w: %d whole files are kept in %s; to go on filling: --start-at %d --keep, then --verify-only reads them all", err, len(out.Files), dir, at)
	}
	return fmt.Errorf("%w: its files were removed (a run with --keep keeps them, to go on with --start-at)", err)
}

// fill writes files from cfg.StartAt until the filesystem is full or
// cfg.EndAt is written, and returns the numbers of those it made. A file
// a stop cut short is removed; one the full filesystem cut short is kept,
// cut to whole sectors.
func fill(ctx context.Context, cfg CapacityConfig, t result.Target, out *result.Capacity, h progress.Hooks) ([]int, error) {
	last := cfg.StartAt + int(out.FreeBytes>>30) // f3write's: the last file is the one the filesystem fills
	if cfg.EndAt != 0 && cfg.EndAt < last {
		last = cfg.EndAt
	}
	total := min(out.FreeBytes, int64(last-cfg.StartAt+1)<<30)
	buf, err := newBuffer(capacityChunk)
	if err != nil {
		return nil, err
	}
	defer buf.free()
	ph := newFillPhase(t.Label(), "h2w write", total, h)
	out.Write = &ph.CapacityPhase
	var made []int
	for n := cfg.StartAt; n <= last; n++ {
		path := filepath.Join(t.Path, h2w.Name(n))
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.ENOSPC) {
			break
		}
		if err != nil {
			ph.end()
			return made, fmt.Errorf("%s: %w", path, err)
		}
		made = append(made, n)
		f := result.CapacityFile{Number: n}
		start := time.Now()
		full, werr := writeH2W(ctx, fd, n, buf, ph, &f)
		if serr := unix.Fdatasync(fd); werr == nil && serr != nil {
			full, werr = errors.Is(serr, unix.ENOSPC), nonFull(serr)
		}
		_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		unix.Close(fd)
		ph.sample()
		f.WriteMiBPerSec = result.MiBPerSec(f.Bytes, int64(time.Since(start)))
		if werr != nil || f.Bytes == 0 {
			// A file cut short by a stop or an error, or an empty one the
			// full filesystem left, is no file of the fill.
			made = made[:len(made)-1]
			if rerr := os.Remove(path); rerr != nil {
				werr = errors.Join(werr, rerr)
			}
		}
		if werr != nil {
			ph.end()
			return made, fmt.Errorf("%s: %w", path, werr)
		}
		if f.Bytes > 0 {
			out.Files = append(out.Files, f)
		}
		if full {
			break
		}
	}
	ph.end()
	if len(made) == 0 {
		return nil, fmt.Errorf("%s: the filesystem took no data (%s free before): nothing to read back", t.Path, units.IEC(out.FreeBytes))
	}
	return made, nil
}

// nonFull is err unless it says the filesystem is full, which ends a
// fill and is no error.
func nonFull(err error) error {
	if errors.Is(err, unix.ENOSPC) {
		return nil
	}
	return err
}

// noRoom says the filesystem of fd has no room left: a write that failed
// then ends the fill whatever the error, as some filesystems give
// another than ENOSPC (fusefat, the FUSE vfat, says EPERM).
func noRoom(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && int64(st.Bavail)*int64(st.Bsize) < 64<<10
}

// writeH2W writes file n's sectors into fd until it holds 1 GiB or the
// filesystem is full (full is then true: the file is cut to whole
// sectors), syncing and dropping what it wrote from the page cache about
// once a second.
func writeH2W(ctx context.Context, fd, n int, buf buffer, ph *fillPhase, f *result.CapacityFile) (full bool, err error) {
	off := h2w.Offset(n)
	for f.Bytes < h2w.FileSize {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		chunk := buf[:min(capacityChunk, h2w.FileSize-f.Bytes)]
		h2w.Fill(chunk, off)
		done := 0
		for done < len(chunk) {
			w, err := unix.Write(fd, chunk[done:])
			if w > 0 {
				done += w
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || w == 0 {
				f.Bytes += int64(done)
				ph.add(int64(done))
				if err = nonFull(err); err != nil && !noRoom(fd) {
					return false, err
				}
				// The filesystem is full. The file is what it holds, which
				// may be more than the writes said (fusefat took part of
				// the write it failed), cut to whole sectors.
				var st unix.Stat_t
				if err := unix.Fstat(fd, &st); err != nil {
					return false, err
				}
				keep := st.Size / h2w.SectorSize * h2w.SectorSize
				if keep != st.Size {
					if err := unix.Ftruncate(fd, keep); err != nil {
						return false, err
					}
				}
				ph.add(keep - f.Bytes)
				f.Bytes = keep
				return true, nil
			}
		}
		f.Bytes += int64(done)
		off += uint64(done)
		ph.add(int64(done))
		if ph.due() {
			if err := unix.Fdatasync(fd); err != nil {
				return errors.Is(err, unix.ENOSPC), nonFull(err)
			}
			_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
			ph.sample()
		}
	}
	return false, nil
}

// readBack reads files back, past the page cache, and counts their sectors.
func readBack(ctx context.Context, t result.Target, numbers []int, out *result.Capacity, h progress.Hooks) error {
	var total int64
	sizes := map[int]int64{}
	for _, n := range numbers {
		fi, err := os.Stat(filepath.Join(t.Path, h2w.Name(n)))
		if err != nil {
			return err
		}
		sizes[n] = fi.Size()
		total += fi.Size()
	}
	buf, err := newBuffer(capacityChunk)
	if err != nil {
		return err
	}
	defer buf.free()
	if out.DropCaches {
		if err := dropAllCaches(); err != nil {
			return err
		}
	}
	ph := newFillPhase(t.Label(), "h2w read", total, h)
	out.Read = &ph.CapacityPhase
	defer ph.end()
	var k h2w.Checker
	for _, n := range numbers {
		i := indexFile(out, n)
		if i < 0 {
			out.Files = append(out.Files, result.CapacityFile{Number: n, Bytes: sizes[n]})
			i = len(out.Files) - 1
		}
		f := &out.Files[i]
		before := k.Counts
		start := time.Now()
		read, rerr := readH2W(ctx, filepath.Join(t.Path, h2w.Name(n)), n, buf, &k, ph)
		f.ReadMiBPerSec = result.MiBPerSec(read, int64(time.Since(start)))
		f.Sectors = sectorCounts(h2w.Counts{OK: k.OK - before.OK, Corrupted: k.Corrupted - before.Corrupted,
			Changed: k.Changed - before.Changed, Overwritten: k.Overwritten - before.Overwritten})
		if errors.Is(rerr, context.Canceled) {
			return rerr
		}
		if rerr != nil {
			f.ReadError = rerr.Error()
		}
	}
	out.Sectors = sectorCounts(k.Counts)
	out.UsableBytes = k.OK * h2w.SectorSize
	for _, a := range k.Aliases {
		out.Aliases = append(out.Aliases, result.CapacityAlias{At: int64(a.At), Holds: int64(a.Holds), Sectors: a.Sectors})
	}
	out.MoreAliases = k.More
	return nil
}

func indexFile(out *result.Capacity, n int) int {
	for i, f := range out.Files {
		if f.Number == n {
			return i
		}
	}
	return -1
}

func sectorCounts(c h2w.Counts) result.SectorCounts {
	return result.SectorCounts{OK: c.OK, Corrupted: c.Corrupted, Changed: c.Changed, Overwritten: c.Overwritten}
}

// readH2W reads file n from its start, after syncing it and dropping it
// from the page cache (as f3read does) so the sectors come from the
// card, and returns the bytes read; an I/O error ends the file, not the
// run.
func readH2W(ctx context.Context, path string, n int, buf buffer, k *h2w.Checker, ph *fillPhase) (int64, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	_ = unix.Fdatasync(fd)
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return 0, fmt.Errorf("dropping it from the page cache: %w", err)
	}
	_ = unix.Fadvise(fd, 0, 0, unix.FADV_SEQUENTIAL)
	off := h2w.Offset(n)
	var read int64
	for {
		if err := ctx.Err(); err != nil {
			return read, err
		}
		got := 0
		for got < len(buf) {
			r, err := unix.Read(fd, buf[got:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return read, err
			}
			if r == 0 {
				break
			}
			got += r
		}
		whole := got / h2w.SectorSize * h2w.SectorSize
		off = k.Sectors(buf[:whole], off)
		read += int64(got)
		ph.add(int64(got))
		if ph.due() {
			_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
			ph.sample()
		}
		if got < len(buf) {
			if whole != got {
				return read, fmt.Errorf("%d bytes after the last whole sector", got-whole)
			}
			return read, nil
		}
	}
}

// judgeCapacity gives the verdict: genuine when every sector came back
// intact, fake when some held another place's data, damaged otherwise.
func judgeCapacity(out *result.Capacity) {
	s := out.Sectors
	readAll := true
	for _, f := range out.Files {
		readAll = readAll && f.ReadError == ""
	}
	pass := s.Lost() == 0 && readAll && s.OK > 0
	out.Pass = &pass
	written := (s.OK + s.Lost()) * h2w.SectorSize
	usable := units.IEC(out.UsableBytes)
	switch {
	case pass:
		out.Verdict = fmt.Sprintf("genuine: all %s written read back intact", units.IEC(written))
	case written == 0 && readAll:
		out.Verdict = "FAIL: nothing to judge: the files hold no whole sector"
	case s.Overwritten > 0:
		out.Verdict = fmt.Sprintf("FAIL: fake: %s of the %s written came back holding data written elsewhere (the card wraps around); usable %s", units.IEC(s.Overwritten*h2w.SectorSize), units.IEC(written), usable)
	default:
		why := fmt.Sprintf("%s of the %s written came back corrupted or changed", units.IEC(s.Lost()*h2w.SectorSize), units.IEC(written))
		if !readAll {
			why = "files could not be read to their end"
			if s.Lost() > 0 {
				why = fmt.Sprintf("%s lost and files could not be read to their end", units.IEC(s.Lost()*h2w.SectorSize))
			}
		}
		out.Verdict = fmt.Sprintf("FAIL: damaged: %s; usable %s", why, usable)
	}
}

// fillPhase times the fill or the read back: its figures, the rate about
// once a second, and the progress line.
type fillPhase struct {
	result.CapacityPhase
	label, name string
	total       int64
	start, last time.Time
	lastBytes   int64
	h           progress.Hooks
}

func newFillPhase(label, name string, total int64, h progress.Hooks) *fillPhase {
	now := time.Now()
	return &fillPhase{label: label, name: name, total: total, start: now, last: now, h: h}
}

// add counts bytes moved and redraws the progress line.
func (p *fillPhase) add(n int64) {
	p.Bytes += n
	p.h.Report(progress.Report{Target: p.label, Phase: p.name, BlockSize: capacityChunk, Bytes: p.Bytes, Total: max(p.total, p.Bytes), Elapsed: time.Since(p.start)})
}

// due says a sample is due.
func (p *fillPhase) due() bool { return time.Since(p.last) >= sampleEvery }

// sample closes a span of the rate over time.
func (p *fillPhase) sample() {
	now := time.Now()
	if d := p.Bytes - p.lastBytes; d > 0 {
		p.OverTime = append(p.OverTime, result.RateSample{AtNs: int64(now.Sub(p.start)), Bytes: d, MiBPerSec: result.MiBPerSec(d, int64(now.Sub(p.last)))})
	}
	p.last, p.lastBytes = now, p.Bytes
}

// end closes the phase's figures.
func (p *fillPhase) end() {
	p.ElapsedNs = int64(time.Since(p.start))
	p.MiBPerSec = result.MiBPerSec(p.Bytes, p.ElapsedNs)
}
