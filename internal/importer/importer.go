// Package importer turns results measured earlier with fio, iperf3,
// sysbench, iozone, hdparm, KDiskMark, CrystalDiskMark and PiBenchmarks'
// Storage.sh, and the dd, wget and curl transcripts people keep by hand,
// into thruput result
// documents, so that a history started with those tools carries on in
// thruput's store and compares with its own runs. It reads what the tools
// wrote across their versions (docs/import.md), as a corpus of real
// outputs under testdata/real holds it to.
// It also takes thruput's own documents back (one, or JSON lines of them as
// `thruput results export` writes), so a history moves between machines.
//
// The converters follow the result format's rule that an unknown fact is
// left out rather than guessed: what the source does not say stays zero or
// absent. Facts the format has no field for but that change the meaning of
// the figures (sysbench's I/O mode, fio's job name) are kept as labels
// prefixed with the tool's name ("sysbench.io_mode").
//
// Every input, however damaged, gives documents or one error line; nothing
// here panics on bad data.
package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// Source tools as Detect names them.
const (
	FIO      = "fio"
	IPerf3   = "iperf3"
	Sysbench = "sysbench"
	Thruput  = "thruput"
	// DD is a transcript of dd runs (GNU, busybox or BSD dd's summary
	// lines), Wget and Curl transcripts of downloads: text people kept.
	DD   = "dd"
	Wget = "wget"
	Curl = "curl"
	// IOzone is iozone's auto-mode or -i table, HDParm hdparm's -t and
	// -T timings.
	IOzone = "iozone"
	HDParm = "hdparm"
)

// detectWindow is how much of the input Detect looks at: enough for fio's
// warnings before its JSON, little enough that a huge file costs nothing.
const detectWindow = 1 << 20

// isSysbenchBanner says whether line is sysbench's first line, "sysbench
// 1.0.20 (using ...)", indented when pasted into a Markdown or
// reStructuredText code block.
func isSysbenchBanner(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(line, " \t"), []byte("sysbench "))
	return ok && len(rest) > 0 && '0' <= rest[0] && rest[0] <= '9'
}

