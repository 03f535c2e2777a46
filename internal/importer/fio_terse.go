package importer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// fio's terse output (--minimal, --output-format=terse): a line of
// semicolon-separated fields a job, by position, as fio's HOWTO lists
// them ("Terse output"):
//
//	version;fio-X.Y;jobname;groupid;error;READ;WRITE[;TRIM];cpu...
//
// where each direction is: total I/O (KiB), bandwidth (KiB/s), IOPS,
// runtime (ms); submission latency min, max, mean, stdev (us); completion
// latency min, max, mean, stdev (us); 20 percentiles "P%=us"; total
// latency min, max, mean, stdev (us); bandwidth min, max, percentage of
// the aggregate, mean, stdev (KiB/s); and in version 5 the bandwidth's
// samples and IOPS min, max, mean, stdev, samples. Version 3 has no trim
// direction. Raspberry Pi's SD card test reads fields 3, 7, 8, 48 and 49
// of version 3: the job, the read KiB/s and IOPS, the write KiB/s and IOPS.
// fio writes KiB and KiB/s as 1024 bytes and latencies in microseconds in
// every version and whatever kb_base says.

const (
	terseHead = 5
	// terseDir is a direction's fields in versions 3 and 4; 5 adds six.
	terseDir = 41
	// terseTail is the CPU, depth and latency distribution fields.
	terseTail = 5 + 7 + 10 + 12
)

// isFioTerseLine says whether line is a terse line: a version, then fio's
// version string ("3;fio-3.36;"), or version 2's job name, and at least as
// many fields as the smallest version holds.
func isFioTerseLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	v, rest, ok := bytes.Cut(line, []byte(";"))
	if !ok || len(v) == 0 || len(v) > 3 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return bytes.HasPrefix(rest, []byte("fio-")) || bytes.Count(rest, []byte(";")) >= 4+2*terseDir+terseTail-1
}

// importFioTerse converts terse lines; other lines (a prompt, fio's
// start-up lines, which give each job's mode, block size, engine and
// depth) are passed over.
func importFioTerse(data []byte, file string) ([]*result.Document, []string, error) {
	pre := map[string]fioPre{}
	var docs []*result.Document
	var notes []string
	var err error
	eachLine(data, func(n int, line string) {
		if name, p, ok := fioStartLine(line); ok {
			// As in the normal output, the start-up line printed last
			// before a job's line is the job's.
			pre[name] = p
			return
		}
		if err != nil || !isFioTerseLine([]byte(line)) {
			return
		}
		if len(docs) >= maxFioOutputs {
			err = fmt.Errorf("fio terse: more than %d jobs", maxFioOutputs)
			return
		}
		var d *result.Document
		var trim bool
		d, trim, err = fioTerseLine(strings.TrimSpace(line), pre, file)
		if err != nil {
			err = fmt.Errorf("fio terse line %d: %v", n, err)
			return
		}
		if trim {
			notes = append(notes, fmt.Sprintf("line %d: its trim figures are not kept (a result holds reads and writes)", n))
		}
		identify([]*result.Document{d}, []byte(line))
		docs = append(docs, d)
	})
	if err != nil {
		return nil, nil, err
	}
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("fio terse: no job line found")
	}
	return docs, notes, nil
}

