package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

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
//
// A figure is compared within 0.1 %; "absent" means the document must not
// hold it at all. The keys are those of corpusFigure.

type expectation struct {
	source, tool, version, refused string
	runs                           int
	notes                          []string
	figures                        map[int][][2]string
}

func readExpect(t *testing.T, path string) expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := expectation{runs: -1, figures: map[int][][2]string{}}
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

func checkFigure(t *testing.T, what string, d *result.Document, key, want string) {
	t.Helper()
	got, ok := corpusFigure(d, key)
	switch {
	case want == "absent":
		if ok {
			t.Errorf("%s = %v, want absent", what, got)
		}
	case !ok:
		t.Errorf("%s absent, want %s", what, want)
	default:
		w, err := strconv.ParseFloat(want, 64)
		if err != nil {
			if fmt.Sprint(got) != want {
				t.Errorf("%s = %q, want %q", what, got, want)
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

// corpusFigure reads one figure of a document by the name a sidecar uses
// for it; false when the document does not hold it.
func corpusFigure(d *result.Document, key string) (any, bool) {
	switch key {
	case "status":
		return d.Status, true
	case "error":
		return d.Error, d.Error != ""
	case "method":
		return d.Method, true
	case "host":
		return d.Host.Hostname, d.Host.Hostname != ""
	case "started":
		return d.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), !d.StartedAt.IsZero()
	}
	if l, ok := strings.CutPrefix(key, "label."); ok {
		v, ok := d.Labels[l]
		return v, ok
	}
	switch {
	case d.IO != nil:
		return ioFigure(d.IO, key)
	case d.Random != nil:
		return randomFigure(d.Random, key)
	case d.Net != nil:
		return netFigure(d.Net, key)
	case d.Sweep != nil:
		return sweepFigure(d, key)
	case d.HTTP != nil:
		return httpFigure(d.HTTP, key)
	}
	return nil, false
}

func num[T int | int64 | float64](v T) (any, bool) { return float64(v), true }

func ioFigure(io *result.IO, key string) (any, bool) {
	p := io.Parameters
	switch key {
	case "rw":
		return p.RW, p.RW != ""
	case "bs":
		return num(p.BlockSize)
	case "iodepth":
		return num(p.IODepth)
	case "jobs":
		return num(p.Jobs)
	}
	dir, fig, _ := strings.Cut(key, ".")
	x := io.Runs[0].Read
	if dir == "write" {
		x = io.Runs[0].Write
	}
	if x == nil {
		return nil, false
	}
	l := x.Latency
	switch fig {
	case "":
		return dir, true
	case "bytes":
		return num(x.Bytes)
	case "ios":
		return num(x.IOs)
	case "iops":
		return num(x.IOPS)
	case "kib_s":
		return num(x.MiBPerSec * 1024)
	case "lat":
		return "present", l != nil
	}
	if l == nil {
		return nil, false
	}
	switch fig {
	case "lat_count":
		return num(l.Count)
	case "lat_mean_ns":
		return num(l.MeanNs)
	case "lat_min_ns":
		return num(l.MinNs)
	case "lat_max_ns":
		return num(l.MaxNs)
	case "lat_p50_ns":
		return num(l.P50Ns)
	case "lat_p99_ns":
		return num(l.P99Ns)
	}
	return nil, false
}

func randomFigure(r *result.Random, key string) (any, bool) {
	switch key {
	case "mode":
		return r.Parameters.Mode, true
	case "threads":
		return num(r.Parameters.Threads)
	case "block_size":
		return num(r.Parameters.BlockSize)
	case "total_size":
		return num(r.Parameters.TotalSize)
	case "reads":
		return num(r.Reads)
	case "writes":
		return num(r.Writes)
	case "fsyncs":
		return num(r.Fsyncs)
	case "read_mib":
		return num(float64(r.ReadBytes) / (1 << 20))
	case "written_mib":
		return num(float64(r.WrittenBytes) / (1 << 20))
	case "read_mib_s":
		return num(r.ReadMiBPerSec)
	case "written_mib_s":
		return num(r.WriteMiBPerSec)
	case "total_mib_s":
		return num(r.ReadMiBPerSec + r.WriteMiBPerSec)
	case "reads_s":
		return num(r.ReadsPerSec)
	case "writes_s":
		return num(r.WritesPerSec)
	case "requests_s":
		return num(r.RequestsPerSec)
	case "seconds":
		return num(float64(r.ElapsedNs) / 1e9)
	}
	if r.Latency == nil {
		return nil, false
	}
	switch key {
	case "lat_count":
		return num(r.Latency.Count)
	case "lat_avg_ms":
		return num(r.Latency.MeanNs / 1e6)
	case "lat_max_ms":
		return num(float64(r.Latency.MaxNs) / 1e6)
	case "lat_p95_ms":
		return num(float64(r.Latency.P95Ns) / 1e6)
	}
	return nil, false
}

func netFigure(n *result.Net, key string) (any, bool) {
	switch key {
	case "role":
		return n.Parameters.Role, true
	case "protocol":
		return n.Parameters.Protocol, true
	case "direction":
		return n.Parameters.Direction, true
	case "streams":
		return num(n.Parameters.Streams)
	case "intervals":
		return num(len(n.Intervals))
	}
	if len(n.Sums) == 0 {
		return nil, false
	}
	s := n.Sums[0]
	switch key {
	case "sent_bytes":
		return num(s.Sender.Bytes)
	case "received_bytes":
		return num(s.Receiver.Bytes)
	case "sent_bps":
		return num(s.Sender.BitsPerSecond)
	case "received_bps":
		return num(s.Receiver.BitsPerSecond)
	case "retransmits":
		if s.Sender.Retransmits == nil {
			return nil, false
		}
		return num(*s.Sender.Retransmits)
	case "lost":
		if s.Receiver.Lost == nil {
			return nil, false
		}
		return num(*s.Receiver.Lost)
	}
	return nil, false
}

func sweepFigure(d *result.Document, key string) (any, bool) {
	if key == "steps" {
		return num(len(d.Sweep.Steps))
	}
	step, fig, ok := strings.Cut(key, ".")
	i, err := strconv.Atoi(strings.TrimPrefix(step, "step"))
	if !ok || err != nil || i < 1 || i > len(d.Sweep.Steps) {
		return nil, false
	}
	s := d.Sweep.Steps[i-1]
	switch fig {
	case "bytes":
		return num(s.Bytes)
	case "seconds":
		return num(float64(s.ElapsedNs) / 1e9)
	case "bs":
		return num(s.BlockSize)
	case "phase":
		return s.Phase, true
	case "ops":
		return num(s.Ops)
	case "mb_s":
		return num(float64(s.Bytes) / 1e6 / (float64(s.ElapsedNs) / 1e9))
	case "target":
		return d.Targets[s.Target].Path, true
	}
	return nil, false
}

func httpFigure(h *result.HTTP, key string) (any, bool) {
	r := h.Runs[0]
	switch key {
	case "url":
		return h.Parameters.URL, h.Parameters.URL != ""
	case "bytes":
		return num(r.Bytes)
	case "kib_s":
		return num(r.MiBPerSec * 1024)
	case "mib_s":
		return num(r.MiBPerSec)
	case "content_length":
		if r.ContentLength == nil {
			return nil, false
		}
		return num(*r.ContentLength)
	case "status_code":
		return num(r.StatusCode)
	}
	return nil, false
}
