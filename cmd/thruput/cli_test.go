package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/disk"
	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// thruputBin is the binary under test, built once by TestMain, for the
// tests where a process of its own is the point: signals, a server in the
// background, another user, a namespace, a host over SSH.
var thruputBin string

// The build stamps TestMain links into thruputBin, as make build and
// scripts/package do, so that TestVersionFields needs no build of its own.
const (
	testVersion = "1.2.3"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
	testDate    = "2026-01-02T03:04:05Z"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "thruput-bin-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	thruputBin = filepath.Join(dir, "thruput")
	// Every run saves itself; the tests' runs go to a store of their own,
	// never the user's.
	os.Setenv("THRUPUT_DB", filepath.Join(dir, "results.db"))
	// and runs a store refused go to a spool of their own.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	if err := buildBin(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := nettest.Sweep(); err != nil {
		fmt.Fprintf(os.Stderr, "nettest: cleaning up after earlier test runs failed: %v\n", err)
		os.Exit(1)
	}
	code := fstest.Run(m)
	if err := nettest.Release(); err != nil {
		fmt.Fprintf(os.Stderr, "nettest: %v\n", err)
		code = max(code, 1)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

type outcome struct {
	code           int
	stdout, stderr string
}

// inProcessLimit bounds an in-process run: the longest, a suite with
// --repeat, takes under a minute.
const inProcessLimit = 5 * time.Minute

// stdio is held by the in-process run that has the process's standard
// output and error swapped for files of its own. The tests that mostly
// wait on a process of their own (a server, a shell, a run killed or
// refused, the binary as nobody) run in parallel, so that their waits
// overlap; their in-process runs still take turns on stdio.
var stdio sync.Mutex

// thruput runs a command line in this process through run, as main does,
// and returns its exit code and what it wrote on standard output and
// error. The run has the process's os.Stdout and os.Stderr (cobra's help,
// main's error line), so in-process runs take turns; tests that need a
// process of their own (signals, another user, a namespace, a server in
// the background) run thruputBin.
func thruput(t testing.TB, args ...string) outcome {
	t.Helper()
	// Files in memory (memfd_create(2)): a temporary directory and two
	// files on disk for each of the few hundred runs cost more system
	// time than most runs.
	files := make([]*os.File, 2)
	for i, name := range []string{"stdout", "stderr"} {
		fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		files[i] = f
	}
	// A run that never ends (a server that should have refused its
	// flags) fails its test instead of hanging the package.
	ctx, cancel := context.WithTimeout(context.Background(), inProcessLimit)
	defer cancel()
	stdio.Lock()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = files[0], files[1]
	code := run(ctx, append([]string{"thruput"}, args...), nil)
	os.Stdout, os.Stderr = stdout, stderr
	stdio.Unlock()
	if ctx.Err() != nil {
		t.Errorf("thruput %v: still running after %v, stopped", args, inProcessLimit)
	}
	var out [2]string
	for i, f := range files {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return outcome{code: code, stdout: out[0], stderr: out[1]}
}

// asNobody runs a command as the user nobody (root's tests of what an
// unprivileged user gets).
var asNobody = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}

// nobodyBinary links the binary into dir, which becomes 0755, so that
// nobody can run it there: the test binary's own directory is root's
// alone. The directories above dir must let nobody through. A hard link,
// not a copy: a copy is open for writing a moment, and a test forking
// beside it then hands that descriptor to its child until the child
// execs, and running the copy fails with "text file busy".
func nobodyBinary(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "thruput")
	if err := os.Link(thruputBin, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// runOutcome runs cmd, a thruput given args, to its end.
func runOutcome(t testing.TB, cmd *exec.Cmd, args []string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run thruput %v: %v", args, err)
	}
	return outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// sweepJSON runs a sweep that must succeed and returns its document.
func sweepJSON(t testing.TB, args ...string) *result.Document {
	t.Helper()
	o := thruput(t, append([]string{"disk", "sweep", "--json", "-q"}, args...)...)
	if o.code != 0 {
		t.Fatalf("thruput %v: exit %d\n%s", args, o.code, o.stderr)
	}
	doc, err := result.Read(strings.NewReader(o.stdout))
	if err != nil {
		t.Fatalf("thruput %v: %v\n%s", args, err, o.stdout)
	}
	return doc
}

// entries lists what a directory holds, to prove a run left nothing.
func entries(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestVersionAndHelp(t *testing.T) {
	o := thruput(t, "version")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "thruput ") {
		t.Errorf("version: exit %d, %q", o.code, o.stdout)
	}
	o = thruput(t, "version", "--json")
	var tool result.Tool
	if err := json.Unmarshal([]byte(o.stdout), &tool); err != nil || tool.Name != "thruput" || tool.Platform == "" {
		t.Errorf("version --json: %v, %+v", err, tool)
	}
	for _, cmd := range [][]string{{}, {"disk"}, {"disk", "sweep"}, {"disk", "clean"}, {"version"}} {
		o := thruput(t, append(cmd, "--help")...)
		if o.code != 0 || !strings.Contains(o.stdout, "Examples:") {
			t.Errorf("thruput %v --help: exit %d, no examples:\n%s", cmd, o.code, o.stdout)
		}
	}
}

// TestVersionFields checks that `thruput version` reports the version,
// commit and commit date TestMain linked in, as make build and
// scripts/package do, and the toolchain and platform it was built with.
func TestVersionFields(t *testing.T) {
	t.Parallel()
	// The test binary is built for the platform thruputBin is, GOARM and
	// all: linux/arm/v6 under make check's ARM run.
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if arm := os.Getenv("GOARM"); runtime.GOARCH == "arm" && arm != "" {
		platform += "/v" + arm
	}
	out, err := exec.Command(thruputBin, "version", "--json").Output()
	var tool result.Tool
	if err == nil {
		err = json.Unmarshal(out, &tool)
	}
	want := result.Tool{Name: "thruput", Version: testVersion, GoVersion: runtime.Version(), Platform: platform, Commit: testCommit, BuildDate: testDate}
	if err != nil || tool != want {
		t.Errorf("version --json: %v\n got %+v\nwant %+v", err, tool, want)
	}
	line := fmt.Sprintf("thruput %s (commit %.12s, %s, %s, %s)\n", testVersion, testCommit, testDate, runtime.Version(), platform)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if out, err := exec.Command(thruputBin, args...).Output(); err != nil || string(out) != line {
			t.Errorf("thruput %v: %v %q, want %q", args, err, out, line)
		}
	}
}

// TestMan checks `thruput man DIR`: one uncompressed page per command
// (the packages gzip them), each headed by its own name, none for the
// PowerShell completion the packages do not ship.
func TestMan(t *testing.T) {
	want := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		want[strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"] = true
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(newRoot(&app{}))
	for _, c := range []string{"", "-bash", "-zsh", "-fish"} {
		want["thruput-completion"+c+".1"] = true
	}
	dir := filepath.Join(t.TempDir(), "man1")
	if o := thruput(t, "man", dir); o.code != 0 {
		t.Fatalf("man: exit %d: %s", o.code, o.stderr)
	}
	got := entries(t, dir)
	for _, name := range got {
		if !want[name] {
			t.Errorf("man wrote %s, a page for no command", name)
			continue
		}
		delete(want, name)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		title := strings.ToUpper(strings.TrimSuffix(name, ".1"))
		if th := fmt.Sprintf(".TH \"%s\" \"1\" ", title); !strings.Contains(string(b), "\n"+th) {
			t.Errorf("%s: no %q line (uncompressed), starts %.100q", name, th, b)
		}
	}
	for name := range want {
		t.Errorf("man wrote no %s", name)
	}
}

// TestCompletions loads the completions the packages install into each
// shell and completes a word with them: a script with an error would break
// every shell session.
func TestCompletions(t *testing.T) {
	t.Parallel()
	checks := []struct{ shell, script, want string }{
		{"bash", "source <(thruput completion bash) && complete -p thruput", "-F __start_thruput thruput"},
		{"zsh", "autoload -U compinit && compinit -u && source <(thruput completion zsh) && print -r -- $_comps[thruput]", "_thruput"},
		{"fish", "thruput completion fish | source; and complete -C'thruput dis'", "disk\tMeasure storage"},
	}
	path := filepath.Dir(thruputBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, c := range checks {
		if _, err := exec.LookPath(c.shell); err != nil {
			if os.Getenv("CI") == "true" {
				t.Errorf("%s not installed (scripts/setup installs it)", c.shell)
			}
			continue
		}
		cmd := exec.Command(c.shell, "-c", c.script)
		cmd.Env = append(os.Environ(), "PATH="+path)
		if c.shell == "zsh" {
			cmd.Args = []string{"zsh", "-f", "-c", c.script}
		}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s completion: %v\n%s", c.shell, err, out)
		}
	}
}

func TestBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"disk", "sweep", "/proc"}, 2, "not a filesystem on a storage device"},
		{[]string{"disk", "random", "/sys"}, 2, "sysfs"},
		{[]string{"disk", "sweep", "--sizes", "4x"}, 2, `unknown unit "x"`},
		{[]string{"disk", "sweep", "--sizes", "0"}, 2, "must be positive"},
		{[]string{"disk", "sweep", "--sizes=-8"}, 2, "must be positive"},
		{[]string{"disk", "sweep", "--sizes", "1M-4k"}, 2, "smaller than"},
		{[]string{"disk", "sweep", "--file-size", "0"}, 2, "must be positive"},
		{[]string{"disk", "sweep", "--file-size", "1Q"}, 2, `unknown unit "Q"`},
		{[]string{"disk", "sweep", "--sizes", "2M", "--file-size", "1M"}, 2, "larger than --file-size"},
		{[]string{"disk", "sweep", "--max-time", "0s"}, 2, "--max-time must be positive"},
		{[]string{"disk", "sweep", "--max-time", "soon"}, 2, "invalid argument"},
		{[]string{"disk", "sweep", "--write-only", "--read-only"}, 2, "exclude each other"},
		{[]string{"disk", "sweep", "--data", "ones"}, 2, `--data "ones"`},
		{[]string{"disk", "sweep", "--format", "yaml"}, 2, `--format "yaml"`},
		{[]string{"disk", "sweep", "--json", "--format", "csv"}, 2, "contradict"},
		{[]string{"disk", "sweep", "--file-size", "1000T"}, 2, "not enough free space"},
		{[]string{"disk", "sweep", "--nope"}, 2, "unknown flag"},
		{[]string{"disk", "frobnicate"}, 2, "unknown command"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"disk", "clean"}, 2, "disk clean: wrong arguments (got no argument); usage: thruput disk clean DIR..."},
		{[]string{"disk", "sweep", "--target", "/does/not/exist"}, 2, "does not exist"},
		{[]string{"disk", "sweep", "--target", file}, 2, "is not a directory"},
		{[]string{"disk", "sweep", "--target", "/dev/null"}, 2, "is a device"},
		{[]string{"disk", "clean", "/does/not/exist"}, 2, "does not exist"},
		{[]string{"disk", "sweep", "-o", "/does/not/exist/x.json"}, 2, "-o /does/not/exist/x.json: no such file or directory"},
	}
	if os.Geteuid() != 0 {
		cases = append(cases, struct {
			args []string
			code int
			msg  string
		}{[]string{"disk", "sweep", "--drop-caches"}, 2, "needs root"})
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			args := c.args
			if c.args[0] == "disk" && c.args[1] == "sweep" && !strings.Contains(strings.Join(c.args, " "), "--target") {
				args = append(args, dir)
			}
			o := thruput(t, args...)
			if o.code != c.code || !strings.Contains(o.stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", o.code, o.stderr, c.code, c.msg)
			}
			if !strings.HasPrefix(o.stderr, "thruput: ") || strings.Count(o.stderr, "\n") != 1 {
				t.Errorf("want one clear line on stderr, got %q", o.stderr)
			}
			if left := entries(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestBlockDeviceRefused(t *testing.T) {
	for _, dev := range []string{"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/mmcblk0"} {
		if info, err := os.Stat(dev); err == nil && info.Mode()&os.ModeDevice != 0 && info.Mode()&os.ModeCharDevice == 0 {
			o := thruput(t, "disk", "sweep", "--target", dev)
			if o.code != 2 || !strings.Contains(o.stderr, "never opens devices") {
				t.Errorf("%s: exit %d, %q", dev, o.code, o.stderr)
			}
			return
		}
	}
	t.Skip("no block device node to try")
}

func TestSweepCounts(t *testing.T) {
	fstest.Long(t, "measures for seconds")
	dir := t.TempDir()
	doc := sweepJSON(t, dir, "--sizes", "8,4k,64k,1M", "--file-size", "4M", "--max-time", "20s")
	if doc.Status != result.StatusOK || doc.Method != "disk.sweep" || len(doc.Targets) != 1 {
		t.Fatalf("status %q method %q targets %d", doc.Status, doc.Method, len(doc.Targets))
	}
	tgt := doc.Targets[0]
	if tgt.Path != dir || tgt.FSType == "" || tgt.MountPoint == "" || tgt.FreeBytes <= 0 {
		t.Errorf("target not described: %+v", tgt)
	}
	if doc.Host.Hostname == "" || doc.Host.CPUCores <= 0 || doc.Host.Kernel == "" {
		t.Errorf("host not described: %+v", doc.Host)
	}
	steps := doc.Sweep.Steps
	if len(steps) != 8 {
		t.Fatalf("%d steps, want 8", len(steps))
	}
	wantCache := result.CacheCold
	if tgt.FSType == "tmpfs" {
		wantCache = result.CacheCached
	}
	for i, s := range steps {
		bs := doc.Sweep.Parameters.BlockSizes[i/2]
		phase := []string{"write", "read"}[i%2]
		if s.BlockSize != bs || s.Phase != phase || s.Bytes != 4<<20 || s.Ops != (4<<20)/bs || s.Truncated {
			t.Errorf("step %d: %+v; want %s of 4 MiB in %d-byte calls", i, s, phase, bs)
		}
		if s.ElapsedNs <= 0 || s.MiBPerSec <= 0 {
			t.Errorf("step %d: no time or rate: %+v", i, s)
		}
		if phase == "write" && (s.FsyncNs <= 0 || s.FsyncNs > s.ElapsedNs) {
			t.Errorf("step %d: fsync %d ns not inside the %d ns timed span", i, s.FsyncNs, s.ElapsedNs)
		}
		if phase == "read" && (s.Eviction != "fadvise" || s.Cache != wantCache || s.CachedFraction == nil) {
			t.Errorf("step %d on %s: eviction %q cache %q; want fadvise and %s", i, tgt.FSType, s.Eviction, s.Cache, wantCache)
		}
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestSweepModesAndFormats(t *testing.T) {
	dir := t.TempDir()
	doc := sweepJSON(t, dir, "--sizes", "4k", "--file-size", "1M", "--write-only", "--data", "zero")
	if len(doc.Sweep.Steps) != 1 || doc.Sweep.Steps[0].Phase != "write" || doc.Sweep.Parameters.Data != "zero" {
		t.Errorf("--write-only: %+v", doc.Sweep)
	}
	doc = sweepJSON(t, dir, "--sizes", "4k,16k", "--file-size", "1M", "--read-only")
	if len(doc.Sweep.Steps) != 2 || doc.Sweep.Steps[0].Phase != "read" || doc.Sweep.Steps[1].Bytes != 1<<20 {
		t.Errorf("--read-only: %+v", doc.Sweep)
	}

	out := filepath.Join(t.TempDir(), "sweep.csv")
	o := thruput(t, "disk", "sweep", dir, "--sizes", "4k", "--file-size", "1M", "-q", "-o", out)
	b, _ := os.ReadFile(out)
	if o.code != 0 || o.stdout != "" || !strings.HasPrefix(string(b), "target,path,fs_type") || strings.Count(string(b), "\n") != 3 {
		t.Errorf("-o x.csv: exit %d, stdout %q, file:\n%s", o.code, o.stdout, b)
	}
	o = thruput(t, "disk", "sweep", dir, "--sizes", "8,1k", "--file-size", "64k", "--format", "markdown")
	if o.code != 0 || !strings.Contains(o.stdout, "| block | ") || !strings.Contains(o.stdout, "| 1k | ") {
		t.Errorf("markdown: exit %d:\n%s", o.code, o.stdout)
	}
	o = thruput(t, "disk", "sweep", dir, "--sizes", "8,1k", "--file-size", "64k")
	if o.code != 0 || !strings.Contains(o.stdout, "Write, MiB/s") || !strings.Contains(o.stdout, "\n1k ") {
		t.Errorf("table: exit %d:\n%s", o.code, o.stdout)
	}
	if o.stderr != "" {
		t.Errorf("progress or noise on a stderr that is not a terminal: %q", o.stderr)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestTimeBound checks that a step stops at --max-time and says so.
func TestTimeBound(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	doc := sweepJSON(t, dir, "--sizes", "8", "--file-size", "1G", "--max-time", "100ms", "--write-only")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a 100 ms bound took %s", took)
	}
	for _, s := range doc.Sweep.Steps {
		if !s.Truncated || s.Bytes <= 0 || s.Bytes >= 1<<30 || s.Bytes != s.Ops*8 {
			t.Errorf("step %+v: want a truncated step with whole 8-byte blocks", s)
		}
	}
}

// plantScratch makes a scratch directory as a run would, owned by pid.
func plantScratch(t *testing.T, target, name string, pid int, start string) string {
	t.Helper()
	host, _ := os.Hostname()
	dir := filepath.Join(target, ".thruput-"+name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	owner := fmt.Sprintf(`{"hostname":%q,"boot_id":%q,"pid":%d,"start_time":%q}`, host, strings.TrimSpace(string(boot)), pid, start)
	if err := os.WriteFile(filepath.Join(dir, "owner.json"), []byte(owner), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep-8.dat"), make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func procStart(t *testing.T, pid int) string {
	t.Helper()
	start, err := disk.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	return start
}

func TestLeftoversCleaned(t *testing.T) {
	dir := t.TempDir()
	dead := plantScratch(t, dir, "20250101T000000Z-dead01", 1<<22+7, "1")
	live := plantScratch(t, dir, "20250101T000000Z-11fe01", os.Getpid(), procStart(t, os.Getpid()))
	// Not ours: a name thruput never makes, and a run-shaped directory
	// with no owner record that holds a file thruput never makes.
	notes := filepath.Join(dir, ".thruput-mynotes")
	if err := os.MkdirAll(filepath.Join(notes, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, ".thruput-20250101T000000Z-abcdef")
	if err := os.Mkdir(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{notes, foreign} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	o := thruput(t, "disk", "sweep", dir, "--sizes", "4k", "--file-size", "64k", "-q", "--json")
	if o.code != 0 || !strings.Contains(o.stderr, "removed "+dead) || !strings.Contains(o.stderr, "left "+live+" alone: in use by running process") {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("stale %s still there", dead)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("live %s removed: %v", live, err)
	}
	if _, err := os.Stat(filepath.Join(notes, "sub")); err != nil {
		t.Errorf("%s is not thruput's and was touched: %v", notes, err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "thesis.tex")); err != nil || !strings.Contains(o.stderr, "holds files thruput does not make") {
		t.Errorf("%s holds a foreign file and was touched (%v); stderr %q", foreign, err, o.stderr)
	}
	if err := os.RemoveAll(foreign); err != nil {
		t.Fatal(err)
	}

	dead = plantScratch(t, dir, "20250101T000000Z-dead02", 1<<22+7, "1")
	o = thruput(t, "disk", "clean", dir, "--json")
	var cleaned []struct {
		Dir     string `json:"dir"`
		Removed bool   `json:"removed"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &cleaned); err != nil || o.code != 0 || len(cleaned) != 2 {
		t.Fatalf("clean: exit %d, %v, %s", o.code, err, o.stdout)
	}
	for _, c := range cleaned {
		if c.Removed != (c.Dir == dead) {
			t.Errorf("clean: %+v", c)
		}
	}
	o = thruput(t, "disk", "clean", dir)
	if !strings.Contains(o.stdout, "kept    "+live) {
		t.Errorf("clean table: %q", o.stdout)
	}
}

// startSweep starts a long sweep and waits for its scratch directory.
func startSweep(t *testing.T, dir string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	return startRun(t, dir, "sweep-8.dat", "disk", "sweep", dir, "--sizes", "8,16", "--file-size", "1G", "--max-time", "20s")
}

// startRun starts thruput and waits until file appears in its scratch
// directory inside dir.
func startRun(t *testing.T, dir, file string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(thruputBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		matches, _ := filepath.Glob(filepath.Join(dir, ".thruput-*", file))
		if len(matches) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scratch directory appeared; stderr %q", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, &stdout, &stderr
}

// midRun is how long the interrupt tests let a started run go on, so that
// their signal lands while it writes rather than as it sets up.
const midRun = 200 * time.Millisecond

func TestInterruptLeavesNothing(t *testing.T) {
	fstest.Long(t, "interrupts real runs")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, stdout, stderr := startSweep(t, dir)
			time.Sleep(midRun)
			start := time.Now()
			_ = cmd.Process.Signal(sig)
			_ = cmd.Wait()
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s to stop", took)
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "write at block size 8: interrupted") ||
				strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
			// Stopped inside its first step, the run measured nothing:
			// the line on stderr is all, no table of zeros.
			if stdout.Len() != 0 {
				t.Errorf("a run that measured nothing printed:\n%s", stdout.String())
			}
			if left := entries(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestInterruptOtherMethods: random and io stop on SIGINT with their
// partial figures and leave nothing behind, like the sweep.
func TestInterruptOtherMethods(t *testing.T) {
	fstest.Long(t, "interrupts real runs")
	for _, run := range [][]string{
		{"test_file.1", "disk", "random", "--files", "2", "--total-size", "8M", "--bs", "4k", "--time", "30s"},
		{"job.0", "disk", "io", "--rw", "randread", "--size", "8M", "--runtime", "30s", "--time-based", "--direct=false"},
	} {
		t.Run(run[2], func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, run[1:3]...), append([]string{dir}, run[3:]...)...)
			cmd, stdout, stderr := startRun(t, dir, run[0], args...)
			time.Sleep(midRun)
			_ = cmd.Process.Signal(syscall.SIGINT)
			_ = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), "Run interrupted") {
				t.Errorf("partial results not printed:\n%s", stdout.String())
			}
			if left := entries(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestKilledRunCleanedByNext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, _, _ := startSweep(t, dir)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	left := entries(t, dir)
	if len(left) != 1 || !strings.HasPrefix(left[0], ".thruput-") {
		t.Fatalf("after SIGKILL want one scratch dir, got %v", left)
	}
	o := thruput(t, "disk", "sweep", dir, "--sizes", "4k", "--file-size", "64k", "-q")
	if o.code != 0 || !strings.Contains(o.stderr, "removed") || !strings.Contains(o.stderr, "is gone") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestTargetDescribed ties the target section to sysinfo's view of the mount.
func TestTargetDescribed(t *testing.T) {
	dir := t.TempDir()
	want, err := sysinfo.Default().Target(dir)
	if err != nil {
		t.Skip("no mount information here:", err)
	}
	doc := sweepJSON(t, dir, "--sizes", "4k", "--file-size", "64k", "--write-only")
	got := doc.Targets[0]
	if got.FSType != want.FSType || got.MountPoint != want.MountPoint || got.Device != want.Device {
		t.Errorf("target %+v; sysinfo says %+v", got, want)
	}
}

// TestContextInResults: every result carries the machine's hardware and a
// verdict on its main figures.
func TestContextInResults(t *testing.T) {
	doc := sweepJSON(t, "--sizes", "64k", "--file-size", "1M", t.TempDir())
	if doc.System == nil || len(doc.System.BlockDevices) == 0 {
		t.Fatalf("no system facts in the result: %+v", doc.System)
	}
	if len(doc.Bottlenecks) != 2 {
		t.Fatalf("%d bottleneck verdicts, want one per phase", len(doc.Bottlenecks))
	}
	for _, b := range doc.Bottlenecks {
		if b.Verdict == "" || len(b.Hops) == 0 || b.BytesPerSec <= 0 {
			t.Errorf("verdict %+v", b)
		}
	}
	o := thruput(t, "disk", "sweep", "--sizes", "64k", "--file-size", "1M", "-q", t.TempDir())
	if !strings.Contains(o.stdout, "Bottlenecks:") {
		t.Errorf("table output has no bottleneck section:\n%s", o.stdout)
	}
}
