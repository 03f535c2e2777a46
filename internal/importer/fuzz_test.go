package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// The fuzzers hold every parser to its promise: documents that thruput can
// store, or one error line, and never a panic. `go test` runs the seeds;
// `go test -fuzz=FuzzFio` and friends explore from them.

var fioSeeds = []string{
	`{"fio version": "fio-3.33", "timestamp_ms": 1795254154035, "jobs": [{"jobname": "a", "groupid": 0, "error": 0, "elapsed": 2,
	  "job options": {"rw": "randrw", "bs": "4k,64k", "size": "8M", "runtime": "500ms", "time_based": "1", "numjobs": "2"},
	  "read": {"io_bytes": 4096, "bw_bytes": 4096, "iops": 1.5, "runtime": 1000, "total_ios": 1,
	    "clat_ns": {"min": 1, "max": 9, "mean": 4.5, "N": 1, "percentile": {"50.000000": 5, "99.900000": 9}}},
	  "write": {"io_bytes": 0, "total_ios": 0, "iops": 0}, "job_runtime": 1000}],
	  "global options": {"ioengine": "libaio", "directory": "/mnt/a:/mnt/b\\:c", "kb_base": "1000"}}`,
	"a: (g=0): rw=read, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB, ioengine=io_uring, iodepth=32\n" +
		`{"fio version": "fio-2.2", "jobs": [{"jobname": "a", "read": {"bw": 100, "iops": 25, "total_ios": 5, "clat": {"N": 5, "min": 1, "max": 2, "mean": 1.5}}}]}`,
	`{"fio version": "fio-3.36", "jobs": [{"jobname": "x", "job_start": 1795254154000, "error": 28, "job options": {"bs": "(4*1024)", "size": "50%"}}]}`,
	`{"fio version": 3}`,
	"{\n{\n{\"fio version\"",
}

var iperf3Seeds = []string{
	`{"start": {"connected": [{"socket": 5, "local_host": "::1", "local_port": 1, "remote_host": "::1", "remote_port": 5201}],
	  "version": "iperf 3.12", "system_info": "Linux pi 6.1.21 #1 SMP armv6l", "timestamp": {"timesecs": 1795254211},
	  "connecting_to": {"host": "::1", "port": 5201}, "tcp_mss": 1400,
	  "test_start": {"protocol": "TCP", "num_streams": 1, "blksize": 131072, "omit": 1, "duration": 1, "reverse": 1}},
	 "intervals": [{"streams": [{"socket": 5, "start": 0, "end": 1, "bytes": 10, "bits_per_second": 80, "retransmits": 0, "snd_cwnd": 1, "rtt": 2, "omitted": true, "sender": false}],
	   "sum": {"start": 0, "end": 1, "bytes": 10, "bits_per_second": 80, "omitted": true, "sender": false}}],
	 "end": {"streams": [{"sender": {"socket": 5, "end": 1, "bytes": 10, "bits_per_second": 80, "retransmits": 1, "sender": false},
	   "receiver": {"socket": 5, "end": 1.1, "bytes": 9, "bits_per_second": 70, "sender": false}}],
	  "sum_sent": {"end": 1, "bytes": 10, "bits_per_second": 80}, "sum_received": {"end": 1.1, "bytes": 9, "bits_per_second": 70},
	  "cpu_utilization_percent": {"host_total": 1, "host_user": 0.5, "host_system": 0.5, "remote_total": 0, "remote_user": 0, "remote_system": 0}}}`,
	`{"start": {"accepted_connection": {"host": "10.0.0.2", "port": 4000}, "test_start": {"protocol": "UDP", "num_streams": 2}},
	 "end": {"streams": [{"udp": {"socket": 5, "bytes": 0, "jitter_ms": 0.1, "lost_packets": -1, "packets": 3, "out_of_order": 1, "sender": false}}],
	  "sum": {"bytes": 0, "jitter_ms": 0.1, "lost_packets": 0}}, "error": "interrupt"}`,
	"{\"event\": \"start\", \"data\": {\"version\": \"iperf 3.17\", \"test_start\": {\"bidir\": 1}}}\n{\"event\": \"interval\", \"data\": {\"sum_bidir_reverse\": {}}}\n{\"event\": \"end\", \"data\": {}}\n",
	"{\"event\":\"start\",\"data\":{}}\n{\"event\":\"server_output_text\",\"data\":\"x\"}\n{\"event\":\"end\",\"data\":{}}\n{\n\t\"start\":\t{},\n\t\"end\":\t{}\n}\n",
	`{"start": {"version": "thruput 1.0", "system_info": "6.1.21 armv6l"}}`,
	`{"start": []}`,
}

var sysbenchSeeds = []string{
	sbHead + "Read/Write ratio for combined random IO test: 1.50\nPeriodic FSYNC enabled, calling fsync() each 100 requests.\nCalling fsync() at the end of test, Enabled.\n\n" +
		"File operations:\n    reads/s:                      41336.02\n    writes/s:                     27557.35\n    fsyncs/s:                     2759.73\n\n" +
		"Throughput:\n    read, MiB/s:                  645.88\n    written, MiB/s:               430.58\n\n" +
		"General statistics:\n    total time:                          1.0006s\n    total number of events:              71760\n\n" +
		"Latency (ms):\n         min:                                    0.00\n         avg:                                    0.01\n         max:                                    4.71\n         95th percentile:                        0.01\n         sum:                                  976.94\n\n" +
		"Threads fairness:\n    events (avg/stddev):           71760.0000/0.00\n    execution time (avg/stddev):   0.9769/0.00\n",
	"sysbench 1.0.11\nNumber of threads: 4\nExtra file open flags: 3\nCalling fsync() after each write operation.\nUsing fast mmaped I/O mode\nDoing mixed test\n",
	"sysbench 1.0\nDoing random read test\nFile operations:\n    reads/s: 1e400\n",
	"sysbench 0\nFATAL: x",
}

