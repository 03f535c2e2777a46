// Package h2w is the file format f3write writes and f3read verifies (f3 by
// Digirati, AltraMayor/f3; the files are named N.h2w after H2testw, whose
// fill-the-card method f3 follows). A fill is a row of 1 GiB files
// numbered from 1; file N covers bytes (N-1) GiB onward of one long
// stream, cut into 512-byte sectors. Each sector holds its own offset in
// that stream as a little-endian uint64, then 63 uint64s, each the one
// before times 4294967311 plus 17 (mod 2^64), starting from the offset.
// Reading a sector back tells what happened to it: intact; a few words
// changed; somebody else's sector (the offset it holds is another's, as
// when a fake card wraps its writes around onto earlier ones); or
// garbage.
//
// The layout was read from f3's f3write.c (fill_buffer), f3read.c
// (check_sector, TOLERANCE) and utils.c (random_number,
// full_fn_from_number); this package is written from that description,
// not from f3's code. f3 writes the words in the machine's byte order;
// every machine thruput runs on (x86, ARM) is little-endian, so
// little-endian is what f3 writes there.
package h2w

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

const (
	// SectorSize is the unit of the check.
	SectorSize = 512
	// FileSize is every file's size but the last, which the full
	// filesystem cuts short.
	FileSize = 1 << 30
	// Tolerance is how many of a sector's 63 words may differ from the
	// sequence for f3read to call it slightly changed rather than
	// corrupted (f3read's TOLERANCE).
	Tolerance = 2
	// multiplier and increment make each word from the one before
	// (f3's random_number).
	multiplier = 4294967311
	increment  = 17
	words      = SectorSize / 8
)

// Name is file n's name ("1.h2w"); n counts from 1, as f3's --start-at.
func Name(n int) string { return strconv.Itoa(n) + ".h2w" }

// Number reads the file number out of a name f3 would read ("17.h2w"),
// false for any other name.
func Number(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, ".h2w")
	if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// Offset is where file n's first sector lies in the stream.
func Offset(n int) uint64 { return uint64(n-1) * FileSize }

// Fill writes the sectors that start at stream offset off into buf, whose
// length must be a whole number of sectors, and returns the offset after
// them.
func Fill(buf []byte, off uint64) uint64 {
	for len(buf) >= SectorSize {
		s := buf[:SectorSize:SectorSize]
		w := off
		binary.LittleEndian.PutUint64(s, w)
		for i := 8; i < SectorSize; i += 8 {
			w = w*multiplier + increment
			binary.LittleEndian.PutUint64(s[i:], w)
		}
		buf = buf[SectorSize:]
		off += SectorSize
	}
	return off
}

// Class is what a sector read back was found to be.
type Class int

// The classes, in f3read's order and words.
const (
	// OK: the sector expected, intact.
	OK Class = iota
	// Corrupted: more than Tolerance words are not the sequence the
	// sector's first word starts (whatever that word says).
	Corrupted
	// Changed: the sector expected, with 1 to Tolerance words wrong.
	Changed
	// Overwritten: an intact (or nearly) sector of another offset: the
	// medium gave back another place's data, as a fake card that wraps
	// around does.
	Overwritten
)

func (c Class) String() string {
	return [...]string{"ok", "corrupted", "changed", "overwritten"}[c]
}

// Check classifies one sector read back where the sector of stream
// offset want was written, and returns the offset it holds.
func Check(sector []byte, want uint64) (Class, uint64) {
	s := sector[:SectorSize:SectorSize]
	held := binary.LittleEndian.Uint64(s)
	w, wrong := held, 0
	for i := 8; i < SectorSize && wrong <= Tolerance; i += 8 {
		w = w*multiplier + increment
		if binary.LittleEndian.Uint64(s[i:]) != w {
			wrong++
		}
	}
	switch {
	case wrong > Tolerance:
		return Corrupted, held
	case held != want:
		return Overwritten, held
	case wrong > 0:
		return Changed, held
	}
	return OK, held
}

// Counts are sectors by class.
type Counts struct {
	OK, Corrupted, Changed, Overwritten int64
}

// Total is every sector counted.
func (c Counts) Total() int64 { return c.OK + c.Corrupted + c.Changed + c.Overwritten }

// Lost is every sector not read back intact (f3read's "Data LOST").
func (c Counts) Lost() int64 { return c.Corrupted + c.Changed + c.Overwritten }

// Add adds o's counts to c.
func (c *Counts) Add(o Counts) {
	c.OK += o.OK
	c.Corrupted += o.Corrupted
	c.Changed += o.Changed
	c.Overwritten += o.Overwritten
}

// Alias is a run of overwritten sectors that hold consecutive offsets of
// another place: Sectors sectors from stream offset At hold the sectors
// written at Holds onward. A card that keeps 128 MiB and announces more
// gives one such run per wrap, with Holds At less the real size.
type Alias struct {
	At, Holds uint64
	Sectors   int64
}

// Checker classifies a stream of sectors read back, keeping their counts
// and the first MaxAliases runs of overwritten sectors.
type Checker struct {
	Counts
	Aliases []Alias
	// More counts the overwritten runs beyond MaxAliases.
	More int64
}

// MaxAliases bounds the runs a Checker keeps: a fake's wraps are few and
// long, a damaged card's may be many and short, and a report needs the
// first few.
const MaxAliases = 16

// Sectors checks buf, a whole number of sectors read back from stream
// offset off onward, and returns the offset after them.
func (k *Checker) Sectors(buf []byte, off uint64) uint64 {
	for len(buf) >= SectorSize {
		class, held := Check(buf, off)
		switch class {
		case OK:
			k.OK++
		case Corrupted:
			k.Corrupted++
		case Changed:
			k.Changed++
		case Overwritten:
			k.Overwritten++
			k.alias(off, held)
		}
		buf = buf[SectorSize:]
		off += SectorSize
	}
	return off
}

// alias extends the last run when the sector continues it, else starts
// a new one.
func (k *Checker) alias(at, held uint64) {
	if n := len(k.Aliases); n > 0 {
		a := &k.Aliases[n-1]
		end := uint64(a.Sectors) * SectorSize
		if a.At+end == at && a.Holds+end == held {
			a.Sectors++
			return
		}
	}
	if len(k.Aliases) == MaxAliases {
		k.More++
		return
	}
	k.Aliases = append(k.Aliases, Alias{At: at, Holds: held, Sectors: 1})
}

// List returns the numbers of the N.h2w files in dir from first to last
// (inclusive; last 0 for no bound), in order, as f3read would read them.
func List(dir string, first, last int) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		n, ok := Number(e.Name())
		if !ok || n < first || last > 0 && n > last {
			continue
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s in %s is not a regular file", e.Name(), dir)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
