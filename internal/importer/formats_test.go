package importer

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

// The formats the real corpus holds no file of yet, written here in the
// shape each tool prints (fio's stat.c, sysbench 1.1's tests/t/
// test_fileio.t, busybox's and curl's messages), with figures chosen so
// the expected values are plain arithmetic.

func importOne(t *testing.T, in string, want int) []*result.Document {
	t.Helper()
	docs, err := Import([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != want {
		t.Fatalf("%d runs, want %d", len(docs), want)
	}
	return docs
}

func close1(a, b float64) bool { return math.Abs(a-b) <= 1e-3*math.Abs(b) }

func TestFioClientServer(t *testing.T) {
	in := `{"fio version": "fio-3.28", "timestamp": 1700000000, "global options": {"rw": "randread", "bs": "4k"},
	  "client_stats": [
	    {"jobname": "r", "groupid": 0, "error": 0, "hostname": "pi1", "elapsed": 10, "read": {"io_bytes": 40960000, "bw_bytes": 4096000, "iops": 1000, "runtime": 10000, "total_ios": 10000}},
	    {"jobname": "r", "groupid": 0, "error": 0, "hostname": "pi2", "elapsed": 10, "read": {"io_bytes": 20480000, "bw_bytes": 2048000, "iops": 500, "runtime": 10000, "total_ios": 5000}},
	    {"jobname": "All clients", "groupid": 0, "error": 0, "read": {"io_bytes": 61440000, "bw_bytes": 6144000, "iops": 1500, "runtime": 10000, "total_ios": 15000}}]}`
	docs := importOne(t, in, 2)
	for i, host := range []string{"pi1", "pi2"} {
		d := docs[i]
		if d.Host.Hostname != host || d.Labels["host"] != host {
			t.Errorf("run %d: host %q, labels %v; want %s", i+1, d.Host.Hostname, d.Labels, host)
		}
	}
	if r := docs[1].IO.Runs[0].Read; r.IOs != 5000 || !close1(r.MiBPerSec, 2048000.0/(1<<20)) {
		t.Errorf("pi2: %+v", r)
	}
}

func TestFioOldKBBase(t *testing.T) {
	// fio 2.x under kb_base=1000: io_bytes in kB, no bw_bytes.
	in := `{"fio version": "fio-2.2.10", "timestamp": 1444144664, "global options": {"kb_base": "1000", "rw": "write", "bs": "4k"},
	  "jobs": [{"jobname": "w", "groupid": 0, "error": 0, "write": {"io_bytes": 4000, "bw": 400, "iops": 100, "runtime": 10000, "total_ios": 1000,
	    "clat": {"min": 100, "max": 900, "mean": 250.5, "percentile": {"99.000000": 800}}}}]}`
	w := importOne(t, in, 1)[0].IO.Runs[0].Write
	if w.Bytes != 4000000 || w.IOs != 1000 || !close1(w.MiBPerSec, 4e6/10/(1<<20)) {
		t.Errorf("write %+v", w)
	}
	if l := w.Latency; l == nil || l.Count != 1000 || l.MeanNs != 250500 || l.P99Ns != 800000 {
		t.Errorf("latency %+v: want 1000 samples of clat in microseconds", l)
	}
}

func TestSysbench11(t *testing.T) {
	in := "sysbench 1.1.0-df89d34 (using bundled LuaJIT 2.1.0-beta3)\n\nRunning the test with following options:\nNumber of threads: 1\n\n" +
		"Extra file open flags: (none)\n4 files, 8MiB each\n32MiB total file size\nBlock size 16KiB\nNumber of IO requests: 150\n" +
		"Read/Write ratio for combined random IO test: 1.50\nUsing synchronous I/O mode\nDoing random r/w test\nInitializing worker threads...\n\nThreads started!\n\n\n" +
		"Throughput:\n         read:  IOPS=600.00 9.38 MiB/s (9.83 MB/s)\n         write: IOPS=400.00 6.25 MiB/s (6.55 MB/s)\n         fsync: IOPS=10.00\n\n" +
		"Latency (ms):\n         min:                                    0.01\n         avg:                                    1.00\n         max:                                    9.00\n         95th percentile:                        2.00\n         sum:                                  150.00\n"
	r := importOne(t, in, 1)[0].Random
	if r.ReadsPerSec != 600 || r.WritesPerSec != 400 || r.ReadMiBPerSec != 9.38 || r.WriteMiBPerSec != 6.25 {
		t.Errorf("rates %+v", r)
	}
	if r.Reads != 0 || r.ElapsedNs != 0 {
		t.Errorf("counts and time sysbench 1.1 did not print: %d reads, %d ns; want absent", r.Reads, r.ElapsedNs)
	}
	if _, err := Import([]byte(in[:strings.Index(in, "Latency")]), "in"); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("cut before its latency: %v", err)
	}
}

// sysbench 0.5's fileio output, as a MySQL note committed it (the index
// that found it names no repository, so it is not in the corpus): "reads,
// writes" in lower case, "General statistics" with "response time", the
// flag printed as its number (3, direct).
func TestSysbench05(t *testing.T) {
	in := "sysbench 0.5:  multi-threaded system evaluation benchmark\n\nRunning the test with following options:\nNumber of threads: 4\n" +
		"Report intermediate results every 3 second(s)\nRandom number generator seed is 0 and will be ignored\n\n\nExtra file open flags: 3\n" +
		"4 files, 256Mb each\n1Gb total file size\nBlock size 8Kb\nNumber of IO requests: 0\nRead/Write ratio for combined random IO test: 1.50\n" +
		"Periodic FSYNC enabled, calling fsync() each 100 requests.\nCalling fsync() at the end of test, Enabled.\nUsing synchronous I/O mode\n" +
		"Doing random read test\nThreads started!\n\n" +
		"[   3s] reads: 1.70 MB/s writes: 0.00 MB/s fsyncs: 0.00/s response time: 54.416ms (95%)\n" +
		"[  30s] reads: 1.61 MB/s writes: 0.00 MB/s fsyncs: 0.00/s response time: 64.097ms (95%)\n" +
		"Operations performed:  6709 reads, 0 writes, 0 Other = 6709 Total\n" +
		"Read 52.414Mb  Written 0b  Total transferred 52.414Mb  (1.7462Mb/sec)\n  223.51 Requests/sec executed\n\n" +
		"General statistics:\n    total time:                          30.0160s\n    total number of events:              6709\n" +
		"    total time taken by event execution: 120.0223s\n    response time:\n         min:                                  0.13ms\n" +
		"         avg:                                 17.89ms\n         max:                                254.62ms\n" +
		"         approx.  95 percentile:              54.97ms\n\nThreads fairness:\n    events (avg/stddev):           1677.2500/28.16\n" +
		"    execution time (avg/stddev):   30.0056/0.01\n"
	d := importOne(t, in, 1)[0]
	r := d.Random
	if d.Imported.Version != "0.5" || r.Reads != 6709 || r.Writes != 0 || r.ElapsedNs != 30016e6 || !r.Parameters.Direct || r.Parameters.Threads != 4 {
		t.Errorf("version %q, %+v", d.Imported.Version, r)
	}
	if !close1(float64(r.ReadBytes), 52.414*(1<<20)) || !close1(r.ReadMiBPerSec, 1.7462) || r.RequestsPerSec != 223.51 {
		t.Errorf("bytes %d, %v MiB/s, %v requests/s", r.ReadBytes, r.ReadMiBPerSec, r.RequestsPerSec)
	}
	if l := r.Latency; l == nil || l.Count != 6709 || l.MinNs != 130e3 || l.MeanNs != 17.89e6 || l.MaxNs != 254.62e6 || l.P95Ns != 54.97e6 {
		t.Errorf("latency %+v", r.Latency)
	}
}

// sysbench output pasted into an indented code block (Markdown's four
// spaces, reStructuredText's tab after "::") reads as the same runs as
// the output itself: the corpus's sysbench files, indented.
func TestSysbenchIndented(t *testing.T) {
	files, _ := filepath.Glob("testdata/real/sysbench-*.txt")
	if len(files) == 0 {
		t.Fatal("no sysbench corpus files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Import(data, "in")
		if err != nil {
			continue
		}
		for _, indent := range []string{"    ", "\t"} {
			var b strings.Builder
			for _, l := range strings.SplitAfter(string(data), "\n") {
				if strings.TrimSpace(l) != "" {
					b.WriteString(indent)
				}
				b.WriteString(l)
			}
			got, err := Import([]byte(b.String()), "in")
			if err != nil || len(got) != len(want) {
				t.Errorf("%s indented by %q: %d runs, %v; want %d", f, indent, len(got), err, len(want))
				continue
			}
			for i := range got {
				if !reflect.DeepEqual(got[i].Random, want[i].Random) {
					t.Errorf("%s indented by %q, run %d: %+v, want %+v", f, indent, i+1, got[i].Random, want[i].Random)
				}
			}
		}
	}
}

// The sysbench 1.0 built from its repository before the release (banner
// "sysbench 1.0:", 2016) prints 1.0's File operations and Throughput with
// 0.5's "response time" under General statistics.
func TestSysbench10BeforeRelease(t *testing.T) {
	in := "sysbench 1.0:  multi-threaded system evaluation benchmark\n\nRunning the test with following options:\nNumber of threads: 16\n" +
		"Initializing random number generator from current time\n\n\nExtra file open flags: 3\n16 files, 128MiB each\n2GiB total file size\n" +
		"Block size 16KiB\nNumber of IO requests: 100000000\nRead/Write ratio for combined random IO test: 1.50\n" +
		"Calling fsync() at the end of test, Enabled.\nUsing synchronous I/O mode\nDoing random read test\nInitializing worker threads...\n\n" +
		"Threads started!\n\n\nFile operations:\n    reads/s:                      186.33\n    writes/s:                     0.00\n" +
		"    fsyncs/s:                     0.00\n\nThroughput:\n    read, MiB/s:                  2.91\n    written, MiB/s:               0.00\n\n" +
		"General statistics:\n    total time:                          180.1092s\n    total number of events:              33559\n" +
		"    total time taken by event execution: 2880.1654s\n    response time:\n         min:                                  0.42ms\n" +
		"         avg:                                 85.82ms\n         max:                                928.45ms\n" +
		"         approx.  95 percentile:             277.21ms\n\nThreads fairness:\n    events (avg/stddev):           2097.4375/65.47\n" +
		"    execution time (avg/stddev):   180.0103/0.03\n"
	d := importOne(t, in, 1)[0]
	r := d.Random
	if d.Imported.Version != "1.0" || r.Reads != 33559 || r.ReadMiBPerSec != 2.91 || r.ReadsPerSec != 186.33 || !r.Parameters.Direct {
		t.Errorf("version %q, %+v", d.Imported.Version, r)
	}
	if l := r.Latency; l == nil || l.Count != 33559 || l.MinNs != 420e3 || l.MeanNs != 85.82e6 || l.MaxNs != 928.45e6 || l.P95Ns != 277.21e6 {
		t.Errorf("latency %+v", r.Latency)
	}
}

func TestBusyboxDD(t *testing.T) {
	in := "# for bs in 4k 1M; do dd if=/dev/zero of=/mnt/usb/t bs=$bs count=256; done\n" +
		"256+0 records in\n256+0 records out\n1048576 bytes (1.0MB) copied, 0.500000 seconds, 2.0MB/s\n" +
		"dd if=/mnt/usb/t of=/dev/null bs=1M\n1+0 records in\n1+0 records out\n1048576 bytes (1.0MB) copied, 0.250000 seconds, 4.0MB/s\n"
	d := importOne(t, in, 1)[0]
	s := d.Sweep.Steps
	if len(s) != 2 || s[0].BlockSize != 0 || s[0].Phase != "write" || s[0].Ops != 256 || s[0].MiBPerSec != 2 {
		t.Errorf("step 1 %+v: want a write of unknown block size ($bs) at 2 MiB/s", s[0])
	}
	if s[1].BlockSize != 1<<20 || s[1].Phase != "read" || s[1].MiBPerSec != 4 || d.Targets[s[1].Target].Path != "/mnt/usb/t" {
		t.Errorf("step 2 %+v", s[1])
	}
	if d.Imported.Note == "" || d.Sweep.Parameters.Data != "zero" {
		t.Errorf("note %q, data %q", d.Imported.Note, d.Sweep.Parameters.Data)
	}
}

// GNU dd's status=progress leaves its last progress line, in the
// summary's form, before "records in": it is no step of its own. A
// transcript cut down to the summary lines keeps each of them.
func TestDDStatusProgress(t *testing.T) {
	in := "$ dd if=/dev/zero of=/dev/sdc bs=1M status=progress\n" +
		"1046478848 bytes (1.0 GB, 998 MiB) copied, 9 s, 116 MB/s\n" +
		"1024+0 records in\n1024+0 records out\n" +
		"1073741824 bytes (1.1 GB, 1.0 GiB) copied, 9.25 s, 116 MB/s\n"
	s := importOne(t, in, 1)[0].Sweep.Steps
	if len(s) != 1 || s[0].Bytes != 1<<30 || s[0].ElapsedNs != 9.25e9 || s[0].Ops != 1024 || s[0].BlockSize != 1<<20 {
		t.Errorf("steps %+v: want the one summary after records out", s)
	}
	cut := "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 9.25 s, 116 MB/s\n" +
		"536870912 bytes (537 MB, 512 MiB) copied, 2 s, 268 MB/s\n"
	if s := importOne(t, cut, 1)[0].Sweep.Steps; len(s) != 2 || s[1].Bytes != 1<<29 || s[0].Ops != 0 {
		t.Errorf("summary lines alone: %+v", s)
	}
}

// TestDDDirection: where no dd command says whether a run read or wrote,
// the log's own words do; where nothing does, the phase is unknown.
func TestDDDirection(t *testing.T) {
	phases := func(in string) []string {
		t.Helper()
		var out []string
		for _, s := range importOne(t, in, 1)[0].Sweep.Steps {
			out = append(out, s.Phase)
		}
		return out
	}
	const (
		sum  = "536870912 bytes (537 MB, 512 MiB) copied, 35.3134 s, 15.2 MB/s\n"
		recs = "512+0 records in\n512+0 records out\n"
	)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		// A heading holds until the next: two reads after one.
		{"headings", "Running DD WRITE test...\n" + sum + "temp=42.2'C\n\nRunning DD READ test...\n" + sum + sum, []string{"write", "read", "read"}},
		{"lower-case heading", "== write test ==\n" + sum, []string{"write"}},
		// hdparm's "Timing buffered disk reads" names no dd run.
		{"hdparm's reads", " Timing buffered disk reads:  74 MB in  3.01 seconds =  24.59 MB/sec\n" + sum, []string{"unknown"}},
		{"summaries alone", sum + sum, []string{"unknown", "unknown"}},
		// Words of a direction in a line about no measurement.
		{"apt's reading", "Reading package lists... Done\n" + sum, []string{"unknown"}},
		{"speed heading", "Write Speed (MB/s)\n" + sum, []string{"write"}},
		{"both words", "read/write test\n" + sum, []string{"unknown"}},
		// dd writing to a pipe names no direction; the heading does.
		{"pipe under a heading", "Read test\n$ dd if=/dev/zero bs=1M count=512 | nc pi 9\n" + recs + sum, []string{"read"}},
		{"pipe alone", "$ dd if=/dev/zero bs=1M count=512 | nc pi 9\n" + recs + sum, []string{"unknown"}},
		// A command beats a heading.
		{"command over heading", "Running DD WRITE test...\ndd if=/mnt/t of=/dev/null bs=1M\n" + recs + sum, []string{"read"}},
		// A loop printed before its output: its runs take its commands in
		// turn, round and round.
		{"loop", "for i in 1 2; do\n  dd if=/dev/zero of=/mnt/t bs=1M count=512 conv=fsync\n  dd if=/mnt/t of=/dev/null bs=1M\ndone\n" +
			recs + sum + recs + sum + recs + sum + recs + sum, []string{"write", "read", "write", "read"}},
		// A script's echo of each command before the command counts once.
		{"echoed script", "echo \"dd if=/dev/zero of=/mnt/t bs=1M\"\ndd if=/dev/zero of=/mnt/t bs=1M\necho \"dd if=/mnt/t of=/dev/null bs=1M\"\ndd if=/mnt/t of=/dev/null bs=1M\n" +
			sum + sum, []string{"write", "read"}},
		// A command dd refused made no run.
		{"refused command", "$ dd if=/mnt/nope of=/dev/null bs=1M\ndd: failed to open '/mnt/nope': No such file or directory\n$ dd if=/dev/zero of=/mnt/t bs=1M count=512\n" + recs + sum, []string{"write"}},
		// An example typed well before the run is not the run's script.
		{"example, then the run", "dd if=/dev/zero of=[PATH] bs=[BS]\n\nthen\n\nfor\n\nreal\n\n$ dd if=/mnt/t of=/dev/null bs=1M\n" + recs + sum, []string{"read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := phases(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("phases %q, want %q", got, tc.want)
			}
		})
	}
	// An unknown step is neither a read nor a write of the sweep, and has
	// no target path.
	d := importOne(t, sum, 1)[0]
	if p := d.Sweep.Parameters; p.Read || p.Write || d.Targets[0].Path != "" {
		t.Errorf("unknown direction: parameters %+v, target %+v", p, d.Targets[0])
	}
	// Shown as such, not left out and not passed off as a read or write,
	// in every format.
	var out bytes.Buffer
	for _, format := range report.Formats {
		if err := report.Write(&out, d, report.Options{Format: format}); err != nil {
			t.Fatalf("as %s: %v", format, err)
		}
	}
	if err := report.WriteHTML(io.Discard, []*result.Document{d}, nil, report.HTMLOptions{}); err != nil {
		t.Fatalf("as HTML: %v", err)
	}
	if err := report.WriteMetrics(io.Discard, []*result.Document{d}); err != nil {
		t.Fatalf("as metrics: %v", err)
	}
	if s := out.String(); !strings.Contains(s, "Read or write (the output did not say), MiB/s: as dd printed it") || !strings.Contains(s, "14.5") {
		t.Errorf("report of a step of unknown direction:\n%s", s)
	}
	if b := d.Summary(); !strings.Contains(b, "read or write (unknown) 14.5 MiB/s") {
		t.Errorf("summary %q", b)
	}
}

