package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// maxFioOutputs bounds the outputs read from one file.
const maxFioOutputs = 4096

// importFioAny reads each of fio's output formats: JSON when the data
// holds fio's JSON, else the normal output's job blocks, else terse lines
// (--append-terse prints both of the last two: the blocks say more).
func importFioAny(data []byte, file string) ([]*result.Document, []string, error) {
	if _, ok := outputStart(data, FIO); ok {
		docs, err := importFio(data, file)
		return docs, nil, err
	}
	if len(linesWhere(data, isFioJobLine)) > 0 {
		return importFioText(data, file)
	}
	return importFioTerse(data, file)
}

// importFio converts fio --output-format=json: one document per entry of
// jobs[], which is one job, one clone of a numjobs job, or a whole group
// under group_reporting. A file that a script appended several runs to
// (fio ... >> results.json) holds an output per run, each after the
// text of the one before.
func importFio(data []byte, file string) ([]*result.Document, error) {
	at, ok := outputStart(data, FIO)
	if !ok {
		return nil, fmt.Errorf("fio JSON: no JSON object starting with \"fio version\" found")
	}
	var docs []*result.Document
	for n := 1; ; n++ {
		v, end, err := decodeJSONAt(data[at:], "fio JSON")
		if err != nil {
			if n > 1 {
				err = fmt.Errorf("output %d: %w", n, err)
			}
			return nil, err
		}
		d, err := fioConvert(v, string(data[:at]), file)
		if err == nil {
			identify(d, data[at:at+end])
		}
		if err != nil {
			if n > 1 {
				err = fmt.Errorf("output %d: %w", n, err)
			}
			return nil, err
		}
		docs = append(docs, d...)
		rest := data[at+end:]
		next, ok := outputStart(rest, FIO)
		if !ok || n >= maxFioOutputs {
			return docs, nil
		}
		data, at = rest, next
	}
}

func fioConvert(v any, preamble, file string) ([]*result.Document, error) {
	e := &errSink{what: "fio JSON"}
	r := root(v, e)
	if !r.isObject() {
		return nil, fmt.Errorf("fio JSON: not an object")
	}
	version := clip(strings.TrimPrefix(r.key("fio version").str(), "fio-"))
	// fio stamps the time it prints the results, after the last job.
	var ended time.Time
	if ms := r.key("timestamp_ms"); ms.has() {
		ended = time.UnixMilli(ms.i64()).UTC()
	} else if s := r.key("timestamp"); s.has() {
		ended = time.Unix(s.i64(), 0).UTC()
	}
	if !ended.IsZero() && !plausible(ended) {
		e.failf("timestamp", "%s is not a plausible time", ended.Format(time.RFC3339))
	}
	global := r.key("global options")
	global.object()
	// fio --client writes one entry per job and host under client_stats,
	// and an "All clients" sum when several hosts ran; each host's job is
	// a run of its own, labelled with the host.
	var jobs []val
	cs := r.key("client_stats")
	if cs.has() {
		for _, j := range cs.list() {
			if j.isObject() && j.key("jobname").str() == "All clients" {
				continue
			}
			jobs = append(jobs, j)
		}
	} else {
		jobs = r.key("jobs").need().list()
	}
	if e.err != nil {
		return nil, e.err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("fio JSON: jobs: no job in the output")
	}
	pre := fioPreamble(preamble)
	f := fioFormat{version: version, kb: 1024, client: cs.has()}
	if m := fioSignal().FindStringSubmatch(preamble); m != nil {
		f.signal = m[1]
	}
	f.major, f.minor = fioVersion(version)
	if v, _ := (fioOptions{global: global}).get("kb_base"); v == "1000" {
		f.kb = 1000
	}
	// fio 2.1 and older print no job options at all: their jobs' block
	// size, depth and mode are not fio's defaults but unknown.
	f.noOptions = !global.has()
	for _, j := range jobs {
		f.noOptions = f.noOptions && !j.key("job options").has()
	}
	// Without group_reporting every clone of a numjobs job is an entry of
	// its own, under the same name and group.
	entries := map[string]int{}
	for _, j := range jobs {
		entries[fioKey(j)]++
	}
	var docs []*result.Document
	for _, j := range jobs {
		if !j.object() {
			e.failf(j.where(), "not an object")
			break
		}
		d := fioJob(j, global, pre, entries[fioKey(j)], ended, f, file)
		if e.err != nil {
			break
		}
		docs = append(docs, d)
	}
	if e.err != nil {
		return nil, e.err
	}
	return docs, nil
}

