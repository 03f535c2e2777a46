package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// probeDevice is a device under probe and how to read back what it keeps,
// past the device itself.
type probeDevice struct {
	dev  string
	real int64
	sum  func(t *testing.T) [32]byte
}

// fakeDevice starts a fake card and fills its memory with random bytes
// through the device, so that a restore that misses a block shows.
func fakeDevice(t *testing.T, o fakecard.Options) (probeDevice, *fakecard.Card) {
	c := fakecard.Start(t, o)
	fillDevice(t, c.Device, c.Real)
	return probeDevice{c.Device, c.Real, func(t *testing.T) [32]byte {
		h := sha256.New()
		buf := make([]byte, mib)
		for off := int64(0); off < c.Real; off += mib {
			n, err := c.ReadReal(buf[:min(mib, c.Real-off)], off)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(buf[:n])
		}
		return [32]byte(h.Sum(nil))
	}}, c
}

// genuineDevice is a loop device on a file of random bytes.
func genuineDevice(t *testing.T, size int64, opts ...string) (probeDevice, string) {
	file := filepath.Join(t.TempDir(), "genuine")
	data := make([]byte, size)
	rand.NewChaCha8([32]byte{7}).Read(data)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dev := fstest.AttachLoop(t, file, opts...)
	return probeDevice{dev, size, func(t *testing.T) [32]byte { return fileSum(t, file) }}, file
}

