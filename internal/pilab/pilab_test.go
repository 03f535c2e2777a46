package pilab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireKit returns the unpacked packages, or skips the test when
// scripts/pilab-fetch has not run (see skipMissing).
func requireKit(t *testing.T) Kit {
	t.Helper()
	kit, err := FindKit(filepath.Join(Dir(), "root"))
	if err != nil {
		skipMissing(t, "%v", err)
	}
	return kit
}

// skipMissing skips a test whose tools or packages are not installed;
// under CI (CI=true) it fails it instead, since the skip would hide a
// setup that lost them.
func skipMissing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...) + ": run scripts/setup (as root)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; under CI (CI=true) this test must not be skipped")
	}
	t.Skip(msg)
}

func TestFindKitMissing(t *testing.T) {
	_, err := FindKit(t.TempDir())
	if !errors.Is(err, ErrNoKit) || !strings.Contains(err.Error(), "scripts/pilab-fetch") {
		t.Fatalf("FindKit(empty dir) = %v, want ErrNoKit naming scripts/pilab-fetch", err)
	}
	// A kernel without its device tree, modules and busybox is no kit.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "boot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "boot/vmlinuz-6.1.0-50-arm64"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindKit(root); !errors.Is(err, ErrNoKit) || !strings.Contains(err.Error(), "bcm2837-rpi-3-b.dtb") {
		t.Fatalf("FindKit(kernel only) = %v, want ErrNoKit naming the missing device tree", err)
	}
}

// TestModulesClosure resolves the guest's modules in Debian's package:
// each comes after every module its .modinfo names, the built-in ones
// (mmc_block, the mini UART) are left out, an unknown name is an error.
func TestModulesClosure(t *testing.T) {
	kit := requireKit(t)
	mods, err := OpenModules(kit.Modules)
	if err != nil {
		t.Fatal(err)
	}
	files, err := mods.Closure(append(slices.Clone(DeviceModules), "mmc_block", "8250_bcm2835aux")...)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, f := range files {
		pos[moduleName(f)] = i
	}
	for _, want := range []string{"dwc2", "usbcore", "usb_common", "usb_storage", "scsi_mod", "cdc_ether", "usbnet", "mii", "sdhci_iproc", "sdhci_pltfm", "sdhci", "bcm2835"} {
		if _, ok := pos[want]; !ok {
			t.Errorf("closure lacks %s: %v", want, files)
		}
	}
	for _, f := range files {
		deps, err := moduleDepends(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range deps {
			if p, ok := pos[strings.ReplaceAll(d, "-", "_")]; ok && p > pos[moduleName(f)] {
				t.Errorf("%s loads before %s, which it depends on", moduleName(f), d)
			}
		}
	}
	for _, builtin := range []string{"mmc_block", "8250_bcm2835aux"} {
		if _, ok := pos[builtin]; ok {
			t.Errorf("built-in %s is in the closure", builtin)
		}
	}
	if _, err := mods.Closure("no_such_module"); err == nil || !strings.Contains(err.Error(), "no_such_module") {
		t.Errorf("Closure(no_such_module) = %v, want an error naming it", err)
	}
}

func TestParseModinfoDepends(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		// As dwc2.ko's .modinfo carries them in Debian's 6.1 kernel.
		{"license=GPL\x00depends=usbcore,usb-common,roles,udc-core\x00name=dwc2\x00", []string{"usbcore", "usb-common", "roles", "udc-core"}},
		{"license=GPL\x00depends=\x00name=sdhci\x00", nil},
		{"name=none\x00", nil},
		{"", nil},
		{"depends=,a,,b,\x00", []string{"a", "b"}},
		{"xdepends=a\x00", nil},
	} {
		if got := ParseModinfoDepends([]byte(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("ParseModinfoDepends(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzParseModinfoDepends(f *testing.F) {
	f.Add([]byte("license=GPL\x00depends=usbcore,usb-common\x00name=dwc2\x00"))
	f.Add([]byte("depends=\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, n := range ParseModinfoDepends(in) {
			if n == "" || strings.ContainsAny(n, ",\x00") || n != strings.TrimSpace(n) {
				t.Fatalf("name %q from %q", n, in)
			}
		}
	})
}

// TestCpioBusybox writes an archive and has Debian's busybox cpio (the
// arm64 one from the kit, run by qemu-user) list and extract it: a
// second implementation of the format reads what the kernel will.
func TestCpioBusybox(t *testing.T) {
	kit := requireKit(t)
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		skipMissing(t, "no qemu-aarch64-static (Debian's qemu-user-static)")
	}
	var buf bytes.Buffer
	c := NewCpio(&buf)
	c.Dir("bin")
	c.File("bin/a", 0o755, []byte("abc"))
	c.File("b", 0o644, []byte("four"))
	c.File("empty", 0o600, nil)
	c.Symlink("bin/sh", "busybox")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive of %d bytes is not 4-byte aligned", buf.Len())
	}
	list := exec.Command(qemu, kit.Busybox, "cpio", "-t")
	list.Stdin = bytes.NewReader(buf.Bytes())
	var stderr bytes.Buffer
	list.Stderr = &stderr // "1 blocks"
	out, err := list.Output()
	if err != nil {
		t.Fatalf("busybox cpio -t: %v\n%s", err, stderr.Bytes())
	}
	if got, want := strings.Fields(string(out)), []string{"bin", "bin/a", "b", "empty", "bin/sh"}; !slices.Equal(got, want) {
		t.Errorf("busybox cpio -t lists %q, want %q", got, want)
	}
	dir := t.TempDir()
	extract := exec.Command(qemu, kit.Busybox, "cpio", "-i", "-d")
	extract.Dir = dir
	extract.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := extract.CombinedOutput(); err != nil {
		t.Fatalf("busybox cpio -i: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"bin/a": "abc", "b": "four", "empty": ""} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s extracted as %q (%v), want %q", name, got, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "bin/a")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin/a mode %v (%v), want 0755", fi.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "bin/sh")); err != nil || target != "busybox" {
		t.Errorf("bin/sh links to %q (%v), want busybox", target, err)
	}
}

// fakeQemu writes a shell script that stands in for QEMU's process: Run's
// handling of how the process ends is what these tests check.
func fakeQemu(t *testing.T, body string) *Machine {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "qemu")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Machine{Dir: dir, Qemu: path}
}

