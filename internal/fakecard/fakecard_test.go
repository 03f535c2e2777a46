package fakecard

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/exectest"
	"github.com/thruput/thruput/internal/fstest"
)

func TestMain(m *testing.M) { fstest.Main(m) }

const mib = 1 << 20

// TestEach checks how a transfer is cut at the real size's boundaries,
// without root.
func TestEach(t *testing.T) {
	type piece struct {
		n    int
		at   int64
		kept bool
	}
	for _, tc := range []struct {
		mode Mode
		off  int64
		n    int
		want []piece
	}{
		{ModeWrap, 0, 4096, []piece{{4096, 0, true}}},
		{ModeWrap, 8192 - 1024, 4096, []piece{{1024, 7168, true}, {3072, 0, true}}},
		{ModeWrap, 3*8192 + 512, 512, []piece{{512, 512, true}}},
		{ModeDrop, 8192 - 1024, 4096, []piece{{1024, 7168, true}, {3072, 0, false}}},
		{ModeDrop, 8192, 10000, []piece{{8192, 0, false}, {1808, 0, false}}},
	} {
		c := &Card{Announced: 64 * 1024, Real: 8192, Mode: tc.mode}
		var got []piece
		if err := c.each(make([]byte, tc.n), tc.off, func(p []byte, at int64, kept bool) error {
			got = append(got, piece{len(p), at, kept})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v at %d+%d: pieces %v, want %v", tc.mode, tc.off, tc.n, got, tc.want)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Announced: 1 << 30, Real: 0, SectorSize: 512}, "real size 0"},
		{Options{Announced: 1 << 20, Real: 2 << 20, SectorSize: 512}, "want 0 < real <= announced"},
		{Options{Announced: 1 << 20, Real: 1000, SectorSize: 512}, "multiples of the sector size"},
		{Options{Announced: 1 << 20, Real: 4096, SectorSize: 1000}, "sector size 1000"},
		{Options{Announced: 1 << 20, Real: 4096, SectorSize: 512, Mode: 7}, "unknown mode Mode(7)"},
	} {
		err := tc.o.check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.o, err, tc.want)
		}
	}
}

// TestCard writes through the loop device with O_DIRECT and checks what
// the card kept, in both modes and at two sector sizes.
func TestCard(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"wrap", Options{Announced: 1 << 30, Real: 128 * mib, Mode: ModeWrap}},
		{"drop", Options{Announced: 1 << 30, Real: 128 * mib, Mode: ModeDrop}},
		{"wrap4k", Options{Announced: 64 * mib, Real: 8 * mib, Mode: ModeWrap, SectorSize: 4096}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Start(t, tc.o)
			f, err := os.OpenFile(c.Device, os.O_RDWR|unix.O_DIRECT, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			size, err := f.Seek(0, io.SeekEnd)
			if err != nil {
				t.Fatal(err)
			}
			if size != c.Announced {
				t.Errorf("%s announces %d bytes, want %d", c.Device, size, c.Announced)
			}
			ss, err := unix.IoctlGetInt(int(f.Fd()), unix.BLKSSZGET)
			if err != nil {
				t.Fatal(err)
			}
			if want := max(tc.o.SectorSize, 512); ss != want {
				t.Errorf("%s has %d-byte sectors, want %d", c.Device, ss, want)
			}

			first, past := block(t, 4096, 'a'), block(t, 4096, 'b')
			before := c.Writes()
			mustWriteAt(t, f, first, 4096)
			if c.Writes() == before {
				t.Errorf("a write through %s left Writes at %d", c.Device, before)
			}
			mustWriteAt(t, f, past, c.Real+4096)

			wantStart, wantPast := past, make([]byte, 4096)
			if c.Mode == ModeDrop {
				wantStart = first
			}
			if c.Mode == ModeWrap {
				wantPast = past
			}
			if got := mustReadAt(t, f, 4096); !bytes.Equal(got, wantStart) {
				t.Errorf("device at 4096 holds %q..., want %q...", got[:8], wantStart[:8])
			}
			if got := mustReadAt(t, f, c.Real+4096); !bytes.Equal(got, wantPast) {
				t.Errorf("device at real+4096 holds %q..., want %q...", got[:8], wantPast[:8])
			}
			kept := make([]byte, 4096)
			if _, err := c.ReadReal(kept, 4096); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(kept, wantStart) {
				t.Errorf("card's memory at 4096 holds %q..., want %q...", kept[:8], wantStart[:8])
			}
			// The last sector is writable and reads back as the card keeps it.
			mustWriteAt(t, f, first, c.Announced-4096)
			if got := mustReadAt(t, f, c.Real-4096); !bytes.Equal(got, first) != (c.Mode == ModeDrop) {
				t.Errorf("device at real-4096 holds %q... after writing the last block", got[:8])
			}
		})
	}
}

