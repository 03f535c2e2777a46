package importer

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// fio's normal output, the text it prints by default, from 2.0 to 3.x.
// Each job (or group, under group_reporting) prints a block:
//
//	name: (groupid=0, jobs=4): err= 0: pid=813700: Tue Dec 21 15:47:59 2021
//	  read: IOPS=33.4k, BW=130MiB/s (137MB/s)(100GiB/784875msec)          (3.x)
//	  read : io=32708KB, bw=557417B/s, iops=136, runt= 60086msec         (2.x)
//	    clat (usec): min=50, max=8811, avg=96.28, stdev=44.21
//	    clat percentiles (usec):
//	     |  1.00th=[   65],  5.00th=[   74], ...
//	  ...
//	     issued rwts: total=26214486,26214314,0,0 short=...                (3.x)
//	     issued    : total=r=8177/w=8200/d=0, short=...                    (2.x)
//
// and each group a "Run status group N" summary, which repeats the jobs'
// figures and is not read. Units are printed beside each figure and can
// change from one line to the next: every figure is read in its own.

var (
	fioJobLine     = pattern.Lazy(`^(.*\S): \(groupid=(\d+), jobs=(\d+)\): err=\s*(-?\d+)(?:: pid=\d+)?(?:: (.*))?$`)
	fioVersionLine = pattern.Lazy(`^fio-(\d+\.\d+\S*)$`)
	// fio --client prints no version line; each server it connects to
	// says its own: "hostname=nodo2, be=0, 64-bit, os=Linux, arch=x86-64,
	// fio=fio-3.25, flags=1".
	fioServerLine = pattern.Lazy(`^hostname=([^,\s]+), .*\bfio=fio-(\d+\.\d+[^,\s]*),`)
	// fio --client puts a server's name before what the server printed:
	// its start-up lines ("<pi4> a: (g=0): rw=read, ..."), and at the end
	// of a status line; not before the job blocks, whose servers come in
	// no order the text shows.
	fioClientLine = pattern.Lazy(`^<([^<>\s]+)> ?(.*)$`)
	// fio 2.0.9 and older print their version bare ("2.0.8").
	fioBareVersion = pattern.Lazy(`^(2\.0\.\d+)$`)
	// fio 3: "read: IOPS=10.1k, BW=39.5MiB/s (41.4MB/s)(2370MiB/60001msec)",
	// with "; 0 zone resets" after it since 3.16.
	fioDir3 = pattern.Lazy(`^(read|write|trim|mixed)\s*: IOPS=([^,]+), BW=(\S+) \([^)]*\)\(([^/)]+)/(\d+)msec\)`)
	// fio 2: "read : io=32708KB, bw=557417B/s, iops=136, runt= 60086msec";
	// 2.0 puts a space before the comma after iops.
	fioDir2    = pattern.Lazy(`^(read|write|trim|mixed)\s*: io=([^,]+), bw=([^,]+), iops=([^,\s]+)\s*, runt=\s*(\d+)msec`)
	fioClat    = pattern.Lazy(`^clat \((nsec|usec|msec)\)\s*: min=\s*([0-9.]+[kKM]?)\s*, max=\s*([0-9.]+[kKM]?)\s*, avg=\s*([0-9.]+)`)
	fioPctHead = pattern.Lazy(`^clat percentiles \((nsec|usec|msec)\):`)
	fioPct     = pattern.Lazy(`([0-9.]+)th=\[\s*(\d+)\]`)
	// The I/O counts: "issued rwts: total=R,W,T,X" (3.x), "issued rwt:
	// total=R,W,T", "issued : total=r=R/w=W/d=T" (2.x), "issued r/w/d:
	// total=R/W/T" (2.0).
	fioIssued = pattern.Lazy(`^issued\b[^:]*:\s*total=(?:r=)?(\d+)[,/](?:w=)?(\d+)(?:[,/](?:[dt]=)?(\d+))?`)
)