// fioTerseLine reads one job's line; trim says it holds a trim direction
// that did work.
func fioTerseLine(line string, pre map[string]fioPre, file string) (*result.Document, bool, error) {
	f := strings.Split(line, ";")
	ver, _ := strconv.Atoi(f[0])
	dirLen, dirs := terseDir, 3
	switch ver {
	case 3:
		dirs = 2
	case 4:
	case 5:
		dirLen += 6
	default:
		return nil, false, fmt.Errorf("terse version %s: only versions 3, 4 and 5 are read (--terse-version=3 is fio's default)", short(f[0]))
	}
	if want := terseHead + dirs*dirLen + terseTail; len(f) < want {
		return nil, false, fmt.Errorf("%d fields, where terse version %d has at least %d (truncated line?)", len(f), ver, want)
	}
	version, ok := strings.CutPrefix(f[1], "fio-")
	if !ok {
		return nil, false, fmt.Errorf("field 2 is %q, not fio's version", short(f[1]))
	}
	name := f[2]
	code, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil {
		return nil, false, fmt.Errorf("field 5 (error) is %q, not a number", short(f[4]))
	}
	var run result.IORun
	var trim bool
	for i := range dirs {
		at := terseHead + i*dirLen
		d, runtime, err := fioTerseDirection(f[at:at+dirLen], at)
		if err != nil {
			return nil, false, err
		}
		if d == nil {
			continue
		}
		run.ElapsedNs = max(run.ElapsedNs, runtime)
		switch i {
		case 0:
			run.Read = d
		case 1:
			run.Write = d
		default:
			trim = true
		}
	}
	p := result.IOParameters{Repeat: 1}
	unstated := []string{"direct"}
	if info, ok := pre[name]; ok {
		if reads, writes := fioDirections(info.rw); reads || writes {
			p.RW, p.IODepth, p.Engine = info.rw, info.iodepth, info.engine
			p.BlockSize = pickSize(info.readBS, info.writeBS, reads, writes)
			if reads && writes {
				unstated = append(unstated, "mix_read")
			}
		}
	}
	if p.RW == "" {
		unstated = append(unstated, "rw")
		p.RW = fioMovedData(run)
	}
	d := newDoc(FIO, clip(version), file, result.MethodIO, time.Time{})
	d.IO = &result.IO{Parameters: p, Engine: p.Engine, Runs: []result.IORun{run}}
	d.Imported.Unstated = unstated
	fioOutcome(d, name, code, "")
	return d, trim, nil
}

// fioTerseDirection reads one direction's fields (f[0] is field at+1 of
// the line); nil for a direction with no runtime, which did nothing.
func fioTerseDirection(f []string, at int) (*result.IODirection, int64, error) {
	num := func(i int) (float64, error) {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || !(v >= 0 && v <= maxFioFigure) {
			return 0, fmt.Errorf("field %d is %q, not a figure", at+i+1, short(f[i]))
		}
		return v, nil
	}
	var v [16]float64
	// io KiB, KiB/s, IOPS, runtime ms; slat ×4; clat min, max, mean, stdev.
	for i := range 12 {
		var err error
		if v[i], err = num(i); err != nil {
			return nil, 0, err
		}
	}
	kib, iops, runtimeMs := v[0], v[2], v[3]
	if runtimeMs == 0 && kib == 0 {
		return nil, 0, nil
	}
	d := &result.IODirection{Bytes: int64(kib) * 1024, IOPS: iops}
	if runtimeMs > 0 {
		// The bandwidth field is the KiB/s rounded down; the KiB over the
		// runtime are what fio divided.
		d.MiBPerSec = kib * 1024 / (runtimeMs / 1000) / (1 << 20)
	}
	if v[8] > 0 || v[9] > 0 || v[10] > 0 {
		l := &result.Latency{MinNs: int64(v[8] * 1000), MaxNs: int64(v[9] * 1000), MeanNs: v[10] * 1000}
		for i := 12; i < 32; i++ {
			q, us, ok := strings.Cut(f[i], "%=")
			if !ok {
				return nil, 0, fmt.Errorf("field %d is %q, not a percentile (\"99.000000%%=1234\")", at+i+1, short(f[i]))
			}
			pq, err1 := strconv.ParseFloat(q, 64)
			pv, err2 := strconv.ParseFloat(us, 64)
			if err1 != nil || err2 != nil || !(pv >= 0 && pv <= maxFioFigure) {
				return nil, 0, fmt.Errorf("field %d is %q, not a percentile (\"99.000000%%=1234\")", at+i+1, short(f[i]))
			}
			fioPercentile(l, pq, int64(pv*1000))
		}
		d.Latency = l
	}
	return d, int64(runtimeMs * 1e6), nil
}
