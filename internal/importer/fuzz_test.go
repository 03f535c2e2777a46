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

var fioTextSeeds = []string{
	"a: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\nfio-3.33\n" +
		"a: (groupid=0, jobs=1): err= 0: pid=7: Sat Nov 28 18:33:29 2026\n  read: IOPS=8.4k, BW=33.0MiB/s (34.6MB/s)(5680KiB/168msec)\n" +
		"    clat (nsec): min=20, max=7561k, avg=114.43, stdev=290.71\n    clat percentiles (usec):\n     |  1.00th=[   34],  5.00th=[   39], 50.00th=[  100],\n     | 99.00th=[ 1004], 99.90th=[ 2966]\n" +
		"  write: io=32800KB, bw=558985B/s, iops=136 , runt= 60086msec\n  trim: IOPS=1, BW=1B/s (1B/s)(1B/1msec)\n     issued rwts: total=1420,610,1,0 short=0,0,0,0 dropped=0,0,0,0\n\nRun status group 0 (all jobs):\n",
	"x: (g=0): rw=read, bs=4K-4K/4K-4K, ioengine=sync, iodepth=1\n2.0.8\nx: (groupid=0, jobs=1): err= 5: pid=1\n  read : io=1024.0MB, bw=1473.8KB/s, iops=368 , runt=1msec\n     issued r/w/d: total=1/0/0, short=0/0/0\nfio: terminating on signal 2\n",
	"3;fio-3.33;a;0;0;8192;34859;8714;235;0;0;0.000000;0.000000;25;8835;113.587594;337.221683;1.000000%=35;50.000000%=44;99.000000%=1004;99.900000%=2966" + strings.Repeat(";0", 110),
	"5;fio-3.36;b;1;28" + strings.Repeat(";1", 160),
	"hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n<vm> a: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n" +
		"Jobs: 2 (f=2)<vm> \na: (groupid=0, jobs=1): err= 0: pid=1: Sat Nov 28 21:22:51 2026\n  read: IOPS=11.7k, BW=45.8MiB/s (48.0MB/s)(45.8MiB/1001msec)\n     issued rwts: total=11733,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n" +
		"All clients: (groupid=0, jobs=2): err= 0: pid=0: Sat Nov 28 21:22:51 2026\n  read: IOPS=23.4k, BW=91.5Mi (96.0M)(91.7MiB/1002msec)\n     issued rwts: total=23480,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n",
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

var iozoneSeeds = []string{
	"\tIozone: Performance Test of File I/O\n\t        Version $Revision: 3.506 $\n\tRun began: Thu Jan  1 00:00:01 1970\n\tO_DIRECT feature enabled\n\tCommand line used: iozone -a -I -f /mnt/x\n" +
		"              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n" +
		"\t  102400       4    56185    89196                      39337    85762\n            4096    1024   0\n",
	"Iozone: Performance Test of File I/O\n kB reclen write\n 1 1 1\n",
}

var hdparmSeeds = []string{
	"\n/dev/sda:\n Timing O_DIRECT cached reads:   17034 MB in  1.99 seconds = 8547.52 MB/sec\n Timing O_DIRECT disk reads:   1 MB in  3.00 seconds = 341.33 kB/sec\n",
	"/dev/hda: Timing buffer-cache reads: 128 MB in 0.11 seconds =1120.07 MB/sec Timing buffered disk reads: 64 MB in 0.00 seconds = 1e400 MB/sec\n",
}

var markSeeds = []string{
	"KDiskMark (3.2.0): https://github.com/JonMagon/KDiskMark\n[Read]\nSequential   1 MiB (Q=  8, T= 1):    50.851 MB/s [     49.7 IOPS] < 158255.28 us>\n[Write]\nRandom 4 KiB (Q=32, T=16): 1e400 MB/s [ 1 IOPS]\nTest: 1 GiB (x2) [Measure: 5 sec / Interval: 5 sec]\nDate: 2026-02-26 16:29:06\n",
	"CrystalDiskMark 6.0.0 x64 (C) 2007-2017 hiyohiyo\n  Random Read 4KiB (Q=  8,T= 8) :     7.892 MB/s [   1926.8 IOPS]\n  Sequential Read (T= 1) :    91.559 MB/s\n  Test : 1024 MiB [I: 11.7% (14.0/119.2 GiB)] (x5)\n  Date : 2019/04/01 1:33:09\n",
}

func FuzzFio(f *testing.F)     { fuzzWith(f, []string{FIO}, fioSeeds, importFio) }
func FuzzFioText(f *testing.F) { fuzzWith(f, []string{FIO}, fioTextSeeds, withoutNotes(importFioText)) }
func FuzzFioTerse(f *testing.F) {
	fuzzWith(f, []string{FIO}, fioTextSeeds, withoutNotes(importFioTerse))
}

// withoutNotes adapts a reader that also returns notes to fuzzWith.
func withoutNotes(parse func([]byte, string) ([]*result.Document, []string, error)) func([]byte, string) ([]*result.Document, error) {
	return func(b []byte, file string) ([]*result.Document, error) {
		docs, _, err := parse(b, file)
		return docs, err
	}
}
func FuzzIPerf3(f *testing.F)   { fuzzWith(f, []string{IPerf3}, iperf3Seeds, importIPerf3) }
func FuzzSysbench(f *testing.F) { fuzzWith(f, []string{Sysbench}, sysbenchSeeds, importSysbench) }
func FuzzDD(f *testing.F)       { fuzzWith(f, []string{DD}, ddSeeds, importDD) }
func FuzzHDParm(f *testing.F)   { fuzzWith(f, []string{HDParm}, hdparmSeeds, importHDParm) }

var pibenchSeeds = []string{
	"     Category                  Test                      Result\nHDParm                    Disk Read                 40.97 MB/s\nHDParm                    Cached Disk Read           MB/sec\n" +
		"DD                        Disk Write                1,7 GB/s\nFIO                       4k random read            2807 IOPS (11228 KB/s)\nIOZone                    4k random write           1e400 KB/s\n\n                          Score: 1132\n",
	"FIO                       4k random write           99999999999999999999 IOPS (1 KB/s)\nFIO                       4k random write           1 IOPS (1 KB/s)\n",
}

func FuzzPiBench(f *testing.F) {
	fuzzWith(f, []string{PiBenchmarks}, pibenchSeeds, withoutNotes(importPiBench))
}

func FuzzMark(f *testing.F) {
	fuzzWith(f, []string{KDiskMark, CrystalDiskMark}, markSeeds, func(b []byte, file string) ([]*result.Document, error) {
		docs, _, err := importMark(b, file)
		return docs, err
	})
}
func FuzzIOzone(f *testing.F) {
	fuzzWith(f, []string{IOzone}, iozoneSeeds, func(b []byte, file string) ([]*result.Document, error) {
		docs, _, err := importIOzone(b, file)
		return docs, err
	})
}

// FuzzDownload reads wget's and curl's transcripts, and is seeded with the
// corpus's of both.
func FuzzDownload(f *testing.F) {
	fuzzWith(f, []string{Wget, Curl}, downloadSeeds, func(b []byte, file string) ([]*result.Document, error) {
		tool := Wget
		if curlMeter().Match(b) {
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
	for _, set := range [][]string{{"", "\xef\xbb\xbf{\"start\":{}}", "^C{\"start\":{}}"}, fioSeeds, fioTextSeeds, iperf3Seeds, sysbenchSeeds, thruputSeeds, ddSeeds, downloadSeeds, iozoneSeeds, hdparmSeeds, markSeeds, pibenchSeeds} {
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
