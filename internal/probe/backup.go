package probe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// backup keeps the blocks a probe overwrites, read before its first write
// to each, in a file: written back at the end of the probe, or by Restore
// after a probe killed outright. The file is a header line, then records
// of (byte offset, length, the bytes), in the order they were saved.
type backup struct {
	f     *os.File
	path  string
	bs    int64
	saved map[int64]bool // blocks saved
	// written are the blocks the probe wrote: restore skips a record of
	// blocks saved ahead and never written. Nil for a file left by a
	// killed probe, whose records are all written back.
	written map[int64]bool
	recs    []record
	end     int64 // where the next record goes in the file
}

// record is one stretch of saved blocks; at is where its bytes are in the
// file.
type record struct{ off, n, at int64 }

const backupMagic = "thruput probe backup 1"

// backupHeader is the first line of a backup file: enough to refuse it
// for another device.
func backupHeader(device string, size, bs int64) string {
	return fmt.Sprintf("%s size=%d block=%d device=%s\n", backupMagic, size, bs, device)
}

// Dir is where backups are kept: $XDG_STATE_HOME/thruput/probe, else
// ~/.local/state/thruput/probe, beside the spool of runs not saved.
func Dir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "thruput", "probe"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no directory for the probe's backup ($HOME is not set; set XDG_STATE_HOME, or use --destructive)")
	}
	return filepath.Join(home, ".local", "state", "thruput", "probe"), nil
}

func newBackup(dir, device string, size, bs int64) (*backup, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("backup directory: %w", err)
	}
	name := fmt.Sprintf("%s-%s.bak", filepath.Base(device), time.Now().UTC().Format("20060102T150405.000Z"))
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("backup file: %w", err)
	}
	h := backupHeader(device, size, bs)
	if _, err := f.WriteString(h); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("backup file: %w", err)
	}
	return &backup{f: f, path: f.Name(), bs: bs, saved: map[int64]bool{}, written: map[int64]bool{}, end: int64(len(h))}, nil
}

// save reads the blocks of runs not saved before from the device and
// appends them to the file, then syncs it: only then may the pass write.
// With every block saved before, it has nothing to sync.
func (b *backup) save(p *prober, runs []run) error {
	n := len(b.recs)
	for _, r := range runs {
		for i := int64(0); i < r.count; {
			if b.saved[r.first+i] {
				i++
				continue
			}
			j := i
			for j < r.count && !b.saved[r.first+j] {
				b.saved[r.first+j] = true
				j++
			}
			if err := b.add(p, r.first+i, j-i); err != nil {
				return err
			}
			i = j
		}
	}
	if len(b.recs) == n {
		return nil
	}
	if err := b.f.Sync(); err != nil {
		return fmt.Errorf("backup file %s: %w", b.path, err)
	}
	return nil
}

func (b *backup) add(p *prober, first, count int64) error {
	buf := p.buf[:count*p.bs]
	if _, err := p.dev.ReadAt(buf, first*p.bs); err != nil {
		return fmt.Errorf("reading %d blocks at byte %d to back them up: %w", count, first*p.bs, err)
	}
	p.out.Read += int64(len(buf))
	var head [16]byte
	binary.LittleEndian.PutUint64(head[:], uint64(first*p.bs))
	binary.LittleEndian.PutUint64(head[8:], uint64(len(buf)))
	if _, err := b.f.WriteAt(head[:], b.end); err != nil {
		return fmt.Errorf("backup file %s: %w", b.path, err)
	}
	if _, err := b.f.WriteAt(buf, b.end+16); err != nil {
		return fmt.Errorf("backup file %s: %w", b.path, err)
	}
	b.recs = append(b.recs, record{first * p.bs, int64(len(buf)), b.end + 16})
	b.end += 16 + int64(len(buf))
	return nil
}

// wrote notes that the probe is about to write r's blocks.
func (b *backup) wrote(r run) {
	for i := range r.count {
		b.written[r.first+i] = true
	}
}