var thruputSeeds = []string{
	`{"format_version": 1, "id": "20261121T053000Z-a1b2c3", "method": "disk.io", "started_at": "2026-11-21T05:30:00Z"}` + "\n" +
		`{"format_version": 1, "id": "20261121T053001Z-a1b2c4", "method": "net.client", "net": {"parameters": {"role": "client"}}}`,
	`{"format_version": 0}`,
	`{"format_version": 1, "id": 5}`,
}

// checkOutcome is what every parser owes on any input.
func checkOutcome(t *testing.T, docs []*result.Document, err error) {
	if err != nil {
		if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") || len(msg) > 400 {
			t.Fatalf("error is not one short line: %q", msg)
		}
		return
	}
	for _, d := range docs {
		var buf bytes.Buffer
		if err := d.Write(&buf); err != nil {
			t.Fatalf("a document thruput cannot write: %v", err)
		}
		if d.Imported != nil && !idShape.MatchString(d.ID) {
			t.Fatalf("id %q", d.ID)
		}
	}
}

// corpusSeeds adds the real outputs of tools (all with none) under
// testdata/real to a fuzzer's seeds: mutations of what the tools really
// wrote reach far more of each parser than hand-written seeds.
func corpusSeeds(f *testing.F, tools ...string) {
	eachCorpusFile(f, func(_ string, data []byte) {
		if len(tools) == 0 || slices.Contains(tools, Detect(data)) {
			f.Add(data)
		}
	})
}

// eachCorpusFile hands fn every real output under testdata/real.
func eachCorpusFile(tb testing.TB, fn func(name string, data []byte)) {
	tb.Helper()
	files, err := filepath.Glob("testdata/real/*")
	if err != nil {
		tb.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, ".expect") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		fn(name, data)
	}
}

func fuzzWith(f *testing.F, tools []string, seeds []string, parse func([]byte, string) ([]*result.Document, error)) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	corpusSeeds(f, tools...)
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := parse(data, "fuzz")
		checkOutcome(t, docs, err)
	})
}

var ddSeeds = []string{
	"dd if=/dev/zero of=/mnt/t bs=4M count=64 oflag=direct\n64+0 records in\n64+0 records out\n268435456 bytes (268 MB, 256 MiB) copied, 12.5 s, 21.5 MB/s\n",
	"dd if=/mnt/t of=/dev/null bs=$bs\n1073741824 bytes (1.0GB) copied, 9.654585 seconds, 106.1MB/s\n",
	"25165824 bytes transferred in 0.026832 secs (937899773 bytes/sec)\n",
	"Running DD WRITE test...\n536870912 bytes (537 MB, 512 MiB) copied, 35.3134 s, 15.2 MB/s\nRunning DD READ test...\n536870912 bytes (537 MB, 512 MiB) copied, 23.3369 s, 23.0 MB/s\n",
	"dd if=/dev/zero of=t bs=1M count=8\ndd if=t of=/dev/null bs=1M\ndd: failed to open 'u': No such file\n8388608 bytes (8.4 MB, 8.0 MiB) copied, 0.1 s, 84 MB/s\n",
}

var downloadSeeds = []string{
	"--2024-01-02 10:00:00--  http://pi.lan/100M\nHTTP request sent, awaiting response... 200 OK\nLength: 104857600 (100M)\n2024-01-02 10:00:09 (11.2 MB/s) - \u2018/dev/null\u2019 saved [104857600/104857600]\n",
	"$ curl -o /dev/null http://pi.lan/100M\n  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n\r100  100M  100  100M    0     0  11.2M      0  0:00:08  0:00:08 --:--:-- 11.5M\n",
}

func FuzzFio(f *testing.F)      { fuzzWith(f, []string{FIO}, fioSeeds, importFio) }
func FuzzIPerf3(f *testing.F)   { fuzzWith(f, []string{IPerf3}, iperf3Seeds, importIPerf3) }
func FuzzSysbench(f *testing.F) { fuzzWith(f, []string{Sysbench}, sysbenchSeeds, importSysbench) }
func FuzzDD(f *testing.F)       { fuzzWith(f, []string{DD}, ddSeeds, importDD) }

// FuzzDownload reads wget's and curl's transcripts, and is seeded with the
// corpus's of both.
func FuzzDownload(f *testing.F) {
	fuzzWith(f, []string{Wget, Curl}, downloadSeeds, func(b []byte, file string) ([]*result.Document, error) {
		tool := Wget
		if curlMeter.Match(b) {
			tool = Curl
		}
		return importDownload(b, file, tool)
	})
}
func FuzzThruput(f *testing.F) {
	fuzzWith(f, []string{Thruput}, thruputSeeds, func(b []byte, _ string) ([]*result.Document, error) { return importThruput(b) })
}

// FuzzImport goes through Detect, as the command does.
func FuzzImport(f *testing.F) {
	for _, set := range [][]string{{"", "\xef\xbb\xbf{\"start\":{}}", "^C{\"start\":{}}"}, fioSeeds, iperf3Seeds, sysbenchSeeds, thruputSeeds, ddSeeds, downloadSeeds} {
		for _, s := range set {
			f.Add([]byte(s))
		}
	}
	corpusSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tool := Detect(data)
		docs, err := Import(data, "fuzz")
		if tool == "" && err == nil {
			t.Fatalf("Import accepted input that Detect did not recognise")
		}
		checkOutcome(t, docs, err)
	})
}