func TestWgetAndCurl(t *testing.T) {
	wget := "--2024-01-02 10:00:00--  http://pi.lan/big\nConnecting to pi.lan... connected.\nHTTP request sent, awaiting response... 200 OK\n" +
		"Length: 104857600 (100M) [application/octet-stream]\nSaving to: \u2018/dev/null\u2019\n\n" +
		"2024-01-02 10:00:10 (10.0 MB/s) - \u2018/dev/null\u2019 saved [104857600/104857600]\n\n" +
		"2024-01-02 10:01:00 (512 KB/s) - Connection closed at byte 1048576. Retrying.\n" +
		"2024-01-02 10:01:02 (512 KB/s) - \u2018/dev/null\u2019 saved [1048576/104857600]\n"
	docs := importOne(t, wget, 2)
	r := docs[0].HTTP.Runs[0]
	if r.Bytes != 104857600 || r.MiBPerSec != 10 || r.StatusCode != 200 || r.TransferNs != 10e9 || docs[0].HTTP.Parameters.URL != "http://pi.lan/big" {
		t.Errorf("wget run %+v, url %q", r, docs[0].HTTP.Parameters.URL)
	}
	if docs[1].Status != result.StatusFailed || docs[1].HTTP.Runs[0].MiBPerSec != 0.5 {
		t.Errorf("a short save: status %q, %+v", docs[1].Status, docs[1].HTTP.Runs[0])
	}
	curl := "$ curl -o /dev/null http://pi.lan/big\n  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
		"                                 Dload  Upload   Total   Spent    Left  Speed\n" +
		"\r  0  100M    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0" +
		"\r100  100M  100  100M    0     0  10.0M      0  0:00:10  0:00:10 --:--:-- 10.1M\n"
	c := importOne(t, curl, 1)[0]
	if r := c.HTTP.Runs[0]; r.Bytes != 100<<20 || r.MiBPerSec != 10 || c.HTTP.Parameters.URL != "http://pi.lan/big" || c.Imported.Tool != Curl {
		t.Errorf("curl run %+v, url %q", r, c.HTTP.Parameters.URL)
	}
	// No length from the server: curl shows the total as what arrived and
	// 0 % received; a broken transfer of that kind is told by curl's error.
	chunked := "$ curl http://pi.lan/page > page.html\n  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
		"                                 Dload  Upload   Total   Spent    Left  Speed\n" +
		"100 27329    0 27329    0     0   104k      0 --:--:-- --:--:-- --:--:--  167k\n"
	c = importOne(t, chunked, 1)[0]
	if r := c.HTTP.Runs[0]; r.Bytes != 27329 || r.MiBPerSec != 104.0/1024 || c.Status != result.StatusOK {
		t.Errorf("curl of unknown length: %s %+v", c.Status, r)
	}
	broken := strings.Replace(chunked, "167k\n", "167k\ncurl: (18) transfer closed with outstanding read data remaining\n", 1)
	c = importOne(t, broken, 1)[0]
	if c.Status != result.StatusFailed || !strings.Contains(c.Error, "curl error 18: transfer closed") {
		t.Errorf("broken curl transfer: %s %q", c.Status, c.Error)
	}
	// Received 0 % of a known length is no finished transfer.
	if _, err := Import([]byte(strings.Replace(chunked, "100 27329    0 27329", "100 27329    0     0", 1)), "t"); err == nil {
		t.Error("a transfer that received nothing was imported")
	}
}

