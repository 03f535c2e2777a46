package importer

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

var (
	sbVersion   = pattern.Lazy(`^sysbench (\S+)`)
	sbFiles     = pattern.Lazy(`^(\d+) files, (\S+) each$`)
	sbTotal     = pattern.Lazy(`^(\S+) total file size$`)
	sbBlock     = pattern.Lazy(`^Block size (\S+)$`)
	sbFsync     = pattern.Lazy(`^Periodic FSYNC enabled, calling fsync\(\) each (\d+) requests\.$`)
	sbIOMode    = pattern.Lazy(`^Using (.+) I/O mode$`)
	sbTestMode  = pattern.Lazy(`^Doing (.+) test$`)
	sbPercentil = pattern.Lazy(`^(\d+)th percentile$`)
	// sysbench 0.4 and 0.5 print counts and totals on two lines of their
	// own: "Operations performed:  6000 Read, 4000 Write, 12800 Other =
	// 22800 Total" (0.5: "6709 reads, 0 writes, 0 Other") and "Read
	// 93.75Mb  Written 62.5Mb  Total transferred 156.25Mb  (25.438Mb/sec)",
	// then " 1628.02 Requests/sec executed".
	sbOps      = pattern.Lazy(`^Operations performed:\s+(\d+) (?:Read|reads), (\d+) (?:Write|writes), (\d+) Other = (\d+) Total$`)
	sbTransfer = pattern.Lazy(`^Read (\S+)\s+Written (\S+)\s+Total transferred (\S+)\s+\((\S+)/sec\)$`)
	sbRequests = pattern.Lazy(`^(\S+) Requests/sec executed$`)
	// sysbench 1.1 prints "read:  IOPS=7246.41 113.23 MiB/s (118.73 MB/s)"
	// under Throughput instead of a File operations section.
	sbIOPS = pattern.Lazy(`^IOPS=(\S+)(?:\s+(\S+) MiB/s)?`)
)

// submatchEnding is re's submatches of l, where re matches whole lines
// ending in suffix: a line that does not is not searched (^(\S+) would
// take all of a 10 MB line first).
func submatchEnding(re *regexp.Regexp, l, suffix string) []string {
	if !strings.HasSuffix(l, suffix) {
		return nil
	}
	return re.FindStringSubmatch(l)
}

// sbModes maps the "Doing ... test" wording back to --file-test-mode.
var sbModes = map[string]string{
	"sequential write (creation)": "seqwr",
	"sequential rewrite":          "seqrewr",
	"sequential read":             "seqrd",
	"random read":                 "rndrd",
	"random write":                "rndwr",
	"random r/w":                  "rndrw",
}

// sbIOModes maps "Using ... I/O mode" back to --file-io-mode.
var sbIOModes = map[string]string{
	"synchronous":  "sync",
	"asynchronous": "async",
	"fast mmaped":  "mmap",
	"slow mmaped":  "mmap",
}

// sbRun is what the text of `sysbench fileio ... run` says, section by
// section; figures it leaves out stay absent from the map.
type sbRun struct {
	version, mode, ioMode, flags, fatal string
	files, threads                      int
	fileSize, totalSize, blockSize      int64
	requests                            int64
	rwRatio                             float64
	fsyncEvery                          int
	fsyncEnd, fsyncAll, doing           bool
	prepare, cleanup                    bool
	// other is the test a segment ran when it is not fileio ("CPU
	// performance benchmark", "thread subsystem performance").
	other string
	// old holds sysbench 0.4's and 0.5's counts and totals, when printed.
	old *sbOld
	// values holds "section/key" → value text ("File operations/reads/s").
	values map[string]string
}

// sbOld is what sysbench 0.4 and 0.5 print after a fileio run.
type sbOld struct {
	reads, writes, other        int64
	readMiB, writtenMiB, perSec string
	requestsPerSec              string
}

// importSysbench converts the text sysbench prints for fileio runs.
func importSysbench(data []byte, file string) ([]*result.Document, error) {
	docs, _, err := importSysbenchNotes(data, file)
	return docs, err
}