func TestRunEndings(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: waits out Run's 5 s grace after a dump")
	}
	t.Run("exits before the dump", func(t *testing.T) {
		m := fakeQemu(t, "echo 'qemu-system-aarch64: -drive if=sd: machine type does not support if=sd' >&2; exit 1")
		err := m.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "before the guest's dump was complete") || !strings.Contains(err.Error(), "does not support if=sd") {
			t.Fatalf("Run = %v, want an error with QEMU's message", err)
		}
	})
	t.Run("hangs before the dump", func(t *testing.T) {
		m := fakeQemu(t, "echo booting; sleep 60 & echo $! >\"$(dirname \"$0\")/child\"; wait")
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		err := m.Run(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no complete dump") {
			t.Fatalf("Run = %v, want the deadline and no complete dump", err)
		}
		// The whole process group is killed, the script's child too.
		pid, err := os.ReadFile(filepath.Join(m.Dir, "child"))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
			if err != nil || strings.Contains(string(stat), ") Z ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("child %s of the killed process still runs", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := string(m.Console()); got != "booting\n" {
			t.Errorf("console = %q", got)
		}
	})
	t.Run("hangs after the dump", func(t *testing.T) {
		m := fakeQemu(t, "printf '@@PILAB-BEGIN\\r\\n@@PILAB-END\\r\\n'; exec sleep 60")
		start := time.Now()
		if err := m.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if m.Ended != "killed after the dump" || time.Since(start) > 20*time.Second {
			t.Errorf("ended %q after %v, want killed after the dump within Run's grace", m.Ended, time.Since(start))
		}
	})
	t.Run("resets after the dump", func(t *testing.T) {
		m := fakeQemu(t, "printf '@@PILAB-BEGIN\\r\\n@@PILAB-END\\r\\n'")
		if err := m.Run(context.Background()); err != nil || m.Ended != "by the guest's watchdog reset" {
			t.Errorf("Run = %v, ended %q", err, m.Ended)
		}
	})
}

// TestWaitFor: a marker the guest prints while QEMU runs is seen then,
// and one it never prints ends with the context, named in the error.
func TestWaitFor(t *testing.T) {
	m := fakeQemu(t, "echo booting; sleep 0.3; echo @@READY; sleep 60")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()
	wait, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := m.WaitFor(wait, "@@READY"); err != nil {
		t.Fatalf("WaitFor(@@READY) = %v; console %q", err, m.Console())
	}
	short, scancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer scancel()
	if err := m.WaitFor(short, "@@NEVER"); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "@@NEVER") {
		t.Errorf("WaitFor(@@NEVER) = %v, want the deadline, naming the marker", err)
	}
	cancel()
	<-ran
}

