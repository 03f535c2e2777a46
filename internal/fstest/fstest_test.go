package fstest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/exectest"
)

func TestMain(m *testing.M) { Main(m) }

// fakeTB records failures instead of failing the real test, so that the
// failure paths of setup and cleanup can be exercised. Everything else goes
// to the real test.
type fakeTB struct {
	testing.TB
	name string

	mu       sync.Mutex
	cleanups []func()
	errs     []string
	skipped  bool
}

func newFakeTB(t *testing.T, name string) *fakeTB {
	return &fakeTB{TB: t, name: t.Name() + "/" + name}
}

func (f *fakeTB) Name() string { return f.name }
func (f *fakeTB) Helper()      {}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.TB.Logf("[%s] %s", f.name, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Log(args ...any) { f.Logf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Error(args ...any)                 { f.Errorf("%s", fmt.Sprint(args...)) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }
func (f *fakeTB) Fatal(args ...any)                 { f.Error(args...); runtime.Goexit() }
func (f *fakeTB) Fail()                             { f.Errorf("Fail called") }
func (f *fakeTB) FailNow()                          { f.Fail(); runtime.Goexit() }
func (f *fakeTB) SkipNow()                          { f.skipped = true; runtime.Goexit() }
func (f *fakeTB) Skip(args ...any)                  { f.SkipNow() }
func (f *fakeTB) Skipf(format string, args ...any)  { f.SkipNow() }
func (f *fakeTB) Skipped() bool                     { return f.skipped }

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errs) > 0
}

// run runs body like a test function and then the cleanups in reverse
// order, each on its own goroutine so that Fatal can Goexit out of it.
func (f *fakeTB) run(body func(testing.TB)) {
	inGoroutine := func(fn func()) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			fn()
		}()
		<-done
	}
	inGoroutine(func() { body(f) })
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		inGoroutine(f.cleanups[i])
	}
}

func (f *fakeTB) errors() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errs, "\n---\n")
}

// wantMountInfo returns what /proc/self/mountinfo should show for a kind; image
// and loop are the mount's image file and loop device.
func wantMountInfo(kind, image, loop string) (fsType, source string) {
	switch kind {
	case "tmpfs":
		return "tmpfs", tmpfsSource
	case "vfat":
		return "fuse.fusefat", "fusefat"
	case "ntfs":
		return "fuse", image
	case "exfat":
		return "fuseblk", loop
	default:
		return kind, loop
	}
}

