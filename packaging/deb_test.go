// Package packaging holds what the Debian packages are made of (systemd
// units, the timer's schedule generator and the suite service's command,
// the conffile, the copyright file, the maintainer scripts, Prometheus
// rules and a Grafana dashboard) and the tests that build, check,
// install and remove them.
package packaging

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// purgeTime is what TestDeb keeps of its deadline to put the machine back:
// go test -timeout panics without running cleanups, leaving the package
// installed.
const purgeTime = 2 * time.Minute

func run(ctx context.Context, t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: stopped to purge before the test's deadline\n%s", name, args, out)
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// build runs scripts/package deb for arches into dir and returns the
// packages by architecture.
func build(ctx context.Context, t *testing.T, dir, arches string) map[string]string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "../scripts/package", "deb")
	cmd.Env = append(os.Environ(), "DIST="+dir, "ARCHES="+arches)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("scripts/package deb: stopped to purge before the test's deadline\n%s", out)
	}
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
	if len(debs) != len(strings.Fields(arches)) {
		t.Fatalf("scripts/package deb made %v of %s", debs, arches)
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
func extract(ctx context.Context, t *testing.T, deb string) string {
	dir := t.TempDir()
	run(ctx, t, "dpkg-deb", "-x", deb, dir)
	return filepath.Join(dir, "usr", "bin", "thruput")
}

// installed says whether dpkg knows a thruput package in any state, an
// earlier run's half-installed or removed one included.
func installed() bool {
	return exec.Command("dpkg-query", "-W", "thruput").Run() == nil
}

// purge removes the package as an earlier run, or this one, left it.
func purge(t *testing.T) {
	if !installed() {
		return
	}
	if out, err := exec.Command("dpkg", "--purge", "thruput").CombinedOutput(); err != nil {
		t.Errorf("dpkg --purge thruput: %v\n%s", err, out)
	}
}

// checkVersion runs a packaged binary's `version --json` (under qemu for
// the ARM ones) and checks each field against the commit it was built
// from: the build date is the commit's, not the clock's.
func checkVersion(ctx context.Context, t *testing.T, version, platform string, cmd ...string) {
	t.Helper()
	var tool result.Tool
	out := run(ctx, t, cmd[0], append(cmd[1:], "version", "--json")...)
	if err := json.Unmarshal([]byte(out), &tool); err != nil {
		t.Fatalf("%v version --json: %v\n%s", cmd, err, out)
	}
	epoch, err := strconv.ParseInt(strings.TrimSpace(run(ctx, t, "git", "log", "-1", "--format=%ct")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	want := result.Tool{
		Name:      "thruput",
		Version:   version,
		GoVersion: strings.TrimSpace(run(ctx, t, "go", "env", "GOVERSION")),
		Platform:  platform,
		Commit:    strings.TrimSpace(run(ctx, t, "git", "rev-parse", "HEAD")),
		BuildDate: time.Unix(epoch, 0).UTC().Format(time.RFC3339),
	}
	if tool != want {
		t.Errorf("%v version:\n got %+v\nwant %+v", cmd, tool, want)
	}
}

// TestDeb builds the amd64 and armhf packages twice and checks they are
// the same bytes, that the armhf binary is ARMv6 and runs on an ARM1176
// (Pi 1, Zero) and the arm64 one on aarch64 under qemu-user, each saying
// what it was built from, runs lintian, then installs the amd64 package
// with apt, checks the manual, the completion and the units, enables the
// timer as the README says, and purges it, leaving nothing behind.
func TestDeb(t *testing.T) {
	fstest.RequireRoot(t)
	for _, tool := range []string{"dpkg-deb", "apt-get", "systemctl", "systemd-analyze", "man", "qemu-arm-static", "qemu-aarch64-static"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed (scripts/setup installs it)", tool)
		}
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-purgeTime))
		defer cancel()
	}
	// The services' state lives in systemd's /var/lib/private, which the
	// test makes on a machine that never ran one; it goes last, once
	// empty.
	if _, err := os.Lstat("/var/lib/private"); os.IsNotExist(err) {
		t.Cleanup(func() { os.Remove("/var/lib/private") })
	}
	// A run killed before its cleanup left its package; this one starts
	// from a clean machine, and leaves one whatever happens below.
	purge(t)
	t.Cleanup(func() { purge(t) })

	first := build(ctx, t, t.TempDir(), "amd64 armhf arm64")
	second := build(ctx, t, t.TempDir(), "amd64 armhf")
	for arch, deb := range second {
		if a, b := sum(t, first[arch]), sum(t, deb); a != b {
			t.Errorf("%s: two builds of one commit differ: %s and %s", arch, a, b)
		}
	}
	version := regexp.MustCompile(`thruput_(.+)_amd64\.deb$`).FindStringSubmatch(first["amd64"])[1]

	arm := extract(ctx, t, first["armhf"])
	if info := run(ctx, t, "go", "version", "-m", arm); !strings.Contains(info, "GOARM=6") || !strings.Contains(info, "-trimpath=true") {
		t.Errorf("armhf binary:\n%s", info)
	}
	checkVersion(ctx, t, version, "linux/arm/v6", "qemu-arm-static", "-cpu", "arm1176", arm)
	checkVersion(ctx, t, version, "linux/arm64", "qemu-aarch64-static", extract(ctx, t, first["arm64"]))
	if _, err := exec.LookPath("lintian"); err == nil {
		out, _ := exec.CommandContext(ctx, "lintian", "--tag-display-limit", "0", first["amd64"], first["armhf"]).CombinedOutput()
		if ctx.Err() != nil {
			t.Fatal("lintian: stopped to purge before the test's deadline")
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "E: ") || strings.HasPrefix(l, "W: ") {
				t.Errorf("lintian: %s", l)
			}
		}
		t.Logf("lintian:\n%s", out)
	} else if os.Getenv("CI") == "true" {
		t.Error("lintian not installed (scripts/setup installs it)")
	}

	abs, _ := filepath.Abs(first["amd64"])
	install := exec.CommandContext(ctx, "apt-get", "install", "-y", "-q", "--no-install-recommends", abs)
	install.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("apt-get install: %v\n%s", err, out)
	}
	files := strings.Fields(run(ctx, t, "dpkg-query", "-L", "thruput"))
	checkVersion(ctx, t, version, "linux/amd64", "/usr/bin/thruput")
	if out := run(ctx, t, "man", "-w", "thruput"); strings.TrimSpace(out) != "/usr/share/man/man1/thruput.1.gz" {
		t.Errorf("man -w thruput: %s", out)
	}
	if out := run(ctx, t, "man", "-w", "thruput-disk-sweep"); !strings.Contains(out, "thruput-disk-sweep.1.gz") {
		t.Errorf("man -w thruput-disk-sweep: %s", out)
	}
	if out := run(ctx, t, "bash", "-c", "source /usr/share/bash-completion/completions/thruput && complete -p thruput"); !strings.Contains(out, "thruput") {
		t.Errorf("bash completion: %s", out)
	}
	for _, f := range []string{"/usr/lib/systemd/system-generators/thruput-suite-generator", "/usr/lib/thruput/thruput-suite-run",
		"/usr/share/thruput/prometheus/thruput-rules.yml", "/usr/share/thruput/prometheus/thruput-rules.test.yml", "/usr/share/thruput/grafana/thruput-dashboard.json"} {
		if !slices.Contains(files, f) {
			t.Errorf("the package lacks %s", f)
		}
	}
	units, _ := filepath.Glob("/usr/lib/systemd/system/thruput-*")
	if len(units) != 3 {
		t.Errorf("units: %v", units)
	}
	verify := exec.CommandContext(ctx, "systemd-analyze", append([]string{"verify", "--man=no"}, units...)...)
	var stderr bytes.Buffer
	verify.Stderr = &stderr
	err := verify.Run()
	// verify loads every unit on the machine: a warning about another
	// package's unit (Debian's irtt.service runs as nobody) is not ours.
	var ours []string
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.Contains(l, "thruput") {
			ours = append(ours, l)
		}
	}
	if err != nil || len(ours) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, stderr.String())
	}

	// What a user of the README has after a while: the timer and the
	// dashboard enabled, a history in the services' state directory.
	run(ctx, t, "systemctl", "enable", "thruput-suite.timer", "thruput-serve.service")
	links := func() []string {
		l, _ := filepath.Glob("/etc/systemd/system/*/thruput-*")
		m, _ := filepath.Glob("/etc/systemd/system/thruput-*")
		return append(l, m...)
	}
	if len(links()) != 2 {
		t.Errorf("systemctl enable made %v", links())
	}
	if err := os.MkdirAll("/var/lib/private/thruput", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("/var/lib/private/thruput/results.db", []byte("history"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("private/thruput", "/var/lib/thruput"); err != nil {
		t.Fatal(err)
	}

	run(ctx, t, "apt-get", "purge", "-y", "-q", "thruput")
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && !fi.IsDir() {
			t.Errorf("%s is left after purge", f)
		}
	}
	if l := links(); len(l) > 0 {
		t.Errorf("purge left the links that enabled or masked the units: %v", l)
	}
	state, _ := filepath.Glob("/var/lib/systemd/deb-systemd-helper-*/*thruput*")
	for _, d := range append(state, "/usr/share/doc/thruput", "/etc/default/thruput", "/var/lib/thruput", "/var/lib/private/thruput") {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s is left after purge", d)
		}
	}
}

// TestCopyright checks that debian/copyright names every module linked
// into thruput, so that a new dependency cannot ship without its license.
func TestCopyright(t *testing.T) {
	b, err := os.ReadFile("debian/copyright")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "Files: "); ok {
			for _, f := range strings.Fields(rest) {
				named[strings.TrimSuffix(f, "/*")] = true
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", "../cmd/thruput").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mods := append(strings.Fields(string(out)), "go")
	for _, m := range mods {
		if !named[m] {
			t.Errorf("debian/copyright: no Files paragraph for %s", m)
		}
	}
}
