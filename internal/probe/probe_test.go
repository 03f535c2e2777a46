package probe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// card models a card in memory: Real bytes kept, addresses past them
// wrapping (modulo wrap) or dropped, a write cache holding the last cache
// bytes written (read back as written, wherever they went), bad blocks
// that lose what is written to them.
type card struct {
	size, real, wrap int64
	mem              []byte
	cache            int64
	recent           []cached
	bad              map[int64]bool // byte offsets of 512-byte blocks
	writes, reads    int
}

type cached struct {
	off  int64
	data []byte
}

func newCard(size, real, wrap int64) *card {
	c := &card{size: size, real: real, wrap: wrap, mem: make([]byte, real)}
	// Old data everywhere, so that the probe cannot mistake zeros for
	// anything of its own.
	rand.NewChaCha8([32]byte{1}).Read(c.mem)
	return c
}

// where maps a byte offset (of a 512-byte block) to the card's memory, -1
// for a dropped one.
func (c *card) where(off int64) int64 {
	if c.bad[off] {
		return -1
	}
	if off < c.real {
		return off
	}
	if c.wrap > 0 {
		if m := off % c.wrap; m < c.real {
			return m
		}
	}
	return -1
}

// The probe reads and writes whole 512-byte blocks.
func (c *card) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	for i := int64(0); i < int64(len(p)); i += 512 {
		if m := c.where(off + i); m >= 0 {
			copy(p[i:i+512], c.mem[m:])
		} else {
			clear(p[i : i+512])
		}
	}
	// The cache answers for what it holds, newest last.
	for _, w := range c.recent {
		lo, hi := max(off, w.off), min(off+int64(len(p)), w.off+int64(len(w.data)))
		if lo < hi {
			copy(p[lo-off:hi-off], w.data[lo-w.off:hi-w.off])
		}
	}
	return len(p), nil
}

func (c *card) WriteAt(p []byte, off int64) (int, error) {
	c.writes++
	if off+int64(len(p)) > c.size {
		return 0, syscall.ENOSPC
	}
	for i := int64(0); i < int64(len(p)); i += 512 {
		if m := c.where(off + i); m >= 0 {
			copy(c.mem[m:m+512], p[i:])
		}
	}
	if c.cache > 0 {
		c.recent = append(c.recent, cached{off, bytes.Clone(p)})
		var held int64
		for i := len(c.recent) - 1; i >= 0; i-- {
			held += int64(len(c.recent[i].data))
			if held > c.cache {
				c.recent = c.recent[i+1:]
				break
			}
		}
	}
	return len(p), nil
}