// isFioJobLine says whether line is the first line of a job's block in
// fio's normal output.
func isFioJobLine(line []byte) bool {
	// The literal first: a regexp goes through a long line of something
	// else a hundred times slower.
	return bytes.Contains(line, []byte("(groupid=")) && fioJobLine().Match(bytes.TrimSpace(line))
}

// fioTextJob is one job's block as read.
type fioTextJob struct {
	// server is the fio server that ran the job, in a --client run.
	name, server, version, signal string
	jobs                          int
	code                          int64
	ended                         time.Time
	// pre is the job's start-up line, when the output kept it.
	pre    fioPre
	hasPre bool
	dirs   map[string]*fioTextDir
	ios    [3]int64
	issued bool
	// complete says the block reached its issued line, or that fio's
	// output went on after it.
	complete bool
	start    int
	text     []byte
	line     int
}

// fioTextDir is one direction of a job as printed.
type fioTextDir struct {
	bytes, bw, iops float64
	runtimeMs       int64
	clat            *result.Latency
	// pctUnit is the unit of the percentile lines that follow.
	pctUnit float64
}

// maxFioFigure bounds a figure read from fio's text, so that a figure in
// nanoseconds or bytes fits an int64 whatever its unit.
const maxFioFigure = 1e12

// fioUnits are the time units fio prints latencies in, in nanoseconds.
var fioUnits = map[string]float64{"nsec": 1, "usec": 1e3, "msec": 1e6}

