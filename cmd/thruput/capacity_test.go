package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/fakecard"
	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// TestCapacityMissingDir: a DIR that does not exist is exit 2 (the
// flags --capacity refuses are in TestCheckBadInput).
func TestCapacityMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if o := thruput(t, "disk", "check", "--capacity", missing); o.code != 2 || !strings.Contains(o.stderr, missing+" does not exist") {
		t.Errorf("a missing directory: exit %d, %q", o.code, o.stderr)
	}
}

// f3Tool is the path of one of Debian's f3 tools; the test is skipped
// where f3 is not installed, and fails under CI, where scripts/setup
// installs it.
func f3Tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian's f3 package, scripts/setup)", name)
		}
		t.Skipf("%s is not installed (Debian's f3 package)", name)
	}
	return p
}

var (
	f3File  = regexp.MustCompile(`(?m)^Validating file (\d+)\.h2w \.\.\. +(\d+)/ *(\d+)/ *(\d+)/ *(\d+)`)
	f3Total = regexp.MustCompile(`(?m)^\s*(Data OK|Corrupted|Slightly changed|Overwritten): .*\((\d+) sectors\)$`)
)

// f3Read runs f3read on dir and returns its sector counts per file and
// in all, read from its lines: "Validating file 1.h2w ... 131072/ 0/ 0/
// 0" and the summary's "(N sectors)".
func f3Read(t *testing.T, dir string) (map[int]result.SectorCounts, result.SectorCounts) {
	t.Helper()
	out, err := exec.Command(f3Tool(t, "f3read"), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("f3read %s: %v\n%s", dir, err, out)
	}
	files := map[int]result.SectorCounts{}
	for _, m := range f3File.FindAllStringSubmatch(string(out), -1) {
		var n [5]int64
		for i := range n {
			n[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		files[int(n[0])] = result.SectorCounts{OK: n[1], Corrupted: n[2], Changed: n[3], Overwritten: n[4]}
	}
	var total result.SectorCounts
	fields := map[string]*int64{"Data OK": &total.OK, "Corrupted": &total.Corrupted, "Slightly changed": &total.Changed, "Overwritten": &total.Overwritten}
	ms := f3Total.FindAllStringSubmatch(string(out), -1)
	if len(ms) != 4 {
		t.Fatalf("f3read %s: cannot read its summary:\n%s", dir, out)
	}
	for _, m := range ms {
		*fields[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	return files, total
}

// capacityJSON runs disk check --capacity, which must succeed: exit 0,
// or 3 with a FAIL verdict.
func capacityJSON(t *testing.T, args ...string) *result.Capacity {
	t.Helper()
	o := thruput(t, append([]string{"disk", "check", "--capacity", "--json", "--no-health", "-q"}, args...)...)
	if o.code != exitOK && o.code != exitVerdict {
		t.Fatalf("disk check --capacity %v: exit %d\n%s", args, o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || doc.Capacity == nil {
		t.Fatalf("disk check --capacity %v: %v\n%s", args, err, o.stdout)
	}
	checkExit(t, doc, o.code)
	return doc.Capacity
}

// h2wFiles are the .h2w files in dir.
func h2wFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, e := range entries(t, dir) {
		if strings.HasSuffix(e, ".h2w") {
			out = append(out, e)
		}
	}
	return out
}

// sameCounts compares thruput's counts per file and in all with f3read's.
func sameCounts(t *testing.T, what string, c *result.Capacity, f3Files map[int]result.SectorCounts, f3All result.SectorCounts) {
	t.Helper()
	if c.Sectors != f3All {
		t.Errorf("%s: thruput counts %+v, f3read %+v", what, c.Sectors, f3All)
	}
	if len(c.Files) != len(f3Files) {
		t.Errorf("%s: thruput read %d files, f3read %d", what, len(c.Files), len(f3Files))
	}
	for _, f := range c.Files {
		if f.Sectors != f3Files[f.Number] {
			t.Errorf("%s: %d.h2w: thruput %+v, f3read %+v", what, f.Number, f.Sectors, f3Files[f.Number])
		}
	}
}

// TestCapacityGenuine: on genuine loop devices with ext4 and with vfat,
// the fill reads back all good, fills the free space, and leaves nothing;
// f3read verifies thruput's files with exactly thruput's counts, and
// thruput verifies f3write's with exactly f3read's.
func TestCapacityGenuine(t *testing.T) {
	t.Parallel()
	fstest.RequireRoot(t)
	f3write := f3Tool(t, "f3write")
	for _, kind := range []string{"ext4", "vfat"} {
		t.Run(kind, func(t *testing.T) {
			mnt := fstest.Mount(t, kind, 64<<20)
			before := entries(t, mnt)
			c := capacityJSON(t, mnt)
			if c.Pass == nil || !*c.Pass || !strings.HasPrefix(c.Verdict, "genuine") || c.Sectors.Lost() != 0 || c.Kept {
				t.Errorf("pass %v, verdict %q, sectors %+v, kept %v", c.Pass, c.Verdict, c.Sectors, c.Kept)
			}
			// The fill takes the free space less what the filesystem
			// needs for the file's own blocks.
			if c.UsableBytes != c.Write.Bytes || c.Write.Bytes != c.Read.Bytes || c.Write.Bytes < c.FreeBytes*9/10 || c.Write.Bytes > c.FreeBytes {
				t.Errorf("usable %d, written %d, read %d, free before %d", c.UsableBytes, c.Write.Bytes, c.Read.Bytes, c.FreeBytes)
			}
			if len(c.Files) != 1 || c.Files[0].Number != 1 || c.Write.MiBPerSec <= 0 || c.Read.MiBPerSec <= 0 || len(c.Write.OverTime) == 0 {
				t.Errorf("files %+v, write %+v, read %+v", c.Files, c.Write, c.Read)
			}
			if got := entries(t, mnt); !slices.Equal(got, before) {
				t.Errorf("left %v, had %v", got, before)
			}

			c = capacityJSON(t, mnt, "--keep")
			if !c.Kept || len(h2wFiles(t, mnt)) != 1 {
				t.Fatalf("--keep: kept %v, files %v", c.Kept, h2wFiles(t, mnt))
			}
			files, all := f3Read(t, mnt)
			sameCounts(t, "thruput's files", c, files, all)
			if all.OK*512 != c.UsableBytes {
				t.Errorf("f3read's Data OK %d sectors, thruput's usable %d bytes", all.OK, c.UsableBytes)
			}
			for _, f := range h2wFiles(t, mnt) {
				if err := os.Remove(filepath.Join(mnt, f)); err != nil {
					t.Fatal(err)
				}
			}

			if out, err := exec.Command(f3write, mnt).CombinedOutput(); err != nil {
				t.Fatalf("f3write: %v\n%s", err, out)
			}
			files, all = f3Read(t, mnt)
			c = capacityJSON(t, mnt, "--verify-only")
			sameCounts(t, "f3write's files", c, files, all)
			if c.Pass == nil || !*c.Pass || c.Write != nil || !c.Kept || len(h2wFiles(t, mnt)) == 0 {
				t.Errorf("f3write's files: pass %v, write %+v, kept %v, files left %v", c.Pass, c.Write, c.Kept, h2wFiles(t, mnt))
			}
		})
	}
}

// TestCapacityClasses: sectors changed in a kept file are classed as
// f3read classes them: two words off is changed, three corrupted, and
// sectors holding another place's data overwritten, with that place.
func TestCapacityClasses(t *testing.T) {
	t.Parallel()
	fstest.RequireRoot(t)
	mnt := fstest.Mount(t, "ext4", 32<<20)
	capacityJSON(t, mnt, "--keep")
	path := filepath.Join(mnt, "1.h2w")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(sector int64, words ...int64) {
		for _, w := range words {
			b := make([]byte, 1)
			off := sector*512 + w*8 + 3
			if _, err := f.ReadAt(b, off); err != nil {
				t.Fatal(err)
			}
			b[0] ^= 0x5a
			if _, err := f.WriteAt(b, off); err != nil {
				t.Fatal(err)
			}
		}
	}
	flip(10, 1, 40)    // changed
	flip(20, 2, 3, 63) // corrupted
	first := make([]byte, 4*512)
	if _, err := f.ReadAt(first, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(first, 30*512); err != nil { // sectors 30-33 hold 0-3
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c := capacityJSON(t, mnt, "--verify-only")
	want := result.SectorCounts{Changed: 1, Corrupted: 1, Overwritten: 4}
	want.OK = c.Files[0].Bytes/512 - want.Lost()
	if c.Sectors != want {
		t.Errorf("counts %+v, want %+v", c.Sectors, want)
	}
	if len(c.Aliases) != 1 || c.Aliases[0] != (result.CapacityAlias{At: 30 * 512, Holds: 0, Sectors: 4}) {
		t.Errorf("aliases %+v", c.Aliases)
	}
	if c.Pass == nil || *c.Pass || !strings.HasPrefix(c.Verdict, "FAIL: fake: 2.0 KiB of the") {
		t.Errorf("pass %v, verdict %q", c.Pass, c.Verdict)
	}
	files, all := f3Read(t, mnt)
	sameCounts(t, "a changed file", c, files, all)
}

// TestCapacityRefuses: as root, the targets --capacity refuses: a tmpfs
// (no card behind it), a read-only mount, a full filesystem, a directory
// holding .h2w files it did not make, and --verify-only with none to
// read. Each is exit 2 with the reason, and nothing is written or
// removed.
func TestCapacityRefuses(t *testing.T) {
	fstest.RequireRoot(t)
	tmp := fstest.Tmpfs(t, 8<<20)
	o := thruput(t, "disk", "check", "--capacity", tmp)
	if o.code != 2 || !strings.Contains(o.stderr, "is on tmpfs: its files are in memory, with no card or disk behind them, so there is no capacity to check") {
		t.Errorf("tmpfs: exit %d, %q", o.code, o.stderr)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("tmpfs: left %v", left)
	}

	mnt := fstest.Mount(t, "ext4", 16<<20)
	if err := os.WriteFile(filepath.Join(mnt, "2.h2w"), []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	o = thruput(t, "disk", "check", "--capacity", mnt)
	if o.code != 2 || !strings.Contains(o.stderr, mnt+" already holds 2.h2w: thruput does not write over files it did not make") {
		t.Errorf("an f3 file there: exit %d, %q", o.code, o.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "2.h2w")); err != nil || string(b) != "theirs" || len(h2wFiles(t, mnt)) != 1 {
		t.Errorf("2.h2w now %q, %v; files %v", b, err, h2wFiles(t, mnt))
	}
	o = thruput(t, "disk", "check", "--capacity", "--verify-only", "--start-at", "3", mnt)
	if o.code != 2 || !strings.Contains(o.stderr, "holds no .h2w files from 3.h2w on: nothing to verify") {
		t.Errorf("nothing to verify: exit %d, %q", o.code, o.stderr)
	}
	// From file 3 on, 2.h2w is out of the range and left alone.
	c := capacityJSON(t, mnt, "--start-at", "3")
	if c.Pass == nil || !*c.Pass || c.Files[0].Number != 3 || !slices.Equal(h2wFiles(t, mnt), []string{"2.h2w"}) {
		t.Errorf("--start-at 3: pass %v, files %+v, left %v", c.Pass, c.Files, h2wFiles(t, mnt))
	}

	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v %s", err, out)
	}
	o = thruput(t, "disk", "check", "--capacity", mnt)
	if o.code != 2 || !strings.Contains(o.stderr, "read-only") {
		t.Errorf("read-only: exit %d, %q", o.code, o.stderr)
	}

	full := fstest.Mount(t, "ext4", 16<<20)
	fillUp(t, full, 0)
	before := entries(t, full)
	o = thruput(t, "disk", "check", "--capacity", full)
	if o.code != 2 || !strings.Contains(o.stderr, "free: the filesystem is full, there is nothing to fill") {
		t.Errorf("full: exit %d, %q", o.code, o.stderr)
	}
	if got := entries(t, full); !slices.Equal(got, before) {
		t.Errorf("full: left %v, had %v", got, before)
	}
}

// TestCapacityInterrupt: SIGINT or SIGTERM midway through the fill
// stops the run, which removes its files (or with --keep keeps the whole
// ones, none here) and says how to go on. The card is a genuine but slow
// one, so the signal lands while the fill goes on.
func TestCapacityInterrupt(t *testing.T) {
	t.Parallel()
	card := fakecard.Start(t, fakecard.Options{Announced: 64 << 20, Real: 64 << 20, Latency: 10 * time.Millisecond})
	mnt := fakeFS(t, card, "ext4")
	before := entries(t, mnt)
	// The fill writes the card's 64 MiB into the page cache in a moment
	// and then waits in fdatasync for the slow card; ctx is looked at
	// while writing, not in fdatasync. A signal that lands there finds
	// 1.h2w whole: --keep then keeps it and says to read it (done), as it
	// should. Which of the two a run meets depends on the machine's speed
	// (CI met the second once), so both are judged by what they say and
	// leave.
	for _, c := range []struct {
		sig  syscall.Signal
		keep bool
		msg  string
		done string
	}{
		{syscall.SIGINT, false, "interrupted: its files were removed (a run with --keep keeps them, to go on with --start-at)", ""},
		{syscall.SIGTERM, true, "interrupted: 0 whole files are kept in " + mnt + "; to go on filling: --start-at 1 --keep",
			"interrupted: the files are kept in " + mnt + "; to read them: --verify-only"},
	} {
		args := []string{"disk", "check", "--capacity", mnt, "--no-health"}
		if c.keep {
			args = append(args, "--keep")
		}
		cmd := exec.Command(thruputBin, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if fi, err := os.Stat(filepath.Join(mnt, "1.h2w")); err == nil && fi.Size() > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v: 1.h2w did not grow; stderr %q", c.sig, stderr.String())
			}
		}
		time.Sleep(midRun)
		_ = cmd.Process.Signal(c.sig)
		_ = cmd.Wait()
		want := before
		if c.done != "" && strings.Contains(stderr.String(), c.done) {
			t.Logf("%v: the fill had written 1.h2w whole: %s", c.sig, c.done)
			c.msg, want = c.done, slices.Sorted(slices.Values(append([]string{"1.h2w"}, before...)))
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.sig, code, stderr.String(), c.msg)
		}
		if !strings.Contains(stdout.String(), "Run interrupted") {
			t.Errorf("%v: what was measured is not printed:\n%s", c.sig, stdout.String())
		}
		if got := entries(t, mnt); !slices.Equal(got, want) {
			t.Errorf("%v: left %v, want %v", c.sig, got, want)
		}
	}
}

// fillUp fills the filesystem under dir with one file, up to leave bytes
// of its free blocks (the reserved ones too: the tests run as root).
func fillUp(t *testing.T, dir string, leave int64) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// ext4 needs blocks of its own to map the file: step down until it
	// fits.
	for size := int64(st.Bfree)*int64(st.Bsize) - leave; ; size -= 4096 {
		if size <= 0 {
			t.Fatalf("fillUp %s: nothing could be allocated", dir)
		}
		if unix.Fallocate(int(f.Fd()), 0, 0, size) == nil {
			return
		}
	}
}

// fakeFS makes a filesystem of kind (ext4, or vfat served by fusefat as
// fstest serves it) on the card and mounts it; both go when the test
// ends.
func fakeFS(t *testing.T, card *fakecard.Card, kind string) string {
	t.Helper()
	mnt := fstest.MountPoint(t)
	switch kind {
	case "ext4":
		// mkfs.ext4's default layout puts a backup superblock at 128 MiB
		// and the journal in the middle of the device: on a card keeping
		// 64 or 128 MiB they wrap onto the primary superblock, and the
		// result does not mount (tried). With no backups, no reserved
		// descriptor blocks and the journal at 16 MiB, every structure
		// is in the first 32 MiB, as a fake's FAT is, and the fill is
		// what meets the wrap. The inode tables and the journal are
		// zeroed by mkfs, not by the kernel's lazy init after the mount:
		// that wrote up to 16 MiB onto the wrapped sectors while thruput
		// and f3read read them (their OK counts 16.01 MiB apart once;
		// 12 KiB without it).
		fstest.MustExec(t, time.Minute, "mkfs.ext4", "-q", "-F", "-O", "sparse_super2,^resize_inode", "-E", "num_backup_sb=0,lazy_itable_init=0,lazy_journal_init=0",
			"-J", "size=8,location=16M", card.Device)
		fstest.MustExec(t, time.Minute, "mount", "-t", "ext4", card.Device, mnt)
	case "vfat":
		fstest.MustExec(t, time.Minute, "mkfs.vfat", card.Device)
		fstest.MustExec(t, time.Minute, "fusefat", "-o", "rw+", card.Device, mnt)
	default:
		t.Fatalf("fakeFS: no %s", kind)
	}
	return mnt
}

// TestCapacityFakeCard: issue 37's fake, a card announcing 1 GiB and
// keeping 128 MiB, whose writes past that wrap onto its start, with ext4
// and with vfat made on it (about 6 and 17 s here: the card's store is
// sparse, and a GiB crosses FUSE). thruput's verdict is FAIL with a usable
// size under the real one, and f3read on the same files agrees. The fill
// wrecks the filesystem itself, as it does on a real fake: on ext4 the
// journal and bitmaps live in the same 128 MiB as the wrapped sectors and
// are written again after thruput read them, so f3read's counts moments
// later differ by those sectors (seen: 2 MiB of 126; bounded here by twice
// the 8 MiB journal); on vfat, once the caches are dropped, fusefat finds
// its directory or FAT overwritten and neither tool reads any of 1.h2w
// back.
func TestCapacityFakeCard(t *testing.T) {
	t.Parallel()
	const real = 128 << 20
	for _, kind := range []string{"ext4", "vfat"} {
		t.Run(kind, func(t *testing.T) {
			card := fakecard.Start(t, fakecard.Options{Announced: 1 << 30, Real: real, Mode: fakecard.ModeWrap})
			mnt := fakeFS(t, card, kind)
			args := []string{"disk", "check", "--capacity", "--json", "--no-health", "-q", "--keep", mnt}
			if kind == "vfat" {
				// fusefat reads the card through the device's page cache,
				// where the fill still sits; f3's advice is to unplug the
				// card between f3write and f3read.
				args = append(args, "--drop-caches")
			}
			start := time.Now()
			o := thruput(t, args...)
			took := time.Since(start)
			doc, err := result.Read(strings.NewReader(o.stdout))
			if err != nil || doc.Capacity == nil || o.code != exitVerdict {
				t.Fatalf("exit %d (want 3, a FAIL verdict), %v\n%s\n%s", o.code, err, o.stderr, o.stdout)
			}
			c := doc.Capacity
			t.Logf("%s: thruput in %v: %s; free %d, written %d, sectors %+v, %d overwritten runs, first %+v",
				kind, took.Round(time.Millisecond), c.Verdict, c.FreeBytes, c.Write.Bytes, c.Sectors, int64(len(c.Aliases))+c.MoreAliases, c.Aliases[:min(1, len(c.Aliases))])
			if c.Pass == nil || *c.Pass || !strings.HasPrefix(c.Verdict, "FAIL: ") || c.UsableBytes >= real || c.Write.Bytes < 400<<20 {
				t.Errorf("pass %v, verdict %q, usable %d of %d real, written %d", c.Pass, c.Verdict, c.UsableBytes, real, c.Write.Bytes)
			}
			if kind == "vfat" {
				fstest.MustExec(t, time.Minute, "blockdev", "--flushbufs", card.Device)
			}
			start = time.Now()
			files, all := f3Read(t, mnt)
			t.Logf("%s: f3read in %v: %+v", kind, time.Since(start).Round(time.Millisecond), all)
			switch kind {
			case "ext4":
				if all.OK*512 >= real || all.Lost() == 0 || math.Abs(float64(all.OK-c.Sectors.OK))*512 > 16<<20 ||
					all.OK+all.Lost() != c.Sectors.OK+c.Sectors.Lost() || len(files) != 1 {
					t.Errorf("f3read %+v, thruput %+v", all, c.Sectors)
				}
				if !strings.HasPrefix(c.Verdict, "FAIL: fake: ") || c.Sectors.Overwritten == 0 {
					t.Errorf("ext4: verdict %q", c.Verdict)
				}
			case "vfat":
				if all.OK != 0 || len(c.Files) != 1 || c.Files[0].ReadError == "" || c.Sectors.OK != 0 {
					t.Errorf("f3read files %v, %+v; thruput files %+v", files, all, c.Files)
				}
			}
		})
	}
}

// TestCapacityResume: a fill cut at --end-at 1 and gone on with
// --start-at 2, as a stopped --keep run is, makes the two files f3write
// would (1.h2w of exactly 1 GiB, 2.h2w from 1 GiB of the fill on), which
// f3read verifies with thruput's counts, and --verify-only reads both.
// The filesystem is a little over 1 GiB: file 2's offsets are the point.
func TestCapacityResume(t *testing.T) {
	t.Parallel()
	fstest.RequireRoot(t)
	mnt := fstest.Mount(t, "ext4", 1100<<20)
	first := capacityJSON(t, mnt, "--end-at", "1", "--keep")
	if len(first.Files) != 1 || first.Files[0].Bytes != 1<<30 || first.Pass == nil || !*first.Pass {
		t.Fatalf("--end-at 1: files %+v, verdict %q", first.Files, first.Verdict)
	}
	second := capacityJSON(t, mnt, "--start-at", "2", "--keep")
	if len(second.Files) != 1 || second.Files[0].Number != 2 || second.Files[0].Bytes == 0 || second.Pass == nil || !*second.Pass {
		t.Fatalf("--start-at 2: files %+v, verdict %q", second.Files, second.Verdict)
	}
	all := capacityJSON(t, mnt, "--verify-only")
	if len(all.Files) != 2 || all.Sectors.Lost() != 0 || all.UsableBytes != first.UsableBytes+second.UsableBytes {
		t.Errorf("--verify-only: files %+v, sectors %+v", all.Files, all.Sectors)
	}
	files, counts := f3Read(t, mnt)
	sameCounts(t, "two files", all, files, counts)
}