func TestIPerf3StreamAfterNoise(t *testing.T) {
	in := "^C\x1b[A{\"event\":\"start\",\"data\":{\"version\":\"iperf 3.17.1\",\"timestamp\":{\"timesecs\":1700000000},\"connecting_to\":{\"host\":\"pi\",\"port\":5201},\"test_start\":{\"protocol\":\"TCP\",\"num_streams\":1,\"duration\":1}}}\r\n" +
		"{\"event\":\"interval\",\"data\":{\"streams\":[],\"sum\":{\"start\":0,\"end\":1,\"seconds\":1,\"bytes\":125000000,\"bits_per_second\":1e9,\"sender\":true}}}\r\n" +
		"{\"event\":\"end\",\"data\":{\"sum_sent\":{\"start\":0,\"end\":1,\"seconds\":1,\"bytes\":125000000,\"bits_per_second\":1e9,\"retransmits\":0},\"sum_received\":{\"start\":0,\"end\":1,\"seconds\":1,\"bytes\":124000000,\"bits_per_second\":992000000}}}\r\n"
	if Detect([]byte(in)) != IPerf3 {
		t.Fatal("not detected after noise")
	}
	d := importOne(t, in, 1)[0]
	if d.Imported.Version != "3.17.1" || len(d.Net.Intervals) != 1 || d.Net.Sums[0].Receiver.BitsPerSecond != 992e6 {
		t.Errorf("version %q, %d intervals, sums %+v", d.Imported.Version, len(d.Net.Intervals), d.Net.Sums)
	}
}