// importFioText converts fio's normal output; text around it (a shell
// prompt, notes, other outputs) is passed over. A trim direction has no
// place in a result and is left out with a note.
func importFioText(data []byte, file string) ([]*result.Document, []string, error) {
	var jobs []*fioTextJob
	var cur *fioTextJob
	var dir *fioTextDir
	version, signal := "", ""
	pre := map[string]fioPre{}
	// servers are the fio servers a --client run names.
	servers := map[string]bool{}
	// afterStart: the line before was a start-up line, which fio prints
	// just before its version.
	afterStart := false
	var lineErr error
	// Offsets of each line, to cut each job's bytes for its id.
	off := 0
	eachLine(data, func(n int, raw string) {
		start := off
		off += len(raw) + 1
		if lineErr != nil {
			return
		}
		line := strings.TrimSpace(raw)
		if m := fioClientLine().FindStringSubmatch(line); m != nil {
			servers[m[1]] = true
			line = m[2]
		}
		bare := afterStart
		afterStart = false
		if m := fioVersionLine().FindStringSubmatch(line); m != nil {
			version, signal = m[1], ""
			return
		}
		if m := fioServerLine().FindStringSubmatch(line); m != nil {
			servers[m[1]] = true
			version = m[2]
			return
		}
		if m := fioBareVersion().FindStringSubmatch(line); m != nil && bare {
			version, signal = m[1], ""
			return
		}
		if line == "..." {
			afterStart = true
			return
		}
		if m := fioSignal().FindStringSubmatch(line); m != nil {
			signal = m[1]
			return
		}
		if name, p, ok := fioStartLine(line); ok {
			// A log of several runs can name different jobs alike: each
			// job takes the start-up line printed last before it.
			pre[name] = p
			afterStart = true
			return
		}
		if m := fioJobMatch(line); m != nil {
			if cur != nil {
				cur.complete = true
			}
			if len(jobs) >= maxFioOutputs {
				lineErr = fmt.Errorf("fio text: more than %d jobs", maxFioOutputs)
				return
			}
			cur = &fioTextJob{name: m[1], version: version, signal: signal, dirs: map[string]*fioTextDir{}, start: start, line: n}
			cur.pre, cur.hasPre = pre[m[1]]
			cur.jobs, _ = strconv.Atoi(m[3])
			cur.code, _ = strconv.ParseInt(m[4], 10, 64)
			// fio prints the time it reports the job, local and without
			// a zone (ctime), read as UTC.
			if t, err := time.Parse("Mon Jan 2 15:04:05 2006", strings.Join(strings.Fields(m[5]), " ")); err == nil && plausible(t) {
				cur.ended = t
			}
			jobs = append(jobs, cur)
			dir = nil
			return
		}
		if cur == nil {
			return
		}
		if strings.HasPrefix(line, "Run status group ") {
			cur.complete = true
			cur.text = data[cur.start:start]
			cur, dir = nil, nil
			return
		}
		if name, d, err := fioTextDirection(line); d != nil || err != nil {
			if err != nil {
				lineErr = fmt.Errorf("fio text: line %d: %v", n, err)
				return
			}
			if _, dup := cur.dirs[name]; dup {
				lineErr = fmt.Errorf("fio text: line %d: a second %s line in job %q", n, name, clip(cur.name))
				return
			}
			cur.dirs[name], dir = d, d
			return
		}
		if m := fioIssued().FindStringSubmatch(line); m != nil {
			for i := range 3 {
				cur.ios[i], _ = strconv.ParseInt(m[i+1], 10, 64)
			}
			cur.issued, cur.complete = true, true
			cur.text = data[cur.start:min(off, len(data))]
			return
		}
		if dir == nil {
			return
		}
		if m := fioClat().FindStringSubmatch(line); m != nil {
			u := fioUnits[m[1]]
			dir.clat = &result.Latency{MinNs: fioLatency(m[2], u), MaxNs: fioLatency(m[3], u)}
			avg, _ := strconv.ParseFloat(m[4], 64)
			dir.clat.MeanNs = min(avg*u, 1e18)
			return
		}
		if m := fioPctHead().FindStringSubmatch(line); m != nil {
			dir.pctUnit = fioUnits[m[1]]
			return
		}
		if strings.HasPrefix(line, "|") && dir.pctUnit > 0 && dir.clat != nil {
			for _, p := range fioPct().FindAllStringSubmatch(line, -1) {
				q, _ := strconv.ParseFloat(p[1], 64)
				v, _ := strconv.ParseFloat(p[2], 64)
				v = min(v, maxFioFigure)
				fioPercentile(dir.clat, q, int64(math.Round(v*dir.pctUnit)))
			}
			return
		}
		if !strings.HasPrefix(line, "|") {
			// Another block (sync latencies, bandwidth samples): the
			// percentile lines that follow are not this direction's.
			dir.pctUnit = 0
		}
	})
	if lineErr != nil {
		return nil, nil, lineErr
	}
	if len(jobs) == 0 {
		return nil, nil, fmt.Errorf("fio text: no job line (\"name: (groupid=0, jobs=1): err= 0\") found")
	}
	var docs []*result.Document
	var notes []string
	// "All clients" sums the jobs of every server of a --client run:
	// beside them it would count their I/O twice. Alone (the servers'
	// blocks cut from a pasted output), it is the run of them all.
	allOnly := !slices.ContainsFunc(jobs, func(j *fioTextJob) bool { return j.name != fioAllClients })
	for _, j := range jobs {
		if j.name == fioAllClients && !allOnly {
			notes = append(notes, fmt.Sprintf("line %d: the \"All clients\" sum of the servers' jobs is not imported: they are", j.line))
			continue
		}
		if !j.complete {
			return nil, nil, fmt.Errorf("fio text: job %q (line %d) is cut off before its \"issued\" line (truncated output?)", clip(j.name), j.line)
		}
		if len(j.dirs) == 0 && j.code == 0 {
			return nil, nil, fmt.Errorf("fio text: job %q (line %d) has no read, write or trim line", clip(j.name), j.line)
		}
		if j.text == nil {
			j.text = data[j.start:]
		}
		if _, ok := j.dirs["trim"]; ok {
			notes = append(notes, fmt.Sprintf("job %q: its trim figures are not kept (a result holds reads and writes)", clip(j.name)))
		}
		if len(servers) == 1 {
			// One server ran every job; of several, which ran a job
			// the text does not say.
			for s := range servers {
				j.server = s
			}
		}
		d := fioTextDoc(j, file)
		identify([]*result.Document{d}, j.text)
		docs = append(docs, d)
	}
	return docs, notes, nil
}

