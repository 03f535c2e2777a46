package importer

import (
	"os"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestMarkPresets: a disk mark report's tests are named as thruput's own
// disk mark names its presets, so imported runs line up with its runs.
func TestMarkPresets(t *testing.T) {
	docs := importCorpusFile(t, "kdiskmark-1.6.0-fio-3.16-readme.md")
	want := "SEQ1M Q8T1 read,SEQ1M Q1T1 read,RND4K Q32T16 read,RND4K Q1T1 read,SEQ1M Q8T1 write,SEQ1M Q1T1 write,RND4K Q32T16 write,RND4K Q1T1 write"
	if got := presetsOf(docs[0]); got != want {
		t.Errorf("presets %q, want %q", got, want)
	}
	if d := docs[0]; d.Mark.DurationNs != 0 || d.Imported.States("duration_ns") || d.Imported.States("direct") || d.Labels["kdiskmark.passes"] != "5" {
		t.Errorf("duration %d, unstated %v, labels %v: the report states neither the measuring time nor O_DIRECT, and 5 passes", d.Mark.DurationNs, d.Imported.Unstated, d.Labels)
	}
}

// importCorpusFile imports a file of the corpus under testdata/real.
func importCorpusFile(t *testing.T, name string) []*result.Document {
	t.Helper()
	data, err := os.ReadFile("testdata/real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Import(data, "in")
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// presetsOf names a disk mark run's tests, "preset phase", in order.
func presetsOf(d *result.Document) string {
	var got []string
	for _, r := range d.Mark.Results {
		got = append(got, r.Preset+" "+r.Phase)
	}
	return strings.Join(got, ",")
}

// TestMarkLayouts reads the test lines of KDiskMark 3 and CrystalDiskMark
// 8 (block sizes run into their unit, a measuring time in the footer) and
// of CrystalDiskMark 6, whose sequential line names no block size and is
// left out with a note.
func TestMarkLayouts(t *testing.T) {
	for _, tc := range []struct {
		name, in, tool, presets string
		duration                int64
		note                    string
	}{
		{"KDiskMark 3", "KDiskMark (3.1.4): https://github.com/JonMagon/KDiskMark\n[Read]\nSequential   1 MiB (Q=  8, T= 1):    50.851 MB/s [     49.7 IOPS] < 158255.28 us>\n" +
			"[Write]\nRandom       4 KiB (Q= 32, T= 1):    14.712 MB/s [   3678.0 IOPS] < 11072.93 us>\n\nProfile: Default\nTest: 1 GiB (x2) [Measure: 5 sec / Interval: 5 sec]\n",
			KDiskMark, "SEQ1M Q8T1 read,RND4K Q32T1 write", 5e9, ""},
		{"CrystalDiskMark 8", "CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo\n[Read]\n  SEQ    1MiB (Q=  8, T= 1):  3552.436 MB/s [   3387.9 IOPS] <  2358.80 us>\n  SEQ  128KiB (Q= 32, T= 1):  3000.000 MB/s [  22888.2 IOPS] <  1397.00 us>\n" +
			"[Mix] Read 70%/Write 30%\n  SEQ    1MiB (Q=  8, T= 1):  1000.000 MB/s [    953.7 IOPS] <  8000.00 us>\n   Test: 1 GiB (x5) [D: 38% (180/477GiB)]\n   Time: Measure 5 sec / Interval 5 sec \n",
			CrystalDiskMark, "SEQ1M Q8T1 read,SEQ128K Q32T1 read", 5e9, "mixed read/write tests are not imported"},
		{"CrystalDiskMark 6", "CrystalDiskMark 6.0.0 x64 (C) 2007-2017 hiyohiyo\n   Sequential Read (Q= 32,T= 1) :    91.559 MB/s\n Random Write 4KiB (Q=  8,T= 8) :     3.173 MB/s [    774.7 IOPS]\n",
			CrystalDiskMark, "RND4K Q8T8 write", 0, "names no block size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Detect([]byte(tc.in)); got != tc.tool {
				t.Fatalf("Detect = %q, want %q", got, tc.tool)
			}
			docs, notes, err := ImportNotes([]byte(tc.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			if got := presetsOf(docs[0]); got != tc.presets || docs[0].Mark.DurationNs != tc.duration {
				t.Errorf("presets %q, duration %d; want %q, %d", got, docs[0].Mark.DurationNs, tc.presets, tc.duration)
			}
			if !strings.Contains(strings.Join(notes, "\n"), tc.note) {
				t.Errorf("notes %q do not say %q", notes, tc.note)
			}
		})
	}
}

// TestIOzoneColumns places each figure under the header column it ends
// under, in iozone 3.506's wider layout and with tabs, so a test left out
// of the run (a blank column) does not shift the ones after it.
func TestIOzoneColumns(t *testing.T) {
	in := "\tIozone: Performance Test of File I/O\n" +
		"              kB  reclen    write    rewrite      read    reread      read     write      read    rewrite       read    fwrite  frewrite     fread   freread\n" +
		"            4096       1       269      3114                          2843      2477\n" +
		"\t    102400    1024   383514\n"
	docs, notes, err := ImportNotes([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.IO.Parameters.RW)
	}
	if strings.Join(got, ",") != "write,randread,randwrite,write" {
		t.Fatalf("tests %v", got)
	}
	if r := docs[1].IO.Runs[0].Read; r == nil || r.MiBPerSec != 2843.0/1024 || r.IOs != 4096 || docs[1].IO.Parameters.BlockSize != 1024 {
		t.Errorf("random read of 4096 kB in 1 kB records: %+v", r)
	}
	if w := docs[3].IO.Runs[0].Write; w.MiBPerSec != 383514.0/1024 || docs[3].IO.Parameters.Size != 102400<<10 {
		t.Errorf("tab-separated row: %+v", w)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `"rewrite"`) {
		t.Errorf("notes %q", notes)
	}
}

// TestHDParmTimings: each timing is its own run of its device, -T's
// labelled cached, --direct's O_DIRECT, and a rate under 1 MB/s printed
// in kB/sec read as such.
func TestHDParmTimings(t *testing.T) {
	in := "\n/dev/mmcblk0:\n Timing O_DIRECT cached reads:   1234 MB in  2.00 seconds = 617.25 MB/sec\n Timing O_DIRECT disk reads:   2 MB in  3.50 seconds = 585.14 kB/sec\n"
	docs, err := Import([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("%d runs", len(docs))
	}
	c, d := docs[0], docs[1]
	if c.Labels["hdparm.timing"] != "cached" || d.Labels["hdparm.timing"] != "disk" || !c.IO.Parameters.Direct || c.Targets[0].Path != "/dev/mmcblk0" {
		t.Errorf("labels %v %v, direct %v, targets %v", c.Labels, d.Labels, c.IO.Parameters.Direct, c.Targets)
	}
	if r := d.IO.Runs[0].Read; r.MiBPerSec != 585.14/1024 || r.Bytes != 2<<20 || r.IOs != 1 || d.Method != result.MethodIO {
		t.Errorf("kB/sec run: %+v", r)
	}
}

// TestPiBenchTable reads Storage.sh's result table as one disk.mark run:
// a result per row named by its tool and shape, each rate in the unit the
// script printed, the score as a label. A table pasted without its heading
// is read from its first row, a row seen twice starts the next table, and
// a row left empty by a failed test is noted, not imported.
func TestPiBenchTable(t *testing.T) {
	docs := importCorpusFile(t, "pibenchmarks-orangepi5-sd-and-nvme-blog.md")
	want := "hdparm SEQ2M Q1T1 read,hdparm cached SEQ2M Q1T1 read,dd SEQ4K Q1T1 write,fio RND4K Q64T1 read,fio RND4K Q64T1 write," +
		"iozone SEQ4K Q1T1 read,iozone SEQ4K Q1T1 write,iozone RND4K Q1T1 read,iozone RND4K Q1T1 write"
	if got := presetsOf(docs[0]); got != want {
		t.Errorf("presets %q, want %q", got, want)
	}
	if docs[0].Labels["pibenchmarks.score"] != "1409" || docs[1].Labels["pibenchmarks.score"] != "18873" {
		t.Errorf("scores %v %v, the tables print 1409 and 18873", docs[0].Labels, docs[1].Labels)
	}
	// An hdparm rate is MiB/s and 2 MiB a read; iozone's KB/s are KiB/s
	// in 4 KiB records.
	if r := docs[0].Mark.Results[0]; !near64(r.IOPS, 45.51/2) || !near64(r.MBPerSec, 45.51*(1<<20)/1e6) {
		t.Errorf("hdparm row: %+v", r)
	}
	if r := docs[0].Mark.Results[5]; !near64(r.IOPS, 12542.0/4) {
		t.Errorf("iozone row: %+v", r)
	}

	// The committed log holds tput's escape sequences where the script
	// printed them (its heading, its score), which the search index's text
	// of it lacks: put back, the same table and score are read.
	log, err := os.ReadFile("testdata/real/pibenchmarks-rpi4-sd-whole-log.txt")
	if err != nil {
		t.Fatal(err)
	}
	coloured := strings.Replace(string(log), "     Category", "\x1b[1m\x1b[4m     Category", 1)
	coloured = strings.Replace(coloured, "Result     \n", "Result     \x1b(B\x1b[m\x1b[36m\n", 1)
	coloured = strings.Replace(coloured, "                          Score", "\x1b[1m\x1b[35m\x1b[4m                          Score", 1)
	plain, err1 := Import(log, "in")
	docs, err = Import([]byte(coloured), "in")
	if err != nil || err1 != nil || len(docs) != 1 || len(docs[0].Mark.Results) != 9 || docs[0].Labels["pibenchmarks.score"] != "1151" ||
		docs[0].Mark.Results[8].MiBPerSec != plain[0].Mark.Results[8].MiBPerSec {
		t.Fatalf("the log with its escape sequences: %v, %+v", err, docs)
	}

	in := "HDParm                    Disk Read                 12.50 MB/sec\n" +
		"HDParm                    Cached Disk Read           MB/sec\n" +
		"DD                        Disk Write                1,2 GB/s\n" +
		"HDParm                    Disk Read                 512.00 kB/sec\n" +
		"FIO                       4k random read             IOPS ( KB/s)\n" +
		"                          Score: 7\n"
	docs, notes, err := ImportNotes([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || len(docs[0].Mark.Results) != 2 || len(docs[1].Mark.Results) != 1 || docs[1].Labels["pibenchmarks.score"] != "7" {
		t.Fatalf("%d tables: %+v", len(docs), docs)
	}
	if r := docs[0].Mark.Results[1]; !near64(r.MBPerSec, 1200) {
		t.Errorf("dd's 1,2 GB/s (a decimal comma): %+v", r)
	}
	if r := docs[1].Mark.Results[0]; !near64(r.MiBPerSec, 0.5) {
		t.Errorf("hdparm's 512.00 kB/sec: %+v", r)
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "line 2: HDParm Cached Disk Read has no figure") || !strings.Contains(j, "line 5: FIO 4k random read has no figure") {
		t.Errorf("notes %q", notes)
	}
}

// TestMarkWithoutBanner: a report copied from its units line on, without
// the banner, is read; its test lines' layout names the tool, and a second
// units line starts the next report.
func TestMarkWithoutBanner(t *testing.T) {
	units := "* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]\n* KB = 1000 bytes, KiB = 1024 bytes\n\n[Read]\n"
	in := units + "  SEQ    1MiB (Q=  8, T= 1):  5024.997 MB/s [   4792.2 IOPS] <  1667.96 us>\n" +
		units + "Sequential   1 MiB (Q=  8, T= 1):    50.851 MB/s [     49.7 IOPS] < 158255.28 us>\n"
	if got := Detect([]byte(in)); got != CrystalDiskMark {
		t.Fatalf("Detect = %q", got)
	}
	docs, err := Import([]byte(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Imported.Tool != CrystalDiskMark || docs[1].Imported.Tool != KDiskMark || docs[1].Tool.Name != KDiskMark ||
		docs[1].Mark.Engine != "fio" || docs[0].Imported.Version != "" || docs[1].Mark.Results[0].MBPerSec != 50.851 {
		t.Fatalf("%d reports: %+v", len(docs), docs)
	}
	if _, err := Import([]byte(units), "in"); err == nil || !strings.Contains(err.Error(), "disk mark report: no test line") {
		t.Errorf("a units line alone: %v", err)
	}
}