// probeCard runs the search on c with a backup, restores, and checks that
// the card's memory is as before.
func probeCard(t *testing.T, c *card, flush int64) *result.Probe {
	t.Helper()
	before := sha256.Sum256(c.mem)
	out := &result.Probe{Announced: c.size, BlockSize: 512, FirstBad: -1}
	p := &prober{dev: c, bs: 512, n: c.size / 512, tag: rand.Uint64(), buf: make([]byte, chunk), out: out, ref: reserved / 512}
	p.zone = max(1, min(flush/512, p.n-p.ref))
	if p.zone > 1 {
		out.CacheFlush = p.zone * 512
	}
	var err error
	if p.backup, err = newBackup(t.TempDir(), "/dev/model", c.size, 512); err != nil {
		t.Fatal(err)
	}
	if err := p.search(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.recent = nil // what the restore writes must reach the memory
	if _, err := p.backup.restore(c, p.buf, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(c.mem) != before {
		t.Errorf("the card's memory differs after the probe restored it")
	}
	if _, err := os.Stat(p.backup.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup file left after restoring: %v", err)
	}
	out.Summary = words(out)
	return out
}

func TestSearch(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name          string
		c             *card
		verdict, kind string
		usable, wrap  int64
		bad           int
		firstBad      int64
		summary       string
	}{
		{"genuine", newCard(64*mib, 64*mib, 0), result.ProbeGenuine, "", 64 * mib, 0, 0, -1, "genuine: all 64.0 MiB"},
		{"wrap", newCard(1024*mib, 32*mib, 32*mib), result.ProbeFake, result.ProbeWraparound, 32 * mib, 32 * mib, 0, -1, "land 32.0 MiB lower"},
		{"drop", newCard(1024*mib, 32*mib, 0), result.ProbeFake, result.ProbeDropped, 32 * mib, 0, 0, -1, "32.0 MiB usable of 1.0 GiB"},
		// Not a power of two, not on a sample: found to the block.
		{"drop odd", newCard(512*mib, 40*mib+3*512, 0), result.ProbeFake, result.ProbeDropped, 40*mib + 3*512, 0, 0, -1, "fake"},
		// Memory ends below the wrap: the blocks between are limbo.
		{"wrap with limbo", newCard(1024*mib, 24*mib, 32*mib), result.ProbeFake, result.ProbeWraparound, 24 * mib, 32 * mib, 0, -1, "fake"},
		// Smaller than the flush zone: the zone itself finds the end.
		{"tiny", newCard(256*mib, 5*mib, 8*mib), result.ProbeFake, result.ProbeWraparound, 5 * mib, 8 * mib, 0, -1, "fake"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := probeCard(t, tc.c, DefaultCacheFlush)
			if out.Verdict != tc.verdict || out.Kind != tc.kind || out.Usable != tc.usable || out.Wrap != tc.wrap || out.BadBlocks != tc.bad || out.FirstBad != tc.firstBad {
				t.Errorf("got %s %s usable %d wrap %d bad %d first %d, want %s %s usable %d wrap %d bad %d first %d",
					out.Verdict, out.Kind, out.Usable, out.Wrap, out.BadBlocks, out.FirstBad, tc.verdict, tc.kind, tc.usable, tc.wrap, tc.bad, tc.firstBad)
			}
			if !strings.Contains(out.Summary, tc.summary) {
				t.Errorf("summary %q, want it to say %q", out.Summary, tc.summary)
			}
			t.Logf("%s: %d passes, %d writes, %d reads", out.Summary, out.Passes, tc.c.writes, tc.c.reads)
			// Without a cache, dropped: the last block, 64 blocks and the
			// reference, then a bisection of about 15 single blocks, and
			// the restore's writes of them: 161 requests. Five passes of
			// 16 blocks and the reference each wrote 249.
			if tc.name == "drop" && tc.c.writes > 161 {
				t.Errorf("%d write requests, want at most 161", tc.c.writes)
			}
		})
	}
}

// TestSearchCache: a fake card with a write cache smaller than the flush
// is seen through; one larger than the flush fools the probe, which is why
// --cache exists.
func TestSearchCache(t *testing.T) {
	const mib = 1 << 20
	c := newCard(1024*mib, 32*mib, 0)
	c.cache = 4 * mib
	if out := probeCard(t, c, DefaultCacheFlush); out.Verdict != result.ProbeFake || out.Usable != 32*mib || out.CacheFlush != DefaultCacheFlush {
		t.Errorf("4 MiB cache, 16 MiB flush: %s, %d bytes flushed", out.Summary, out.CacheFlush)
	}
	// Without a cache the last block is lost at once: no flush needed.
	if out := probeCard(t, newCard(1024*mib, 32*mib, 0), DefaultCacheFlush); out.Usable != 32*mib || out.CacheFlush != 0 {
		t.Errorf("no cache: %s, %d bytes flushed, want none", out.Summary, out.CacheFlush)
	}
	c = newCard(1024*mib, 32*mib, 0)
	c.cache = 4 * mib
	if out := probeCard(t, c, 1*mib); out.Verdict == result.ProbeFake && out.Usable == 32*mib {
		t.Errorf("4 MiB cache, 1 MiB flush: found the end anyway (%s): the model's cache does not work", out.Summary)
	}
}

