package importer

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// iozone's banner and the header lines that say how it ran.
var (
	iozoneBanner  = []byte("Iozone: Performance Test of File I/O")
	iozoneVersion = pattern.Lazy(`Version \$Revision: ([0-9][0-9.]*) \$`)
	iozoneBegan   = pattern.Lazy(`Run began: ([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]?[0-9] \d\d:\d\d:\d\d \d{4})`)
	iozoneFile    = pattern.Lazy(`\s-f\s*(\S+)`)
)

// iozoneColumns are the names on the second line of iozone's table
// header, in the order it prints them: the file size, the record size,
// then a column per test.
var iozoneColumns = []string{"kB", "reclen", "write", "rewrite", "read", "reread", "read", "write", "read", "rewrite", "read", "fwrite", "frewrite", "fread", "freread"}

// iozoneTests are the columns read, by their place in iozoneColumns, as
// the fio job each one is: one thread issuing one read() or write() at a
// time, of the record size, through the whole file.
var iozoneTests = map[int]string{2: "write", 4: "read", 6: "randread", 7: "randwrite"}

// iozoneSkipped names the other columns for the note that says they were
// not imported: second passes over a file just written or read, backward
// and strided reads, and the stdio library's.
var iozoneSkipped = map[int]string{3: "rewrite", 5: "reread", 8: "bkwd read", 9: "record rewrite", 10: "stride read", 11: "fwrite", 12: "frewrite", 13: "fread", 14: "freread"}

const iozoneNote = "read from iozone's table: each test's kB/s (kB = 1024 bytes) is the figure; its bytes are the file size, its operations the file over the record size, and its time worked back from those"

// iozoneRun is what one iozone output's header said.
type iozoneRun struct {
	version, target       string
	began                 time.Time
	direct, fsync, osync  bool
	header                []int // right end of each header column
	rows                  int
	throughput, withRates bool
}

// importIOzone converts iozone's auto-mode (-a) and -i tables, one
// output or several in a log, into a disk.io run per file size, record
// size and test.
func importIOzone(data []byte, file string) ([]*result.Document, []string, error) {
	var docs []*result.Document
	var run *iozoneRun
	var runs []*iozoneRun
	skipped := map[string]bool{}
	var bad error
	eachLine(data, func(n int, l string) {
		if bad != nil {
			return
		}
		if bytes.Contains([]byte(l), iozoneBanner) {
			run = &iozoneRun{}
			runs = append(runs, run)
			return
		}
		if run == nil {
			return
		}
		switch {
		case iozoneVersion().MatchString(l):
			run.version = iozoneVersion().FindStringSubmatch(l)[1]
			return
		case iozoneBegan().MatchString(l):
			if t, err := time.Parse("Mon Jan _2 15:04:05 2006", strings.Join(strings.Fields(iozoneBegan().FindStringSubmatch(l)[1]), " ")); err == nil {
				run.began = t
			}
			return
		case strings.Contains(l, "O_DIRECT feature enabled"):
			run.direct = true
			return
		case strings.Contains(l, "Include fsync in write timing"):
			run.fsync = true
			return
		case strings.Contains(l, "SYNC Mode"):
			run.osync = true
			return
		case strings.Contains(l, "Command line used:"):
			if m := iozoneFile().FindStringSubmatch(l); m != nil {
				run.target = m[1]
			}
			return
		case strings.Contains(l, "Children see throughput"):
			run.throughput = true
			return
		}
		if ends, ok := iozoneHeader(l); ok {
			run.header = ends
			return
		}
		if run.header == nil {
			return
		}
		cols, ok, err := iozoneRow(l, run.header)
		if err != nil {
			bad = fmt.Errorf("iozone: line %d: %v", n, err)
			return
		}
		if !ok {
			return
		}
		run.rows++
		for i, v := range cols {
			if v < 0 {
				continue
			}
			if name, skip := iozoneSkipped[i]; skip {
				skipped[name] = true
				continue
			}
			rw, ok := iozoneTests[i]
			if !ok || v == 0 {
				continue
			}
			d, err := iozoneDoc(run, rw, cols[0], cols[1], v, file)
			if err != nil {
				bad = fmt.Errorf("iozone: line %d: %v", n, err)
				return
			}
			run.withRates = true
			docs = append(docs, d)
		}
	})
	if bad != nil {
		return nil, nil, bad
	}
	var notes []string
	for i := range iozoneColumns {
		if name, ok := iozoneSkipped[i]; ok && skipped[name] {
			notes = append(notes, fmt.Sprintf("iozone's %q column is not imported: only write, read, random read and random write are runs thruput's disk io makes", name))
		}
	}
	for i, r := range runs {
		switch {
		case r.throughput && r.rows == 0:
			notes = append(notes, fmt.Sprintf("iozone output %d is a throughput-mode (-t) run, which is not read", i+1))
		case r.rows > 0 && !r.withRates:
			notes = append(notes, fmt.Sprintf("iozone output %d printed no write, read, random read or random write figure", i+1))
		}
	}
	if len(docs) == 0 {
		if len(runs) > 0 && runs[len(runs)-1].header != nil && runs[len(runs)-1].rows == 0 {
			return nil, notes, errors.New("iozone: a table header with no row after it (truncated output?)")
		}
		return nil, notes, errors.New("iozone: no auto-mode or -i table (\"kB  reclen  write ...\") with a write, read, random read or random write figure")
	}
	identify(docs, data)
	return docs, notes, nil
}