// iperf3Events is a --json-stream run of one interval, its events as
// JSONStream_Output prints them (src/iperf_api.c: one unformatted object
// a line).
const iperf3Events = `{"event":"start","data":{"version":"iperf 3.20","timestamp":{"timesecs":1750000000},"connecting_to":{"host":"pi","port":5201},"test_start":{"protocol":"TCP","num_streams":1,"duration":1}}}
{"event":"interval","data":{"streams":[],"sum":{"start":0,"end":1,"seconds":1,"bytes":125000000,"bits_per_second":1e9,"sender":true}}}
`

const iperf3EndEvent = `{"event":"end","data":{"sum_sent":{"start":0,"end":1,"seconds":1,"bytes":125000000,"bits_per_second":1e9,"retransmits":0},"sum_received":{"start":0,"end":1,"seconds":1,"bytes":124000000,"bits_per_second":992000000}}}
`

// TestIPerf3StreamServerOutput: with --get-server-output, iperf3 3.17 and
// later print the server's report as a "server_output_json" (the server
// ran with -J) or "server_output_text" event before "end"
// (iperf_json_finish, src/iperf_api.c of esnet/iperf 3.17).
func TestIPerf3StreamServerOutput(t *testing.T) {
	for _, ev := range []string{
		`{"event":"server_output_json","data":{"start":{"version":"iperf 3.20"},"intervals":[],"end":{}}}`,
		`{"event":"server_output_text","data":"Accepted connection from 10.0.0.2, port 40000\n"}`,
	} {
		d := importOne(t, iperf3Events+ev+"\n"+iperf3EndEvent, 1)[0]
		if len(d.Net.Intervals) != 1 || len(d.Net.Sums) != 1 || d.Net.Sums[0].Receiver.BitsPerSecond != 992e6 {
			t.Errorf("%.40s: %d intervals, sums %+v", ev, len(d.Net.Intervals), d.Net.Sums)
		}
	}
}

