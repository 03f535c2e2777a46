package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"

	"github.com/thruput/thruput/internal/fstest"
)

func init() { fstest.RoomyHeap() }

// The corpus under testdata/real is output that other people's fio,
// sysbench, iperf3, dd and wget wrote and committed to public
// repositories, kept byte for byte. Beside each file, NAME.expect says
// where it came from and what it shows, read from the file by hand:
//
//	source OWNER/REPO COMMIT PATH
//	tool fio                     the tool Detect must name ("none")
//	version 3.12                 the version the output names
//	refused TEXT                 the import must fail, saying TEXT
//	runs N                       the documents the import gives
//	note TEXT                    a note on what was skipped says TEXT
//	run I key=value ...          figures of document I (from 1)
//	error I TEXT                 document I's failure reason says TEXT
//
// A figure is compared within 0.1 %; "absent" means the document must not
// hold it at all. A figure is named by its path in the result document
// (see checkFigure), its value written in the unit the file printed it.

type expectation struct {
	source, tool, version, refused string
	runs                           int
	notes                          []string
	figures                        map[int][][2]string
	errors                         map[int]string
}

func readExpect(t *testing.T, path string) expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := expectation{runs: -1, figures: map[int][][2]string{}, errors: map[int]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		switch verb {
		case "source":
			e.source = rest
		case "tool":
			// "none": Detect names no tool.
			e.tool = strings.TrimPrefix(rest, "none")
		case "version":
			e.version = rest
		case "refused":
			e.refused = rest
		case "note":
			e.notes = append(e.notes, rest)
		case "runs":
			e.runs, err = strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
		case "run":
			f := strings.Fields(rest)
			n, err := strconv.Atoi(f[0])
			if err != nil || len(f) < 2 {
				t.Fatalf("%s: %q", path, line)
			}
			for _, kv := range f[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("%s: %q: %q is not key=value", path, line, kv)
				}
				e.figures[n] = append(e.figures[n], [2]string{k, v})
			}
		case "error":
			i, text, _ := strings.Cut(rest, " ")
			n, err := strconv.Atoi(i)
			if err != nil || text == "" {
				t.Fatalf("%s: %q", path, line)
			}
			e.errors[n] = text
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
	}
	if f := strings.Fields(e.source); len(f) != 3 || len(f[1]) != 40 {
		t.Fatalf("%s: no source OWNER/REPO COMMIT PATH", path)
	}
	if e.refused == "" && (e.tool == "" || e.runs < 0) {
		t.Fatalf("%s: says neither the tool and runs nor a refusal", path)
	}
	return e
}

func TestRealCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/real/*.expect")
	if err != nil || len(files) < 40 {
		t.Fatalf("%d corpus files, want at least 40: %v", len(files), err)
	}
	for _, exp := range files {
		name := strings.TrimSuffix(exp, ".expect")
		t.Run(filepath.Base(name), func(t *testing.T) {
			e := readExpect(t, exp)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if got := Detect(data); got != e.tool {
				t.Errorf("Detect = %q, want %q", got, e.tool)
			}
			docs, notes, err := ImportNotes(data, name)
			if e.refused != "" {
				if err == nil || !strings.Contains(err.Error(), e.refused) {
					t.Fatalf("error %v, want one saying %q", err, e.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != e.runs {
				t.Fatalf("%d runs, want %d", len(docs), e.runs)
			}
			for _, n := range e.notes {
				if !strings.Contains(strings.Join(notes, "\n"), n) {
					t.Errorf("notes %q do not say %q", notes, n)
				}
			}
			for _, d := range docs {
				if e.version != "" && d.Imported.Version != e.version {
					t.Errorf("version %q, want %q", d.Imported.Version, e.version)
				}
				var buf bytes.Buffer
				if err := d.Write(&buf); err != nil {
					t.Fatal(err)
				}
				if _, err := result.Read(&buf); err != nil {
					t.Fatalf("%s does not read back: %v", d.ID, err)
				}
			}
			for n, text := range e.errors {
				if n < 1 || n > len(docs) {
					t.Fatalf("run %d of %d", n, len(docs))
				}
				if d := docs[n-1]; !strings.Contains(d.Error, text) {
					t.Errorf("run %d: reason %q, want one saying %q", n, d.Error, text)
				}
			}
			for n, figs := range e.figures {
				if n < 1 || n > len(docs) {
					t.Fatalf("run %d of %d", n, len(docs))
				}
				for _, kv := range figs {
					checkFigure(t, fmt.Sprintf("run %d %s", n, kv[0]), docs[n-1], kv[0], kv[1])
				}
			}
		})
	}
}

// checkFigure compares one figure of d, named by its path in the result
// document as docs/result-json.md names the fields ("random.reads",
// "io.runs[0].read.latency.p99_ns", "net.intervals#" for a length, "a+b"
// for a sum), with the value the sidecar read from the file, in the
// file's own unit ("93.75MiB", "6.1424s", "68118KiB/s", "553MB/s").
func checkFigure(t *testing.T, what string, d *result.Document, key, want string) {
	t.Helper()
	var doc any
	b, err := json.Marshal(d)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	var got any
	ok := true
	for i, path := range strings.Split(key, "+") {
		v, found := jsonPath(doc, path)
		switch {
		case !found:
			ok = false
		case i == 0:
			got = v
		default:
			a, _ := got.(float64)
			b, _ := v.(float64)
			got = a + b
		}
	}
	switch {
	case want == "absent":
		if ok {
			t.Errorf("%s = %v, want absent", what, got)
		}
	case !ok:
		t.Errorf("%s absent, want %s", what, want)
	default:
		w, isNum := figureValue(want)
		// A version ("0.5") reads as a number but is held as text.
		if _, text := got.(string); !isNum || text {
			if g := fmt.Sprint(got); g != want {
				t.Errorf("%s = %q, want %q", what, g, want)
			}
			return
		}
		g, isNum := got.(float64)
		if !isNum {
			t.Errorf("%s = %v, not a number", what, got)
		} else if math.Abs(g-w) > 0.001*math.Abs(w) {
			t.Errorf("%s = %v, the file shows %v (%.3f %%)", what, g, w, 100*(g-w)/w)
		}
	}
}

// jsonPath finds "a.b[2].c" in a decoded document; a final '#' gives the
// length of a list.
func jsonPath(v any, path string) (any, bool) {
	length := strings.HasSuffix(path, "#")
	for _, part := range strings.Split(strings.TrimSuffix(path, "#"), ".") {
		name, index, _ := strings.Cut(part, "[")
		if m, ok := v.(map[string]any); ok {
			if v, ok = m[name]; !ok || v == nil {
				return nil, false
			}
		} else {
			return nil, false
		}
		if index != "" {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			a, _ := v.([]any)
			if err != nil || i < 0 || i >= len(a) {
				return nil, false
			}
			v = a[i]
		}
	}
	if length {
		a, ok := v.([]any)
		return float64(len(a)), ok
	}
	return v, true
}

// units turns a figure as the tool printed it into the result document's
// unit: bytes, nanoseconds, MiB/s; sysbench 0.4's "Mb" is 2^20 bytes, and
// fio 2's KB/s, written KiB/s in a sidecar, 1024 bytes.
var units = []struct {
	suffix string
	factor float64
}{
	{"KiB/s", 1.0 / 1024}, {"MiB/s", 1}, {"MB/s", 1e6 / (1 << 20)}, {"B/s", 1.0 / (1 << 20)},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"Mb", 1 << 20},
	{"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"s", 1e9},
}

func figureValue(s string) (float64, bool) {
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f * u.factor, err == nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// TestSysbenchTimeUnstated: no sysbench version prints its time limit, so
// every fileio run read from a real log marks time_ns unknown rather than
// storing 0, which would read as "unbounded".
func TestSysbenchTimeUnstated(t *testing.T) {
	runs := 0
	eachCorpusFile(t, func(name string, data []byte) {
		if Detect(data) != Sysbench {
			return
		}
		docs, err := Import(data, name)
		if err != nil {
			return // a log with no fileio run (cpu only, OLTP): refused, checked elsewhere
		}
		for _, d := range docs {
			runs++
			if d.Imported.States("time_ns") {
				t.Errorf("%s run %s: time_ns %d stated as if sysbench had printed it", name, d.ID, d.Random.Parameters.TimeNs)
			}
		}
	})
	if runs < 10 {
		t.Fatalf("only %d sysbench runs read from the corpus", runs)
	}
}