// importSysbenchNotes converts every fileio run of a log of sysbench's
// output, one run per banner line ("sysbench 1.0.20 (using ...)"), as a
// loop over block sizes or a homework script writes them: each run with
// its own settings, other tests (cpu, memory, threads, oltp) and the
// prepare and cleanup steps skipped with a note, a run that died with
// FATAL kept as failed with its reason.
func importSysbenchNotes(data []byte, file string) ([]*result.Document, []string, error) {
	segs := sbSegments(data)
	if len(segs) == 1 {
		d, err := sysbenchRun(parseSysbench(segs[0]), file)
		if err != nil {
			return nil, nil, err
		}
		docs := []*result.Document{d}
		identify(docs, segs[0])
		return docs, nil, nil
	}
	var docs []*result.Document
	var notes []string
	var prepares, cleanups int
	version := ""
	for i, seg := range segs {
		s := parseSysbench(seg)
		// A run split off under its predecessor's banner ran the same
		// sysbench.
		if s.version == "" {
			s.version = version
		}
		version = s.version
		switch {
		case !s.doing && s.prepare:
			prepares++
			continue
		case !s.doing && s.cleanup:
			cleanups++
			continue
		case !s.doing && s.fatal == "":
			test := s.other
			if test == "" {
				test = "not fileio"
			}
			notes = append(notes, fmt.Sprintf("sysbench output %d of %d (%s) skipped: only fileio runs are imported", i+1, len(segs), test))
			continue
		case !s.doing:
			notes = append(notes, fmt.Sprintf("sysbench output %d of %d skipped: it failed before it started: %s", i+1, len(segs), s.fatal))
			continue
		}
		d, err := sysbenchRun(s, file)
		if err != nil {
			return nil, notes, fmt.Errorf("sysbench output %d of %d: %w", i+1, len(segs), err)
		}
		// Each run is identified by its own text: a log a later run was
		// appended to keeps the ids of the runs it held.
		identify([]*result.Document{d}, seg)
		docs = append(docs, d)
	}
	if prepares+cleanups > 0 {
		notes = append(notes, fmt.Sprintf("%d prepare and %d cleanup output(s) skipped: they measure nothing", prepares, cleanups))
	}
	if len(docs) == 0 {
		return nil, notes, fmt.Errorf("sysbench: none of its %d outputs is of `sysbench fileio ... run`; only fileio runs can be imported", len(segs))
	}
	return docs, notes, nil
}

// isSysbenchRun says whether line is the one that starts a run's
// settings, indented as isSysbenchBanner allows.
func isSysbenchRun(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("Running the test with following options:"))
}

// sbSegments splits a log at sysbench's banner lines; text before the
// first banner (a script's own echo lines) belongs to no run. A second
// "Running the test with following options:" under one banner starts a
// run of its own too: a log pasted together by hand can lose a banner
// ("ysbench 1.1.0" in one of the corpus's).
func sbSegments(data []byte) [][]byte {
	locs := linesWhere(data, isSysbenchBanner)
	if len(locs) == 0 {
		return [][]byte{data}
	}
	var segs [][]byte
	for i, l := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1]
		}
		seg := data[l:end]
		runs := linesWhere(seg, isSysbenchRun)
		for j := 1; j < len(runs); j++ {
			segs = append(segs, seg[:runs[j]])
			seg = seg[runs[j]:]
			for k := j + 1; k < len(runs); k++ {
				runs[k] -= runs[j]
			}
			runs[j] = 0
		}
		segs = append(segs, seg)
	}
	return segs
}

