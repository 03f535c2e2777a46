package importer

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// PiBenchmarks is the result table of PiBenchmarks' Storage.sh (James A.
// Chambers, pibenchmarks.com), as Detect names it.
const PiBenchmarks = "pibenchmarks"

var (
	// pibenchRow is a row of the table Storage.sh prints last, its three
	// columns padded to 25 characters ("%-25s %-25s %-25s"):
	//
	//	HDParm                    Disk Read                 40.97 MB/s
	//	FIO                       4k random read            2807 IOPS (11228 KB/s)
	pibenchRow = pattern.Lazy(`^\s*(HDParm|DD|FIO|IOZone)\s{2,}(Disk Read|Cached Disk Read|Disk Write|4k random read|4k random write|4k read|4k write)(?:\s+(\S.*?))?\s*$`)
	// pibenchHeader is the table's heading, "     Category   Test   Result".
	pibenchHeader = pattern.Lazy(`^\s*Category\s+Test\s+Result\s*$`)
	pibenchScore  = pattern.Lazy(`^\s*Score:\s*(\d+)\s*$`)
	// The values: hdparm's rate and unit as hdparm printed them (MB/s in
	// the table of the script's early versions, whatever hdparm said), dd's
	// rate and unit, fio's IOPS and KiB/s, iozone's KiB/s.
	pibenchHDParm = pattern.Lazy(`^(\d+(?:\.\d+)?) (MB/sec|MB/s|kB/sec|kB/s)$`)
	pibenchDD     = pattern.Lazy(`^(\d+(?:[.,]\d+)?) (kB/s|MB/s|GB/s)$`)
	pibenchFio    = pattern.Lazy(`^(\d+(?:\.\d+)?) IOPS \((\d+(?:\.\d+)?) KB/s\)$`)
	pibenchKBs    = pattern.Lazy(`^(\d+(?:\.\d+)?) KB/s$`)
	// terminalCode is an escape sequence tput writes: a colour or style
	// ("\x1b[33m", "\x1b[1m"), the reset "\x1b(B\x1b[m". Storage.sh wraps
	// its heading, its score and its own messages in them, and a log
	// saved from its output keeps them.
	terminalCode = pattern.Lazy(`\x1b(?:\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])`)
)

// plainLine is line without the terminal's escape sequences.
func plainLine(line string) string {
	if !strings.Contains(line, "\x1b") {
		return line
	}
	return terminalCode().ReplaceAllString(line, "")
}

// isPiBenchRow says whether line is a row of the table. Every row holds
// "Disk " or "4k ": a line without either, however long, is passed over
// without the regexp.
func isPiBenchRow(line []byte) bool {
	return (bytes.Contains(line, []byte("Disk ")) || bytes.Contains(line, []byte("4k "))) && pibenchRow().MatchString(plainLine(string(line)))
}

const pibenchNote = "read from PiBenchmarks' Storage.sh result table: each test's rate as the script printed it (hdparm's MB is 2^20 bytes, dd's as dd printed it, fio's and iozone's KB are 1024 bytes); the sizes, times and whether hdparm ran with --direct differ between the script's versions and the table does not say"

// pibenchTest is what Storage.sh runs for a row of its table, in every
// version of the script: hdparm -Tt (--direct when the drive takes it),
// dd if=/dev/zero of=test bs=4k conv=fsync, fio --direct=1
// --ioengine=libaio --bs=4k --iodepth=64, and iozone -a -e -I -s 80M
// -r 4k. The preset names the test as thruput's presets are named
// (RND4K Q64T1), with the tool in front, as two tools run the same shape.
type pibenchTest struct {
	preset, phase string
	// block is the size of each read or write, in bytes.
	block float64
}

var pibenchTests = map[string]pibenchTest{
	"HDParm Disk Read":        {"hdparm SEQ2M Q1T1", result.PhaseRead, hdparmBlock},
	"HDParm Cached Disk Read": {"hdparm cached SEQ2M Q1T1", result.PhaseRead, hdparmBlock},
	"DD Disk Write":           {"dd SEQ4K Q1T1", result.PhaseWrite, 4096},
	"FIO 4k random read":      {"fio RND4K Q64T1", result.PhaseRead, 4096},
	"FIO 4k random write":     {"fio RND4K Q64T1", result.PhaseWrite, 4096},
	"IOZone 4k read":          {"iozone SEQ4K Q1T1", result.PhaseRead, 4096},
	"IOZone 4k write":         {"iozone SEQ4K Q1T1", result.PhaseWrite, 4096},
	"IOZone 4k random read":   {"iozone RND4K Q1T1", result.PhaseRead, 4096},
	"IOZone 4k random write":  {"iozone RND4K Q1T1", result.PhaseWrite, 4096},
}