// linesWhere is the offset of each line of data that is holds true of.
// Looking line by line, not with a multi-line regexp, goes through a huge
// line (a 10 MB one of no output) at memory speed, where Go's regexp
// takes about a tenth of a second a megabyte.
func linesWhere(data []byte, is func(line []byte) bool) []int {
	var at []int
	for off := 0; off < len(data); {
		line := data[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if is(line) {
			at = append(at, off)
		}
		off += len(line) + 1
	}
	return at
}

// mayHold runs re on data only if data holds lit, a literal every match
// of re holds: most input is no dd or wget transcript, and the regexp
// would search all of it for nothing.
func mayHold(data []byte, lit string, re *regexp.Regexp) bool {
	return bytes.Contains(data, []byte(lit)) && re.Match(data)
}

// Detect names the tool that produced data: "fio" (fio
// --output-format=json, possibly with text before the JSON as fio prints
// warnings, or fio's normal or terse output), "iperf3" (iperf3 -J, or --json-stream, possibly after
// terminal noise such as "^C" or an escape sequence), "sysbench"
// (sysbench text output), "thruput" (a thruput result document, or JSON
// lines of them), "dd", "wget" or "curl" (transcripts of their runs),
// "iozone" (its table), "hdparm" (its -t and -T timings), "kdiskmark"
// or "crystaldiskmark" (their text reports), "pibenchmarks" (the result
// table of PiBenchmarks' Storage.sh), or "" if unknown. It reads only the start of data: a truncated file is
// still recognised, so that Import can say what is wrong with it.
func Detect(data []byte) string {
	head := data
	if len(head) > detectWindow {
		head = head[:detectWindow]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if tool := toolOfKey(firstKey(trimmed)); tool != "" {
			return tool
		}
	}
	if len(linesWhere(head, isSysbenchBanner)) > 0 {
		return Sysbench
	}
	if _, tool, ok := jsonStart(head); ok {
		return tool
	}
	switch {
	// Storage.sh's log holds iozone's table, hdparm's and dd's lines
	// before its own table, which sums them all up.
	case len(linesWhere(head, isPiBenchRow)) > 0:
		return PiBenchmarks
	case bytes.Contains(head, iozoneBanner):
		return IOzone
	case kdmBanner().Match(head):
		return KDiskMark
	case cdmBanner().Match(head):
		return CrystalDiskMark
	case bytes.Contains(head, []byte(markUnits)):
		// A report copied from its units line on, without the banner
		// that names its tool: its test lines' layout will.
		return CrystalDiskMark
	case bytes.Contains(head, []byte("(groupid=")) && len(linesWhere(head, isFioJobLine)) > 0,
		bytes.IndexByte(head, ';') >= 0 && len(linesWhere(head, isFioTerseLine)) > 0:
		return FIO
	case mayHold(head, "copied, ", ddSummary()) || mayHold(head, " bytes transferred in ", ddBSD()):
		return DD
	case mayHold(head, "saved [", wgetSaved()):
		return Wget
	case curlMeter().Match(head):
		return Curl
	case mayHold(head, "Timing ", hdparmTiming()):
		return HDParm
	}
	return ""
}

// toolOfKey names the tool whose JSON output starts with key: each writes
// its first key first, whatever else changes between versions.
func toolOfKey(key string) string {
	switch key {
	case "fio version":
		return FIO
	case "start", "event":
		return IPerf3
	case "format_version":
		return Thruput
	}
	return ""
}

// firstKey is the first key of the JSON object data starts with, read
// without decoding the rest.
func firstKey(data []byte) string {
	// Every format's first key comes within a few bytes of its '{'.
	data = data[:min(len(data), 4096)]
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	t, err := dec.Token()
	if err != nil {
		return ""
	}
	k, _ := t.(string)
	return k
}

// maxPreambleCandidates bounds the search for a JSON output after text,
// so that text full of '{' is not decoded again and again.
const maxPreambleCandidates = 64

// jsonStart finds where fio's or iperf3's JSON begins after text: fio's
// warnings, or what a terminal left in a file saved from it ("^C{" after
// an interrupt, an escape sequence from an arrow key, a shell prompt).
// The first '{' whose first key is a tool's is the output.
func jsonStart(data []byte) (int, string, bool) {
	off := 0
	for n := 0; n < maxPreambleCandidates; n++ {
		i := bytes.IndexByte(data[off:], '{')
		if i < 0 {
			return 0, "", false
		}
		at := off + i
		if tool := toolOfKey(firstKey(data[at:])); tool == FIO || tool == IPerf3 {
			return at, tool, true
		}
		off = at + 1
	}
	return 0, "", false
}

// outputStart finds where the JSON of tool starts: at the start of data,
// after a byte order mark or blank lines, or after text.
func outputStart(data []byte, tool string) (int, bool) {
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(t) > 0 && t[0] == '{' && toolOfKey(firstKey(t)) == tool {
		return len(data) - len(t), true
	}
	at, found, ok := jsonStart(data[:min(len(data), detectWindow)])
	return at, ok && found == tool
}

// Import converts data into documents; file is recorded in Imported.File.
// Each document gets an id from the output's bytes (see identify).
func Import(data []byte, file string) ([]*result.Document, error) {
	docs, _, err := ImportNotes(data, file)
	return docs, err
}

// ImportNotes is Import that also returns notes on what the input held
// but was not imported (the cpu test of a sysbench log of several tests).
func ImportNotes(data []byte, file string) ([]*result.Document, []string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, errors.New("empty input")
	}
	var docs []*result.Document
	var notes []string
	var err error
	tool := Detect(data)
	switch tool {
	case FIO:
		docs, notes, err = importFioAny(data, file)
	case IPerf3:
		docs, err = importIPerf3(data, file)
	case Sysbench:
		docs, notes, err = importSysbenchNotes(data, file)
	case Thruput:
		docs, err = importThruput(data)
	case DD:
		docs, err = importDD(data, file)
	case Wget, Curl:
		docs, err = importDownload(data, file, tool)
	case IOzone:
		docs, notes, err = importIOzone(data, file)
	case HDParm:
		docs, err = importHDParm(data, file)
	case KDiskMark, CrystalDiskMark:
		docs, notes, err = importMark(data, file)
	case PiBenchmarks:
		docs, notes, err = importPiBench(data, file)
	default:
		return nil, nil, errors.New(unknownInput)
	}
	if err != nil {
		return nil, notes, err
	}
	if tool != Thruput {
		placeInTime(docs, file)
		docs, notes = dedupe(docs, notes)
	}
	for i, d := range docs {
		if err := checkMeasured(d, i+1); err != nil {
			return nil, notes, err
		}
	}
	return docs, notes, nil
}