// block returns n bytes of c in memory aligned for O_DIRECT.
func block(t *testing.T, n int, c byte) []byte {
	b := alignedBuf(t, n)
	for i := range b {
		b[i] = c
	}
	return b
}

// alignedBuf maps n bytes: page aligned, as O_DIRECT needs.
func alignedBuf(t *testing.T, n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

func mustWriteAt(t *testing.T, f *os.File, p []byte, off int64) {
	t.Helper()
	if _, err := f.WriteAt(p, off); err != nil {
		t.Fatalf("write at %d: %v", off, err)
	}
}

func mustReadAt(t *testing.T, f *os.File, off int64) []byte {
	t.Helper()
	p := alignedBuf(t, 4096)
	if _, err := f.ReadAt(p, off); err != nil {
		t.Fatalf("read at %d: %v", off, err)
	}
	return p
}

// TestSweepHelperProcess starts a card and dies with it, as a test killed
// midway would.
func TestSweepHelperProcess(t *testing.T) {
	if os.Getenv("FAKECARD_HELPER") != "crash" {
		t.Skip("helper process for TestSweep")
	}
	c := Start(t, Options{Announced: 64 * mib, Real: 8 * mib})
	fmt.Printf("DEVICE %s\n", c.Device)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// TestSweep: what a killed test's card leaves (a loop device on a file of
// a FUSE mount whose server died) is gone after fstest.Sweep: the loop
// device first, which keeps the mount busy, then the mount.
func TestSweep(t *testing.T) {
	fstest.RequireRoot(t)
	cmd := exectest.Command(os.Args[0], "-test.run=^TestSweepHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "FAKECARD_HELPER=crash")
	out, _ := cmd.CombinedOutput()
	m := regexp.MustCompile(`DEVICE (/dev/loop\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the helper started no card:\n%s", out)
	}
	dev := string(m[1])
	backing := filepath.Join("/sys/block", filepath.Base(dev), "loop/backing_file")
	file, err := os.ReadFile(backing)
	if err != nil {
		t.Fatalf("the killed helper's %s is not attached: %v", dev, err)
	}
	mnt := filepath.Dir(strings.TrimSpace(string(file)))
	// Should Sweep miss it, the device is detached all the same: by then
	// it names its file as the lazily unmounted FUSE mount left it.
	t.Cleanup(func() {
		if b, err := os.ReadFile(backing); err == nil && strings.TrimSpace(string(b)) == "/"+fileName {
			_, _ = fstest.Exec(time.Minute, "losetup", "-d", dev)
		}
	})
	if err := fstest.Sweep(); err != nil {
		t.Fatal(err)
	}
	// Another test may have taken the freed device number at once (the
	// other packages' tests run beside this one): only the helper's own
	// file, as given or as the lazy unmount renamed it, is a leftover.
	if b, err := os.ReadFile(backing); err == nil {
		if now := strings.TrimSpace(string(b)); now == strings.TrimSpace(string(file)) || now == "/"+fileName {
			t.Errorf("%s still attached after Sweep, to %s", dev, now)
		}
	}
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err != nil || bytes.Contains(mi, []byte(" "+mnt+" ")) {
		t.Errorf("the card's mount %s is left after Sweep (%v)", mnt, err)
	}
}
