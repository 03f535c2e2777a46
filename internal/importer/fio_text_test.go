package importer

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// TestFioFormatsAgree runs the installed fio once with its three output
// formats and holds the normal and terse readers to the JSON reader's
// figures of the same jobs, within what each format rounds: the text
// prints latencies to two decimals in its own unit, terse rounds bytes
// down to KiB and IOPS down to a whole number.
func TestFioFormatsAgree(t *testing.T) {
	fstest.Long(t, "runs the real fio")
	t.Parallel()
	for _, ver := range []string{"3", "4", "5"} {
		t.Run("terse v"+ver, func(t *testing.T) {
			dir := t.TempDir()
			out := run(t, dir, "fio", "--output-format=normal,terse,json", "--terse-version="+ver, "--ioengine=psync", "--directory="+dir,
				"--name=a", "--rw=randread", "--bs=4k", "--size=4M", "--runtime=1", "--time_based",
				"--name=b", "--rw=write", "--bs=64k", "--size=4M",
				"--name=c", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--size=4M")
			want, _ := fioJSONOf(t, out)
			text, _, err := importFioText(out, "out.txt")
			if err != nil {
				t.Fatal(err)
			}
			terse, _, err := importFioTerse(out, "out.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(text) != len(want) || len(terse) != len(want) {
				t.Fatalf("%d text and %d terse runs, %d JSON ones", len(text), len(terse), len(want))
			}
			for i, w := range want {
				for _, got := range []struct {
					format   string
					d        *result.Document
					bytesTol float64
				}{{"text", text[i], 0}, {"terse", terse[i], 1024}} {
					checkEnvelope(t, got.d, FIO, "disk.io")
					if got.d.Labels["fio.job"] != w.Labels["fio.job"] || got.d.IO.Parameters.RW != w.IO.Parameters.RW ||
						got.d.IO.Parameters.BlockSize != w.IO.Parameters.BlockSize || got.d.Imported.Version != w.Imported.Version {
						t.Errorf("%s job %d: %s %+v, JSON %s %+v", got.format, i, got.d.Labels, got.d.IO.Parameters, w.Labels, w.IO.Parameters)
					}
					gr, wr := got.d.IO.Runs[0], w.IO.Runs[0]
					// JSON's job_runtime is the job's, the text's runtimes
					// each direction's: they differ by a millisecond.
					within(t, got.format+" elapsed", float64(gr.ElapsedNs), float64(wr.ElapsedNs), 1e6)
					for _, dir := range []struct {
						name string
						g, w *result.IODirection
					}{{"read", gr.Read, wr.Read}, {"write", gr.Write, wr.Write}} {
						if (dir.g == nil) != (dir.w == nil) {
							t.Errorf("%s job %d %s: %v, JSON %v", got.format, i, dir.name, dir.g, dir.w)
							continue
						}
						if dir.w == nil {
							continue
						}
						what := got.format + " " + w.Labels["fio.job"] + " " + dir.name
						within(t, what+" bytes", float64(dir.g.Bytes), float64(dir.w.Bytes), got.bytesTol)
						within(t, what+" MiB/s", dir.g.MiBPerSec, dir.w.MiBPerSec, dir.w.MiBPerSec*1e-3)
						within(t, what+" IOPS", dir.g.IOPS, dir.w.IOPS, 1)
						if got.format == "text" && dir.g.IOs != dir.w.IOs {
							t.Errorf("%s: %d I/Os, JSON %d", what, dir.g.IOs, dir.w.IOs)
						}
						gl, wl := dir.g.Latency, dir.w.Latency
						if gl == nil || wl == nil {
							t.Errorf("%s: latency %v, JSON %v", what, gl, wl)
							continue
						}
						// Two decimals of the printed unit, which is at most
						// 1000 times the value.
						within(t, what+" mean latency", gl.MeanNs, wl.MeanNs, 0.005*1000+wl.MeanNs*1e-3)
						within(t, what+" p99", float64(gl.P99Ns), float64(wl.P99Ns), float64(wl.P99Ns)*1e-3+1000)
					}
				}
			}
		})
	}
}

// fioJSONOf reads the JSON that fio printed after its other formats
// (--output-format=normal,json), and says where it starts.
func fioJSONOf(t *testing.T, out []byte) ([]*result.Document, int) {
	t.Helper()
	at, ok := outputStart(out, FIO)
	if !ok {
		t.Fatalf("no JSON in fio's output:\n%s", out)
	}
	docs, err := importFio(out[at:], "out.txt")
	if err != nil {
		t.Fatal(err)
	}
	return docs, at
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %v, JSON %v (tolerance %v)", what, got, want, tol)
	}
}