// fioAllClients is the job name of fio --client's sum of all servers.
const fioAllClients = "All clients"

// fioTextDirection reads a direction's first line and its name (read,
// write, trim, or mixed under unified_rw_reporting); nil when line is none.
func fioTextDirection(line string) (string, *fioTextDir, error) {
	if m := fioDir3().FindStringSubmatch(line); m != nil {
		d := &fioTextDir{}
		var ok1, ok2, ok3 bool
		d.iops, ok1 = fioCount(m[2])
		d.bw, ok2 = fioRate(m[3], 1000)
		d.bytes, ok3 = fioAmount(m[4], 1000)
		d.runtimeMs, _ = strconv.ParseInt(m[5], 10, 64)
		if !ok1 || !ok2 || !ok3 {
			return "", nil, fmt.Errorf("%q: not IOPS, a rate and an amount fio prints", clip(line))
		}
		return m[1], d, nil
	}
	if m := fioDir2().FindStringSubmatch(line); m != nil {
		d := &fioTextDir{}
		var ok1, ok2, ok3 bool
		d.bytes, ok1 = fioAmount(m[2], 1024)
		d.bw, ok2 = fioRate(m[3], 1024)
		d.iops, ok3 = fioCount(m[4])
		d.runtimeMs, _ = strconv.ParseInt(m[5], 10, 64)
		if !ok1 || !ok2 || !ok3 {
			return "", nil, fmt.Errorf("%q: not an amount, a rate and IOPS fio prints", clip(line))
		}
		return m[1], d, nil
	}
	return "", nil, nil
}

// fioAmount reads an amount of data as fio prints it: 3.x's "100GiB",
// "94.7MiB", "1074MB", "4096B", 2.x's "32708KB" and "1024.0MB". An IEC
// unit (KiB) is 1024's; another (KB, kB, MB) is kb's: 1000 in fio 3,
// which prints KiB for 1024, and kb_base in fio 2, 1024 unless the job
// set kb_base=1000, which the text does not show.
func fioAmount(s string, kb float64) (float64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || f > maxFioFigure {
		return 0, false
	}
	unit := strings.TrimSuffix(s[i:], "B")
	base := kb
	if u, ok := strings.CutSuffix(unit, "i"); ok {
		base, unit = 1024, u
	}
	if unit == "" {
		return f, true
	}
	pow := strings.IndexByte("KMGTPE", unit[0]&^0x20) + 1
	if pow == 0 || len(unit) != 1 {
		return 0, false
	}
	if f *= math.Pow(base, float64(pow)); f > 1e18 {
		return 0, false
	}
	return f, true
}

// fioRate reads a rate: "39.5MiB/s", "9696KiB/s", "557417B/s", 2.x's
// "40476KB/s" and "1473.8KB/s".
//
// The "All clients" sum of a --client run prints its rate without "B/s"
// ("BW=1692Mi (1774M)", fio 3's client.c), in the units of the others:
// a rate of no "B" and no "/s" is read as one.
func fioRate(s string, kb float64) (float64, bool) {
	s = strings.TrimSpace(s)
	v, ok := strings.CutSuffix(s, "/s")
	if !ok && (strings.ContainsAny(s, "B/") || s == "") {
		return 0, false
	}
	return fioAmount(v, kb)
}

// fioCount reads IOPS as fio prints them: "136", "33.4k", "1.2M" (3.x
// rounds to four digits with k and M of 1000).
func fioCount(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= maxFioFigure) {
		return 0, false
	}
	return f * mult, true
}