// sysbenchRun converts one run's text. The text names no time or host,
// and sysbench 1.0 gives rates rather than counts; the counts are worked
// back from the rates and the number of events.
func sysbenchRun(s *sbRun, file string) (*result.Document, error) {
	const what = "sysbench fileio"
	if !s.doing {
		switch {
		case s.fatal != "":
			return nil, fmt.Errorf("%s: the run failed before it started: %s", what, s.fatal)
		case s.prepare:
			return nil, fmt.Errorf("%s: this is the output of prepare, which measures nothing; import the output of `sysbench fileio ... run`", what)
		case s.cleanup:
			return nil, fmt.Errorf("%s: this is the output of cleanup, which measures nothing; import the output of `sysbench fileio ... run`", what)
		}
		return nil, fmt.Errorf("sysbench: not the output of `sysbench fileio ... run` (no \"Doing ... test\" line); only fileio runs can be imported")
	}
	if s.old != nil || s.values["Test execution summary/total time"] != "" {
		return sysbenchOld(s, file)
	}
	s.v10dev()
	p := result.RandomParameters{
		Files: s.files, TotalSize: s.totalSize, FileSize: s.fileSize, Mode: s.mode, RWRatio: s.rwRatio,
		BlockSize: s.blockSize, FsyncEvery: s.fsyncEvery, FsyncEnd: s.fsyncEnd, Threads: s.threads,
		Requests: s.requests, Direct: strings.Contains(s.flags, "directio") || s.flags == "3",
	}
	switch {
	case s.fsyncAll:
		// --file-fsync-all flushes the file after every write, which is
		// thruput's fsync of the file just written after each write.
		p.FsyncEvery = 1
	case s.fsyncEvery > 0:
		// sysbench's periodic fsync goes round every file of the set.
		p.FsyncAll = true
	}
	d := newDoc(Sysbench, s.version, file, result.MethodRandom, time.Time{})
	d.Imported.Unstated = sysbenchUnstated
	r := &result.Random{Parameters: p}
	d.Random = r
	setLabel(d, "sysbench.io_mode", s.ioMode)
	switch s.flags {
	case "", "(none)", "0", "directio", "3":
	default:
		setLabel(d, "sysbench.extra_flags", strings.TrimSpace(strings.ReplaceAll(s.flags, "directio", "")))
	}
	if s.fatal != "" {
		d.Status, d.Error = result.StatusFailed, s.fatal
	}

	// sysbench 1.1 prints "read: IOPS=7246.41 113.23 MiB/s (118.73 MB/s)"
	// under Throughput and, unless asked, no totals or fairness: its rates
	// are read as 1.0's, its counts stay absent.
	v11 := s.v11()
	e := &errSink{what: what}
	num := func(key string, required bool) float64 {
		v, ok := s.values[key]
		if !ok {
			if required && s.fatal == "" {
				e.failf(key[strings.IndexByte(key, '/')+1:], "missing (truncated output?)")
			}
			return 0
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "s"), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			e.failf(key[strings.IndexByte(key, '/')+1:], "%q is not a number", short(v))
			return 0
		}
		return f
	}
	pair := func(key string) (float64, float64) {
		v, ok := s.values[key]
		if !ok {
			return 0, 0
		}
		a, b, _ := strings.Cut(v, "/")
		fa, err1 := strconv.ParseFloat(a, 64)
		fb, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || !finite(fa) || !finite(fb) || fa < 0 || fb < 0 {
			e.failf(key[strings.IndexByte(key, '/')+1:], "%q is not avg/stddev", short(v))
		}
		return fa, fb
	}
	rr, wr, fr := num("File operations/reads/s", true), num("File operations/writes/s", true), num("File operations/fsyncs/s", true)
	r.ReadMiBPerSec, r.WriteMiBPerSec = num("Throughput/read, MiB/s", true), num("Throughput/written, MiB/s", true)
	// The last lines sysbench prints: without them the output was cut.
	num("Latency (ms)/max", true)
	if _, ok := s.values["Threads fairness/execution time (avg/stddev)"]; !ok && s.fatal == "" && !v11 {
		e.failf("execution time (avg/stddev)", "missing (truncated output?)")
	}
	if v11 {
		num("Latency (ms)/sum", true)
	}
	total := num("General statistics/total time", !v11)
	events := num("General statistics/total number of events", !v11)
	if total > maxSeconds || events > 1e18 {
		e.failf("General statistics", "total time %v s or %v events out of range", total, events)
	}
	if e.err != nil {
		return nil, e.err
	}
	r.ElapsedNs = int64(math.Round(total * 1e9))
	// Every rate is the figure sysbench printed. Its fsyncs/s counts the
	// end fsyncs too, unlike thruput's own; the count below leaves them out.
	r.ReadsPerSec, r.WritesPerSec, r.FsyncsPerSec, r.RequestsPerSec = rr, wr, fr, rr+wr

	// sysbench divides its counters by one interval: reads, writes, and
	// fsyncs including the end ones (one per file and thread), and
	// every event is one read, write or periodic fsync. That interval is
	// close to, but not, the total time; the events give it exactly.
	var endFsyncs int64
	if s.fsyncEnd && s.mode != "seqrd" && s.mode != "rndrd" {
		endFsyncs = int64(s.files) * int64(max(s.threads, 1))
	}
	r.EndFsyncs = endFsyncs
	span := total
	if sum := rr + wr + fr; sum > 0 && events > 0 && !s.fsyncAll {
		t := (events + float64(endFsyncs)) / sum
		nr, nw, nf := math.Round(rr*t), math.Round(wr*t), math.Round(fr*t)-float64(endFsyncs)
		if nf >= 0 && nr+nw+nf == events {
			span = t
		}
	}
	r.Reads, r.Writes = int64(math.Round(rr*span)), int64(math.Round(wr*span))
	r.Fsyncs = max(int64(math.Round(fr*span))-endFsyncs, 0)
	if s.blockSize > 0 && s.fileSize%s.blockSize == 0 {
		r.ReadBytes, r.WrittenBytes = r.Reads*s.blockSize, r.Writes*s.blockSize
	} else {
		// Sequential modes end each file with a short request.
		r.ReadBytes = int64(math.Round(r.ReadMiBPerSec * (1 << 20) * span))
		r.WrittenBytes = int64(math.Round(r.WriteMiBPerSec * (1 << 20) * span))
	}

	if _, ok := s.values["Latency (ms)/min"]; ok {
		ns := func(key string) float64 { return num("Latency (ms)/"+key, true) * 1e6 }
		l := &result.Latency{Count: int64(events), MinNs: int64(math.Round(ns("min"))), MeanNs: ns("avg"), MaxNs: int64(math.Round(ns("max")))}
		for k, v := range s.values {
			m := sbPercentil().FindStringSubmatch(strings.TrimPrefix(k, "Latency (ms)/"))
			if m == nil || !strings.HasPrefix(k, "Latency (ms)/") {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !finite(f) || f < 0 || f > maxSeconds*1e3 {
				e.failf(m[0], "%q is not a number", short(v))
				continue
			}
			q := int64(math.Round(f * 1e6))
			switch m[1] {
			case "50":
				l.P50Ns = q
			case "95":
				l.P95Ns = q
			case "99":
				l.P99Ns = q
			}
		}
		r.Latency = l
	}

	n := max(s.threads, 1)
	evAvg, evDev := pair("Threads fairness/events (avg/stddev)")
	tAvg, tDev := pair("Threads fairness/execution time (avg/stddev)")
	if e.err != nil {
		return nil, e.err
	}
	fairness(r, n, evAvg, evDev, tAvg, tDev, s.values["Threads fairness/events (avg/stddev)"] != "")
	return d, nil
}

