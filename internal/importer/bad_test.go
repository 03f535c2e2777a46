package importer

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

const sbHead = `sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 1

Extra file open flags: (none)
4 files, 4MiB each
16MiB total file size
Block size 16KiB
Using synchronous I/O mode
Doing random r/w test
Threads started!
`

// iozoneHead is the second line of iozone 3.4xx's table header.
const iozoneHead = "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n"

func TestBadInput(t *testing.T) {
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	long := strings.Repeat("x", 10<<20)
	digits := strings.Repeat("9", 10<<20)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "empty input"},
		{"blank", " \n\t\n", "empty input"},
		{"truncated fio", `{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "read": {"iops": `, "fio JSON: truncated"},
		{"truncated fio after warnings", "fio: some warning\n{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [", "fio JSON: truncated"},
		{"truncated iperf3", `{"start": {"version": "iperf 3.12"}, "intervals": [`, "iperf3 JSON: truncated"},
		{"truncated iperf3 stream", "{\"event\":\"start\",\"data\":{}}\n{\"event\":\"interval\",\"data\":{\"sum\":", "line 2: truncated"},
		{"truncated thruput", `{"format_version": 1, "id": "x", "method": "disk.io", "host": {`, "thruput document 1: truncated"},
		{"truncated sysbench", sbHead, "sysbench fileio: reads/s: missing (truncated output?)"},
		{"sysbench cut before fairness", sbHead + "\nFile operations:\n    reads/s: 1.00\n    writes/s: 1.00\n    fsyncs/s: 0.00\n\nThroughput:\n    read, MiB/s: 0.02\n    written, MiB/s: 0.02\n\nGeneral statistics:\n    total time: 1.0000s\n    total number of events: 2\n\nLatency (ms):\n         min: 0.01\n         avg: 0.01\n         max: 0.01\n",
			"missing (truncated output?)"},
		{"sysbench nan", sbHead + "\nFile operations:\n    reads/s: -nan\n", `reads/s: "-nan" is not a number`},
		{"sysbench prepare", "sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)\n\n4 files, 4096Kb each, 16Mb total\nCreating files for the test...\n", "output of prepare"},
		{"sysbench cpu", "sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)\n\nPrime numbers limit: 10000\n\nCPU speed:\n    events per second:  1000.00\n", "only fileio runs"},
		{"sysbench fatal", "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\nFATAL: Cannot open file 'test_file.0' errno = 2\n", "failed before it started: Cannot open file"},
		{"truncated fio text", "fio-3.33\na: (groupid=0, jobs=1): err= 0: pid=7: Sat Nov 28 18:33:29 2026\n  read: IOPS=8714, BW=34.0MiB/s (35.7MB/s)(8192KiB/235msec)\n    clat (usec): min=25, max=8835, avg=113.59, stdev=337.22\n",
			`fio text: job "a" (line 2) is cut off before its "issued" line (truncated output?)`},
		{"fio text job without figures", "b: (groupid=0, jobs=1): err= 0: pid=7\n     issued rwts: total=0,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n", `fio text: job "b" (line 1) has no read, write or trim line`},
		{"fio text rate of bytes without /s", "All clients: (groupid=0, jobs=2): err= 0: pid=0\n  read: IOPS=1, BW=12MiB (1M)(1MiB/1msec)\n", `line 2: "read: IOPS=1, BW=12MiB (1M)(1MiB/1msec)": not IOPS, a rate and an amount fio prints`},
		{"fio text bad rate", "c: (groupid=0, jobs=1): err= 0: pid=7\n  read: IOPS=1, BW=12XB/s (1MB/s)(1MiB/1msec)\n", `line 2: "read: IOPS=1, BW=12XB/s (1MB/s)(1MiB/1msec)": not IOPS, a rate and an amount fio prints`},
		{"fio terse too few fields", "3;fio-3.33;a;0;0;8192;34859;8714;235\n", "fio terse line 1: 9 fields, where terse version 3 has at least 121 (truncated line?)"},
		{"fio terse unknown version", "6;fio-3.40;a;0;0" + strings.Repeat(";0", 200) + "\n", "fio terse line 1: terse version 6: only versions 3, 4 and 5 are read"},
		{"fio terse version 2", "2;card0;0;0" + strings.Repeat(";0", 120) + "\n", "fio terse line 1: terse version 2: only versions 3, 4 and 5 are read"},
		{"fio terse bad figure", "3;fio-3.33;a;0;0;x" + strings.Repeat(";0", 120) + "\n", `fio terse line 1: field 6 is "x", not a figure`},
		{"fio terse bad percentile", "3;fio-3.33;a;0;0;4;4;1;1000;0;0;0;0;1;9;5;1;p" + strings.Repeat(";0", 120) + "\n", `fio terse line 1: field 18 is "p", not a percentile`},
		{"other JSON object", `{"foo": 1}`, "not a thruput result document, fio output"},
		{"JSON array", `[1, 2, 3]`, "not a thruput result document, fio output"},
		{"JSON string", `"fio version"`, "not a thruput result document, fio output"},
		{"iperf3 start not an object", `{"start": 5}`, "iperf3 JSON: start: not an object"},
		{"iperf3 bad count", `{"start": {}, "end": {"sum_sent": {"bytes": -5}}}`, "iperf3 JSON: end.sum_sent.bytes: -5 is negative"},
		{"iperf3 unknown event", `{"event": "party"}`, `unknown event "party"`},
		{"fio wrong type", `{"fio version": "fio-3.33", "jobs": [{}, {}, {"read": {"iops": "fast"}}]}`, "fio JSON: jobs[2].read.iops: not a number"},
		{"fio jobs not an array", `{"fio version": "fio-3.33", "jobs": {}}`, "fio JSON: jobs: not an array"},
		{"fio no jobs", `{"fio version": "fio-3.33", "jobs": []}`, "fio JSON: jobs: no job"},
		{"fio jobs missing", `{"fio version": "fio-3.33"}`, "fio JSON: jobs: missing"},
		{"fio bad options", `{"fio version": "fio-3.33", "jobs": [{"job options": [1]}]}`, `fio JSON: jobs[0]["job options"]: not an object`},
		{"fio implausible time", `{"fio version": "fio-3.33", "timestamp": 99999999999999, "jobs": [{}]}`, "not a plausible time"},
		{"thruput future format", `{"format_version": 99, "id": "x", "method": "disk.io"}`, "format version 99 is not supported"},
		{"thruput without id", `{"format_version": 1}`, "id"},
		{"thruput without method", `{"format_version": 1, "id": "20261121T053000Z-abcdef"}`, "no method"},
		{"thruput id not a file name", `{"format_version": 1, "id": "../x", "method": "disk.sweep"}`, "only letters"},
		{"thruput step without target", `{"format_version": 1, "id": "a", "method": "disk.sweep", "sweep": {"steps": [{"target": 0}]}}`, "names target 0 of 0"},
		{"thruput second line bad", "{\"format_version\": 1, \"id\": \"a\", \"method\": \"disk.io\"}\n{\"format_version\": \"one\"}\n", "thruput document 2"},
		{"iozone banner alone", "\tIozone: Performance Test of File I/O\n\t        Version $Revision: 3.506 $\n", "iozone: no auto-mode or -i table"},
		{"iozone header, no row", "Iozone: Performance Test of File I/O\n" + iozoneHead, "iozone: a table header with no row after it (truncated output?)"},
		{"iozone throughput mode", "Iozone: Performance Test of File I/O\n\tChildren see throughput for  4 initial writers  =     221.13 kB/sec\n", "iozone: no auto-mode or -i table"},
		{"iozone row off the columns", "Iozone: Performance Test of File I/O\n" + iozoneHead + "  102400   4    56185\n", `line 3: "4" does not line up under iozone's header`},
		{"iozone record over the file", "Iozone: Performance Test of File I/O\n" + iozoneHead + "              64    1024   56185\n", "line 3: file size 64 kB, record size 1024 kB: not sizes iozone runs"},
		{"iozone zero file", "Iozone: Performance Test of File I/O\n" + iozoneHead + "               0       4   56185\n", "line 3: file size 0 kB, record size 4 kB: not sizes"},
		{"iozone huge figure", "Iozone: Performance Test of File I/O\n" + iozoneHead + "          102400       4 99999999999999999999\n", `line 3: "99999999999999999999" is not a number`},
		{"hdparm huge count", "/dev/sda:\n Timing cached reads:   99999999999999999999 MB in  2.00 seconds = 1.00 MB/sec\n", "hdparm: line 2: \"Timing cached reads:   99999999999999999999 MB in  2.00 seconds = 1.00 MB/sec\" is not a count, a time and a rate"},
		{"kdiskmark banner alone", "KDiskMark (3.2.0): https://github.com/JonMagon/KDiskMark\n", "disk mark report: no test line"},
		{"kdiskmark test outside [Read]", "KDiskMark (3.2.0): https://github.com/JonMagon/KDiskMark\nSequential   1 MiB (Q=  8, T= 1):    50.851 MB/s [     49.7 IOPS]\n", "disk mark report: no test line"},
		{"kdiskmark huge block", "KDiskMark (3.2.0): https://github.com/JonMagon/KDiskMark\n[Read]\nSequential 99999999999 MiB (Q=  8, T= 1):    50.851 MB/s [     49.7 IOPS]\n", "kdiskmark report: line 3: Sequential 99999999999MiB (Q=8, T=1): not a block size, depth, rate and IOPS"},
		{"pibenchmarks rows without figures", "HDParm                    Disk Read                  MB/s\nDD                        Disk Write                 MB/s\n", "PiBenchmarks table: no row with a figure"},
		{"pibenchmarks odd unit", "IOZone                    4k read                   12 MB/s\n", `PiBenchmarks table: line 1: IOZone 4k read: "12 MB/s" is not a figure in the unit the script prints`},
		{"crystaldiskmark 6 sequential only", "CrystalDiskMark 6.0.0 x64 (C) 2007-2017 hiyohiyo\n   Sequential Read (Q= 32,T= 1) :    91.559 MB/s\n", "disk mark report: no test line"},
		{"binary garbage", string(garbage), "not a thruput result document"},
		{"10 MB line", long, "not a thruput result document"},
		{"10 MB line after sysbench banner", "sysbench 1.0.20\n" + long + "\n", "only fileio runs"},
		{"10 MB fio string", `{"fio version": "` + long, "fio JSON: truncated"},
		{"10 MB fio number", `{"fio version": "fio-3", "jobs": [{"read": {"iops": 1` + digits + `}}]}`, "jobs[0].read.iops: 19999999999999999999999999999999... is out of range"},
		{"deep nesting", `{"start": ` + strings.Repeat("[", 100000), "iperf3 JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Import([]byte(tc.in), "in")
			if err == nil {
				t.Fatalf("no error; %d documents", len(docs))
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || len(msg) > 300 {
				t.Errorf("not one short line (%d bytes): %.300q", len(msg), msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not say %q", msg, tc.want)
			}
		})
	}
}

