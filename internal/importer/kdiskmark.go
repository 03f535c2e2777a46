package importer

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// Source tools of disk mark reports, as the import names them.
const (
	KDiskMark       = "kdiskmark"
	CrystalDiskMark = "crystaldiskmark"
)

var (
	// The banner of each report: "KDiskMark (3.2.0): https://...",
	// "CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo", or cut short to
	// "CrystalDiskMark 5.1.0 x64".
	kdmBanner = pattern.Lazy(`KDiskMark \(([0-9][0-9.]*)\): https://github\.com/JonMagon/KDiskMark`)
	cdmBanner = pattern.Lazy(`CrystalDiskMark ([0-9]+\.[0-9.]+)(?: x(?:64|86)\b|\s+\(C\))`)
	// markLine is a test of KDiskMark ("Sequential   1 MiB (Q=  8, T= 1):
	// 50.851 MB/s [     49.7 IOPS] < 158255.28 us>") and CrystalDiskMark 7
	// and 8 ("SEQ    1MiB (Q=  8, T= 1):  3552.436 MB/s [   3387.9 IOPS]"),
	// under a [Read] or [Write] heading.
	markLine = pattern.Lazy(`^\s*(Sequential|Random|SEQ|RND)\s+(\d+)\s*(KiB|MiB)\s+\(Q=\s*(\d+),\s*T=\s*(\d+)\)\s*:\s*(\d+(?:\.\d+)?) MB/s\s*\[\s*(\d+(?:\.\d+)?) IOPS\]`)
	// cdmOldLine is CrystalDiskMark 5 and 6's, which names its direction:
	// "  Random Read 4KiB (Q=  8,T= 8) :     7.892 MB/s [   1926.8 IOPS]".
	// Its "Sequential Read (Q= 32,T= 1)" names no block size and prints no
	// IOPS: such a line is noted, not read.
	cdmOldLine = pattern.Lazy(`^\s*(Sequential|Random) (Read|Write)(?: (\d+)(KiB|MiB))? \((?:Q=\s*(\d+),\s*)?T=\s*(\d+)\)\s*:\s*(\d+(?:\.\d+)?) MB/s(?:\s*\[\s*(\d+(?:\.\d+)?) IOPS\])?`)
	// markTest is the report's test size and count: "Test: 1 GiB (x5)
	// [Measure: 5 sec / Interval: 5 sec]", "Test : 1024 MiB [I: 11.7% ...]
	// (x5)  [Interval=5 sec]".
	markTest    = pattern.Lazy(`^\s*Test\s*:\s*(\d+) (KiB|MiB|GiB)\b.*\(x(\d+)\)`)
	markMeasure = pattern.Lazy(`Measure:? (\d+) sec`)
	markDate    = pattern.Lazy(`^\s*Date\s*:\s*(\d{4}[/-]\d\d[/-]\d\d \d{1,2}:\d\d:\d\d)`)
	markProfile = pattern.Lazy(`^\s*Profile\s*:\s*(\S.*?)\s*$`)
)

// markUnits is the line under both tools' banners. A report copied
// without its banner starts at it.
const markUnits = "* MB/s = 1,000,000 bytes/s"

const markNote = "read from a disk mark report: each test's MB/s (10^6 bytes) and IOPS as printed; the test size, count and time as its footer states them; the report does not say whether the page cache was bypassed"

// markReport is one report being read.
type markReport struct {
	doc   *result.Document
	phase string
	line  int
	// units: its units line was read; unnamed: no banner named its tool,
	// which its first test line's layout then names.
	units, unnamed bool
}

