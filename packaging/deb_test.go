// Package packaging holds what the Debian packages are made of (systemd
// units, the conffile, the copyright file, the maintainer scripts) and
// the test that builds, checks, installs and removes them.
package packaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// build runs scripts/package deb into dir and returns the packages by
// architecture.
func build(t *testing.T, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command("../scripts/package", "deb")
	cmd.Env = append(os.Environ(), "DIST="+dir, "ARCHES=amd64 armhf arm64")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/package deb: %v\n%s", err, out)
	}
	debs := map[string]string{}
	for _, l := range strings.Fields(string(out)) {
		if strings.HasSuffix(l, ".deb") {
			a := strings.TrimSuffix(l[strings.LastIndex(l, "_")+1:], ".deb")
			debs[a] = l
		}
	}
	if len(debs) != 3 {
		t.Fatalf("scripts/package deb made %v", debs)
	}
	return debs
}

func sum(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// extract takes the binary out of a package.
func extract(t *testing.T, deb string) string {
	dir := t.TempDir()
	run(t, "dpkg-deb", "-x", deb, dir)
	return filepath.Join(dir, "usr", "bin", "thruput")
}

// TestDeb builds the packages twice and checks they are the same bytes,
// that the armhf binary is ARMv6 and runs on an ARM1176 (Pi 1, Zero) and
// the arm64 one on aarch64 under qemu-user, then installs the amd64
// package with apt, checks the manual, the completion and the units, and
// purges it, leaving nothing behind.
func TestDeb(t *testing.T) {
	fstest.RequireRoot(t)
	for _, tool := range []string{"dpkg-deb", "apt-get", "systemd-analyze", "man", "qemu-arm-static", "qemu-aarch64-static"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed (scripts/setup installs it)", tool)
		}
	}
	if exec.Command("dpkg-query", "-W", "thruput").Run() == nil {
		t.Fatal("a thruput package is installed already: remove it first (apt-get purge thruput)")
	}
	first, second := build(t, t.TempDir()), build(t, t.TempDir())
	for arch, deb := range first {
		if a, b := sum(t, deb), sum(t, second[arch]); a != b {
			t.Errorf("%s: two builds of one commit differ: %s and %s", arch, a, b)
		}
	}

	arm := extract(t, first["armhf"])
	if info := run(t, "go", "version", "-m", arm); !strings.Contains(info, "GOARM=6") || !strings.Contains(info, "-trimpath=true") {
		t.Errorf("armhf binary:\n%s", info)
	}
	if out := run(t, "qemu-arm-static", "-cpu", "arm1176", arm, "version"); !strings.Contains(out, "linux/arm/v6") || !strings.Contains(out, "commit ") {
		t.Errorf("armhf on an ARM1176: %s", out)
	}
	if out := run(t, "qemu-aarch64-static", extract(t, first["arm64"]), "version"); !strings.Contains(out, "linux/arm64") {
		t.Errorf("arm64: %s", out)
	}
	if _, err := exec.LookPath("lintian"); err == nil {
		out, _ := exec.Command("lintian", "--no-tag-display-limit", first["amd64"], first["armhf"]).CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "E: ") {
				t.Errorf("lintian: %s", l)
			}
		}
		t.Logf("lintian:\n%s", out)
	} else if os.Getenv("CI") == "true" {
		t.Error("lintian not installed (scripts/setup installs it)")
	}

	// The machine is put back whatever happens below.
	t.Cleanup(func() {
		if exec.Command("dpkg-query", "-W", "thruput").Run() == nil {
			if out, err := exec.Command("apt-get", "purge", "-y", "-q", "thruput").CombinedOutput(); err != nil {
				t.Errorf("apt-get purge: %v\n%s", err, out)
			}
		}
	})
	abs, _ := filepath.Abs(first["amd64"])
	install := exec.Command("apt-get", "install", "-y", "-q", "--no-install-recommends", abs)
	install.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("apt-get install: %v\n%s", err, out)
	}
	files := strings.Fields(run(t, "dpkg-query", "-L", "thruput"))
	if out := run(t, "/usr/bin/thruput", "version"); !strings.Contains(out, "commit ") {
		t.Errorf("thruput version: %s", out)
	}
	if out := run(t, "man", "-w", "thruput"); strings.TrimSpace(out) != "/usr/share/man/man1/thruput.1.gz" {
		t.Errorf("man -w thruput: %s", out)
	}
	if out := run(t, "man", "-w", "thruput-disk-sweep"); !strings.Contains(out, "thruput-disk-sweep.1.gz") {
		t.Errorf("man -w thruput-disk-sweep: %s", out)
	}
	if out := run(t, "bash", "-c", "source /usr/share/bash-completion/completions/thruput && complete -p thruput"); !strings.Contains(out, "thruput") {
		t.Errorf("bash completion: %s", out)
	}
	units, _ := filepath.Glob("/usr/lib/systemd/system/thruput-*")
	if len(units) != 3 {
		t.Errorf("units: %v", units)
	}
	verify := exec.Command("systemd-analyze", append([]string{"verify", "--man=no"}, units...)...)
	var stderr bytes.Buffer
	verify.Stderr = &stderr
	if err := verify.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, stderr.String())
	}
	run(t, "apt-get", "purge", "-y", "-q", "thruput")
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && !fi.IsDir() {
			t.Errorf("%s is left after purge", f)
		}
	}
	for _, d := range []string{"/usr/share/doc/thruput", "/etc/default/thruput", "/var/lib/thruput"} {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s is left after purge", d)
		}
	}
}