// A run that reports an error is kept, with what it measured, as failed.
func TestFailedRuns(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"iperf3 refused", `{"start": {"connected": [], "version": "iperf 3.12", "system_info": "Linux pi 6.1.21 #1 SMP armv6l"}, "intervals": [], "end": {}, "error": "unable to connect to server: Connection refused"}`,
			"unable to connect to server: Connection refused"},
		{"fio job error", `{"fio version": "fio-3.33", "timestamp": 1795254154, "jobs": [{"jobname": "x", "error": 5, "elapsed": 2, "job options": {"rw": "read"}, "read": {"total_ios": 10, "io_bytes": 40960, "iops": 100, "bw_bytes": 409600}}]}`,
			`fio job "x" ended with error 5 (input/output error)`},
		{"sysbench fatal mid-run", sbHead + "FATAL: Failed to write file! file: 3 pos: 0 errno = 28 (No space left on device)\n", "Failed to write file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Import([]byte(tc.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			d := docs[0]
			if d.Status != "failed" || d.Error == "" || !strings.HasPrefix(d.Error, tc.want) {
				t.Errorf("status %q, error %q; want failed with %q", d.Status, d.Error, tc.want)
			}
			var buf bytes.Buffer
			if err := d.Write(&buf); err != nil {
				t.Fatal(err)
			}
		})
	}
	docs, _ := Import([]byte(`{"fio version": "fio-3.33", "timestamp": 1795254154, "jobs": [{"jobname": "x", "error": 5, "elapsed": 2, "read": {"total_ios": 10, "io_bytes": 40960, "iops": 100}}]}`), "in")
	if r := docs[0].IO.Runs[0].Read; r == nil || r.IOs != 10 || r.IOPS != 100 {
		t.Errorf("the failed job's figures are lost: %+v", r)
	}
	if docs[0].StartedAt.Unix() != 1795254152 {
		t.Errorf("started %v: want the stamp minus the elapsed 2 s", docs[0].StartedAt)
	}
}