// importMark converts KDiskMark's text report and CrystalDiskMark's, whose
// layout it follows, into one disk.mark run per report: a result per test
// and direction, named as thruput's own presets are (SEQ1M Q8T1).
func importMark(data []byte, file string) ([]*result.Document, []string, error) {
	var docs []*result.Document
	var notes []string
	var cur *markReport
	var bad error
	start := func(tool, version string, n int) {
		d := newDoc(tool, version, file, result.MethodMark, time.Time{})
		d.Imported.Note = markNote
		d.Imported.Unstated = []string{"direct", "size", "duration_ns"}
		if tool == KDiskMark {
			d.Mark = &result.Mark{Engine: "fio"}
		} else {
			d.Mark = &result.Mark{}
		}
		cur = &markReport{doc: d, line: n}
		docs = append(docs, d)
	}
	eachLine(data, func(n int, l string) {
		if bad != nil {
			return
		}
		if m := kdmBanner().FindStringSubmatch(l); m != nil {
			start(KDiskMark, m[1], n)
			return
		}
		if m := cdmBanner().FindStringSubmatch(l); m != nil {
			start(CrystalDiskMark, m[1], n)
			return
		}
		if strings.Contains(l, markUnits) {
			if cur == nil || cur.units || len(cur.doc.Mark.Results) > 0 {
				start(CrystalDiskMark, "", n)
				cur.unnamed = true
			}
			cur.units = true
			return
		}
		if cur == nil {
			return
		}
		d := cur.doc
		switch t := strings.TrimSpace(l); {
		case t == "[Read]":
			cur.phase = result.PhaseRead
			return
		case t == "[Write]":
			cur.phase = result.PhaseWrite
			return
		case strings.HasPrefix(t, "[Mix]"):
			cur.phase = ""
			notes = append(notes, fmt.Sprintf("line %d: the mixed read/write tests are not imported", n))
			return
		}
		// A test line's fields: kind, size, unit, depth, threads, MB/s,
		// IOPS, and the direction its heading or its own words give.
		var f []string
		if m := markLine().FindStringSubmatch(l); m != nil && cur.phase != "" {
			f = append(m[1:8], cur.phase)
			if cur.unnamed && (m[1] == "Sequential" || m[1] == "Random") {
				// KDiskMark's layout ("Sequential 1 MiB"), not
				// CrystalDiskMark's ("SEQ 1MiB").
				d.Tool.Name, d.Imported.Tool, d.Mark.Engine = KDiskMark, KDiskMark, "fio"
			}
			cur.unnamed = false
		} else if m := cdmOldLine().FindStringSubmatch(l); m != nil {
			if m[3] == "" || m[5] == "" || m[8] == "" {
				notes = append(notes, fmt.Sprintf("line %d: %q names no block size, queue depth or IOPS: not imported", n, strings.TrimSpace(l)))
				return
			}
			f = []string{m[1], m[3], m[4], m[5], m[6], m[7], m[8], strings.ToLower(m[2])}
		}
		if f != nil {
			r, err := markResult(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7])
			if err != nil {
				bad = fmt.Errorf("%s report: line %d: %v", d.Imported.Tool, n, err)
				return
			}
			d.Mark.Results = append(d.Mark.Results, r)
			return
		}
		if m := markTest().FindStringSubmatch(l); m != nil {
			size, _ := strconv.ParseInt(m[1], 10, 64)
			shift := map[string]uint{"KiB": 10, "MiB": 20, "GiB": 30}[m[2]]
			if size > 0 && size < 1<<(62-shift) {
				d.Mark.Size = size << shift
				d.Imported.Unstated = slices.DeleteFunc(d.Imported.Unstated, func(f string) bool { return f == "size" })
			}
			setLabel(d, d.Imported.Tool+".passes", m[3])
		}
		if m := markMeasure().FindStringSubmatch(l); m != nil {
			if s, err := strconv.ParseInt(m[1], 10, 64); err == nil && s > 0 && s < maxSeconds {
				d.Mark.DurationNs = s * 1e9
				d.Imported.Unstated = slices.DeleteFunc(d.Imported.Unstated, func(f string) bool { return f == "duration_ns" })
			}
		}
		if m := markProfile().FindStringSubmatch(l); m != nil {
			setLabel(d, d.Imported.Tool+".profile", m[1])
		}
		if m := markDate().FindStringSubmatch(l); m != nil {
			if t, err := time.Parse("2006-01-02 15:04:05", strings.ReplaceAll(m[1], "/", "-")); err == nil {
				d.EndedAt = t
			} else if t, err := time.Parse("2006-01-02 3:04:05", strings.ReplaceAll(m[1], "/", "-")); err == nil {
				d.EndedAt = t
			}
		}
	})
	if bad != nil {
		return nil, notes, bad
	}
	return markedOnly(docs, notes, data, "report", errors.New("disk mark report: no test line (\"Sequential 1 MiB (Q= 8, T= 1): 542.516 MB/s [ 529.8 IOPS]\") under [Read] or [Write]"))
}

// markedOnly keeps the reports of data (what the tool calls one) that hold
// a result, noting the others, and gives them their ids; none is the
// error when no report holds one.
func markedOnly(docs []*result.Document, notes []string, data []byte, what string, none error) ([]*result.Document, []string, error) {
	out := docs[:0]
	for i, d := range docs {
		if len(d.Mark.Results) == 0 {
			notes = append(notes, fmt.Sprintf("%s %d holds no test with a figure", what, i+1))
			continue
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, notes, none
	}
	identify(out, data)
	return out, notes, nil
}

// markResult is one test line's figures, its preset named as thruput's
// (SEQ1M Q8T1, RND4K Q32T16).
func markResult(kind, size, unit, q, t, mbps, iops, phase string) (result.MarkResult, error) {
	n, err1 := strconv.ParseInt(size, 10, 64)
	depth, err2 := strconv.Atoi(q)
	threads, err3 := strconv.Atoi(t)
	mb, err4 := strconv.ParseFloat(mbps, 64)
	ops, err5 := strconv.ParseFloat(iops, 64)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil || n <= 0 || n > 1<<20 || !finite(mb) || !finite(ops) {
		return result.MarkResult{}, fmt.Errorf("%s %s%s (Q=%s, T=%s): not a block size, depth, rate and IOPS", kind, size, unit, q, t)
	}
	// The presets are named in KiB or MiB as the reports print them:
	// RND4K, SEQ128K, SEQ1M.
	prefix := "RND"
	if kind == "Sequential" || kind == "SEQ" {
		prefix = "SEQ"
	}
	preset := fmt.Sprintf("%s%d%s Q%dT%d", prefix, n, unit[:1], depth, threads)
	return result.MarkResult{Preset: preset, Phase: phase, MBPerSec: mb, MiBPerSec: mb * 1e6 / (1 << 20), IOPS: ops}, nil
}