// importPiBench converts the result tables of Storage.sh into one disk.mark
// run each: a result per row, its score as a label. A row whose test
// failed (an empty value) is left out with a note.
func importPiBench(data []byte, file string) ([]*result.Document, []string, error) {
	var docs []*result.Document
	var notes []string
	var cur *result.Document
	seen := map[string]bool{}
	var bad error
	start := func() {
		cur = newDoc(PiBenchmarks, "", file, result.MethodMark, time.Time{})
		cur.Imported.Note = pibenchNote
		cur.Imported.Unstated = []string{"direct", "size", "duration_ns"}
		cur.Mark = &result.Mark{}
		docs = append(docs, cur)
		seen = map[string]bool{}
	}
	eachLine(data, func(n int, l string) {
		if bad != nil {
			return
		}
		l = plainLine(l)
		if pibenchHeader().MatchString(l) {
			start()
			return
		}
		if m := pibenchScore().FindStringSubmatch(l); m != nil && cur != nil {
			setLabel(cur, "pibenchmarks.score", m[1])
			return
		}
		m := pibenchRow().FindStringSubmatch(l)
		if m == nil {
			return
		}
		row := m[1] + " " + m[2]
		// A table pasted without its heading starts at its first row, or
		// at a row the table before it already holds.
		if cur == nil || seen[row] {
			start()
		}
		seen[row] = true
		r, err := pibenchResult(row, m[3])
		switch {
		case errors.Is(err, errNoValue):
			notes = append(notes, fmt.Sprintf("line %d: %s has no figure (the test failed): not imported", n, row))
		case err != nil:
			bad = fmt.Errorf("PiBenchmarks table: line %d: %v", n, err)
		default:
			cur.Mark.Results = append(cur.Mark.Results, r)
		}
	})
	if bad != nil {
		return nil, notes, bad
	}
	return markedOnly(docs, notes, data, "table", errors.New("PiBenchmarks table: no row with a figure (\"HDParm   Disk Read   40.97 MB/s\")"))
}

// errNoValue is a row printed without a figure: the script's test failed
// (no hdparm, a fio that would not run) and it printed the empty value.
var errNoValue = errors.New("no figure")

// pibenchResult reads a row's value, v, in the unit the script printed.
func pibenchResult(row, v string) (result.MarkResult, error) {
	t := pibenchTests[row]
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", "."), 64)
		if err != nil || !finite(f) {
			return -1
		}
		return f
	}
	var bytesPerSec, iops float64
	switch m1, m2, m3, m4 := pibenchHDParm().FindStringSubmatch(v), pibenchDD().FindStringSubmatch(v), pibenchFio().FindStringSubmatch(v), pibenchKBs().FindStringSubmatch(v); {
	case strings.HasPrefix(row, "HDParm") && m1 != nil:
		// hdparm's MB is 2^20 bytes, its kB 2^10.
		bytesPerSec = num(m1[1]) * (1 << 20)
		if strings.HasPrefix(m1[2], "kB") {
			bytesPerSec = num(m1[1]) * (1 << 10)
		}
	case row == "DD Disk Write" && m2 != nil:
		// GNU dd's units are SI: kB is 10^3 bytes, MB 10^6, GB 10^9.
		bytesPerSec = num(m2[1]) * map[string]float64{"kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9}[m2[2]]
	case strings.HasPrefix(row, "FIO") && m3 != nil:
		// fio's terse fields: IOPS, and KiB/s whatever kb_base says.
		iops, bytesPerSec = num(m3[1]), num(m3[2])*1024
	case strings.HasPrefix(row, "IOZone") && m4 != nil:
		bytesPerSec = num(m4[1]) * 1024
	case strings.TrimSpace(strings.TrimLeft(v, "(")) == "" || strings.HasPrefix(v, "MB/") || strings.HasPrefix(v, "kB/") || strings.HasPrefix(v, "KB/") || strings.HasPrefix(v, "IOPS"):
		return result.MarkResult{}, errNoValue
	default:
		return result.MarkResult{}, fmt.Errorf("%s: %q is not a figure in the unit the script prints", row, clip(v))
	}
	if bytesPerSec < 0 || iops < 0 || bytesPerSec > maxFioFigure {
		return result.MarkResult{}, fmt.Errorf("%s: %q is not a figure in the unit the script prints", row, clip(v))
	}
	if iops == 0 {
		iops = bytesPerSec / t.block
	}
	return result.MarkResult{Preset: t.preset, Phase: t.phase, MBPerSec: bytesPerSec / 1e6, MiBPerSec: bytesPerSec / (1 << 20), IOPS: iops}, nil
}
