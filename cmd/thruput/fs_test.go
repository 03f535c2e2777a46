package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

// TestSweepRealFilesystems runs one sweep across every filesystem the dd
// loop comparisons of SD cards and USB sticks use (ext4, vfat, NTFS, exFAT,
// btrfs ...) and a few more, each real: kernel drivers on loop devices, FUSE
// daemons for vfat, NTFS and exFAT, and a tmpfs.
func TestSweepRealFilesystems(t *testing.T) {
	fstest.RequireRoot(t)
	// exFAT is left out here: its FUSE daemon needs a loop device, and the
	// five kernel filesystems already hold fstest.MaxLoopDevices of them.
	kinds := slices.DeleteFunc(fstest.Kinds(), func(k string) bool { return k == "exfat" })
	var dirs []string
	for _, k := range kinds {
		dirs = append(dirs, fstest.Mount(t, k, 64<<20))
	}
	args := append([]string{"--sizes", "8,512,4k,64k,1M", "--file-size", "2M", "--max-time", "1s"}, dirs...)
	doc := sweepJSON(t, args...)

	if len(doc.Targets) != len(kinds) {
		t.Fatalf("%d targets, want %d", len(doc.Targets), len(kinds))
	}
	for i, tg := range doc.Targets {
		if tg.FSType == "" || tg.MountPoint != dirs[i] {
			t.Errorf("%s: target %+v", kinds[i], tg)
		}
		if !strings.Contains(tg.FSType, kinds[i]) && !strings.HasPrefix(tg.FSType, "fuse") {
			t.Errorf("%s mount reported as %q", kinds[i], tg.FSType)
		}
	}
	if got, want := len(doc.Sweep.Steps), len(kinds)*5*2; got != want {
		t.Fatalf("%d steps, want %d", got, want)
	}
	for _, s := range doc.Sweep.Steps {
		kind := kinds[s.Target]
		if s.Bytes <= 0 || s.Ops <= 0 || s.MiBPerSec <= 0 || s.Bytes%s.BlockSize != 0 {
			t.Errorf("%s %s bs=%d: %+v", kind, s.Phase, s.BlockSize, s)
		}
		if s.Phase != result.PhaseRead {
			continue
		}
		switch kind {
		case "tmpfs":
			if s.Cache != result.CacheCached {
				t.Errorf("tmpfs read bs=%d not marked as a cache read: %q", s.BlockSize, s.Cache)
			}
		default:
			// Loop devices and FUSE daemons read an image through a second
			// cache that only --drop-caches reaches: the figure must say so.
			if s.Cache != result.CacheUncertain {
				t.Errorf("%s read bs=%d: cache %q after eviction, want uncertain", kind, s.BlockSize, s.Cache)
			}
		}
	}

	// The table is the dd loop comparison's: a row per block size, a column
	// per filesystem.
	var buf bytes.Buffer
	if err := report.Write(&buf, doc, report.Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	for _, title := range []string{"Write, MiB/s", "Read, MiB/s"} {
		i := indexPrefix(lines, title)
		if i < 0 {
			t.Fatalf("no %q table:\n%s", title, buf.String())
		}
		header := strings.Fields(lines[i+1])
		for j, tg := range doc.Targets {
			if header[1+j] != strings.TrimPrefix(tg.FSType, "fuse.") {
				t.Errorf("%s header %q: column %d is not %q", title, lines[i+1], 1+j, tg.FSType)
			}
		}
		for j, bs := range []string{"8", "512", "4k", "64k", "1M"} {
			cells := tableCells(lines[i+2+j])
			if cells[0] != bs || len(cells) != 1+len(kinds) {
				t.Errorf("%s row %q: want block %s and %d figures", title, lines[i+2+j], bs, len(kinds))
			}
		}
	}
	t.Logf("\n%s", buf.String())
	for _, d := range dirs {
		fstest.AssertNoScratch(t, d)
	}
}

// tableCells splits a table row into its cells: a figure's interval
// ("0.1 ±0.2+") belongs to the figure before it.
func tableCells(row string) []string {
	var cells []string
	for _, f := range strings.Fields(row) {
		if strings.HasPrefix(f, "±") && len(cells) > 0 {
			cells[len(cells)-1] += " " + f
			continue
		}
		cells = append(cells, f)
	}
	return cells
}

func indexPrefix(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// TestFilesystemFillsUp: the second target fills up mid-run. The error names
// the target and step, the first target's results are kept, nothing is left.
func TestFilesystemFillsUp(t *testing.T) {
	fstest.RequireRoot(t)
	roomy := fstest.Tmpfs(t, 64<<20)
	tiny := fstest.Mount(t, "ext4", fstest.MinSize("ext4"))
	o := thruput(t, "disk", "sweep", roomy, tiny, "--sizes", "64k,1M", "--file-size", "48M",
		"--skip-space-check", "--json", "-q")
	if o.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", o.code, o.stderr)
	}
	for _, want := range []string{tiny, "write at block size 64k", "no space left on device"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr %q lacks %q", o.stderr, want)
		}
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil {
		t.Fatalf("partial result unreadable: %v\n%s", err, o.stdout)
	}
	if doc.Status != result.StatusPartial || !strings.Contains(doc.Error, "no space left") || len(doc.Sweep.Steps) != 4 {
		t.Errorf("status %q error %q steps %d; want partial, ENOSPC and the 4 steps of the first target", doc.Status, doc.Error, len(doc.Sweep.Steps))
	}
	for _, s := range doc.Sweep.Steps {
		if s.Target != 0 {
			t.Errorf("a step of the full target was kept: %+v", s)
		}
	}
	fstest.AssertNoScratch(t, roomy)
	fstest.AssertNoScratch(t, tiny)

	// With O_DIRECT the 1 MiB writes would go through native AIO into a
	// file allocated ahead; there is no room to, and the plain writes
	// fill the filesystem up the same way.
	o = thruput(t, "disk", "sweep", tiny, "--direct", "--sizes", "1M", "--file-size", "48M", "--skip-space-check", "--json", "-q")
	if o.code != 1 || !strings.Contains(o.stderr, "write at block size 1M") || !strings.Contains(o.stderr, "no space left on device") {
		t.Errorf("--direct: exit %d, stderr %q; want 1 and no space left at block size 1M", o.code, o.stderr)
	}
	fstest.AssertNoScratch(t, tiny)

	// Without --skip-space-check the same run is refused before it starts.
	o = thruput(t, "disk", "sweep", tiny, "--file-size", "48M")
	if o.code != 2 || !strings.Contains(o.stderr, "not enough free space: need 64.0 MiB") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
	fstest.AssertNoScratch(t, tiny)
}

func TestReadOnlyMount(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Tmpfs(t, 16<<20)
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v %s", err, out)
	}
	o := thruput(t, "disk", "sweep", dir)
	if o.code != 2 || !strings.Contains(o.stderr, "read-only filesystem") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestDirectRealFilesystems: with --direct the 1 MiB blocks go through
// native AIO into a file allocated ahead where the filesystem allows it
// (ext4, XFS, btrfs) and through write(2) where it does not (ext2 and ext3,
// the FUSE daemons'); every step moves its whole file either way, in its blocks,
// and the read finds the file as long as the write left it. tmpfs has no
// device for O_DIRECT to reach: exit 2, saying so.
func TestDirectRealFilesystems(t *testing.T) {
	fstest.RequireRoot(t)
	for _, kind := range fstest.Kinds() {
		t.Run(kind, func(t *testing.T) {
			dir := fstest.Mount(t, kind, max(64<<20, fstest.MinSize(kind)))
			if kind == "tmpfs" {
				o := thruput(t, "disk", "sweep", dir, "--direct", "--bs", "1M", "--file-size", "8M")
				if o.code != 2 || !strings.Contains(o.stderr, "--direct: "+dir+" is tmpfs, which keeps files in memory") {
					t.Errorf("exit %d, stderr %q; want 2 and tmpfs refused", o.code, o.stderr)
				}
				fstest.AssertNoScratch(t, dir)
				return
			}
			doc := sweepJSON(t, dir, "--direct", "--bs", "4k,1M", "--file-size", "8M")
			if len(doc.Sweep.Steps) != 4 {
				t.Fatalf("%d steps, want 4", len(doc.Sweep.Steps))
			}
			for _, s := range doc.Sweep.Steps {
				if s.Bytes != 8<<20 || s.Ops != 8<<20/s.BlockSize || s.Truncated || s.MiBPerSec <= 0 {
					t.Errorf("%s bs=%d: %d bytes in %d calls, truncated %v, %.1f MiB/s; want 8 MiB in %d calls",
						s.Phase, s.BlockSize, s.Bytes, s.Ops, s.Truncated, s.MiBPerSec, 8<<20/s.BlockSize)
				}
			}
			fstest.AssertNoScratch(t, dir)
		})
	}
}

// TestDirectStopsEarly: a --direct write that reaches --max-time long
// before its file's end leaves a file as long as what it wrote, though
// the file was allocated at its full size first: the read after it finds
// that much, and no unwritten tail to read as zeros. Writes go through a
// throttle of 4 MiB/s, so the write stops at about 4 MiB of 64; reads
// are not held back, so the read takes the whole file within its second.
func TestDirectStopsEarly(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", 128<<20)
	th := fstest.NewThrottle(t, dir)
	th.Set(t, 0, 4<<20)
	doc, _, _ := throttled(t, th, "disk", "sweep", dir, "--direct", "--bs", "1M", "--file-size", "64M", "--max-time", "1s")
	if len(doc.Sweep.Steps) != 2 {
		t.Fatalf("%d steps, want a write and a read", len(doc.Sweep.Steps))
	}
	w, r := doc.Sweep.Steps[0], doc.Sweep.Steps[1]
	if !w.Truncated || w.Bytes <= 0 || w.Bytes >= 32<<20 {
		t.Errorf("write: %d bytes, truncated %v; want stopped early, at about 4 MiB", w.Bytes, w.Truncated)
	}
	if r.Bytes != w.Bytes || r.Truncated {
		t.Errorf("read: %d bytes, truncated %v; want the %d bytes written, the whole file", r.Bytes, r.Truncated, w.Bytes)
	}
	fstest.AssertNoScratch(t, dir)
}

// TestDirectAndDropCaches covers the root-only paths on a kernel filesystem.
func TestDirectAndDropCaches(t *testing.T) {
	fstest.RequireRoot(t)
	dir := fstest.Mount(t, "ext4", 64<<20)
	doc := sweepJSON(t, dir, "--direct", "--drop-caches", "--sizes", "4k,1M", "--file-size", "4M")
	for _, s := range doc.Sweep.Steps {
		if s.Bytes != 4<<20 {
			t.Errorf("direct %s bs=%d moved %d bytes", s.Phase, s.BlockSize, s.Bytes)
		}
		if s.Phase == result.PhaseRead && (s.Eviction != "fadvise+drop_caches" || s.Cache != result.CacheCold) {
			t.Errorf("read bs=%d: eviction %q cache %q", s.BlockSize, s.Eviction, s.Cache)
		}
	}
	if !doc.Sweep.Parameters.Direct || !doc.Sweep.Parameters.DropCaches {
		t.Errorf("parameters not recorded: %+v", doc.Sweep.Parameters)
	}
	o := thruput(t, "disk", "sweep", dir, "--direct", "--sizes", "8,4k", "--file-size", "4M")
	if o.code != 2 || !strings.Contains(o.stderr, "block size 8 B") {
		t.Errorf("--direct with 8 B blocks: exit %d, stderr %q", o.code, o.stderr)
	}
	fstest.AssertNoScratch(t, dir)
}

// TestCrossBuilds builds the static binary for every platform thruput ships
// for, and runs the ARM ones under qemu-user on a tmpfs. The platforms go
// two at a time (-parallel), each on a tmpfs of its own: on a fresh
// machine a build compiles every package for its platform, and one build
// alone keeps two CPUs busy only part of the time.
func TestCrossBuilds(t *testing.T) {
	fstest.RequireRoot(t)
	bins := t.TempDir()
	for _, p := range []struct {
		arch, arm, qemu, platform string
	}{
		{"arm", "6", "qemu-arm-static", "linux/arm/v6"},
		{"arm", "7", "", ""},
		{"arm64", "", "qemu-aarch64-static", "linux/arm64"},
		{"riscv64", "", "", ""},
		{"amd64", "", "", ""},
	} {
		t.Run(p.arch+p.arm, func(t *testing.T) {
			t.Parallel()
			// TestMain's build is this machine's: only the other
			// platforms are built here.
			bin := thruputBin
			if p.arch != runtime.GOARCH || p.arm != "" {
				bin = filepath.Join(bins, "thruput-"+p.arch+p.arm)
				build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
				build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+p.arch, "GOARM="+p.arm)
				if out, err := build.CombinedOutput(); err != nil {
					t.Fatalf("build: %v\n%s", err, out)
				}
			}
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, prog := range f.Progs {
				if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
					t.Errorf("%s is not static: has %v", bin, prog.Type)
				}
			}
			if p.qemu == "" {
				return
			}
			dir := fstest.Tmpfs(t, 32<<20)
			if _, err := exec.LookPath(p.qemu); err != nil {
				t.Fatalf("%s not installed (make setup installs qemu-user-static)", p.qemu)
			}
			// -cpu arm1176 is the Pi 1 and Zero's core: an ARMv7
			// instruction would stop the run.
			qemu := []string{bin}
			if p.arm == "6" {
				qemu = []string{"-cpu", "arm1176", bin}
			}
			out, err := exec.Command(p.qemu, append(qemu, "disk", "sweep", dir, "--sizes", "8,4k,1M", "--file-size", "1M",
				"--max-time", "2s", "--json", "-q")...).Output()
			if err != nil {
				t.Fatalf("%s sweep: %v", p.arch, err)
			}
			doc, err := result.Read(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("invalid JSON from %s: %v\n%s", p.arch, err, out)
			}
			if doc.Tool.Platform != p.platform || doc.Status != result.StatusOK || len(doc.Sweep.Steps) != 6 {
				t.Errorf("%s: platform %q status %q steps %d", p.arch, doc.Tool.Platform, doc.Status, len(doc.Sweep.Steps))
			}
			// Positioned reads and writes pass their 64-bit offset
			// differently on 32-bit ARM: a verified random write and a
			// random mix must land where they were aimed. qemu-user has no
			// io_uring, so this is also the fallback to the sync engine.
			out, err = exec.Command(p.qemu, append(qemu, "disk", "io", dir, "--rw", "randwrite", "--verify", "--size", "2M",
				"--direct=false", "--json", "-q")...).Output()
			if doc, rerr := result.Read(bytes.NewReader(out)); err != nil || rerr != nil || doc.IO.Verify == nil || doc.IO.Verify.Errors != 0 || doc.IO.Engine != "sync" {
				t.Errorf("%s io --verify: %v %v\n%s", p.arch, err, rerr, out)
			}
			out, err = exec.Command(p.qemu, bin, "disk", "random", dir, "--files", "2", "--total-size", "2M", "--bs", "4k",
				"--requests", "500", "--json", "-q").Output()
			if doc, rerr := result.Read(bytes.NewReader(out)); err != nil || rerr != nil || doc.Random.Reads+doc.Random.Writes != 500 {
				t.Errorf("%s random: %v %v\n%s", p.arch, err, rerr, out)
			}
			fstest.AssertNoScratch(t, dir)
		})
	}
}