// TestIPerf3StreamFullOutput: --json-stream-full-output (iperf3 3.20 and
// later) prints -J's whole document, over many lines, after the events; it
// is read as the run, and cut short it is truncated.
func TestIPerf3StreamFullOutput(t *testing.T) {
	full := "{\n\t\"start\":\t{\n\t\t\"version\":\t\"iperf 3.20\",\n\t\t\"timestamp\":\t{\"timesecs\":\t1750000000},\n" +
		"\t\t\"connecting_to\":\t{\"host\":\t\"pi\", \"port\":\t5201},\n\t\t\"test_start\":\t{\"protocol\":\t\"TCP\", \"num_streams\":\t1, \"duration\":\t1}\n\t},\n" +
		"\t\"intervals\":\t[{\"streams\":\t[], \"sum\":\t{\"start\":\t0, \"end\":\t1, \"seconds\":\t1, \"bytes\":\t125000000, \"bits_per_second\":\t1e9, \"sender\":\ttrue}}],\n" +
		"\t\"end\":\t{\n\t\t\"sum_sent\":\t{\"start\":\t0, \"end\":\t1, \"seconds\":\t1, \"bytes\":\t125000000, \"bits_per_second\":\t1e9, \"retransmits\":\t0},\n" +
		"\t\t\"sum_received\":\t{\"start\":\t0, \"end\":\t1, \"seconds\":\t1, \"bytes\":\t124000000, \"bits_per_second\":\t992000000}\n\t}\n}\n"
	in := iperf3Events + iperf3EndEvent + full
	d := importOne(t, in, 1)[0]
	if d.Imported.Version != "3.20" || len(d.Net.Intervals) != 1 || len(d.Net.Sums) != 1 || d.Net.Sums[0].Receiver.Bytes != 124000000 {
		t.Errorf("version %q, %d intervals, sums %+v", d.Imported.Version, len(d.Net.Intervals), d.Net.Sums)
	}
	cut := in[:len(in)-len(full)/2]
	if _, err := Import([]byte(cut), "in"); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("the full document cut short: %v", err)
	}
}