// TestArgsForward: QEMU forwards a port to the guest's server only when
// asked, and its user-mode network stays restricted either way, unless
// it runs in a namespace of the test's own; one core is asked of the
// kernel only when wanted.
func TestArgsForward(t *testing.T) {
	netdev := func(m *Machine) string {
		args := m.Args()
		i := slices.Index(args, "-netdev")
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("no -netdev in %q", args)
		}
		return args[i+1]
	}
	if got := netdev(&Machine{}); got != "user,id=n0,restrict=on" {
		t.Errorf("without a port: -netdev %q", got)
	}
	if got := netdev(&Machine{ServerPort: 40123}); got != "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:40123-10.0.2.15:5201" {
		t.Errorf("with port 40123: -netdev %q", got)
	}
	if got := netdev(&Machine{Namespace: "tpt-1-1-a"}); got != "user,id=n0" {
		t.Errorf("in a namespace: -netdev %q", got)
	}
	kernel := func(m *Machine) string {
		args := m.Args()
		return args[slices.Index(args, "-append")+1]
	}
	if got := kernel(&Machine{}); strings.Contains(got, "maxcpus") {
		t.Errorf("four cores: -append %q", got)
	}
	if got := kernel(&Machine{OneCore: true}); !strings.HasSuffix(got, " maxcpus=1") {
		t.Errorf("one core: -append %q, want maxcpus=1", got)
	}
}

// TestFindKitBusybox32: the armhf busybox beside root is the kit's 32-bit
// userland when scripts/pilab-fetch put it there, and its absence (an
// older fetch) leaves the rest of the kit usable.
func TestFindKitBusybox32(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for _, f := range []string{"boot/vmlinuz-6.1.0-50-arm64", "usr/lib/linux-image-6.1.0-50-arm64/broadcom/bcm2837-rpi-3-b.dtb",
		"lib/modules/6.1.0-50-arm64/modules.order", "bin/busybox"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if k, err := FindKit(root); err != nil || k.Busybox32 != "" {
		t.Fatalf("FindKit without armhf/ = %+v, %v; want a kit without Busybox32", k, err)
	}
	b32 := filepath.Join(dir, "armhf/bin/busybox")
	if err := os.MkdirAll(filepath.Dir(b32), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b32, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if k, err := FindKit(root); err != nil || k.Busybox32 != b32 || k.Armhf != "" {
		t.Fatalf("FindKit with armhf/ = %+v, %v; want Busybox32 %s and no Armhf (no iperf3 there)", k, err, b32)
	}
	iperf3 := filepath.Join(dir, "armhf/usr/bin/iperf3")
	if err := os.MkdirAll(filepath.Dir(iperf3), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(iperf3, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if k, err := FindKit(root); err != nil || k.Armhf != filepath.Join(dir, "armhf") {
		t.Fatalf("FindKit with armhf/usr/bin/iperf3 = %+v, %v; want Armhf %s", k, err, filepath.Join(dir, "armhf"))
	}
}

// TestCopyTree: a tree goes into the archive parents first, with its
// files' modes and contents and its symbolic links, and what the archive
// already has (busybox) is left out.
func TestCopyTree(t *testing.T) {
	tree := t.TempDir()
	for name, data := range map[string]string{"bin/busybox": "armhf busybox", "usr/bin/iperf3": "iperf3", "lib/arm-linux-gnueabihf/libc.so.6": "libc"} {
		p := filepath.Join(tree, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("arm-linux-gnueabihf/ld-linux-armhf.so.3", filepath.Join(tree, "lib/ld-linux-armhf.so.3")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	c := NewCpio(&buf)
	if err := copyTree(c, tree, map[string]bool{"bin": true, "bin/busybox": true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for b := buf.Bytes(); len(b) >= 110; {
		field := func(i int) int {
			v, err := strconv.ParseUint(string(b[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatalf("header %q: %v", b[:110], err)
			}
			return int(v)
		}
		mode, size, namesize := field(1), field(6), field(11)
		name := string(b[110 : 110+namesize-1])
		off := (110 + namesize + 3) &^ 3
		got = append(got, fmt.Sprintf("%s %o %s", name, mode, b[off:off+size]))
		b = b[(off+size+3)&^3:]
	}
	want := []string{
		"lib 40755 ", "lib/arm-linux-gnueabihf 40755 ", "lib/arm-linux-gnueabihf/libc.so.6 100755 libc",
		"lib/ld-linux-armhf.so.3 120777 arm-linux-gnueabihf/ld-linux-armhf.so.3",
		"usr 40755 ", "usr/bin 40755 ", "usr/bin/iperf3 100755 iperf3", "TRAILER!!! 0 ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("archive:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