func TestSearchDamaged(t *testing.T) {
	const mib = 1 << 20
	c := newCard(64*mib, 64*mib, 0)
	c.bad = map[int64]bool{}
	// A stretch of bad blocks the first pass's samples fall on.
	for off := int64(32 * mib); off < 34*mib; off += 512 {
		c.bad[off] = true
	}
	out := probeCard(t, c, DefaultCacheFlush)
	if out.Verdict != result.ProbeDamaged || out.Usable != 64*mib || out.BadBlocks == 0 || out.FirstBad < 32*mib || out.FirstBad >= 34*mib {
		t.Errorf("got %+v", out)
	}
	if !strings.Contains(out.Summary, "lose their data") {
		t.Errorf("summary %q", out.Summary)
	}

	c = newCard(64*mib, 64*mib, 0)
	c.bad = map[int64]bool{reserved: true}
	out = probeCard(t, c, DefaultCacheFlush)
	if out.Verdict != result.ProbeDamaged || out.Usable != 0 || out.FirstBad != reserved {
		t.Errorf("bad reference block: got %+v", out)
	}
	if !strings.Contains(out.Summary, "the first the probe writes") {
		t.Errorf("summary %q", out.Summary)
	}
}

func TestEvenly(t *testing.T) {
	for _, tc := range []struct {
		from, to, k int64
		want        []int64
	}{
		{10, 13, 8, []int64{10, 11, 12}},
		{0, 100, 3, []int64{0, 49, 99}},
		{5, 5, 3, nil},
	} {
		if got := evenly(tc.from, tc.to, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("evenly(%d, %d, %d) = %v, want %v", tc.from, tc.to, tc.k, got, tc.want)
		}
	}
	// seeCache backs up the first pass's blocks before it knows whether
	// the pass stamps firstSamples or samplesPerPass: the first must be
	// among the second.
	for _, n := range []int64{100, 253, 4097, 1 << 21, 1<<21 + 12345, 1 << 31} {
		all := evenly(2049, n, samplesPerPass)
		for _, b := range evenly(2049, n, firstSamples) {
			if _, ok := slices.BinarySearch(all, b); !ok {
				t.Errorf("%d blocks: block %d of the first pass without a cache is not among a pass's", n, b)
			}
		}
	}
}

func TestFixCommand(t *testing.T) {
	got := fixCommand("/dev/sdb", 128<<20)
	if want := "parted -s /dev/sdb unit s mklabel msdos mkpart primary fat32 2048 262143"; got != want {
		t.Errorf("got %q, want %q (f3fix --last-sec=262143 on the same card)", got, want)
	}
}

func TestBackupRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"empty", "", "no header line"},
		{"other", "hello\n", "no header line"},
		{"no device", backupMagic + " size=1048576 block=512\n", "lacks the device"},
		{"bad size", backupMagic + " size=x block=512 device=/dev/sdb\n", `header field "size=x"`},
		{"record past end", backupMagic + " size=1048576 block=512 device=/dev/sdb\n" + string(record16(2<<20, 512)) + strings.Repeat("x", 512), "do not fit"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, _, _, err := openBackup(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func record16(off, n uint64) []byte {
	b := make([]byte, 16)
	for i := range 8 {
		b[i] = byte(off >> (8 * i))
		b[8+i] = byte(n >> (8 * i))
	}
	return b
}

// FuzzOpenBackup: a backup file handed to --restore is read without a
// panic or a hang, and either refused or held to records that fit the
// device its header names.
func FuzzOpenBackup(f *testing.F) {
	head := backupMagic + " size=4194304 block=512 device=/dev/sdb\n"
	f.Add([]byte(head))
	f.Add([]byte(head + string(record16(1<<20, 512)) + strings.Repeat("x", 512)))
	f.Add([]byte(head + string(record16(1<<20, 1024)) + "short"))
	f.Add([]byte("thruput probe backup 1 size=-1\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "bak")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, _, size, bs, err := openBackup(path)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		defer b.f.Close()
		for _, r := range b.recs {
			if r.off < 0 || r.n <= 0 || r.n > maxRecord || r.off+r.n > size || r.off%bs != 0 || r.at+r.n > int64(len(data)) {
				t.Errorf("record %+v does not fit a %d-byte device or the %d-byte file", r, size, len(data))
			}
		}
	})
}