// touched says whether the probe wrote any block of r.
func (b *backup) touched(r record) bool {
	if b.written == nil {
		return true
	}
	for off := r.off; off < r.off+r.n; off += b.bs {
		if b.written[off/b.bs] {
			return true
		}
	}
	return false
}

// restore writes every record of blocks the probe wrote back, the last
// saved first: a block saved twice under two addresses that alias (a
// wraparound card) was first saved as it was, and that copy is written
// last. A record of blocks never written is skipped: its bytes were not
// overwritten under its own address, and under an alias the first
// address written was saved before that write, holds them, and is
// written back. It syncs the device, then removes the file. It returns
// the bytes written.
func (b *backup) restore(dev blockDevice, buf []byte, sync func() error) (int64, error) {
	var n int64
	for i := len(b.recs) - 1; i >= 0; i-- {
		r := b.recs[i]
		if !b.touched(r) {
			continue
		}
		p := buf[:r.n]
		if _, err := b.f.ReadAt(p, r.at); err != nil {
			return n, fmt.Errorf("backup file %s: %w", b.path, err)
		}
		if _, err := dev.WriteAt(p, r.off); err != nil {
			return n, fmt.Errorf("writing back %d bytes at byte %d: %w (the backup stays in %s)", r.n, r.off, err, b.path)
		}
		n += r.n
	}
	if err := sync(); err != nil {
		return n, fmt.Errorf("syncing the device after writing back its blocks: %w (the backup stays in %s)", err, b.path)
	}
	b.f.Close()
	if err := os.Remove(b.path); err != nil {
		return n, fmt.Errorf("removing the backup: %w", err)
	}
	return n, nil
}

// openBackup reads a backup file's header and records for Restore.
func openBackup(path string) (*backup, string, int64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", 0, 0, err
	}
	b := &backup{f: f, path: path}
	device, size, bs, err := b.scan()
	if err != nil {
		f.Close()
		return nil, "", 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	b.bs = bs
	return b, device, size, bs, nil
}

// maxRecord bounds a record's length: the probe saves at most a flush
// chunk at a time.
const maxRecord = chunk

func (b *backup) scan() (device string, size, bs int64, err error) {
	r := bufio.NewReader(io.NewSectionReader(b.f, 0, 1<<12))
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, backupMagic+" ") {
		return "", 0, 0, errors.New("not a thruput probe backup (no header line)")
	}
	b.end = int64(len(line))
	for _, f := range strings.Fields(strings.TrimPrefix(line, backupMagic)) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "size":
			size, err = strconv.ParseInt(v, 10, 64)
		case "block":
			bs, err = strconv.ParseInt(v, 10, 64)
		case "device":
			device = v
		}
		if err != nil {
			return "", 0, 0, fmt.Errorf("header field %q: %w", f, err)
		}
	}
	if size <= 0 || bs <= 0 || device == "" {
		return "", 0, 0, fmt.Errorf("header %q lacks the device, its size or block size", strings.TrimSpace(line))
	}
	st, err := b.f.Stat()
	if err != nil {
		return "", 0, 0, err
	}
	for at := b.end; at < st.Size(); {
		var head [16]byte
		if _, err := b.f.ReadAt(head[:], at); err != nil {
			// A record cut short: the probe died while saving it, before
			// the sync that lets it write those blocks, so they were never
			// overwritten.
			break
		}
		off, n := int64(binary.LittleEndian.Uint64(head[:])), int64(binary.LittleEndian.Uint64(head[8:]))
		if n <= 0 || n > maxRecord || n%bs != 0 || off < 0 || off%bs != 0 || off+n > size {
			return "", 0, 0, fmt.Errorf("record at byte %d: %d bytes at offset %d do not fit a %d-byte device of %d-byte blocks", at, n, off, size, bs)
		}
		if at+16+n > st.Size() {
			break
		}
		b.recs = append(b.recs, record{off, n, at + 16})
		at += 16 + n
	}
	return device, size, bs, nil
}