// fairness records sysbench's Threads fairness section.
func fairness(r *result.Random, n int, evAvg, evDev, tAvg, tDev float64, printed bool) {
	if !printed {
		// sysbench 1.1 prints none unless asked: none is stored.
		return
	}
	// sysbench's deviation is the population one; thruput's spreads are
	// sample deviations. Minimum and maximum are known for one thread only.
	r.Fairness = &result.Fairness{
		Requests:  spread(n, evAvg, evDev),
		ElapsedNs: spread(n, tAvg*1e9, tDev*1e9),
	}
	if n == 1 {
		r.Threads = []result.ThreadStats{{Requests: int64(math.Round(evAvg)), ElapsedNs: int64(math.Round(tAvg * 1e9))}}
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func spread(n int, mean, popDev float64) result.ThreadSpread {
	s := result.ThreadSpread{N: n, Mean: mean}
	if n > 1 {
		s.Stddev = popDev * math.Sqrt(float64(n)/float64(n-1))
	} else {
		s.Min, s.Max = &mean, &mean
	}
	return s
}

func parseSysbench(data []byte) *sbRun {
	s := &sbRun{values: map[string]string{}}
	section := ""
	// Output pasted into an indented code block carries the banner's
	// indent on every line; sysbench's own indents, which tell its
	// sections, come after it.
	indent := ""
	if first, _, _ := bytes.Cut(data, []byte("\n")); isSysbenchBanner(first) || isSysbenchRun(first) {
		indent = string(first[:len(first)-len(bytes.TrimLeft(first, " \t"))])
	}
	eachLine(data, func(_ int, raw string) {
		raw = strings.TrimPrefix(raw, indent)
		l := strings.TrimSpace(raw)
		indented := len(raw) > 0 && (raw[0] == ' ' || raw[0] == '\t')
		if m := sbVersion().FindStringSubmatch(l); m != nil && s.version == "" {
			s.version = clip(strings.TrimSuffix(m[1], ":"))
			return
		}
		if strings.HasPrefix(l, "FATAL:") && s.fatal == "" {
			s.fatal = clip(strings.TrimSpace(strings.TrimPrefix(l, "FATAL:")))
			return
		}
		if s.oldLine(l) {
			section = ""
			return
		}
		s.otherTest(l)
		if !indented && strings.HasSuffix(l, ":") {
			section = strings.TrimSuffix(l, ":")
			return
		}
		if indented && section != "" {
			if k, v, ok := strings.Cut(l, ":"); ok {
				s.values[section+"/"+strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			return
		}
		if indented {
			return
		}
		section = ""
		s.header(l)
	})
	return s
}

// header reads one line of what sysbench prints before the run.
func (s *sbRun) header(l string) {
	if k, v, ok := strings.Cut(l, ": "); ok {
		switch k {
		case "Number of threads":
			s.threads, _ = strconv.Atoi(v)
		case "Extra file open flags":
			s.flags = strings.TrimSpace(v)
		case "Number of IO requests", "Number of random requests for random IO":
			s.requests, _ = strconv.ParseInt(v, 10, 64)
		case "Read/Write ratio for combined random IO test":
			if f, err := strconv.ParseFloat(v, 64); err == nil && finite(f) {
				s.rwRatio = f
			}
		}
		return
	}
	switch {
	case l == "Calling fsync() at the end of test, Enabled.":
		s.fsyncEnd = true
	case l == "Calling fsync() after each write operation.":
		s.fsyncAll = true
	case l == "Creating files for the test...":
		s.prepare = true
	case l == "Removing test files...":
		s.cleanup = true
	}
	if m := sbFiles().FindStringSubmatch(l); m != nil {
		s.files, _ = strconv.Atoi(m[1])
		s.fileSize = humanSize(m[2])
	} else if m := submatchEnding(sbTotal(), l, " total file size"); m != nil {
		s.totalSize = humanSize(m[1])
	} else if m := sbBlock().FindStringSubmatch(l); m != nil {
		s.blockSize = humanSize(m[1])
	} else if m := sbFsync().FindStringSubmatch(l); m != nil {
		s.fsyncEvery, _ = strconv.Atoi(m[1])
	} else if m := sbIOMode().FindStringSubmatch(l); m != nil {
		s.ioMode = m[1]
		if v, ok := sbIOModes[m[1]]; ok {
			s.ioMode = v
		}
	} else if m := sbTestMode().FindStringSubmatch(l); m != nil {
		// sysbench 0.4 says "Doing memory operations speed test" too.
		if v, ok := sbModes[m[1]]; ok {
			s.doing = true
			s.mode = v
		} else if m[1] == "mixed" || m[1] == "async" {
			s.doing = true
			s.mode = m[1]
		} else {
			s.other = clip(m[1])
		}
	} else if t, ok := strings.CutPrefix(l, "Doing "); ok && s.other == "" {
		s.other = clip(t)
	}
}

// otherTest names the test of a line that only sysbench 1.x's tests other
// than fileio print.
func (s *sbRun) otherTest(l string) {
	for _, m := range sbOtherTests {
		if s.other == "" && strings.HasPrefix(l, m.prefix) {
			s.other = m.test
		}
	}
}

// sbOtherTests are the first settings lines of sysbench 1.x's tests other
// than fileio, by which a log's skipped outputs are named.
var sbOtherTests = []struct{ prefix, test string }{
	{"Prime numbers limit", "cpu"},
	{"Running memory speed test", "memory"},
	{"Number of mutexes", "mutex"},
	{"Thread yields per test", "threads"},
	{"SQL statistics", "oltp"},
}

// v11 is true for sysbench 1.1's Throughput section, whose lines it turns
// into 1.0's File operations and Throughput values.
func (s *sbRun) v11() bool {
	if _, ok := s.values["File operations/reads/s"]; ok {
		return false
	}
	found := false
	for _, k := range []struct{ dir, ops, mib string }{
		{"read", "reads/s", "read, MiB/s"}, {"write", "writes/s", "written, MiB/s"}, {"fsync", "fsyncs/s", ""},
	} {
		m := sbIOPS().FindStringSubmatch(s.values["Throughput/"+k.dir])
		if m == nil {
			continue
		}
		found = true
		s.values["File operations/"+k.ops] = m[1]
		if k.mib != "" && m[2] != "" {
			s.values["Throughput/"+k.mib] = m[2]
		}
	}
	return found
}

// v10dev turns the latency of the sysbench 1.0 built from its repository
// before the 1.0 release (banner "sysbench 1.0:", 2016) into 1.0's: it
// prints 1.0's File operations and Throughput but 0.5's "response time"
// under General statistics ("min: 0.42ms", "approx.  95 percentile:
// 277.21ms") instead of a "Latency (ms)" section.
func (s *sbRun) v10dev() {
	const gs = "General statistics/"
	if _, ok := s.values["Latency (ms)/max"]; ok {
		return
	}
	if _, ok := s.values[gs+"response time"]; !ok {
		return
	}
	for from, to := range map[string]string{"min": "min", "avg": "avg", "max": "max", "approx.  95 percentile": "95th percentile"} {
		if v, ok := s.values[gs+from]; ok {
			s.values["Latency (ms)/"+to] = strings.TrimSuffix(v, "ms")
		}
	}
}

// oldLine reads the lines sysbench 0.4 and 0.5 print after a fileio run.
func (s *sbRun) oldLine(l string) bool {
	if m := sbOps().FindStringSubmatch(l); m != nil {
		if s.old == nil {
			s.old = &sbOld{}
		}
		s.old.reads, _ = strconv.ParseInt(m[1], 10, 64)
		s.old.writes, _ = strconv.ParseInt(m[2], 10, 64)
		s.old.other, _ = strconv.ParseInt(m[3], 10, 64)
		return true
	}
	if m := sbTransfer().FindStringSubmatch(l); m != nil && s.old != nil {
		s.old.readMiB, s.old.writtenMiB, s.old.perSec = m[1], m[2], m[4]
		return true
	}
	if m := submatchEnding(sbRequests(), l, " Requests/sec executed"); m != nil && s.old != nil {
		s.old.requestsPerSec = m[1]
		return true
	}
	return false
}

// sysbenchUnstated: no sysbench version prints its time limit (--time,
// --max-time), so an imported run's time_ns, whose 0 would read as
// "unbounded", is marked unknown rather than stated.
var sysbenchUnstated = []string{"time_ns"}

// sysbenchOld converts a fileio run as sysbench 0.4 and 0.5 print it:
// counts of reads, writes and fsyncs ("Other"), the MiB read and written
// ("Mb" in its words, 2^20 bytes, as its "Mb/sec" is MiB/s), the total
// time and the per-request latency summary.
func sysbenchOld(s *sbRun, file string) (*result.Document, error) {
	e := &errSink{what: "sysbench fileio"}
	o := s.old
	if o == nil || o.perSec == "" {
		if s.fatal != "" {
			// Died before its summary: a failed attempt, nothing measured.
			o = &sbOld{}
		} else {
			e.failf("Operations performed", "missing (truncated output?)")
			return nil, e.err
		}
	}
	num := func(key, v string, unit string) float64 {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, unit), 64)
		if err != nil || !finite(f) || f < 0 {
			e.failf(key, "%q is not a number", short(v))
			return 0
		}
		return f
	}
	val := func(key, unit string) (float64, bool) {
		v, ok := s.values[key]
		if !ok {
			return 0, false
		}
		return num(key[strings.IndexByte(key, '/')+1:], v, unit), true
	}
	// 0.5 calls the summary "General statistics" and its latency
	// "response time"; 0.4 "Test execution summary" and "per-request
	// statistics". The figures under them are the same.
	sum := "Test execution summary/"
	if _, ok := s.values[sum+"total time"]; !ok {
		sum = "General statistics/"
	}
	total, hasTotal := val(sum+"total time", "s")
	events, _ := val(sum+"total number of events", "")
	if !hasTotal && s.fatal == "" {
		e.failf("total time", "missing (truncated output?)")
	}
	if _, ok := s.values["Threads fairness/execution time (avg/stddev)"]; !ok && s.fatal == "" {
		e.failf("execution time (avg/stddev)", "missing (truncated output?)")
	}
	if total > maxSeconds || events > 1e18 {
		e.failf("Test execution summary", "total time %v s or %v events out of range", total, events)
	}
	mib := func(key, v string) float64 {
		if v == "" {
			return 0
		}
		b := sbOldSize(v)
		if b < 0 {
			e.failf(key, "%q is not a size", short(v))
			return 0
		}
		return b / (1 << 20)
	}
	readMiB, writtenMiB := mib("Read", o.readMiB), mib("Written", o.writtenMiB)
	if e.err != nil {
		return nil, e.err
	}
	p := result.RandomParameters{
		Files: s.files, TotalSize: s.totalSize, FileSize: s.fileSize, Mode: s.mode, RWRatio: s.rwRatio,
		BlockSize: s.blockSize, FsyncEvery: s.fsyncEvery, FsyncEnd: s.fsyncEnd, Threads: s.threads,
		// 0.5 prints its flag's number, 3 for --file-extra-flags=direct.
		Requests: s.requests, Direct: strings.Contains(s.flags, "direct") || s.flags == "3",
	}
	if s.fsyncAll {
		p.FsyncEvery = 1
	} else if s.fsyncEvery > 0 {
		p.FsyncAll = true
	}
	d := newDoc(Sysbench, s.version, file, result.MethodRandom, time.Time{})
	d.Imported.Unstated = sysbenchUnstated
	r := &result.Random{Parameters: p, Reads: o.reads, Writes: o.writes, Fsyncs: o.other}
	d.Random = r
	setLabel(d, "sysbench.io_mode", s.ioMode)
	r.ReadBytes, r.WrittenBytes = int64(math.Round(readMiB*(1<<20))), int64(math.Round(writtenMiB*(1<<20)))
	r.ElapsedNs = int64(math.Round(total * 1e9))
	if total > 0 {
		// sysbench 0.4 divides the totals by the total time: its
		// "(25.438Mb/sec)" is (Read + Written) / total time.
		r.ReadMiBPerSec, r.WriteMiBPerSec = readMiB/total, writtenMiB/total
		r.ReadsPerSec, r.WritesPerSec = float64(o.reads)/total, float64(o.writes)/total
		r.FsyncsPerSec = float64(o.other) / total
		r.RequestsPerSec = r.ReadsPerSec + r.WritesPerSec
	}
	if o.requestsPerSec != "" {
		r.RequestsPerSec = num("Requests/sec executed", o.requestsPerSec, "")
	}
	if _, ok := s.values[sum+"avg"]; ok {
		ns := func(key string) float64 {
			f, _ := val(sum+key, "ms")
			return f * 1e6
		}
		l := &result.Latency{Count: int64(events), MinNs: int64(math.Round(ns("min"))), MeanNs: ns("avg"), MaxNs: int64(math.Round(ns("max")))}
		if _, ok := s.values[sum+"approx.  95 percentile"]; ok {
			l.P95Ns = int64(math.Round(ns("approx.  95 percentile")))
		}
		r.Latency = l
	}
	n := max(s.threads, 1)
	pair := func(key string) (float64, float64) {
		v, ok := s.values[key]
		if !ok {
			return 0, 0
		}
		a, b, _ := strings.Cut(v, "/")
		return num(key, a, ""), num(key, b, "")
	}
	evAvg, evDev := pair("Threads fairness/events (avg/stddev)")
	tAvg, tDev := pair("Threads fairness/execution time (avg/stddev)")
	if e.err != nil {
		return nil, e.err
	}
	fairness(r, n, evAvg, evDev, tAvg, tDev, s.values["Threads fairness/events (avg/stddev)"] != "")
	if s.fatal != "" {
		d.Status, d.Error = result.StatusFailed, s.fatal
	}
	return d, nil
}

// sbOldSize reads sysbench 0.4's sizes: "93.75Mb", "1Gb", "16Kb", "0b",
// in bytes; its b is a byte and its K, M and G are powers of 1024.
func sbOldSize(v string) float64 {
	i := strings.IndexFunc(v, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if i <= 0 {
		return -1
	}
	f, err := strconv.ParseFloat(v[:i], 64)
	if err != nil || !finite(f) {
		return -1
	}
	switch v[i:] {
	case "b":
		return f
	case "Kb":
		return f * (1 << 10)
	case "Mb":
		return f * (1 << 20)
	case "Gb":
		return f * (1 << 30)
	case "Tb":
		return f * (1 << 40)
	}
	return -1
}