// TestEachFileRefuses: files that are no output, from an empty one to a
// 1 GiB one, are refused with a reason, without reading more than the
// first megabyte.
func TestEachFileRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			// Sparse: 1 GiB of file, a few kilobytes of disk.
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"empty", write("empty", nil, 0), "empty input"},
		{"blank", write("blank", []byte("\n \r\n"), 0), "empty input"},
		{"binary garbage", write("garbage", garbage, 0), "not a thruput result document"},
		{"1 GiB of zeros", write("zeros.img", nil, 1<<30), "not a thruput result document"},
		{"1 GiB after a fio header", write("huge.json", []byte("{\n  \"fio version\" : \"fio-3.33\",\n"), 1<<30), "more than any fio output"},
		{"a directory", dir, "a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := EachFile(tc.path, func(*result.Document) error {
				t.Fatal("a document from a bad file")
				return nil
			})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
				t.Errorf("refusing it allocated %d MiB", grew>>20)
			}
		})
	}
}

// TestSameOutputSameID: the id of a run is its output's, whatever the
// file's name or modification time, so a second import is skipped.
func TestSameOutputSameID(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sysbench-0.4.12-docker-15runs.txt", "fio-2.1.4-pkb.json", "dd-bsd-time.md", "iperf3-3.9-tcp-omit-crlf.res"} {
		data, err := os.ReadFile(filepath.Join("testdata/real", name))
		if err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(dir, "a-"+name), filepath.Join(dir, "b-"+name)
		os.WriteFile(a, data, 0o644)
		os.WriteFile(b, data, 0o644)
		if err := os.Chtimes(b, time.Now(), time.Now().Add(-72*time.Hour)); err != nil {
			t.Fatal(err)
		}
		var ida, idb []string
		if _, err := EachFile(a, func(d *result.Document) error { ida = append(ida, d.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := EachFile(b, func(d *result.Document) error { idb = append(idb, d.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(ida) == 0 || strings.Join(ida, " ") != strings.Join(idb, " ") {
			t.Errorf("%s: ids %v and, copied with another time, %v", name, ida, idb)
		}
	}
}