const unknownInput = "not a thruput result document, fio output (JSON, normal or terse), iperf3 -J JSON, sysbench fileio output, an iozone table, hdparm timings, a KDiskMark or CrystalDiskMark report, a PiBenchmarks result table, or a dd, wget or curl transcript"

// checkMeasured refuses a document that holds no measurement and names
// no failure either ({"start":{},"intervals":[],"end":{}}): stored, it
// would be a run of zeros. A failed run that says why is kept, as the
// record of an attempt.
func checkMeasured(d *result.Document, n int) error {
	if d.Measured() || d.Error != "" {
		return nil
	}
	return fmt.Errorf("run %d holds no measurement (no intervals, steps or results) and no error: nothing to import", n)
}

// identify gives the documents converted from content their ids, so that
// importing the same output twice gives the same ids and the store skips
// the second import instead of keeping every run twice. The id is a hash
// of the output's bytes and the run's place in them: of the output, not
// of the file, so a copy or a checkout with another modification time is
// the same run, and so is the same output pasted twice into a log. Its
// time part is the run's start when the output names one; output that
// names none (sysbench's, dd's) gets the tool's name instead, as no time
// read from the file would be the same for every copy.
func identify(docs []*result.Document, content []byte) {
	for i, d := range docs {
		h := sha256.New()
		h.Write(content)
		fmt.Fprintf(h, "\x00%d", i)
		sum := hex.EncodeToString(h.Sum(nil))
		t := d.StartedAt
		if t.IsZero() {
			t = d.EndedAt
		}
		if t.IsZero() {
			d.ID = d.Imported.Tool + "-" + sum[:12]
			continue
		}
		d.ID = t.UTC().Format("20060102T150405Z") + "-" + sum[:6]
	}
}

// placeInTime gives a run whose output names no time the file's
// modification time, when the output was last written, as its end: it
// needs a time to sort by and to match --since. Its id does not change.
func placeInTime(docs []*result.Document, file string) {
	var mtime time.Time
	if fi, err := os.Stat(file); err == nil {
		mtime = fi.ModTime().UTC()
	}
	for _, d := range docs {
		if mtime.IsZero() || !d.StartedAt.IsZero() || !d.EndedAt.IsZero() {
			continue
		}
		d.EndedAt = mtime
		d.StartedAt = d.EndedAt.Add(-elapsed(d))
	}
}

// dedupe drops a run that repeats an earlier one of the same input (an
// output pasted twice into a log), with a note.
func dedupe(docs []*result.Document, notes []string) ([]*result.Document, []string) {
	first := map[string]int{}
	out := docs[:0]
	for i, d := range docs {
		if j, ok := first[d.ID]; ok {
			notes = append(notes, fmt.Sprintf("run %d repeats run %d byte for byte: kept once", i+1, j+1))
			continue
		}
		first[d.ID] = i
		out = append(out, d)
	}
	return out, notes
}

// elapsed is how long a run that names no time of its own took, by its
// own figures, so its start can be put before the file was written.
func elapsed(d *result.Document) time.Duration {
	var ns int64
	switch {
	case d.Random != nil:
		ns = d.Random.ElapsedNs
	case d.Sweep != nil:
		for _, s := range d.Sweep.Steps {
			ns += s.ElapsedNs
		}
	case d.HTTP != nil:
		for _, r := range d.HTTP.Runs {
			ns += r.TotalNs
		}
	}
	return time.Duration(ns)
}

// newDoc is the envelope every converter starts from.
func newDoc(tool, version, file string, method result.Method, started time.Time) *result.Document {
	return &result.Document{
		FormatVersion: result.FormatVersion,
		Tool:          result.Tool{Name: tool},
		Method:        method,
		StartedAt:     started,
		Status:        result.StatusOK,
		Imported:      &result.Imported{Tool: tool, Version: version, File: file},
	}
}