// TestFioTextUnits: each unit fio prints, in its own meaning.
func TestFioTextUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kb   float64
		want float64
	}{
		{"557417B", 1024, 557417},
		{"32708KB", 1024, 32708 * 1024},
		{"1024.0MB", 1024, 1 << 30},
		{"9696KiB", 1000, 9696 * 1024},
		{"9929kB", 1000, 9929000},
		{"1074MB", 1000, 1074e6},
		{"94.7MiB", 1000, 94.7 * (1 << 20)},
		{"100GiB", 1000, 100 << 30},
	} {
		if got, ok := fioAmount(tc.in, tc.kb); !ok || math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("fioAmount(%q, %v) = %v, %v; want %v", tc.in, tc.kb, got, ok, tc.want)
		}
	}
	for in, want := range map[string]float64{"136": 136, "33.4k": 33400, "1.2M": 1.2e6, "1409.9K": 1409900} {
		if got, ok := fioCount(in); !ok || math.Abs(got-want) > 1e-6*want {
			t.Errorf("fioCount(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "KB", "12XB", "1e999B", "99999999999999KB"} {
		if got, ok := fioAmount(bad, 1024); ok {
			t.Errorf("fioAmount(%q) = %v, want a refusal", bad, got)
		}
	}
}

// A trim direction has no place in a result: its figures are left out
// with a note, the job's reads and writes kept. (The block is shaped as
// fio 3 prints a trimwrite job; no real output with a trim line was found
// in the public repositories searched.)
func TestFioTextTrim(t *testing.T) {
	in := strings.Join([]string{
		"t: (groupid=0, jobs=1): err= 0: pid=1: Mon Jan  2 15:04:05 2023",
		"  write: IOPS=100, BW=400KiB/s (410kB/s)(4096KiB/10240msec); 0 zone resets",
		"  trim: IOPS=100, BW=400KiB/s (410kB/s)(4096KiB/10240msec); 0 zone resets",
		"     issued rwts: total=0,1024,1024,0 short=0,0,0,0 dropped=0,0,0,0",
		""}, "\n")
	docs, notes, err := ImportNotes([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].IO.Runs[0].Write == nil || docs[0].IO.Runs[0].Read != nil || docs[0].IO.Runs[0].Write.IOs != 1024 {
		t.Fatalf("runs %+v", docs[0].IO.Runs)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "trim figures are not kept") {
		t.Errorf("notes %q", notes)
	}
}

// fio 2.0.9 and older print their version without "fio-", after the
// start-up lines; a bare version anywhere else is no fio's.
func TestFioTextBareVersion(t *testing.T) {
	block := "x: (groupid=0, jobs=1): err= 0: pid=2619\n  read : io=327521KB, bw=2273.7KB/s, iops=746 , runt=144052msec\n     issued r/w/d: total=81880/0/0, short=0/0/0\n"
	for in, want := range map[string]string{
		"x: (g=0): rw=randrw, bs=512-64K/512-64K, ioengine=libaio, iodepth=64\n2.0.8\nStarting 1 process\n\n" + block: "2.0.8",
		"notes\n2.0.8\n" + block: "",
	} {
		docs, err := Import([]byte(in), "in")
		if err != nil {
			t.Fatal(err)
		}
		if got := docs[0].Imported.Version; got != want {
			t.Errorf("version %q, want %q, of:\n%s", got, want, in)
		}
		if docs[0].IO.Runs[0].Read.IOs != 81880 || docs[0].IO.Parameters.BlockSize != 0 {
			t.Errorf("read %+v, parameters %+v", docs[0].IO.Runs[0].Read, docs[0].IO.Parameters)
		}
	}
}

// TestFioClientText runs a job on two fio servers through fio --client,
// printing its text and its JSON at once, and holds the text reader to
// the JSON reader's figures: a run per server's job, the job's start-up
// line found under the server's prefix, the version in the servers'
// hostname lines, and the "All clients" sum (its rate printed without
// "B/s") left out with a note, as the JSON reader leaves it out. Both
// servers run on this machine, under one name: that name is each run's
// host (the text does not say which of several servers ran a block).
func TestFioClientText(t *testing.T) {
	fstest.Long(t, "runs two fio servers and a client")
	t.Parallel()
	dir := t.TempDir()
	job := filepath.Join(dir, "job.fio")
	spec := "[a]\nrw=randread\nbs=4k\nsize=4M\nioengine=psync\nruntime=1\ntime_based\ndirectory=" + dir + "\n"
	if err := os.WriteFile(job, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, dir, "fio", append([]string{"--output-format=normal,json"}, fioServers(t, 2, job)...)...)
	want, at := fioJSONOf(t, out)
	text, notes, err := importFioText(out[:at], "out.txt")
	if err != nil {
		t.Fatalf("%v\n%s", err, out[:at])
	}
	defer func() {
		if t.Failed() {
			t.Logf("fio's text:\n%s", out[:at])
		}
	}()
	if len(text) != 2 || len(want) != 2 {
		t.Fatalf("%d text runs, %d JSON ones, want 2", len(text), len(want))
	}
	if !bytes.Contains(out[:at], []byte("All clients")) || !strings.Contains(strings.Join(notes, "\n"), `"All clients" sum`) {
		t.Errorf("notes %q: the All clients sum is not said to be left out", notes)
	}
	for _, w := range want {
		// The two servers' blocks come in the order they end; the JSON's
		// in another: each JSON job is matched by its I/O count.
		i := slices.IndexFunc(text, func(d *result.Document) bool { return d.IO.Runs[0].Read.IOs == w.IO.Runs[0].Read.IOs })
		if i < 0 {
			t.Errorf("no text run of %d reads", w.IO.Runs[0].Read.IOs)
			continue
		}
		g := text[i]
		checkEnvelope(t, g, FIO, "disk.io")
		// The JSON names a server by the address the client reached it
		// at, the text by the hostname the server reported
		// ("hostname=vm, ..., fio=fio-3.33"), which also gives the
		// version: a --client run prints no version line.
		if g.Host.Hostname == "" || !bytes.Contains(out, []byte("\nhostname="+g.Host.Hostname+", ")) || g.Labels["host"] != g.Host.Hostname || g.Imported.Version != w.Imported.Version {
			t.Errorf("host %q labels %v version %q, JSON version %q", g.Host.Hostname, g.Labels, g.Imported.Version, w.Imported.Version)
		}
		if p := g.IO.Parameters; p.RW != "randread" || p.BlockSize != 4096 || p.Engine != "psync" {
			t.Errorf("parameters %+v: the start-up line under the server's prefix is not the job's", p)
		}
		gr, wr := g.IO.Runs[0].Read, w.IO.Runs[0].Read
		within(t, "bytes", float64(gr.Bytes), float64(wr.Bytes), 0)
		within(t, "MiB/s", gr.MiBPerSec, wr.MiBPerSec, wr.MiBPerSec*1e-3)
		within(t, "IOPS", gr.IOPS, wr.IOPS, 1)
	}
}

// TestFioClientServers: of a --client run of several servers, the text
// does not say which ran a block, so no run is given a host.
func TestFioClientServers(t *testing.T) {
	in := "hostname=pi4, be=0, 64-bit, os=Linux, arch=aarch64, fio=fio-3.33, flags=1\nhostname=pi5, be=0, 64-bit, os=Linux, arch=aarch64, fio=fio-3.33, flags=1\n" +
		"<pi4> a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n" +
		"a: (groupid=0, jobs=1): err= 0: pid=1: Sat Nov 28 21:22:51 2026\n  read: IOPS=1000, BW=4000KiB/s (4096kB/s)(4000KiB/1000msec)\n     issued rwts: total=1000,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n"
	docs, _, err := importFioText([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if d := docs[0]; d.Host.Hostname != "" || d.Labels["host"] != "" || d.Imported.Version != "3.33" || d.IO.Parameters.BlockSize != 4096 {
		t.Errorf("host %q labels %v version %q block size %d", d.Host.Hostname, d.Labels, d.Imported.Version, d.IO.Parameters.BlockSize)
	}
}