// fioFormat is what changes how a job's figures read between fio versions.
type fioFormat struct {
	version      string
	major, minor int
	// kb is kb_base: the bytes of fio's "k" in sizes.
	kb        int64
	noOptions bool
	// client is fio --client's output: a job per host.
	client bool
	// signal is the signal fio says ended its jobs, from the text before
	// its JSON.
	signal string
}

// fioVersion reads "3.12" or "2.1.4" or "3.33-25-gabcdef"; 0.0 when it is
// none of these, which reads as the newest format.
func fioVersion(v string) (int, int) {
	parts := strings.SplitN(v, ".", 3)
	major, err := strconv.Atoi(parts[0])
	if err != nil || len(parts) < 2 {
		return 0, 0
	}
	minor, _ := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor
}

// old is true for fio before 3.0, whose io_bytes count KiB.
func (f fioFormat) old() bool { return f.major > 0 && f.major < 3 }

func fioKey(j val) string {
	return j.key("jobname").str() + "\x00" + strconv.FormatInt(j.key("groupid").i64(), 10)
}

// fioOptions looks an option up as fio applied it: the job's own, then the
// global section's.
type fioOptions struct{ job, global val }

func (o fioOptions) get(names ...string) (string, bool) {
	for _, src := range []val{o.job, o.global} {
		if !src.object() {
			continue
		}
		for _, n := range names {
			if v := src.key(n); v.has() {
				return v.str(), true
			}
		}
	}
	return "", false
}