// setLabel records a fact the result format has no field for, when it is
// a valid label; a name full of control characters is dropped rather than
// failing the import.
func setLabel(d *result.Document, key, value string) {
	if _, _, err := result.ParseLabel(key + "=" + value); err != nil || value == "" {
		return
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels[key] = value
}

// maxDocuments bounds a thruput export so a crafted file cannot make the
// import hold millions of documents.
const maxDocuments = 1 << 20

// importThruput takes back thruput's own documents unchanged: one
// (indented, as --json prints it) or several (JSON lines, as export writes).
func importThruput(data []byte) ([]*result.Document, error) {
	var docs []*result.Document
	err := eachThruput(bytes.NewReader(data), int64(len(data)), func(d *result.Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// eachThruput decodes thruput documents from r (size bytes) one at a time.
func eachThruput(r io.Reader, size int64, fn func(*result.Document) error) error {
	dec := json.NewDecoder(r)
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return jsonErrorAt(fmt.Sprintf("thruput document %d", n), size, err)
		}
		if n > maxDocuments {
			return fmt.Errorf("more than %d documents", maxDocuments)
		}
		d, err := result.Read(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("thruput document %d: %v", n, err)
		}
		if err := fn(d); err != nil {
			return err
		}
	}
}

// maxToolOutput bounds the fio, iperf3, sysbench and transcript files
// read whole; their outputs are kilobytes, a few megabytes with many
// intervals or a long log.
const maxToolOutput = 256 << 20

// Outcome is what EachFile found in a file besides its runs.
type Outcome struct {
	// Tool that made the file, as Detect names it.
	Tool string
	// Notes say what the file held that was not imported.
	Notes []string
}

// EachFile hands fn the documents of the file at path, one at a time. A
// thruput export is decoded from the file as it is read, so importing
// thousands of runs on a Pi holds one run in memory, not the export; the
// other tools' outputs are small and read whole, and a file that is not
// one (a disk image given by mistake) is refused from its first megabyte
// or its size, without being read. The first error, from the file or from
// fn, ends it.
func EachFile(path string, fn func(*result.Document) error) (Outcome, error) {
	var out Outcome
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return out, err
	}
	if fi.IsDir() {
		return out, errors.New("a directory")
	}
	head := make([]byte, detectWindow)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return out, err
	}
	head = head[:n]
	if len(bytes.TrimSpace(head)) == 0 && fi.Size() <= int64(n) {
		return out, errors.New("empty input")
	}
	out.Tool = Detect(head)
	switch out.Tool {
	case "":
		return out, errors.New(unknownInput)
	case Thruput:
		n := 0
		return out, eachThruput(io.MultiReader(bytes.NewReader(head), f), fi.Size(), func(d *result.Document) error {
			n++
			if err := checkMeasured(d, n); err != nil {
				return err
			}
			return fn(d)
		})
	}
	if fi.Mode().IsRegular() && fi.Size() > maxToolOutput {
		return out, fmt.Errorf("%d bytes: more than any %s output (at most %d MiB is read)", fi.Size(), out.Tool, maxToolOutput>>20)
	}
	rest, err := io.ReadAll(io.LimitReader(f, maxToolOutput+1-int64(len(head))))
	if err != nil {
		return out, err
	}
	if len(head)+len(rest) > maxToolOutput {
		return out, fmt.Errorf("more than any %s output (at most %d MiB is read)", out.Tool, maxToolOutput>>20)
	}
	docs, notes, err := ImportNotes(append(head, rest...), path)
	out.Notes = notes
	if err != nil {
		return out, err
	}
	for _, d := range docs {
		if err := fn(d); err != nil {
			return out, err
		}
	}
	return out, nil
}

// eachLine calls f with every line of data, without a line length limit
// (a 10 MB line is read, not refused) and without holding them all.
func eachLine(data []byte, f func(n int, line string)) {
	for n := 1; len(data) > 0; n++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		f(n, string(bytes.TrimRight(l, "\r")))
	}
}

// clip shortens text quoted from the input for an error line.
func clip(s string) string { return cut(s, 120) }

// short shortens a value quoted in an error line.
func short(s string) string { return cut(s, 32) }

func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "..."
}
