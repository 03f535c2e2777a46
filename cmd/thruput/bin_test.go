package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"

	"github.com/thruput/thruput/internal/exectest"
)

// buildBin builds thruputBin in dir. Under an emulator (exectest: the
// tests built for 32-bit ARM, run by qemu-arm), thruputBin is a script
// that runs the ARM binary beside it through the emulator, so that every
// test, shell and completion that runs thruputBin by name runs it as
// make check's native run does; dir is then open to all, as the tests
// that run thruputBin as nobody need the binary behind the script.
func buildBin(dir string) error {
	if len(exectest.Wrapper()) == 0 {
		return buildThruput(thruputBin)
	}
	elf := filepath.Join(dir, "thruput.elf")
	if err := buildThruput(elf); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	return exectest.Script(elf, thruputBin)
}

// buildThruput puts the binary under test at path: this machine's,
// static, stripped and stamped as make build makes it (TestVersionFields
// reads the stamps, TestCrossBuilds takes it as this platform's build),
// but without -trimpath: the packages compiled for the test binary serve
// it too, where -trimpath would compile every one of them again on a
// fresh machine. Stripped (-s -w), the link writes no debug information,
// about 40 % of its CPU time.
//
// The binary is kept in the user's cache under the hash of this test
// binary, which Go builds byte for byte the same from the same sources,
// flags and toolchain, and which holds package main and everything it
// imports: while none of that changes, a test run takes the binary it
// built before instead of asking the go command, whose loading and
// checking of the packages alone cost half a CPU second of the short
// tests' run. Only the newest binary is kept.
func buildThruput(path string) error {
	cached := cachedBinary()
	if cached != "" && (os.Link(cached, path) == nil || copyFile(cached, path) == nil) {
		return nil
	}
	// Otherwise go run builds it, not go build: go run keeps the executable
	// in Go's build cache, so a change to the tests alone does not link it
	// again, and its -exec cp copies it to path.
	args := []string{"run", "-buildvcs=false", "-exec", "cp"}
	if trimmed() {
		args = append(args, "-trimpath")
	}
	args = append(args, "-ldflags", "-s -w -X main.version="+testVersion+" -X main.commit="+testCommit+" -X main.buildDate="+testDate, ".", path)
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build thruput: %v\n%s", err, out)
	}
	if cached != "" {
		keep(path, cached)
	}
	return nil
}

// trimmed is whether this test binary was built with -trimpath (make
// test-arm builds so, sharing the ARM packages TestCrossBuilds and the
// package test compile): the binary is then built so too, from the same
// compiled packages.
func trimmed() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-trimpath" {
			return s.Value == "true"
		}
	}
	return false
}

// cachedBinary is where the binary built from this test binary's sources
// is kept, "" when there is no cache or no test binary to read.
func cachedBinary() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return filepath.Join(dir, "thruput-tests", hex.EncodeToString(h.Sum(nil))[:32], "thruput")
}

// keep copies the binary at path to cached, whole or not at all, and
// removes the binaries kept for other test binaries. Failing to keep it
// costs the next run a build, nothing more.
func keep(path, cached string) {
	entry := filepath.Dir(cached)
	root := filepath.Dir(entry)
	if old, err := os.ReadDir(root); err == nil {
		for _, e := range old {
			if filepath.Join(root, e.Name()) != entry {
				os.RemoveAll(filepath.Join(root, e.Name()))
			}
		}
	}
	if os.MkdirAll(entry, 0o755) != nil {
		return
	}
	tmp := cached + fmt.Sprintf(".%d", os.Getpid())
	if copyFile(path, tmp) != nil || os.Rename(tmp, cached) != nil {
		os.Remove(tmp)
	}
}

// copyFile copies the executable from to a new file to.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
