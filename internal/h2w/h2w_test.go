package h2w

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFillLayout(t *testing.T) {
	buf := make([]byte, 2*SectorSize)
	if next := Fill(buf, Offset(3)); next != 2<<30+2*SectorSize {
		t.Fatalf("Fill returned %d", next)
	}
	// Worked by hand from the format: word 0 is the offset, word 1 is
	// offset*4294967311+17.
	w0 := binary.LittleEndian.Uint64(buf)
	w1 := binary.LittleEndian.Uint64(buf[8:])
	if w0 != 2<<30 || w1 != (2<<30)*4294967311+17 {
		t.Errorf("sector 0 starts %d, %d", w0, w1)
	}
	if w := binary.LittleEndian.Uint64(buf[SectorSize:]); w != 2<<30+SectorSize {
		t.Errorf("sector 1 holds offset %d", w)
	}
	zero := make([]byte, SectorSize)
	Fill(zero, 0)
	if w := binary.LittleEndian.Uint64(zero[8:]); w != 17 {
		t.Errorf("sector 0 of file 1: word 1 is %d, want 17", w)
	}
}

func TestCheckClasses(t *testing.T) {
	fresh := func(off uint64) []byte {
		b := make([]byte, SectorSize)
		Fill(b, off)
		return b
	}
	const at = 5 * SectorSize
	changed := fresh(at)
	changed[100] ^= 1
	changed[300] ^= 0x80
	corrupted := fresh(at)
	for _, i := range []int{16, 24, 32} {
		corrupted[i] ^= 0xff
	}
	cases := []struct {
		name   string
		sector []byte
		want   Class
		held   uint64
	}{
		{"intact", fresh(at), OK, at},
		{"two words changed", changed, Changed, at},
		{"three words changed", corrupted, Corrupted, at},
		{"another sector", fresh(at + 1<<27), Overwritten, at + 1<<27},
		{"zeros", make([]byte, SectorSize), Corrupted, 0},
	}
	for _, c := range cases {
		got, held := Check(c.sector, at)
		if got != c.want || held != c.held {
			t.Errorf("%s: %v holding %d, want %v holding %d", c.name, got, held, c.want, c.held)
		}
	}
	// A changed word in an aliased sector still counts as overwritten,
	// as in f3read.
	other := fresh(0)
	other[64] ^= 1
	if got, _ := Check(other, at); got != Overwritten {
		t.Errorf("aliased sector with one word changed: %v", got)
	}
}

func TestCheckerAliases(t *testing.T) {
	// 8 sectors read where 8..15 were written; sectors 10..13 hold 2..5
	// (a wrap of 8 sectors), the rest are intact.
	buf := make([]byte, 8*SectorSize)
	Fill(buf, 8*SectorSize)
	Fill(buf[2*SectorSize:6*SectorSize], 2*SectorSize)
	var k Checker
	if next := k.Sectors(buf, 8*SectorSize); next != 16*SectorSize {
		t.Fatalf("next offset %d", next)
	}
	if k.Counts != (Counts{OK: 4, Overwritten: 4}) {
		t.Errorf("counts %+v", k.Counts)
	}
	want := []Alias{{At: 10 * SectorSize, Holds: 2 * SectorSize, Sectors: 4}}
	if !slices.Equal(k.Aliases, want) {
		t.Errorf("aliases %+v, want %+v", k.Aliases, want)
	}
}

func TestCheckerBoundsAliases(t *testing.T) {
	// Every other sector aliased: runs of one, more than MaxAliases.
	n := 2 * (MaxAliases + 5)
	buf := make([]byte, n*SectorSize)
	for i := 0; i < n; i++ {
		off := uint64(i * SectorSize)
		if i%2 == 1 {
			off += 1 << 20
		}
		Fill(buf[i*SectorSize:(i+1)*SectorSize], off)
	}
	var k Checker
	k.Sectors(buf, 0)
	if len(k.Aliases) != MaxAliases || k.More != 5 || k.Overwritten != int64(n/2) {
		t.Errorf("%d runs kept, %d more, %d overwritten", len(k.Aliases), k.More, k.Overwritten)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		ok   bool
	}{
		{"1.h2w", 1, true}, {"120.h2w", 120, true}, {"0.h2w", 0, false}, {"x.h2w", 0, false},
		{".h2w", 0, false}, {"1.h2w.tmp", 0, false}, {"-1.h2w", 0, false}, {"99999999999999999999.h2w", 0, false},
	} {
		if n, ok := Number(c.name); n != c.n || ok != c.ok {
			t.Errorf("Number(%q) = %d, %v", c.name, n, ok)
		}
	}
	if Name(7) != "7.h2w" {
		t.Errorf("Name(7) = %s", Name(7))
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"3.h2w", "1.h2w", "10.h2w", "2.txt", "notes.h2w"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := List(dir, 2, 0)
	if err != nil || !slices.Equal(got, []int{3, 10}) {
		t.Errorf("List from 2: %v, %v", got, err)
	}
	got, err = List(dir, 1, 3)
	if err != nil || !slices.Equal(got, []int{1, 3}) {
		t.Errorf("List 1..3: %v, %v", got, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "4.h2w"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := List(dir, 1, 0); err == nil || err.Error() != "4.h2w in "+dir+" is not a regular file" {
		t.Errorf("a directory named 4.h2w: %v", err)
	}
	if _, err := List(filepath.Join(dir, "missing"), 1, 0); err == nil {
		t.Error("a missing directory listed")
	}
}

// FuzzChecker feeds arbitrary bytes to the sector reader: whatever a card
// gives back, every whole sector is counted once, in one class, and
// nothing panics.
func FuzzChecker(f *testing.F) {
	good := make([]byte, 2*SectorSize)
	Fill(good, 1<<30)
	f.Add(good, uint64(1<<30))
	f.Add(make([]byte, SectorSize+7), uint64(0))
	f.Add([]byte("not a sector"), uint64(512))
	f.Fuzz(func(t *testing.T, data []byte, off uint64) {
		var k Checker
		next := k.Sectors(data, off)
		n := int64(len(data) / SectorSize)
		if k.Total() != n || next != off+uint64(n)*SectorSize {
			t.Fatalf("%d bytes: %d sectors counted, next %d", len(data), k.Total(), next)
		}
		if int64(len(k.Aliases)) > min(k.Overwritten, MaxAliases) {
			t.Fatalf("%d alias runs for %d overwritten sectors", len(k.Aliases), k.Overwritten)
		}
	})
}

func FuzzNumber(f *testing.F) {
	for _, s := range []string{"1.h2w", "0012.h2w", "", ".h2w", "1e3.h2w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if n, ok := Number(name); ok && (n < 1 || Name(n) != strings.TrimLeft(name, "0")) {
			t.Fatalf("Number(%q) = %d", name, n)
		}
	})
}