// fioLatency reads a latency's min or max in unit: fio prints more than
// six digits as "1409.9K" (2.x) or "1409.9k" (3.x), K being 1000.
func fioLatency(s string, unit float64) int64 {
	f, _ := fioCount(s)
	return int64(math.Round(min(f*unit, 1e18)))
}

// fioTextDoc builds a job's document the way fioJob does for JSON. The
// text states no job options: the start-up line, when the output kept
// it, gives the mode, block size, engine and depth; O_DIRECT is never
// printed.
func fioTextDoc(j *fioTextJob, file string) *result.Document {
	p := result.IOParameters{Jobs: j.jobs, Repeat: 1}
	unstated := []string{"direct"}
	info := j.pre
	reads, writes := fioDirections(info.rw)
	if j.hasPre && (reads || writes) {
		p.RW = info.rw
		p.BlockSize = pickSize(info.readBS, info.writeBS, reads, writes)
		p.IODepth = info.iodepth
		p.Engine = info.engine
		if reads && writes {
			// rwmixread is not printed.
			unstated = append(unstated, "mix_read")
		}
	}
	var run result.IORun
	bs := [2]int64{info.readBS, info.writeBS}
	for i, name := range []string{"read", "write"} {
		t := j.dirs[name]
		if t == nil {
			continue
		}
		run.ElapsedNs = max(run.ElapsedNs, t.runtimeMs*1e6)
		d := fioTextFigures(t, j.ios[i], j.issued, bs[i])
		if i == 0 {
			run.Read = d
		} else {
			run.Write = d
		}
	}
	if p.RW == "" {
		unstated = append(unstated, "rw")
		p.RW = fioMovedData(run)
	}
	started := time.Time{}
	if !j.ended.IsZero() {
		started = j.ended.Add(-time.Duration(run.ElapsedNs))
	}
	d := newDoc(FIO, j.version, file, result.MethodIO, started)
	d.EndedAt = j.ended
	d.IO = &result.IO{Parameters: p, Engine: p.Engine, Runs: []result.IORun{run}}
	d.Imported.Unstated = unstated
	if j.server != "" {
		// As fio's JSON client_stats: the server is the run's host.
		d.Host.Hostname = j.server
		setLabel(d, "host", j.server)
	}
	fioOutcome(d, j.name, j.code, j.signal)
	return d
}

// fioTextFigures turns a direction's printed figures into a result's.
// fio divides the bytes by the direction's runtime for its rate and the
// I/O count by it for its IOPS, then rounds both for print: when the
// issued count and a fixed block size give the bytes (matching the
// printed amount to its rounding), the figures are worked out as fio
// did; else the printed ones are kept.
func fioTextFigures(t *fioTextDir, ios int64, issued bool, bs int64) *result.IODirection {
	d := &result.IODirection{IOPS: t.iops, MiBPerSec: t.bw / (1 << 20), Bytes: int64(math.Round(t.bytes))}
	secs := float64(t.runtimeMs) / 1000
	if issued {
		d.IOs = ios
		if secs > 0 {
			d.IOPS = float64(ios) / secs
		}
		if exact := float64(ios) * float64(bs); bs > 0 && math.Abs(exact-t.bytes) <= 0.01*t.bytes {
			d.Bytes = ios * bs
			if secs > 0 {
				d.MiBPerSec = exact / secs / (1 << 20)
			}
		}
	}
	if t.clat != nil {
		l := *t.clat
		// fio 3.18 and later count the samples in JSON only; in text
		// every I/O of the direction is one, as in older JSON.
		l.Count = d.IOs
		d.Latency = &l
	}
	return d
}

// fioJobMatch matches a job's first line, looking for its literal first.
func fioJobMatch(line string) []string {
	if !strings.Contains(line, "(groupid=") {
		return nil
	}
	return fioJobLine().FindStringSubmatch(line)
}