func TestMount(t *testing.T) {
	RequireRoot(t)
	const size = 16 * MiB
	var mu sync.Mutex
	mounts := map[string]string{}
	procDirs := map[string]bool{}
	start := time.Now()
	t.Run("kind", func(t *testing.T) {
		for _, kind := range Kinds() {
			t.Run(kind, func(t *testing.T) {
				t.Parallel()
				var teardownStart time.Time
				t.Cleanup(func() { t.Logf("teardown took %v", time.Since(teardownStart).Round(time.Millisecond)) })
				setupStart := time.Now()
				mnt := Mount(t, kind, size)
				t.Cleanup(func() { teardownStart = time.Now() })
				t.Logf("setup took %v", time.Since(setupStart).Round(time.Millisecond))
				mu.Lock()
				mounts[kind] = mnt
				mu.Unlock()

				// A real, separate filesystem, and not the directory below it.
				var st, parentSt syscall.Stat_t
				if err := syscall.Stat(mnt, &st); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Stat(filepath.Dir(mnt), &parentSt); err != nil {
					t.Fatal(err)
				}
				if st.Dev == parentSt.Dev {
					t.Errorf("%s is on the same device as its parent directory", mnt)
				}

				want := []byte("thruput fstest " + kind + "\n")
				name := filepath.Join(mnt, "hello.txt")
				if err := os.WriteFile(name, want, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("read back %q, want %q", got, want)
				}

				image := filepath.Join(filepath.Dir(mnt), "image")
				var loop string
				if kind != "tmpfs" {
					fi, err := os.Stat(image)
					if err != nil {
						t.Fatal(err)
					}
					if want := max(size, MinSize(kind)); fi.Size() != want {
						t.Errorf("image is %d bytes, want %d", fi.Size(), want)
					}
					loops, err := loopsBackedBy(image)
					if err != nil {
						t.Fatal(err)
					}
					if specs[kind].loop != (len(loops) == 1) {
						t.Errorf("loop devices on %s: %v, want loop=%v", image, loops, specs[kind].loop)
					}
					if len(loops) > 0 {
						loop = loops[0].Dev
					}
				} else {
					var sfs syscall.Statfs_t
					if err := syscall.Statfs(mnt, &sfs); err != nil {
						t.Fatal(err)
					}
					if got := int64(sfs.Blocks) * int64(sfs.Bsize); got != size {
						t.Errorf("tmpfs size is %d, want %d", got, size)
					}
				}

				e, ok, err := mountAt(mnt)
				if err != nil || !ok {
					t.Fatalf("%s not in mountinfo (err %v)", mnt, err)
				}
				t.Logf("mountinfo: %s", e.Line)
				wantType, wantSource := wantMountInfo(kind, image, loop)
				if e.FSType != wantType || e.Source != wantSource {
					t.Errorf("mountinfo fstype %q source %q, want %q %q", e.FSType, e.Source, wantType, wantSource)
				}

				loops, err := attachedLoops()
				if err != nil {
					t.Fatal(err)
				}
				procDir, _ := ownedDir(tempBase(), mnt)
				mu.Lock()
				procDirs[procDir] = true
				mu.Unlock()
				n := 0
				for _, l := range loops {
					if within(l.Backing, procDir) {
						n++
					}
				}
				if n > MaxLoopDevices {
					t.Errorf("%d loop devices in use by this process, want at most %d", n, MaxLoopDevices)
				}

				// thruput's scratch directories are found, and only those.
				AssertNoScratch(t, mnt)
				if err := os.Mkdir(filepath.Join(mnt, ".thruput-123"), 0o755); err != nil {
					t.Fatal(err)
				}
				fake := newFakeTB(t, "scratch")
				fake.run(func(tb testing.TB) { AssertNoScratch(tb, mnt) })
				if !strings.Contains(fake.errors(), ".thruput-123") {
					t.Errorf("AssertNoScratch did not report .thruput-123, got %q", fake.errors())
				}
				if err := os.Remove(filepath.Join(mnt, ".thruput-123")); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
	t.Logf("all kinds: %v", time.Since(start).Round(time.Millisecond))

	// Every subtest and its cleanups are done now.
	for kind, mnt := range mounts {
		if e, ok, err := mountAt(mnt); err != nil || ok {
			t.Errorf("%s: %s still mounted after the test (err %v): %s", kind, mnt, err, e.Line)
		}
		if _, err := os.Lstat(filepath.Dir(mnt)); !os.IsNotExist(err) {
			t.Errorf("%s: %s not removed (err %v)", kind, filepath.Dir(mnt), err)
		}
	}
	// With its last mount gone, the process's directory goes too.
	for dir := range procDirs {
		if _, err := os.Lstat(dir); !os.IsNotExist(err) {
			t.Errorf("%s not removed after the last mount in it (err %v)", dir, err)
		}
	}
	assertNoLoops(t, t.Name())
}

// assertNoLoops fails if `losetup -a` lists a loop device on an image made
// for test (or its subtests). It runs losetup rather than reading sysfs as
// the package does, so that the check does not rely on the code it tests.
func assertNoLoops(t *testing.T, test string) {
	t.Helper()
	out, err := run("losetup", "-a")
	if err != nil {
		t.Fatal(err)
	}
	base := tempBase()
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		_, backing, _ := strings.Cut(line, " (")
		dir, ok := ownedDir(base, strings.TrimSuffix(strings.TrimSuffix(backing, ")"), " (deleted)"))
		if !ok {
			continue
		}
		if strings.Contains(line, "/"+dirName(test)) && !lockedByOther(dir) {
			t.Errorf("loop device left behind: %s", line)
		} else {
			t.Logf("loop device of another test or process: %s", line)
		}
	}
}

// lockedByOther reports whether another live process holds dir's lock, so
// that a second copy of this test binary running at the same time, with the
// same test names, is not taken for a leak.
func lockedByOther(dir string) bool {
	parent.Lock()
	mine := dir == parent.dir
	parent.Unlock()
	if mine {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == syscall.EWOULDBLOCK
}

// TestSetupFailure checks that a setup step failing part-way leaves nothing
// behind: each case fails at a different step, after different resources
// were acquired.
func TestSetupFailure(t *testing.T) {
	RequireRoot(t)
	mountAs := func(argv0 string, args ...string) func(src, mnt string) []string {
		return func(src, mnt string) []string {
			return append([]string{argv0}, append(args, src, mnt)...)
		}
	}
	ext4 := []string{"mkfs.ext4", "-q", "-F"}
	cases := []struct {
		name    string
		spec    fsSpec
		wantErr string
	}{
		{"mkfs", fsSpec{min: 8 * MiB, mkfs: []string{"mkfs.xfs", "-q", "-f"}, loop: true, mount: mountAs("mount", "-t", "xfs")}, "mkfs.xfs"},
		{"kernel-mount", fsSpec{min: 8 * MiB, mkfs: ext4, loop: true, mount: mountAs("mount", "-t", "xfs")}, "mount -t xfs"},
		{"fuse-loop-mount", fsSpec{min: 8 * MiB, mkfs: ext4, loop: true, mount: mountAs("mount.exfat-fuse"), daemon: "mount.exfat-fuse"}, "mount.exfat-fuse"},
		{"fuse-file-mount", fsSpec{min: 8 * MiB, mkfs: ext4, mount: mountAs("ntfs-3g"), daemon: "ntfs-3g"}, "ntfs-3g"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeTB(t, "fake")
			var mnt string
			fake.run(func(tb testing.TB) { mnt = mountSpec(tb, c.spec, 0) })
			if mnt != "" {
				t.Fatalf("mount succeeded: %s", mnt)
			}
			errs := fake.errors()
			t.Logf("recorded failure:\n%s", errs)
			if len(fake.errs) != 1 || !strings.Contains(errs, c.wantErr) {
				t.Errorf("want exactly one failure, mentioning %q, and no cleanup errors; got:\n%s", c.wantErr, errs)
			}
			found, _ := filepath.Glob(filepath.Join(tempBase(), dirPrefix+"*", dirName(fake.Name())+"-*"))
			for _, dir := range found {
				if !lockedByOther(filepath.Dir(dir)) {
					t.Errorf("left behind: %s", dir)
				}
			}
		})
	}
	assertNoLoops(t, t.Name())
}

// TestTooManyLoops checks that a test asking for more loop devices than it
// may have fails at once, instead of waiting for itself forever, and that
// what it had is still cleaned up.
func TestTooManyLoops(t *testing.T) {
	RequireRoot(t)
	fake := newFakeTB(t, "fake")
	var mnts []string
	start := time.Now()
	fake.run(func(tb testing.TB) {
		for range MaxLoopDevices + 1 {
			mnts = append(mnts, Mount(tb, "ext2", 0))
		}
	})
	if len(mnts) != MaxLoopDevices {
		t.Errorf("got %d mounts, want %d", len(mnts), MaxLoopDevices)
	}
	if errs := fake.errors(); len(fake.errs) != 1 || !strings.Contains(errs, "MaxLoopDevices") {
		t.Errorf("want one failure about MaxLoopDevices, got:\n%s", errs)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v: waited instead of failing at once", d)
	}
	for _, m := range mnts {
		if _, err := os.Lstat(filepath.Dir(m)); !os.IsNotExist(err) {
			t.Errorf("%s not removed (err %v)", filepath.Dir(m), err)
		}
	}
	assertNoLoops(t, t.Name())
}

// TestBusy checks that a mount kept busy by an open file is still gone when
// the test ends, and that the failure is reported.
func TestBusy(t *testing.T) {
	RequireRoot(t)
	for _, kind := range []string{"tmpfs", "ext2"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			fake := newFakeTB(t, "fake")
			var mnt string
			var held *os.File
			fake.run(func(tb testing.TB) {
				mnt = Mount(tb, kind, 0)
				f, err := os.Create(filepath.Join(mnt, "held"))
				if err != nil {
					tb.Fatal(err)
				}
				held = f
			})
			if held == nil {
				t.Fatalf("setup failed: %s", fake.errors())
			}
			errs := fake.errors()
			t.Logf("recorded failures:\n%s", errs)
			if !strings.Contains(errs, "unmounted lazily") {
				t.Errorf("lazy unmount not reported")
			}
			if _, ok, _ := mountAt(mnt); ok {
				t.Errorf("%s still mounted", mnt)
			}
			if _, err := os.Lstat(filepath.Dir(mnt)); !os.IsNotExist(err) {
				t.Errorf("%s not removed (err %v)", filepath.Dir(mnt), err)
			}
			// The lazily unmounted filesystem lives until its last file is
			// closed; then the kernel drops it and the loop device, which
			// losetup -d marked for autoclear.
			image := filepath.Join(filepath.Dir(mnt), "image")
			held.Close()
			if err := waitFor(vanishWait, func() (bool, error) {
				l, err := loopsBackedBy(image)
				return len(l) == 0, err
			}); err != nil {
				t.Errorf("loop device on %s still attached after the file was closed: %v", image, err)
			}
		})
	}
	t.Cleanup(func() { assertNoLoops(t, t.Name()) })
}

// TestSweepHelperProcess is run by TestSweep in a child process, which
// mounts filesystems and then dies without cleaning up.
func TestSweepHelperProcess(t *testing.T) {
	if os.Getenv("FSTEST_HELPER") != "crash" {
		t.Skip("helper process for TestSweep")
	}
	for _, kind := range []string{"tmpfs", "ext4", "vfat", "ntfs", "exfat"} {
		mnt := Mount(t, kind, 0)
		// Unflushed data, so that the daemons have work to do on exit.
		if err := os.WriteFile(filepath.Join(mnt, "data"), bytes.Repeat([]byte("x"), 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("MOUNT %s\n", mnt)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

func TestSweep(t *testing.T) {
	RequireRoot(t)
	base := tempBase()
	// Ours, in use: this process's own directory, locked.
	own := Tmpfs(t, 0)

	// Not ours: a mount elsewhere, a directory of another user, and a
	// directory being created right now by another process.
	foreignMnt := t.TempDir()
	mustRun(t, "mount", "-t", "tmpfs", "-o", "size=1m", "fstest-foreign", foreignMnt)
	t.Cleanup(func() {
		if err := unmount(foreignMnt); err != nil {
			t.Error(err)
		}
	})
	foreignDir, err := os.MkdirTemp(base, dirPrefix+"foreign-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(foreignDir) })
	if err := os.Chown(foreignDir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(foreignDir, old, old); err != nil {
		t.Fatal(err)
	}
	freshDir, err := os.MkdirTemp(base, dirPrefix+"fresh-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(freshDir) })
	// Ours, abandoned before anything was put in it.
	staleDir, err := os.MkdirTemp(base, dirPrefix+"stale-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(staleDir) })
	if err := os.Chtimes(staleDir, old, old); err != nil {
		t.Fatal(err)
	}

	// Ours, with mounts, loop devices and FUSE daemons of a killed process.
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exectest.CommandContext(ctx, os.Args[0], "-test.run=^TestSweepHelperProcess$")
	cmd.Env = append(os.Environ(), "FSTEST_HELPER=crash")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper process: %v, want it killed\nstdout:\n%s\nstderr:\n%s", err, out, stderr.Bytes())
	}
	var childDir string
	var mnts []string
	for line := range strings.Lines(string(out)) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "MOUNT "); ok {
			mnts = append(mnts, m)
			childDir, _ = ownedDir(base, m)
		}
	}
	if len(mnts) != 5 || childDir == "" {
		t.Fatalf("helper process output:\n%s", out)
	}
	// Make sure there is something to sweep.
	for _, m := range mnts {
		if _, ok, _ := mountAt(m); !ok {
			t.Fatalf("%s not mounted after the helper died", m)
		}
	}
	loops, err := attachedLoops()
	if err != nil {
		t.Fatal(err)
	}
	paths := openFilesIn(childDir)
	for _, l := range loops {
		if within(l.Backing, childDir) {
			paths = append(paths, l.Dev)
		}
	}
	daemons := holders(paths...)
	t.Logf("left behind: %d mounts, %d files and loop devices, daemons %v", len(mnts), len(paths), daemons)
	if len(daemons) != 3 {
		t.Errorf("want 3 orphaned FUSE daemons, got %v", daemons)
	}

	sweepStart := time.Now()
	if err := Sweep(); err != nil {
		t.Errorf("Sweep: %v", err)
	}
	t.Logf("Sweep took %v", time.Since(sweepStart).Round(time.Millisecond))

	// Sweep skips directories another process has locked, and a Sweep in
	// another test process running at the same time may be the one that
	// cleans up after our helper. Either way it must be gone soon.
	if err := waitFor(20*time.Second, func() (bool, error) {
		for _, dir := range []string{childDir, staleDir} {
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				return false, nil
			}
		}
		for _, pid := range daemons {
			if Alive(pid) {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Errorf("leftovers of the helper process still there: %v", err)
	}
	mounts, err := readMounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mounts {
		if within(m.MountPoint, childDir) {
			t.Errorf("still mounted: %s", m.Line)
		}
	}
	assertNoLoops(t, childDir)
	// A device whose image was reached through a bind that went away names
	// its file without childDir: only the helper's test name is left.
	if loops, err := attachedLoops(); err == nil {
		for _, l := range loops {
			if strings.Contains(l.Backing, "/"+dirName("TestSweepHelperProcess")+"-") {
				t.Errorf("loop device left behind: %s on %s", l.Dev, l.Backing)
			}
		}
	}
	for _, pid := range daemons {
		if Alive(pid) {
			t.Errorf("FUSE daemon %d still running", pid)
		}
	}
	for dir, wantGone := range map[string]bool{childDir: true, staleDir: true, foreignDir: false, freshDir: false} {
		_, err := os.Lstat(dir)
		if gone := os.IsNotExist(err); gone != wantGone {
			t.Errorf("%s: gone=%v, want %v (err %v)", dir, gone, wantGone, err)
		}
	}
	if _, ok, _ := mountAt(foreignMnt); !ok {
		t.Errorf("Sweep unmounted %s, which is not ours", foreignMnt)
	}
	if _, ok, _ := mountAt(own); !ok {
		t.Errorf("Sweep unmounted %s, which a running test is using", own)
	}
}

func TestAssertNoScratch(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"thruput-1", ".thruputx", "a.thruput-1", ".thruput"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub", ".thruput-deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	AssertNoScratch(t, dir)

	for _, name := range []string{".thruput-abc", ".thruput-"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := newFakeTB(t, "fake")
	fake.run(func(tb testing.TB) { AssertNoScratch(tb, dir) })
	if errs := fake.errors(); !strings.Contains(errs, ".thruput-abc") || !strings.Contains(errs, `".thruput-"`) {
		t.Errorf("AssertNoScratch did not report both scratch entries: %q", errs)
	}

	fake = newFakeTB(t, "missing")
	fake.run(func(tb testing.TB) { AssertNoScratch(tb, filepath.Join(dir, "nonexistent")) })
	if !fake.Failed() {
		t.Errorf("AssertNoScratch on a missing directory did not fail")
	}
}

func TestMinSize(t *testing.T) {
	for _, kind := range Kinds() {
		if MinSize(kind) <= 0 || MinSize(kind)%MiB != 0 {
			t.Errorf("MinSize(%q) = %d", kind, MinSize(kind))
		}
	}
	if MinSize("xfs") != 300*MiB || MinSize("btrfs") != 109*MiB {
		t.Errorf("xfs/btrfs minimum changed: %d %d", MinSize("xfs"), MinSize("btrfs"))
	}
	if MinSize("zfs") != 0 {
		t.Errorf("MinSize of an unknown kind is not 0")
	}
}

func TestParseMountInfo(t *testing.T) {
	line := `42 27 0:39 / /tmp/thruput-fstest-1/a\040b/mnt rw,nosuid,nodev,relatime shared:5 master:1 - fuse.fusefat fusefat rw,user_id=0,group_id=0`
	e, err := parseMountInfoLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if e.MountPoint != "/tmp/thruput-fstest-1/a b/mnt" || e.FSType != "fuse.fusefat" || e.Source != "fusefat" || e.Options != "rw,nosuid,nodev,relatime" {
		t.Errorf("parsed %+v", e)
	}
	if _, err := parseMountInfoLine("1 2 3"); err == nil {
		t.Errorf("no error for a malformed line")
	}
}

func TestOwnedDir(t *testing.T) {
	for path, want := range map[string]string{
		"/tmp/thruput-fstest-1/x/mnt": "/tmp/thruput-fstest-1",
		"/tmp/thruput-fstest-1":       "/tmp/thruput-fstest-1",
		"/tmp/thruput-fstest-":        "",
		"/tmp/thruput-fstestx/mnt":    "",
		"/tmp/other/thruput-fstest-1": "",
		"/tmpx/thruput-fstest-1":      "",
		"/var/tmp/thruput-fstest-1/x": "",
	} {
		if got, _ := ownedDir("/tmp", path); got != want {
			t.Errorf("ownedDir(%q) = %q, want %q", path, got, want)
		}
	}
	if within("/tmp/thruput-fstest-10", "/tmp/thruput-fstest-1") {
		t.Errorf("within matched a sibling with a longer name")
	}
}

// TestOtherMountNamespace: a process in a mount namespace made while a
// test filesystem was mounted (as ip netns exec makes one for each command,
// and a test's sshd lives on in it) does not keep the filesystem and its
// loop device alive after the test unmounts it.
func TestOtherMountNamespace(t *testing.T) {
	RequireRoot(t)
	fake := newFakeTB(t, "fake")
	var image string
	var other *exec.Cmd
	fake.run(func(tb testing.TB) {
		mnt := Mount(tb, "ext2", 0)
		image = filepath.Join(filepath.Dir(mnt), "image")
		// ip netns exec's own steps: a new mount namespace, all of it a slave.
		other = exec.Command("unshare", "--mount", "--propagation", "slave", "sleep", "60")
		if err := other.Start(); err != nil {
			tb.Fatal(err)
		}
		own, _ := os.Readlink("/proc/self/ns/mnt")
		if err := waitFor(vanishWait, func() (bool, error) {
			ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", other.Process.Pid))
			return err == nil && ns != own, nil
		}); err != nil {
			tb.Fatalf("unshare did not start: %v", err)
		}
	})
	defer func() { other.Process.Kill(); other.Wait() }()
	if errs := fake.errors(); errs != "" {
		t.Errorf("cleanup with another mount namespace alive:\n%s", errs)
	}
	if l, err := loopsBackedBy(image); err != nil || len(l) != 0 {
		t.Errorf("loop devices left on %s: %v %v", image, l, err)
	}
}