func fioJob(j, global val, pre map[string]fioPre, entries int, ended time.Time, f fioFormat, file string) *result.Document {
	opts := fioOptions{j.key("job options"), global}
	name := j.key("jobname").str()
	kb := f.kb
	if v, _ := opts.get("kb_base"); v == "1000" {
		kb = 1000
	}
	p := result.IOParameters{RW: "read", BlockSize: 4096, IODepth: 1, Jobs: 1, Repeat: 1}
	if f.noOptions {
		p = result.IOParameters{Repeat: 1}
	}
	if v, ok := opts.get("rw", "readwrite"); ok && v != "" {
		// "randread:8" adds an offset modifier that does not change the mix.
		p.RW, _, _ = strings.Cut(v, ":")
	}
	reads, writes := fioDirections(p.RW)
	if reads && writes {
		p.MixRead = 50
		if v, ok := opts.get("rwmixread"); ok {
			p.MixRead, _ = strconv.Atoi(v)
		} else if v, ok := opts.get("rwmixwrite"); ok {
			if w, err := strconv.Atoi(v); err == nil {
				p.MixRead = 100 - w
			}
		}
	}
	// A mix of 100 % reads (rwmixread=100) does no writes: the direction
	// it left idle is not one it measured.
	doesReads, doesWrites := reads && p.MixRead != 0, writes && !(reads && p.MixRead == 100)
	info, hasPre := pre[name]
	switch v, ok := opts.get("bs", "blocksize"); {
	case ok:
		p.BlockSize = fioBlockSize(v, kb, reads, writes)
	case hasPre:
		p.BlockSize = pickSize(info.readBS, info.writeBS, reads, writes)
	}
	switch v, ok := opts.get("iodepth"); {
	case ok:
		p.IODepth, _ = strconv.Atoi(v)
	case hasPre:
		p.IODepth = info.iodepth
	}
	numjobs := 1
	if v, ok := opts.get("numjobs"); ok {
		numjobs, _ = strconv.Atoi(v)
	}
	p.Jobs = numjobs
	if entries > 1 && numjobs > 1 {
		// This entry's figures are one clone's, not all jobs' together.
		p.Jobs = 1
	}
	if v, ok := opts.get("size"); ok {
		p.Size, _ = fioSize(v, kb)
	} else if v, ok := opts.get("filesize"); ok {
		p.Size, _ = fioSize(v, kb)
	}
	if v, ok := opts.get("runtime", "timeout"); ok {
		p.RuntimeNs, _ = fioTime(v)
	}
	if v, ok := opts.get("ramp_time"); ok {
		p.RampNs, _ = fioTime(v)
	}
	if v, ok := opts.get("direct"); ok {
		p.Direct = fioBool(v)
	} else if v, ok := opts.get("buffered"); ok {
		p.Direct = !fioBool(v)
	}
	if v, ok := opts.get("ioengine"); ok {
		p.Engine = v
	} else if hasPre {
		p.Engine = info.engine
	}
	if v, ok := opts.get("verify"); ok && v != "" && v != "0" && v != "none" {
		p.Verify = true
	}

	run := result.IORun{ElapsedNs: j.key("job_runtime").scaledNs(1e6)}
	run.Read = fioDirection(j, "read", doesReads, f, p.BlockSize)
	run.Write = fioDirection(j, "write", doesWrites, f, p.BlockSize)
	if f.noOptions {
		p.RW = fioMovedData(run)
	}
	if run.ElapsedNs == 0 {
		for _, d := range []string{"read", "write"} {
			run.ElapsedNs = max(run.ElapsedNs, j.key(d).key("runtime").scaledNs(1e6))
		}
	}

	if v, ok := opts.get("time_based"); ok {
		p.TimeBased = fioBool(v)
	} else {
		// fio leaves valueless flags such as --time_based out of "job
		// options"; a job that moved more than its size, with nothing else
		// that makes it go round again, can only have been time based.
		_, loops := opts.get("loops")
		_, ioSize := opts.get("io_size", "io_limit", "number_ios")
		var moved int64
		for _, d := range []*result.IODirection{run.Read, run.Write} {
			if d != nil {
				moved += d.Bytes
			}
		}
		p.TimeBased = p.RuntimeNs > 0 && p.Size > 0 && !loops && !ioSize && moved > p.Size*int64(max(p.Jobs, 1))
	}

	started := time.Time{}
	if ms := j.key("job_start"); ms.has() {
		// fio 3.36 and later; another clock than the real-time one can be
		// chosen, which gives times near 1970 that are not used.
		if t := time.UnixMilli(ms.i64()).UTC(); plausible(t) {
			started = t
		}
	}
	if started.IsZero() && !ended.IsZero() {
		if el := j.key("elapsed"); el.has() {
			started = ended.Add(-time.Duration(el.secondsNs()))
		}
	}
	d := newDoc(FIO, f.version, file, result.MethodIO, started)
	d.EndedAt = ended
	d.IO = &result.IO{Parameters: p, Engine: p.Engine, Runs: []result.IORun{run}}
	for _, k := range []string{"directory", "filename"} {
		if v, ok := opts.get(k); ok && v != "" {
			for _, path := range splitFioPaths(v) {
				d.Targets = append(d.Targets, result.Target{Path: path})
			}
			break
		}
	}
	if f.noOptions {
		// The document cannot leave these out: rw holds the directions
		// that moved data, direct its zero.
		d.Imported.Unstated = []string{"rw", "direct"}
	}
	d.Host.Hostname = j.key("hostname").str()
	if f.client {
		setLabel(d, "host", d.Host.Hostname)
	}
	fioOutcome(d, name, j.key("error").i64(), f.signal)
	return d
}