func fileSum(t *testing.T, file string) [32]byte {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

func fillDevice(t *testing.T, dev string, n int64) {
	f, err := os.OpenFile(dev, os.O_WRONLY|unix.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf, err := unix.Mmap(-1, 0, mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(buf)
	r := rand.NewChaCha8([32]byte{3})
	for off := int64(0); off < n; off += mib {
		r.Read(buf)
		if _, err := f.WriteAt(buf[:min(mib, n-off)], off); err != nil {
			t.Fatal(err)
		}
	}
}

// probeBackups lists the backup files left in the tests' state directory.
func probeBackups(t *testing.T) []string {
	left, err := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "thruput", "probe", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// f3Probe runs Debian's f3probe (its default mode, which restores what it
// wrote) on dev and returns its verdict in thruput's words, the usable
// bytes it found and how long it took.
func f3Probe(t *testing.T, dev string) (verdict string, usable int64, took time.Duration) {
	t.Helper()
	start := time.Now()
	out, _ := exec.Command("f3probe", dev).CombinedOutput()
	took = time.Since(start)
	text := string(out)
	switch {
	case strings.Contains(text, "is the real thing"):
		verdict = result.ProbeGenuine
	case strings.Contains(text, "is a counterfeit"):
		verdict = result.ProbeFake
	case strings.Contains(text, "is damaged"):
		verdict = result.ProbeDamaged
	default:
		t.Fatalf("f3probe %s gave no verdict:\n%s", dev, text)
	}
	m := regexp.MustCompile(`\*Usable\* size: .*\((\d+) blocks\)`).FindStringSubmatch(text)
	b := regexp.MustCompile(`Physical block size: .*\(2\^(\d+) Bytes\)`).FindStringSubmatch(text)
	if m == nil || b == nil {
		t.Fatalf("f3probe %s: no usable size or block size in:\n%s", dev, text)
	}
	blocks, _ := strconv.ParseInt(m[1], 10, 64)
	order, _ := strconv.Atoi(b[1])
	return verdict, blocks << order, took
}

// TestProbe probes a wraparound and a dropping fake (1 GiB announced, 128
// MiB real), a dropping one of 4 KiB blocks keeping 40 MiB and a block,
// and a genuine loop device: verdict and usable size exact to the block
// (512 or 4096 bytes), every byte of the memory as it was after, no
// backup left. f3probe runs on the same devices; its verdicts are
// logged beside thruput's and held to what the device really is.
func TestProbe(t *testing.T) {
	fstest.RequireRoot(t)
	_, err := exec.LookPath("f3probe")
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatal("f3probe is not installed (Debian's f3 package, which scripts/setup installs)")
	}
	withF3 := err == nil
	if !withF3 {
		t.Log("f3probe is not installed (Debian's f3 package): thruput's probe alone is checked")
	}
	for _, tc := range []struct {
		name          string
		card          *fakecard.Options
		verdict, kind string
		usable, wrap  int64
		// f3Wrong says where Debian's f3probe 8.0 misjudges the device.
		f3Wrong string
	}{
		{"wrap", &fakecard.Options{Announced: 1 << 30, Real: 128 * mib, Mode: fakecard.ModeWrap}, result.ProbeFake, result.ProbeWraparound, 128 * mib, 128 * mib,
			// Its cache search writes backwards from the end; on a
			// wraparound card those blocks land on each other once more
			// than 128 MiB is written, which it takes for a 255 MB cache
			// losing data, and it calls the card damaged with 0 usable.
			"calls a plain wraparound fake damaged, 0 usable"},
		{"drop", &fakecard.Options{Announced: 1 << 30, Real: 128 * mib, Mode: fakecard.ModeDrop}, result.ProbeFake, result.ProbeDropped, 128 * mib, 0, ""},
		// 4 KiB logical blocks: the probe's unit, and f3probe's.
		{"drop 4k", &fakecard.Options{Announced: 256 * mib, Real: 40*mib + 4096, Mode: fakecard.ModeDrop, SectorSize: 4096}, result.ProbeFake, result.ProbeDropped, 40*mib + 4096, 0, ""},
		{"genuine", nil, result.ProbeGenuine, "", 256 * mib, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d probeDevice
			if tc.card != nil {
				d, _ = fakeDevice(t, *tc.card)
			} else {
				d, _ = genuineDevice(t, tc.usable, "--direct-io=on")
			}
			before := d.sum(t)
			start := time.Now()
			res := thruput(t, "disk", "check", "--probe", d.dev, "--json", "-q")
			took := time.Since(start)
			if want := map[bool]int{true: exitOK, false: exitVerdict}[tc.verdict == result.ProbeGenuine]; res.code != want {
				t.Fatalf("exit %d, want %d for %s; stderr %q", res.code, want, tc.verdict, res.stderr)
			}
			var got result.Probe
			if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
				t.Fatalf("%v in %q", err, res.stdout)
			}
			if got.Verdict != tc.verdict || got.Kind != tc.kind || got.Usable != tc.usable || got.Wrap != tc.wrap || !got.Restored {
				t.Errorf("got %s %s usable %d wrap %d restored %v, want %s %s usable %d wrap %d restored", got.Verdict, got.Kind, got.Usable, got.Wrap, got.Restored,
					tc.verdict, tc.kind, tc.usable, tc.wrap)
			}
			restored(t, d, before, "the probe")
			wantFix := ""
			if tc.verdict != result.ProbeGenuine {
				wantFix = fmt.Sprintf("parted -s %s unit s mklabel msdos mkpart primary fat32 2048 %d", d.dev, tc.usable/512-1)
			}
			if got.Fix != wantFix {
				t.Errorf("fix command %q, want %q", got.Fix, wantFix)
			}
			t.Logf("thruput: %s in %v (%d passes, %d KiB written)", got.Summary, took.Round(time.Millisecond), got.Passes, got.Written>>10)

			if !withF3 {
				return
			}
			f3Verdict, f3Usable, f3Took := f3Probe(t, d.dev)
			t.Logf("f3probe: %s, %d bytes usable, in %v", f3Verdict, f3Usable, f3Took.Round(time.Millisecond))
			f3Right := f3Verdict == tc.verdict && f3Usable == tc.usable
			switch {
			case tc.f3Wrong == "" && !f3Right:
				t.Errorf("f3probe: %s, %d bytes usable; the device is %s with %d", f3Verdict, f3Usable, tc.verdict, tc.usable)
			case tc.f3Wrong != "" && f3Right:
				t.Errorf("f3probe now gets it right (%s, %d bytes): drop the note %q", f3Verdict, f3Usable, tc.f3Wrong)
			case tc.f3Wrong != "":
				t.Logf("f3probe is wrong here: it %s", tc.f3Wrong)
			}
			if d.sum(t) != before {
				// Seen on the wraparound fake: f3probe's own backup does
				// not put back blocks that alias.
				t.Logf("f3probe left the device's memory changed, in its non-destructive mode")
			}
		})
	}
}

// slowWrap is a slow wraparound fake: its probe writes a cache flush
// each pass, and is interrupted in the first.
var slowWrap = fakecard.Options{Announced: 1 << 30, Real: 128 * mib, Mode: fakecard.ModeWrap, Latency: time.Millisecond}

// startProbe runs the thruput binary's probe of a slow fake card and
// returns once the probe has written to it after more than writes
// requests, with the card's memory's sum from before.
func startProbe(t *testing.T, o fakecard.Options, writes int64) (*exec.Cmd, *bytes.Buffer, probeDevice, [32]byte) {
	d, card := fakeDevice(t, o)
	before := d.sum(t)
	cmd := exec.Command(thruputBin, "disk", "check", "--probe", d.dev, "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := card.Writes()
	deadline := time.Now().Add(20 * time.Second)
	for card.Writes() <= base+writes {
		if time.Now().After(deadline) {
			t.Fatalf("the probe wrote %d times in 20 s; stderr %q", card.Writes()-base, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd, &stderr, d, before
}

// TestProbeInterrupted: a probe stopped by SIGINT or SIGTERM while it
// writes puts back every block it overwrote before it exits: in the first
// pass of a wraparound fake, and in the bisection of a dropping one
// (256 MiB keeping 32 MiB), after its last block and first pass (66
// writes), whose requests take 10 ms so that the bisection's 13 steps
// last about half a second.
func TestProbeInterrupted(t *testing.T) {
	fstest.RequireRoot(t)
	slowDrop := fakecard.Options{Announced: 256 * mib, Real: 32 * mib, Mode: fakecard.ModeDrop, Latency: 10 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		card   fakecard.Options
		writes int64
		sig    syscall.Signal
	}{
		{"wrap/interrupt", slowWrap, 20, syscall.SIGINT},
		{"wrap/terminated", slowWrap, 20, syscall.SIGTERM},
		{"drop bisecting/interrupt", slowDrop, 68, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, stderr, d, before := startProbe(t, tc.card, tc.writes)
			_ = cmd.Process.Signal(tc.sig)
			_ = cmd.Wait()
			want := "thruput: probing " + d.dev + ": interrupted; every block it overwrote was written back\n"
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.HasSuffix(stderr.String(), want) {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
			restored(t, d, before, "an interrupted probe")
		})
	}
}

// TestProbeKilled: a probe killed outright leaves its backup, and
// --restore puts the device back as it was.
func TestProbeKilled(t *testing.T) {
	fstest.RequireRoot(t)
	cmd, stderr, d, before := startProbe(t, slowWrap, 20)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	left := probeBackups(t)
	if len(left) != 1 || !strings.Contains(stderr.String(), "--restore "+left[0]) {
		t.Fatalf("backups %v; stderr %q should name the one with --restore", left, stderr.String())
	}
	res := thruput(t, "disk", "check", "--probe", d.dev, "--restore", left[0])
	if res.code != 0 || !strings.Contains(res.stdout, "written back from "+left[0]) {
		t.Errorf("restore: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	restored(t, d, before, "--restore")
}

// restored checks that the device's memory is as before and no backup is
// left after what ran.
func restored(t *testing.T, d probeDevice, before [32]byte, after string) {
	t.Helper()
	if d.sum(t) != before {
		t.Errorf("the device's memory differs after %s", after)
	}
	if left := probeBackups(t); len(left) != 0 {
		t.Errorf("backups left after %s: %v", after, left)
	}
}

// TestProbeRefused: what must not be probed is refused with the reason,
// exit 2, and nothing written.
func TestProbeRefused(t *testing.T) {
	fstest.RequireRoot(t)
	t.Run("regular file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "card.img")
		if err := os.WriteFile(file, make([]byte, 4*mib), 0o600); err != nil {
			t.Fatal(err)
		}
		refused(t, file, "is a regular file, not a block device", func() [32]byte { return fileSum(t, file) })
	})
	t.Run("read-only", func(t *testing.T) {
		d, file := genuineDevice(t, 8*mib, "--read-only")
		refused(t, d.dev, "is read-only", func() [32]byte { return fileSum(t, file) })
	})
	t.Run("partition", func(t *testing.T) {
		// A real partition, as a card's /dev/sdb1: sfdisk writes an MSDOS
		// table with one partition from sector 2048 into the image, and
		// losetup --partscan attaches it. A kernel without MSDOS partition
		// support (Firecracker's, for one) makes no loopNp1 of it; then
		// partx reads the table and adds the partition through BLKPG,
		// which makes the same kernel partition.
		if _, err := exec.LookPath("sfdisk"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("sfdisk is not installed (Debian's fdisk package, which scripts/setup installs)")
			}
			t.Skip("sfdisk is not installed (Debian's fdisk package)")
		}
		file := filepath.Join(t.TempDir(), "card.img")
		if err := os.WriteFile(file, make([]byte, 8*mib), 0o600); err != nil {
			t.Fatal(err)
		}
		sfdisk := exec.Command("sfdisk", "-q", file)
		sfdisk.Stdin = strings.NewReader("label: dos\nstart=2048, type=83\n")
		if out, err := sfdisk.CombinedOutput(); err != nil {
			t.Fatalf("sfdisk: %v\n%s", err, out)
		}
		dev := fstest.AttachLoop(t, file, "--partscan")
		part := dev + "p1"
		if !appears(part) {
			// Removed before the loop device is detached (cleanups run
			// last first), also when the test fails.
			t.Cleanup(func() {
				if out, err := exec.Command("partx", "--delete", dev).CombinedOutput(); err != nil {
					t.Errorf("partx --delete %s: %v\n%s", dev, err, out)
				}
			})
			fstest.MustExec(t, time.Minute, "partx", "--add", dev)
			if !appears(part) {
				t.Fatalf("partx --add %s made no %s", dev, part)
			}
		}
		refused(t, part, "is a partition of "+dev+": the probe needs the whole device, to reach where its memory ends (name "+dev+",", func() [32]byte { return fileSum(t, file) })
	})
	t.Run("mounted", func(t *testing.T) {
		d, file := genuineDevice(t, 16*mib)
		fstest.MustExec(t, time.Minute, "mkfs.ext4", "-q", d.dev)
		mnt := fstest.MountPoint(t)
		if err := unix.Mount(d.dev, mnt, "ext4", 0, ""); err != nil {
			t.Fatal(err)
		}
		// Unmounted by MountPoint's cleanup, before the loop device goes.
		before := fileSum(t, file)
		refused(t, d.dev, "is mounted ("+d.dev+" on "+mnt+")", func() [32]byte { return before })
	})
	t.Run("running system", func(t *testing.T) {
		var st unix.Stat_t
		if err := unix.Stat("/", &st); err != nil {
			t.Fatal(err)
		}
		uevent, err := os.ReadFile(fmt.Sprintf("/sys/dev/block/%d:%d/uevent", unix.Major(st.Dev), unix.Minor(st.Dev)))
		name := regexp.MustCompile(`(?m)^DEVNAME=(.+)$`).FindSubmatch(uevent)
		if err != nil || name == nil {
			t.Skipf("/ is on no block device here (%d:%d): %v", unix.Major(st.Dev), unix.Minor(st.Dev), err)
		}
		dev := "/dev/" + string(name[1])
		// The probe must stop before opening it: the refusal is all
		// there is to see, with nothing to hash on a disk this size.
		refused(t, dev, "holds the running system (/ is mounted from", nil)
	})
}

// refused runs the probe of dev and checks it stops with exit 2 and a
// message containing want, and that sum (when given) is unchanged.
func refused(t *testing.T, dev, want string, sum func() [32]byte) {
	t.Helper()
	var before [32]byte
	if sum != nil {
		before = sum()
	}
	res := thruput(t, "disk", "check", "--probe", dev)
	if res.code != 2 || !strings.Contains(res.stderr, want) || res.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 saying %q", res.code, res.stdout, res.stderr, want)
	}
	if sum != nil && sum() != before {
		t.Errorf("%s changed under a refused probe", dev)
	}
	if left := probeBackups(t); len(left) != 0 {
		t.Errorf("backups left: %v", left)
	}
}

// appears waits a moment for the kernel or udev to make path.
func appears(path string) bool {
	for range 50 {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestProbeFlags: --probe's flags out of place, and what is no block
// device, are refused with exit 2 before anything is opened.
func TestProbeFlags(t *testing.T) {
	bak := filepath.Join(t.TempDir(), "sdb.bak")
	if err := os.WriteFile(bak, []byte("not a backup\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--destructive", "."}, "--destructive is for --probe DEVICE"},
		{[]string{"--restore", bak}, "--restore is for --probe DEVICE"},
		{[]string{"--probe", "/dev/null", "."}, `--probe takes a device and no DIR (got ".")`},
		{[]string{"--probe", "/dev/null"}, "/dev/null is not a block device"},
		{[]string{"--probe", "/nonexistent/sdz"}, "/nonexistent/sdz: no such file or directory"},
		{[]string{"--probe", "/dev/null", "--restore", bak, "--destructive"}, "--restore writes a backup back and probes nothing"},
		{[]string{"--probe", "/dev/null", "--restore", bak}, "--restore " + bak + ": not a thruput probe backup"},
		{[]string{"--probe", "/dev/null", "--format", "csv"}, `--format "csv": use one of table, json, markdown`},
		{[]string{"--probe", "/dev/null", "--label", "card=x", "--preset", "rpi-sd"}, "--label, --preset: not for --probe"},
	} {
		res := thruput(t, append([]string{"disk", "check"}, tc.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
}
