package importer

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
)

// idShape is a run id of thruput's shape, or for a run whose output names
// no time, the tool's name and a hash of the output.
var idShape = regexp.MustCompile(`^(\d{8}T\d{6}Z-[0-9a-f]{6}|[a-z0-9]+-[0-9a-f]{12})$`)

// src reads a value out of the tool's own JSON by path, independently of
// the importer, so a figure is checked against what the tool printed.
type src map[string]any

func sourceJSON(t *testing.T, out []byte) src {
	t.Helper()
	i := bytes.Index(out, []byte("\n{"))
	if bytes.HasPrefix(out, []byte("{")) {
		i = -1
	}
	var m src
	if err := json.Unmarshal(out[i+1:], &m); err != nil {
		t.Fatalf("the tool's own output is not JSON: %v", err)
	}
	return m
}

func (s src) get(path ...any) any {
	var v any = map[string]any(s)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func (s src) num(t *testing.T, path ...any) float64 {
	t.Helper()
	f, ok := s.get(path...).(float64)
	if !ok {
		t.Fatalf("%v: not a number in the tool's output", path)
	}
	return f
}

func near64(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func checkNum(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near64(got, want) {
		t.Errorf("%s = %v, the tool printed %v", what, got, want)
	}
}

// checkEnvelope checks what every imported document carries, and that it
// survives thruput's own encoding and reading.
func checkEnvelope(t *testing.T, d *result.Document, tool string, method result.Method) {
	t.Helper()
	if d.FormatVersion != result.FormatVersion || d.Method != method || d.Tool.Name != tool ||
		d.Imported == nil || d.Imported.Tool != tool || d.Imported.File != "out.txt" || d.Imported.Version == "" {
		t.Errorf("envelope: format %d, method %q, tool %+v, imported %+v", d.FormatVersion, d.Method, d.Tool, d.Imported)
	}
	if !idShape.MatchString(d.ID) {
		t.Errorf("id %q is not of thruput's shape", d.ID)
	}
	if !d.StartedAt.IsZero() && !strings.HasPrefix(d.ID, d.StartedAt.UTC().Format("20060102T150405Z")) {
		t.Errorf("id %q does not carry the start %v", d.ID, d.StartedAt)
	}
	var buf bytes.Buffer
	if err := d.Write(&buf); err != nil {
		t.Fatalf("encoding: %v", err)
	}
	if _, err := result.Read(&buf); err != nil {
		t.Fatalf("reading back: %v", err)
	}
}

// checkTruncated cuts a real output short at a few places; each cut must
// be recognised, and refused with one line saying why.
func checkTruncated(t *testing.T, out []byte) {
	t.Helper()
	for _, frac := range []float64{0.25, 0.5, 0.75, 0.9} {
		cut := out[:int(float64(len(out))*frac)]
		docs, err := Import(cut, "out.txt")
		if err == nil {
			t.Errorf("cut at %d of %d bytes: imported %d documents", len(cut), len(out), len(docs))
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("cut at %d bytes: error is not one line: %q", len(cut), err)
		}
	}
}

func TestFioReal(t *testing.T) {
	fstest.Long(t, "runs the real fio")
	t.Parallel()
	out := fioOutput(t)
	if got := Detect(out); got != FIO {
		t.Fatalf("Detect = %q, want fio", got)
	}
	checkTruncated(t, out)
	docs, err := Import(out, "out.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := sourceJSON(t, out)
	jobs, _ := s.get("jobs").([]any)
	if len(docs) != 3 || len(jobs) != 3 {
		t.Fatalf("%d documents from %d jobs, want 3", len(docs), len(jobs))
	}
	ended := time.UnixMilli(int64(s.num(t, "timestamp_ms"))).UTC()
	for i, d := range docs {
		checkEnvelope(t, d, "fio", "disk.io")
		if d.Imported.Version != strings.TrimPrefix(s.get("fio version").(string), "fio-") {
			t.Errorf("version %q", d.Imported.Version)
		}
		if !d.EndedAt.Equal(ended) || d.StartedAt.After(d.EndedAt) || d.StartedAt.IsZero() {
			t.Errorf("job %d: started %v, ended %v; fio stamped %v", i, d.StartedAt, d.EndedAt, ended)
		}
		p := d.IO.Parameters
		if p.Engine != "psync" || d.IO.Engine != "psync" || len(d.Targets) != 1 || d.Targets[0].Path != s.get("global options", "directory") {
			t.Errorf("job %d: engine %q, targets %+v: the global options are not applied", i, p.Engine, d.Targets)
		}
		run := d.IO.Runs[0]
		// A job shorter than fio's millisecond prints job_runtime 0; the
		// importer then takes the longer direction's runtime.
		wantNs := s.num(t, "jobs", i, "job_runtime") * 1e6
		if wantNs == 0 {
			wantNs = max(s.num(t, "jobs", i, "read", "runtime"), s.num(t, "jobs", i, "write", "runtime")) * 1e6
		}
		checkNum(t, "elapsed_ns", float64(run.ElapsedNs), wantNs)
		for _, dir := range []struct {
			name string
			got  *result.IODirection
		}{{"read", run.Read}, {"write", run.Write}} {
			if s.num(t, "jobs", i, dir.name, "total_ios") == 0 {
				if dir.got != nil {
					t.Errorf("job %d: %s present for a direction the job did not do", i, dir.name)
				}
				continue
			}
			if dir.got == nil {
				t.Fatalf("job %d: %s missing", i, dir.name)
			}
			what := func(f string) string { return "jobs[" + strconv.Itoa(i) + "]." + dir.name + "." + f }
			checkNum(t, what("iops"), dir.got.IOPS, s.num(t, "jobs", i, dir.name, "iops"))
			checkNum(t, what("total_ios"), float64(dir.got.IOs), s.num(t, "jobs", i, dir.name, "total_ios"))
			checkNum(t, what("io_bytes"), float64(dir.got.Bytes), s.num(t, "jobs", i, dir.name, "io_bytes"))
			checkNum(t, what("bw_bytes"), dir.got.MiBPerSec*(1<<20), s.num(t, "jobs", i, dir.name, "bw_bytes"))
			l := dir.got.Latency
			clat := func(k ...any) float64 { return s.num(t, append([]any{"jobs", i, dir.name, "clat_ns"}, k...)...) }
			checkNum(t, what("clat_ns.mean"), l.MeanNs, clat("mean"))
			checkNum(t, what("clat_ns.max"), float64(l.MaxNs), clat("max"))
			checkNum(t, what("clat_ns.N"), float64(l.Count), clat("N"))
			checkNum(t, what("p50"), float64(l.P50Ns), clat("percentile", "50.000000"))
			checkNum(t, what("p95"), float64(l.P95Ns), clat("percentile", "95.000000"))
			checkNum(t, what("p99"), float64(l.P99Ns), clat("percentile", "99.000000"))
			checkNum(t, what("p99.9"), float64(l.P999Ns), clat("percentile", "99.900000"))
		}
	}
	a, b, c := docs[0].IO.Parameters, docs[1].IO.Parameters, docs[2].IO.Parameters
	if a.RW != "randread" || a.BlockSize != 4096 || a.Size != 8<<20 || a.RuntimeNs != 1e9 || !a.TimeBased || a.IODepth != 1 || a.Jobs != 1 {
		t.Errorf("job a: %+v", a)
	}
	if b.RW != "write" || b.BlockSize != 64<<10 || b.TimeBased || b.Direct || docs[1].IO.Runs[0].Read != nil {
		t.Errorf("job b: %+v", b)
	}
	if c.RW != "randrw" || c.MixRead != 70 || c.TimeBased || docs[2].IO.Runs[0].Read == nil || docs[2].IO.Runs[0].Write == nil {
		t.Errorf("job c: %+v", c)
	}
	if docs[0].Labels["fio.job"] != "a" || docs[2].Labels["fio.job"] != "c" {
		t.Errorf("labels %v %v", docs[0].Labels, docs[2].Labels)
	}
}

func TestIPerf3Real(t *testing.T) {
	fstest.Long(t, "runs the real iperf3 for seconds")
	t.Parallel()
	tool(t, "iperf3")
	for _, tc := range []struct {
		name string
		args []string
		dir  string
	}{
		{"tcp", nil, result.DirUp},
		{"reverse", []string{"-R"}, result.DirDown},
		{"parallel", []string{"-P", "2"}, result.DirUp},
		{"udp", []string{"-u", "-b", "10M"}, result.DirUp},
		{"bidir", []string{"--bidir"}, "bidir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cli, srv := iperf3Pair(t, tc.args...)
			for _, side := range []struct {
				out    []byte
				method result.Method
			}{{cli, "net.client"}, {srv, "net.server"}} {
				if got := Detect(side.out); got != IPerf3 {
					t.Fatalf("%s: Detect = %q", side.method, got)
				}
				checkTruncated(t, side.out)
				docs, err := Import(side.out, "out.txt")
				if err != nil {
					t.Fatalf("%s: %v", side.method, err)
				}
				if len(docs) != 1 {
					t.Fatalf("%s: %d documents", side.method, len(docs))
				}
				d := docs[0]
				checkEnvelope(t, d, "iperf3", side.method)
				checkIPerf3(t, d, sourceJSON(t, side.out), tc.dir, len(tc.args) > 0 && tc.args[0] == "-u")
			}
			// thruput's -J writer and this reader agree: a client's
			// document printed as iperf3 JSON comes back with the same
			// figures.
			docs, _ := Import(cli, "out.txt")
			var buf bytes.Buffer
			if err := iperf3.WriteCompat(&buf, docs[0]); err != nil {
				t.Fatal(err)
			}
			back, err := Import(buf.Bytes(), "out.txt")
			if err != nil {
				t.Fatalf("importing thruput's own -J output: %v\n%s", err, buf.Bytes())
			}
			a, b := docs[0].Net, back[0].Net
			if a.Parameters.Direction != b.Parameters.Direction || len(a.Sums) != len(b.Sums) || len(a.Streams) != len(b.Streams) || len(a.Intervals) != len(b.Intervals) {
				t.Fatalf("round trip through WriteCompat: direction %s/%s, %d/%d sums, %d/%d streams, %d/%d intervals",
					a.Parameters.Direction, b.Parameters.Direction, len(a.Sums), len(b.Sums), len(a.Streams), len(b.Streams), len(a.Intervals), len(b.Intervals))
			}
			for i := range a.Sums {
				if a.Sums[i].Direction != b.Sums[i].Direction || a.Sums[i].Sender.Bytes != b.Sums[i].Sender.Bytes {
					t.Errorf("round trip: sum %d %+v, back %+v", i, a.Sums[i], b.Sums[i])
				}
				if !tcUDP(tc.args) {
					checkNum(t, "round trip receiver rate", b.Sums[i].Receiver.BitsPerSecond, a.Sums[i].Receiver.BitsPerSecond)
				}
			}
			for i := range a.Streams {
				if a.Streams[i].ID != b.Streams[i].ID || a.Streams[i].Direction != b.Streams[i].Direction || a.Streams[i].Local != b.Streams[i].Local {
					t.Errorf("round trip: stream %d %+v, back %+v", i, a.Streams[i], b.Streams[i])
				}
			}
		})
	}
}

func tcUDP(args []string) bool { return len(args) > 0 && args[0] == "-u" }

func checkIPerf3(t *testing.T, d *result.Document, s src, dir string, udp bool) {
	t.Helper()
	n := d.Net
	p := n.Parameters
	server := d.Method == "net.server"
	wantProto := "tcp"
	if udp {
		wantProto = "udp"
	}
	if p.Direction != dir || p.Protocol != wantProto || p.Streams != int(s.num(t, "start", "test_start", "num_streams")) ||
		p.BlockSize != int(s.num(t, "start", "test_start", "blksize")) || p.DurationNs != 1e9 {
		t.Errorf("%s parameters %+v", d.Method, p)
	}
	if server && (p.Role != "server" || p.Client == "" || p.Server == "") || !server && (p.Role != "client" || !strings.HasPrefix(p.Server, "127.0.0.1:")) {
		t.Errorf("%s: role %q, server %q, client %q", d.Method, p.Role, p.Server, p.Client)
	}
	if info := strings.Fields(s.get("start", "system_info").(string)); d.Host.Hostname != info[1] {
		t.Errorf("hostname %q, system_info %v", d.Host.Hostname, info)
	}
	if d.StartedAt.Unix() != int64(s.num(t, "start", "timestamp", "timesecs")) || !d.EndedAt.After(d.StartedAt) {
		t.Errorf("started %v ended %v", d.StartedAt, d.EndedAt)
	}
	checkNum(t, "cpu host_total", n.CPU.LocalTotal, s.num(t, "end", "cpu_utilization_percent", "host_total"))
	if ivs, _ := s.get("intervals").([]any); len(n.Intervals) != len(ivs) || len(ivs) == 0 {
		t.Errorf("%d intervals, iperf3 printed %d", len(n.Intervals), len(ivs))
	}
	if streams, _ := s.get("end", "streams").([]any); len(n.Streams) != len(streams) {
		t.Errorf("%d streams, iperf3 printed %d", len(n.Streams), len(streams))
	}
	wantSums := 1
	if dir == "bidir" {
		wantSums = 2
	}
	if len(n.Sums) != wantSums {
		t.Fatalf("%d sums, want %d", len(n.Sums), wantSums)
	}
	first := n.Sums[0]
	wantFirst := dir
	if dir == "bidir" {
		wantFirst = result.DirUp
	}
	if first.Direction != wantFirst {
		t.Errorf("first sum's direction %q, want %q", first.Direction, wantFirst)
	}
	checkNum(t, "end.sum_received.bits_per_second", first.Receiver.BitsPerSecond, s.num(t, "end", "sum_received", "bits_per_second"))
	checkNum(t, "end.sum_received.bytes", float64(first.Receiver.Bytes), s.num(t, "end", "sum_received", "bytes"))
	if dir == "bidir" {
		checkNum(t, "end.sum_received_bidir_reverse.bits_per_second", n.Sums[1].Receiver.BitsPerSecond,
			s.num(t, "end", "sum_received_bidir_reverse", "bits_per_second"))
	}
	// The side that sent measured the sender's figures itself.
	if (first.Direction == result.DirUp) != server {
		checkNum(t, "end.sum_sent.bits_per_second", first.Sender.BitsPerSecond, s.num(t, "end", "sum_sent", "bits_per_second"))
	}
	if udp {
		if first.Receiver.JitterMs == nil || first.Receiver.Lost == nil {
			t.Fatalf("UDP receiver without jitter or loss: %+v", first.Receiver)
		}
		checkNum(t, "jitter_ms", *first.Receiver.JitterMs, s.num(t, "end", "sum_received", "jitter_ms"))
		if p.BitrateBps != 10_000_000 {
			t.Errorf("bitrate %d", p.BitrateBps)
		}
	}
	for _, st := range n.Streams {
		localSends := st.Local == "sender"
		if (st.Direction == result.DirUp) != (localSends != server) {
			t.Errorf("%s stream %d: direction %s but local %s", d.Method, st.ID, st.Direction, st.Local)
		}
		if st.LocalAddr == "" || st.RemoteAddr == "" {
			t.Errorf("stream %d without addresses", st.ID)
		}
		if localSends && !udp && st.Sender.Retransmits == nil {
			t.Errorf("stream %d: TCP sender without retransmits", st.ID)
		}
	}
}

var sbNum = func(out []byte, key string) float64 {
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(key) + `:\s+([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(string(m[1]), 64)
	return f
}

func TestSysbenchReal(t *testing.T) {
	fstest.Long(t, "runs the real sysbench")
	t.Parallel()
	rndrw, seqwr := sysbenchRuns(t)
	for _, tc := range []struct {
		out  []byte
		mode string
	}{{rndrw, "rndrw"}, {seqwr, "seqwr"}} {
		if got := Detect(tc.out); got != Sysbench {
			t.Fatalf("Detect = %q", got)
		}
		checkTruncated(t, tc.out)
		docs, err := Import(tc.out, "out.txt")
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.mode, err, tc.out)
		}
		d := docs[0]
		checkEnvelope(t, d, "sysbench", "disk.random")
		r := d.Random
		p := r.Parameters
		if p.Mode != tc.mode || p.Files != 4 || p.TotalSize != 16<<20 || p.FileSize != 4<<20 || p.BlockSize != 16<<10 ||
			p.Threads != 1 || p.FsyncEvery != 100 || !p.FsyncEnd || !p.FsyncAll || p.Direct {
			t.Errorf("%s parameters %+v", tc.mode, p)
		}
		if d.Labels["sysbench.io_mode"] != "sync" {
			t.Errorf("labels %v", d.Labels)
		}
		checkNum(t, "reads/s", r.ReadsPerSec, sbNum(tc.out, "reads/s"))
		checkNum(t, "writes/s", r.WritesPerSec, sbNum(tc.out, "writes/s"))
		checkNum(t, "read, MiB/s", r.ReadMiBPerSec, sbNum(tc.out, "read, MiB/s"))
		checkNum(t, "written, MiB/s", r.WriteMiBPerSec, sbNum(tc.out, "written, MiB/s"))
		checkNum(t, "total time", float64(r.ElapsedNs)/1e9, sbNum(tc.out, "total time"))
		events := sbNum(tc.out, "total number of events")
		checkNum(t, "total number of events", float64(r.Latency.Count), events)
		checkNum(t, "latency max", float64(r.Latency.MaxNs)/1e6, sbNum(tc.out, "max"))
		checkNum(t, "latency avg", r.Latency.MeanNs/1e6, sbNum(tc.out, "avg"))
		checkNum(t, "latency 95th", float64(r.Latency.P95Ns)/1e6, sbNum(tc.out, "95th percentile"))
		// Counts worked back from the rates add up to the events exactly.
		if got := float64(r.Reads + r.Writes + r.Fsyncs); got != events {
			t.Errorf("%s: %d reads + %d writes + %d fsyncs = %v, sysbench counted %v events", tc.mode, r.Reads, r.Writes, r.Fsyncs, got, events)
		}
		if r.EndFsyncs != 4 || r.WrittenBytes != r.Writes*16<<10 {
			t.Errorf("%s: end fsyncs %d, written %d for %d writes", tc.mode, r.EndFsyncs, r.WrittenBytes, r.Writes)
		}
		if len(r.Threads) != 1 || float64(r.Threads[0].Requests) != events || r.Fairness.Requests.N != 1 {
			t.Errorf("threads %+v fairness %+v", r.Threads, r.Fairness)
		}
		if tc.mode == "seqwr" && (r.Reads != 0 || r.ReadsPerSec != 0) {
			t.Errorf("seqwr read: %+v", r)
		}
	}
}