// fioOutcome labels a job's document with its name and says how the job
// ended: interrupted when fio said a signal stopped it (it still printed
// what the jobs had done), failed when the job reports an error.
func fioOutcome(d *result.Document, name string, code int64, signal string) {
	setLabel(d, "fio.job", name)
	if signal != "" {
		d.Status, d.Error = result.StatusInterrupted, "fio was stopped: terminating on signal "+signal
	}
	if code != 0 {
		d.Status = result.StatusFailed
		d.Error = fmt.Sprintf("fio job %q ended with error %d", name, code)
		if code > 0 && code < 4096 {
			d.Error += " (" + syscall.Errno(code).Error() + ")"
		}
	}
}

// fioDirections says which directions an rw mode does.
func fioDirections(rw string) (reads, writes bool) {
	switch rw {
	case "read", "randread":
		return true, false
	case "write", "randwrite", "trimwrite", "randtrimwrite":
		return false, true
	case "rw", "readwrite", "randrw":
		return true, true
	}
	return false, false
}

// fioDirection maps one direction's figures; a direction the mode does not
// do and that moved nothing is left out, as in thruput's own runs.
func fioDirection(j val, name string, want bool, f fioFormat, bs int64) *result.IODirection {
	x := j.key(name)
	if !x.object() {
		return nil
	}
	d := &result.IODirection{IOs: x.key("total_ios").count(), Bytes: x.key("io_bytes").count(), IOPS: x.key("iops").f64()}
	if f.old() {
		// fio before 3.0 printed io_bytes in KiB (io_kbytes since).
		d.Bytes *= f.kb
	}
	if !x.key("total_ios").has() && bs > 0 && d.Bytes%bs == 0 {
		// total_ios is fio 2.1.14's; before, a fixed block size tells
		// the count exactly.
		d.IOs = d.Bytes / bs
	}
	if !want && d.IOs == 0 && d.Bytes == 0 {
		return nil
	}
	runtime := x.key("runtime").f64()
	switch bw := x.key("bw_bytes"); {
	case bw.has():
		d.MiBPerSec = bw.f64() / (1 << 20)
	case runtime > 0:
		// Before fio 3.2 only "bw", in KiB/s rounded down; the bytes over
		// the direction's runtime (milliseconds) are what fio divided.
		d.MiBPerSec = float64(d.Bytes) / (runtime / 1000) / (1 << 20)
	default:
		d.MiBPerSec = x.key("bw").f64() * float64(f.kb) / (1 << 20)
	}
	// clat_ns since fio 3.0; clat in microseconds before.
	lat, unit := x.key("clat_ns"), 1.0
	if !lat.has() && x.key("clat").has() {
		lat, unit = x.key("clat"), 1000
	}
	if lat.object() {
		// fio counts the samples ("N") only since 3.18; before, every
		// I/O of the direction was one.
		n := lat.key("N").count()
		if !lat.key("N").has() {
			n = d.IOs
		}
		if n > 0 || (!lat.key("N").has() && lat.key("mean").f64() > 0) {
			l := &result.Latency{Count: n, MinNs: scaled(lat.key("min"), unit), MaxNs: scaled(lat.key("max"), unit),
				MeanNs: lat.key("mean").f64() * unit}
			pct := lat.key("percentile")
			if pct.object() {
				for _, k := range pct.keys() {
					q, err := strconv.ParseFloat(k, 64)
					if err != nil {
						continue
					}
					fioPercentile(l, q, scaled(pct.key(k), unit))
				}
			}
			d.Latency = l
		}
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// fioPercentile keeps the q-th percentile of a latency, v nanoseconds,
// when it is one a result holds.
func fioPercentile(l *result.Latency, q float64, v int64) {
	switch {
	case near(q, 50):
		l.P50Ns = v
	case near(q, 95):
		l.P95Ns = v
	case near(q, 99):
		l.P99Ns = v
	case near(q, 99.9):
		l.P999Ns = v
	}
}

// fioMovedData is the mode of a job whose output does not state it:
// which directions moved data.
func fioMovedData(run result.IORun) string {
	switch {
	case run.Read != nil && run.Write != nil:
		return "rw"
	case run.Write != nil:
		return "write"
	case run.Read != nil:
		return "read"
	}
	return ""
}

func scaled(x val, unit float64) int64 {
	return x.scaledNs(unit)
}

// fioBlockSize reads bs as fio does: one size for all directions, or
// "read,write[,trim]"; a range (4k-16k) has no single size.
func fioBlockSize(v string, kb int64, reads, writes bool) int64 {
	parts := strings.Split(v, ",")
	r, _ := fioSize(parts[0], kb)
	w := r
	if len(parts) > 1 && parts[1] != "" {
		w, _ = fioSize(parts[1], kb)
	}
	if parts[0] == "" {
		r = 4096
	}
	return pickSize(r, w, reads, writes)
}

func pickSize(r, w int64, reads, writes bool) int64 {
	switch {
	case reads && !writes:
		return r
	case writes && !reads:
		return w
	case r == w:
		return r
	}
	return 0
}

// fioSize parses a size the way fio's option parser does, including its
// compatibility rule: with the default kb_base=1024, k/M/G are powers of
// 2 and the IEC KiB/MiB are powers of 10. Arithmetic, percentages and
// fractions are not sizes it can know.
func fioSize(s string, kb int64) (int64, bool) {
	s = strings.TrimSpace(s)
	base := 10
	digits := s
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, digits = 16, s[2:]
	}
	i := 0
	for i < len(digits) && isDigit(digits[i], base) {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits[:i], base, 64)
	if err != nil {
		return 0, false
	}
	suffix := strings.ToLower(digits[i:])
	var pow int
	mult := kb
	switch {
	case suffix == "" || suffix == "b":
	case len(suffix) >= 3 && suffix[1:3] == "ib":
		if mult = 1000; kb == 1000 {
			mult = 1024
		}
		pow = strings.IndexByte("kmgtp", suffix[0]) + 1
	case suffix == "k" || suffix == "kb" || suffix == "m" || suffix == "mb" || suffix == "g" || suffix == "gb" ||
		suffix == "t" || suffix == "tb" || suffix == "p" || suffix == "pb":
		pow = strings.IndexByte("kmgtp", suffix[0]) + 1
	default:
		return 0, false
	}
	if pow == 0 && suffix != "" && suffix != "b" {
		return 0, false
	}
	for ; pow > 0; pow-- {
		if n > math.MaxInt64/mult {
			return 0, false
		}
		n *= mult
	}
	return n, true
}

func isDigit(c byte, base int) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	if base == 16 {
		c |= 0x20
		return c >= 'a' && c <= 'f'
	}
	return false
}