// TestIPerf3BidirDuplicateKeys: iperf3 3.7 to 3.10 wrote both directions
// of --bidir under the same keys (esnet/iperf#952 and #1196, whose report
// this shape follows); the first is the client's sending, the second the
// server's.
func TestIPerf3BidirDuplicateKeys(t *testing.T) {
	sum := func(bytes int, bps float64, sender bool) string {
		return fmt.Sprintf(`{"start": 0, "end": 1, "seconds": 1, "bytes": %d, "bits_per_second": %g, "sender": %t}`, bytes, bps, sender)
	}
	in := `{"start": {"version": "iperf 3.9", "timestamp": {"timesecs": 1630000000}, "connecting_to": {"host": "127.0.0.1", "port": 5201},
	  "test_start": {"protocol": "TCP", "num_streams": 1, "duration": 1}},
	 "intervals": [{"streams": [], "sum": ` + sum(1000, 8000, true) + `, "sum": ` + sum(2000, 16000, false) + `}],
	 "end": {"streams": [], "sum_sent": ` + sum(1000, 8000, true) + `, "sum_received": ` + sum(990, 7920, true) +
		`, "sum_sent": ` + sum(2000, 16000, false) + `, "sum_received": ` + sum(1980, 15840, false) + `}}`
	d := importOne(t, in, 1)[0]
	n := d.Net
	if n.Parameters.Direction != "bidir" || len(n.Sums) != 2 || len(n.Intervals[0].Sums) != 2 {
		t.Fatalf("direction %q, %d sums, %d interval sums; want bidir and both directions", n.Parameters.Direction, len(n.Sums), len(n.Intervals[0].Sums))
	}
	up, down := n.Sums[0], n.Sums[1]
	if up.Direction != "up" || up.Sender.Bytes != 1000 || up.Receiver.Bytes != 990 || down.Direction != "down" || down.Sender.Bytes != 2000 || down.Receiver.Bytes != 1980 {
		t.Errorf("sums %+v", n.Sums)
	}
}