// iozoneHeader reads the second line of the table header ("kB  reclen
// write  rewrite ..."): the right end of each column's name, where iozone
// right-aligns the figures under it. Older versions print fewer columns.
func iozoneHeader(l string) ([]int, bool) {
	f, ends := columns(l)
	if len(f) < 3 || len(f) > len(iozoneColumns) {
		return nil, false
	}
	for i, name := range f {
		if name != iozoneColumns[i] {
			return nil, false
		}
	}
	return ends, true
}

// iozoneRow reads a table row: the file size, the record size and each
// test's kB/s, placed under the header column it ends nearest to, as a
// test iozone did not run leaves its column blank. ok is false for a
// line that is no row; cols holds -1 where a column is blank.
func iozoneRow(l string, header []int) (cols []int64, ok bool, err error) {
	f, ends := columns(l)
	if len(f) < 3 {
		return nil, false, nil
	}
	for _, s := range f {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return nil, false, nil
			}
		}
	}
	cols = make([]int64, len(header))
	for i := range cols {
		cols[i] = -1
	}
	next := 0
	for k, s := range f {
		best := -1
		for j := next; j < len(header); j++ {
			if best < 0 || abs(ends[k]-header[j]) < abs(ends[k]-header[best]) {
				best = j
			}
		}
		// A figure is right-aligned under its column and at most a few
		// digits wider than the column's name.
		if best < 0 || abs(ends[k]-header[best]) > 8 || (k < 2) != (best < 2) {
			return nil, false, fmt.Errorf("%q does not line up under iozone's header", short(s))
		}
		v, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil {
			return nil, false, fmt.Errorf("%q is not a number", short(s))
		}
		cols[best] = v
		next = best + 1
	}
	if cols[0] <= 0 || cols[1] <= 0 {
		return nil, false, fmt.Errorf("file size %d kB, record size %d kB: not sizes", cols[0], cols[1])
	}
	if cols[0] > math.MaxInt64>>10 || cols[1] > cols[0] {
		return nil, false, fmt.Errorf("file size %d kB, record size %d kB: not sizes iozone runs", cols[0], cols[1])
	}
	return cols, true, nil
}

// iozoneDoc is one test of one row: rw at a record of reclen kB through a
// file of kB kilobytes, at rate kB/s.
func iozoneDoc(run *iozoneRun, rw string, kB, reclen, rate int64, file string) (*result.Document, error) {
	size, bs := kB<<10, reclen<<10
	secs := float64(size) / (float64(rate) * 1024)
	if !finite(secs) || secs > maxSeconds {
		return nil, fmt.Errorf("%d kB/s over %d kB: no time", rate, kB)
	}
	d := newDoc(IOzone, run.version, file, result.MethodIO, run.began)
	d.Imported.Note = iozoneNote
	if run.target != "" {
		d.Targets = []result.Target{{Path: run.target}}
	}
	p := result.IOParameters{RW: rw, BlockSize: bs, IODepth: 1, Jobs: 1, Size: size, Direct: run.direct, Engine: "sync", Repeat: 1}
	dir := &result.IODirection{IOs: size / bs, Bytes: size, IOPS: float64(rate) * 1024 / float64(bs), MiBPerSec: float64(rate) / 1024}
	r := result.IORun{ElapsedNs: int64(math.Round(secs * 1e9))}
	if rw == "read" || rw == "randread" {
		r.Read = dir
	} else {
		r.Write = dir
	}
	d.IO = &result.IO{Parameters: p, Engine: p.Engine, Runs: []result.IORun{r}}
	if run.fsync && r.Write != nil {
		setLabel(d, "iozone.fsync", "in write timing")
	}
	if run.osync {
		setLabel(d, "iozone.sync", "O_SYNC")
	}
	return d, nil
}

// columns splits l at spaces, tabs expanded to the next multiple of
// eight as a terminal shows them, into its fields and the offset just
// past each, so that figures are placed under a header by position.
func columns(l string) (fields []string, ends []int) {
	col := 0
	var field []rune
	flush := func() {
		if len(field) > 0 {
			fields = append(fields, string(field))
			ends = append(ends, col)
			field = field[:0]
		}
	}
	for _, r := range l {
		switch r {
		case ' ':
			flush()
			col++
		case '\t':
			flush()
			col += 8 - col%8
		default:
			field = append(field, r)
			col++
		}
	}
	flush()
	return fields, ends
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
