// Package importer turns results measured earlier with fio, iperf3 and
// sysbench into thruput result documents, so that a history started with
// those tools carries on in thruput's store and compares with its own runs.
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
	"crypto/rand"
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
)

// detectWindow is how much of the input Detect looks at: enough for fio's
// warnings before its JSON, little enough that a huge file costs nothing.
const detectWindow = 1 << 20

var sysbenchBanner = regexp.MustCompile(`(?m)^sysbench \d`)

// Detect names the tool that produced data: "fio" (fio
// --output-format=json, possibly with text before the JSON as fio prints
// warnings), "iperf3" (iperf3 -J, or --json-stream), "sysbench" (sysbench
// text output), "thruput" (a thruput result document, or JSON lines of
// them), or "" if unknown. It reads only the start of data: a truncated
// file is still recognised, so that Import can say what is wrong with it.
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
	if sysbenchBanner.Match(head) {
		return Sysbench
	}
	if _, ok := fioStart(head); ok {
		return FIO
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

// maxPreambleCandidates bounds the search for fio's JSON after its
// warnings, so that text full of '{' lines is not decoded again and again.
const maxPreambleCandidates = 64

// fioStart finds where fio's JSON begins: the first line starting with '{'
// whose first key is fio's.
func fioStart(data []byte) (int, bool) {
	off := 0
	for n := 0; n < maxPreambleCandidates; n++ {
		i := bytes.IndexByte(data[off:], '{')
		if i < 0 {
			return 0, false
		}
		at := off + i
		if at == 0 || data[at-1] == '\n' {
			if firstKey(data[at:]) == "fio version" {
				return at, true
			}
		}
		off = at + 1
	}
	return 0, false
}

// Import converts data into documents; file is recorded in Imported.File.
// Each document gets an id of thruput's shape, its time part the run's
// own start when the source names it and the import's time otherwise.
func Import(data []byte, file string) ([]*result.Document, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty input")
	}
	var docs []*result.Document
	var err error
	switch Detect(data) {
	case FIO:
		docs, err = importFio(data, file)
	case IPerf3:
		docs, err = importIPerf3(data, file)
	case Sysbench:
		docs, err = importSysbench(data, file)
	case Thruput:
		docs, err = importThruput(data)
	default:
		return nil, errors.New("not a thruput result document, fio JSON, iperf3 -J JSON or sysbench fileio output")
	}
	if Detect(data) != Thruput {
		stableIDs(docs, data, file)
	}
	if err != nil {
		return docs, err
	}
	for i, d := range docs {
		if err := checkMeasured(d, i+1); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

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

// stableIDs makes importing the same file twice give the same ids, so the
// store skips the second import instead of keeping every run twice: the
// suffix is a hash of the file's bytes and the run's place in it, and a run
// whose output names no time (sysbench) takes the file's modification time
// as its end.
func stableIDs(docs []*result.Document, data []byte, file string) {
	var mtime time.Time
	if fi, err := os.Stat(file); err == nil {
		mtime = fi.ModTime()
	}
	for i, d := range docs {
		if d.StartedAt.IsZero() && d.EndedAt.IsZero() && !mtime.IsZero() {
			// Output that names no time (sysbench's, a failed iperf3's)
			// was written when the run ended: without it the run would
			// sort before every other and match no --since.
			d.EndedAt = mtime.UTC()
			d.StartedAt = d.EndedAt
			if d.Random != nil {
				d.StartedAt = d.EndedAt.Add(-time.Duration(d.Random.ElapsedNs))
			}
		}
		t := d.StartedAt
		if t.IsZero() {
			t = d.EndedAt
		}
		if t.IsZero() {
			continue // no file and no time: the fresh id stays
		}
		h := sha256.New()
		h.Write(data)
		fmt.Fprintf(h, "\x00%d", i)
		d.ID = t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(h.Sum(nil)[:3])
	}
}

// newDoc is the envelope every converter starts from.
func newDoc(tool, version, file, method string, started time.Time) *result.Document {
	return &result.Document{
		FormatVersion: result.FormatVersion,
		Tool:          result.Tool{Name: tool},
		ID:            newID(started),
		Method:        method,
		StartedAt:     started,
		Status:        result.StatusOK,
		Imported:      &result.Imported{Tool: tool, Version: version, File: file},
	}
}

// newID has the shape of thruput's own run ids, sortable by time, so
// imported runs interleave with measured ones in the store.
func newID(t time.Time) string {
	if t.IsZero() {
		t = time.Now()
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
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

// maxToolOutput bounds the fio, iperf3 and sysbench files read whole; their
// outputs are kilobytes, a few megabytes with many intervals.
const maxToolOutput = 256 << 20

// EachFile hands fn the documents of the file at path, one at a time, and
// returns the tool that made it. A thruput export is decoded from the file
// as it is read, so importing thousands of runs on a Pi holds one run in
// memory, not the export; the other tools' outputs are small and read
// whole. The first error, from the file or from fn, ends it.
func EachFile(path string, fn func(*result.Document) error) (tool string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	head := make([]byte, detectWindow)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	head = head[:n]
	tool = Detect(head)
	switch tool {
	case "":
		return "", errors.New("not a thruput export, fio JSON, iperf3 -J JSON or sysbench fileio output")
	case Thruput:
		n := 0
		return tool, eachThruput(io.MultiReader(bytes.NewReader(head), f), fi.Size(), func(d *result.Document) error {
			n++
			if err := checkMeasured(d, n); err != nil {
				return err
			}
			return fn(d)
		})
	}
	rest, err := io.ReadAll(io.LimitReader(f, maxToolOutput))
	if err != nil {
		return tool, err
	}
	docs, err := Import(append(head, rest...), path)
	if err != nil {
		return tool, err
	}
	for _, d := range docs {
		if err := fn(d); err != nil {
			return tool, err
		}
	}
	return tool, nil
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