// fioTime parses runtime and ramp_time as fio does: seconds without a
// suffix, else us, ms, s, m (minutes), h or d. Like fio, an unknown
// suffix means microseconds.
func fioTime(s string) (int64, bool) {
	n, suffix, ok := leadingInt(strings.TrimSpace(s))
	if !ok {
		return 0, false
	}
	c := strings.ToLower(suffix)
	us := int64(1)
	switch {
	case c == "":
		us = 1e6
	case strings.HasPrefix(c, "us"):
	case strings.HasPrefix(c, "ms"):
		us = 1e3
	case c == "s":
		us = 1e6
	case c == "m":
		us = 60e6
	case c == "h":
		us = 3600e6
	case c == "d":
		us = 86400e6
	}
	if n > math.MaxInt64/1000/us {
		return 0, false
	}
	return n * us * 1000, true
}

// leadingInt splits "4096k" into 4096 and "k"; false when s does not
// start with a decimal number that fits an int64.
func leadingInt(s string) (int64, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "", false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	return n, s[i:], err == nil
}

// fioBool reads a boolean option; an empty value is the flag given bare.
func fioBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "no", "off":
		return false
	}
	return true
}

// splitFioPaths splits fio's colon-separated directory or filename list;
// a colon escaped with a backslash belongs to the name.
func splitFioPaths(v string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ':':
			cur.WriteByte(':')
			i++
		case v[i] == ':':
			if cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
		default:
			cur.WriteByte(v[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// fioPre is what fio's start-up line for a job says about it: fio 3's
// "a: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) ..., ioengine=psync, iodepth=1",
// or fio 2's "a: (g=0): rw=randread, bs=4K-4K/4K-4K/4K-4K, ioengine=psync, iodepth=1"
// (2.0: read and write only). It names the mode, engine and block size
// even when they were fio's defaults.
type fioPre struct {
	rw              string
	readBS, writeBS int64
	engine          string
	iodepth         int
}

// fioSignal is the line fio prints when a signal ends its jobs.
var fioSignal = pattern.Lazy(`(?m)^fio: terminating on signal (\d+)`)

var (
	fioPreLine  = pattern.Lazy(`^(.+): \(g=\d+\): rw=([^,]*), bs=\(R\) ([^,]*), \(W\) ([^,]*), \(T\) [^,]*, ioengine=([^,]+), iodepth=(\d+)`)
	fioPreLine2 = pattern.Lazy(`^(.+): \(g=\d+\): rw=([^,]*), bs=([^/,]*)/([^/,]*)(?:/[^/,]*)?, ioengine=([^,]+), iodepth=(\d+)`)
)

// fioPreamble reads the start-up lines of text, by job name; a job's
// first line is kept (numjobs clones print "..." after it).
func fioPreamble(text string) map[string]fioPre {
	out := map[string]fioPre{}
	for _, l := range strings.Split(text, "\n") {
		name, p, ok := fioStartLine(l)
		if _, dup := out[name]; ok && !dup {
			out[name] = p
		}
	}
	return out
}

// fioStartLine reads one start-up line: the job's name and what it says.
func fioStartLine(l string) (string, fioPre, bool) {
	if !strings.Contains(l, "(g=") {
		return "", fioPre{}, false
	}
	l = strings.TrimSpace(l)
	m, bytesUnit := fioPreLine().FindStringSubmatch(l), true
	if m == nil {
		m, bytesUnit = fioPreLine2().FindStringSubmatch(l), false
	}
	if m == nil {
		return "", fioPre{}, false
	}
	depth, _ := strconv.Atoi(m[6])
	rw, _, _ := strings.Cut(m[2], ":")
	return m[1], fioPre{rw: rw, readBS: fioRange(m[3], bytesUnit), writeBS: fioRange(m[4], bytesUnit), engine: m[5], iodepth: depth}, true
}

// fioRange reads fio 3's "4096B-4096B" or "64.0KiB-64.0KiB", or fio 2's
// "4K-4K" (its K being 1024, as in job options); a true range has no
// single size.
func fioRange(s string, bytesUnit bool) int64 {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok || lo != hi {
		return 0
	}
	if !bytesUnit {
		n, _ := fioSize(lo, 1024)
		return n
	}
	return humanSize(lo)
}

var humanSizeRe = pattern.Lazy(`^([0-9]+(?:\.[0-9]+)?)([KMGTP]i?)?B$`)

// humanSize reads the sizes fio and sysbench print for people: 4096B,
// 64.0KiB, 4MiB, 16KiB, and sysbench 0.4's 16Kb and 8Mb (binary).
func humanSize(s string) int64 {
	m := humanSizeRe().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		if f := sbOldSize(strings.TrimSpace(s)); f >= 0 && f < math.MaxInt64/2 {
			return int64(math.Round(f))
		}
		return 0
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	if m[2] != "" {
		base := 1000.0
		if strings.HasSuffix(m[2], "i") {
			base = 1024
		}
		f *= math.Pow(base, float64(strings.IndexByte("KMGTP", m[2][0])+1))
	}
	if f > math.MaxInt64/2 {
		return 0
	}
	return int64(math.Round(f))
}
