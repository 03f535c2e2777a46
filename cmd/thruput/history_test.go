package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/promtest"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

// listed runs results list --json against db and decodes it.
func listed(t *testing.T, db string, args ...string) []report.Entry {
	t.Helper()
	o := thruput(t, append([]string{"results", "list", "--json", "--db", db}, args...)...)
	if o.code != 0 {
		t.Fatalf("results list %v: exit %d: %s", args, o.code, o.stderr)
	}
	var out []report.Entry
	if err := json.Unmarshal([]byte(o.stdout), &out); err != nil {
		t.Fatalf("results list --json: %v\n%s", err, o.stdout)
	}
	return out
}

// quickSweep makes a small real sweep in dir, saved in db with labels.
func quickSweep(t *testing.T, db, dir string, labels ...string) *result.Document {
	t.Helper()
	args := []string{"--db", db, "--sizes", "4k,64k", "--file-size", "1M", dir}
	for _, l := range labels {
		args = append(args, "--label", l)
	}
	return sweepJSON(t, args...)
}

func TestRunsAreSaved(t *testing.T) {
	db := filepath.Join(t.TempDir(), "results.db")
	dir := t.TempDir()
	a := quickSweep(t, db, dir, "device=sandisk-extreme", "fs=tmp")
	b := quickSweep(t, db, dir, "device=kingston", "fs=tmp")
	o := thruput(t, "disk", "sweep", "-q", "--json", "--no-save", "--db", db, "--sizes", "4k", "--file-size", "64k", dir)
	if o.code != 0 {
		t.Fatalf("--no-save: exit %d: %s", o.code, o.stderr)
	}

	all := listed(t, db)
	if len(all) != 2 || all[0].ID != b.ID || all[1].ID != a.ID {
		t.Fatalf("list: want %s then %s (newest first, --no-save left out), got %+v", b.ID, a.ID, all)
	}
	if e := all[1]; e.Method != "disk.sweep" || e.Labels["device"] != "sandisk-extreme" || e.Target != a.Targets[0].Path || e.Status != "ok" || !strings.Contains(e.Summary, "MiB/s") {
		t.Errorf("entry of run a: %+v", e)
	}
	if got := listed(t, db, "--label", "device=kingston"); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("--label device=kingston: %+v", got)
	}
	if got := listed(t, db, "--label", "fs", "--method", "disk.", "--since", "1h", "--status", "ok"); len(got) != 2 {
		t.Errorf("--label fs --method disk. --since 1h: %d runs, want 2", len(got))
	}
	if got := listed(t, db, "--method", "net.", "--until", "2000-01-01"); len(got) != 0 {
		t.Errorf("--method net.: %+v", got)
	}
	if o := thruput(t, "results", "list", "--db", db); o.code != 0 || !strings.Contains(o.stdout, a.ID) || !strings.Contains(o.stdout, "device=sandisk-extreme,fs=tmp") {
		t.Errorf("results list table: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	// show gives back the document as it was saved, by a prefix of its id.
	o = thruput(t, "results", "show", "--json", "--db", db, a.ID[:len(a.ID)-2])
	got, err := result.Read(strings.NewReader(o.stdout))
	if err != nil || got.ID != a.ID || len(got.Sweep.Steps) != len(a.Sweep.Steps) || got.Labels["device"] != "sandisk-extreme" {
		t.Fatalf("results show: %v, %+v", err, got)
	}
	if o := thruput(t, "results", "show", "--db", db, a.ID); o.code != 0 || !strings.Contains(o.stdout, "MiB/s") {
		t.Errorf("results show table: exit %d\n%s", o.code, o.stdout)
	}

	// export, then import into another store: the same runs.
	jsonl := filepath.Join(t.TempDir(), "all.jsonl")
	if o := thruput(t, "results", "export", "--db", db, "-o", jsonl); o.code != 0 {
		t.Fatalf("export: exit %d: %s", o.code, o.stderr)
	}
	if n := countLines(t, jsonl); n != 2 {
		t.Errorf("export wrote %d lines, want 2", n)
	}
	o = thruput(t, "results", "export", "--db", db, "--format", "csv")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "id,method,started_at,host,labels,target,section,step,metric,value\n") || !strings.Contains(o.stdout, a.ID+",disk.sweep,") {
		t.Errorf("export csv: exit %d\n%s", o.code, o.stdout)
	}
	db2 := filepath.Join(t.TempDir(), "other.db")
	if o := thruput(t, "results", "import", "--db", db2, jsonl, "--label", "site=lab"); o.code != 0 || !strings.Contains(o.stdout, "saved 2, skipped 0") {
		t.Fatalf("import: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := thruput(t, "results", "import", "--db", db2, jsonl); o.code != 0 || !strings.Contains(o.stdout, "saved 0, skipped 2") {
		t.Errorf("import again: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if got := listed(t, db2, "--label", "site=lab"); len(got) != 2 || got[0].Labels["device"] != "kingston" {
		t.Errorf("imported runs: %+v", got)
	}

	// delete takes ids or prefixes, and deletes nothing if one is unknown.
	if o := thruput(t, "results", "delete", "--db", db, a.ID, "nosuchrun"); o.code != 2 {
		t.Errorf("delete with an unknown id: exit %d, want 2", o.code)
	}
	if o := thruput(t, "results", "delete", "--db", db, a.ID); o.code != 0 {
		t.Errorf("delete: exit %d: %s", o.code, o.stderr)
	}
	if got := listed(t, db); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("after delete: %+v", got)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
	}
	return n
}

func TestStoreBadInput(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("my notes, not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(text)
	// A store that does not exist is not made by a command that only
	// reads, nor by a run refused before it measured.
	missing := filepath.Join(t.TempDir(), "none", "results.db")
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	db := filepath.Join(t.TempDir(), "results.db")
	quickSweep(t, db, t.TempDir(), "fs=x")
	out := filepath.Join(t.TempDir(), "out.json")
	// An export whose second line is cut short imports nothing, not one.
	half := filepath.Join(t.TempDir(), "half.jsonl")
	if o := thruput(t, "results", "export", "--db", db, "-o", half); o.code != 0 {
		t.Fatalf("export: %s", o.stderr)
	}
	if b, err := os.ReadFile(half); err != nil || os.WriteFile(half, append(b, b[:len(b)/2]...), 0o644) != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"disk", "sweep", dir, "--db", text}, "notes.txt"},
		{[]string{"results", "list", "--db", text}, "notes.txt"},
		{[]string{"results", "list", "--db", missing}, "no result store"},
		{[]string{"compare", "--db", missing, "fs=x"}, "no result store"},
		{[]string{"report", "--db", missing}, "no result store"},
		{[]string{"disk", "sweep", dir, "--db", fresh, "--file-size", "100T"}, "100"},
		{[]string{"disk", "sweep", dir, "--db", db, "--label", "nokey", "-o", out}, "key=value"},
		{[]string{"disk", "sweep", dir, "--db", db, "--label", "a=1", "--label", "a=2"}, "twice"},
		{[]string{"results", "list", "--db", db, "--since", "yesterday"}, "--since"},
		{[]string{"results", "list", "--db", db, "--until", "2300-01-01"}, "1970 to 2200"},
		{[]string{"results", "list", "--db", db, "--status", "great"}, "--status"},
		{[]string{"results", "show", "--db", db, "nosuchrun"}, "nosuchrun"},
		{[]string{"results", "export", "--db", db, "nosuchrun"}, "nosuchrun"},
		{[]string{"results", "import", "--db", db, text}, "not a thruput result document"},
		{[]string{"results", "import", "--db", missing, text}, "not a thruput result document"},
		{[]string{"results", "import", "--db", missing, half}, "document 2"},
		{[]string{"results", "import", "--db", db, filepath.Join(dir, "absent.json")}, "absent.json"},
		{[]string{"results", "export", "--db", db, "--format", "markdown"}, "jsonl"},
		{[]string{"compare", "--db", db, "fs=none"}, "no stored run"},
		{[]string{"report", "--db", db, "--format", "csv"}, "html, markdown"},
		{[]string{"report", "--db", db, "--json"}, "html, markdown"},
		{[]string{"suite", "--db", db, "--quick", "--full"}, "contradict"},
		{[]string{"suite", "--db", db, "--every", "1h"}, "--repeat"},
		{[]string{"suite", "--db", db, "--http", "ftp://x/"}, "http://"},
		{[]string{"suite", "--db", db, "--net", "pi:http"}, "port"},
		{[]string{"suite", "--db", db, "--label", "suite=mine"}, "suite"},
		{[]string{"suite", "--db", db, "--no-save"}, "--no-save"},
		{[]string{"suite", "--db", db, "-o", "report.txt"}, ".html"},
	} {
		o := thruput(t, c.args...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("thruput %v: exit %d, stderr %q; want exit 2 and one line naming %q", c.args, o.code, o.stderr, c.want)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a command refused made the store %s", fresh)
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("a command refused made the store %s", missing)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a run refused for its label left its -o file")
	}
	if got := listed(t, db); len(got) != 1 {
		t.Errorf("refused commands changed the store: %d runs, want 1", len(got))
	}
	if after, _ := os.ReadFile(text); !bytes.Equal(before, after) {
		t.Errorf("a file given as --db was changed")
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Errorf("bad input left %v in the target", left)
	}
}

// TestCompareAndReport lines up real stored sweeps by label and writes
// their report in each form.
func TestCompareAndReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "results.db")
	dir := t.TempDir()
	a := quickSweep(t, db, dir, "fs=one")
	quickSweep(t, db, dir, "fs=two")
	quickSweep(t, db, dir, "fs=two")

	o := thruput(t, "compare", "--db", db, "fs=one", "fs=two")
	if o.code != 0 || !strings.Contains(o.stdout, "fs=one") || !strings.Contains(o.stdout, "x") || !strings.Contains(o.stdout, "\n64k ") {
		t.Errorf("compare: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = thruput(t, "compare", "--db", db, "--json", "fs=one", "fs=two", "--baseline", "fs=two")
	var c struct {
		Baseline int
		Columns  []struct{ Runs []string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &c); err != nil || c.Baseline != 1 || len(c.Columns) != 2 || len(c.Columns[1].Runs) != 2 {
		t.Errorf("compare --json --baseline fs=two: %v %+v\n%s", err, c, o.stderr)
	}
	// results compare is the same command.
	if r := thruput(t, "results", "compare", "--db", db, "--json", "fs=one", "fs=two", "--baseline", "fs=two"); r.code != 0 || r.stdout != o.stdout {
		t.Errorf("results compare: exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	if o := thruput(t, "compare", "--db", db, "fs=one", "fs=two", "--baseline", "3"); o.code != 2 {
		t.Errorf("--baseline 3 of 2 columns: exit %d", o.code)
	}
	if o := thruput(t, "compare", "--db", db, "fs=one", "--format", "markdown"); o.code != 0 || !strings.Contains(o.stdout, "|") {
		t.Errorf("compare markdown: exit %d\n%s", o.code, o.stdout)
	}

	out := t.TempDir()
	page := filepath.Join(out, "cmp.html")
	o = thruput(t, "report", "--db", db, "fs=one", "fs=two", "-o", page, "--png")
	if o.code != 0 || !strings.HasPrefix(o.stdout, page+"\n") {
		t.Fatalf("report: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(html, []byte("<svg")) || bytes.Contains(html, []byte("src=\"http")) {
		t.Errorf("report page: %v, %d bytes, no inline chart or an external source", err, len(html))
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "cmp-*.png"))
	if len(pngs) == 0 {
		t.Errorf("report --png wrote no PNG beside the page: %s", o.stdout)
	}
	// With no argument, the newest run goes into thruput-report-<id>.html
	// in the current directory.
	cmd := exec.Command(thruputBin, "report", "--db", db)
	cmd.Dir = out
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "thruput-report-") {
		t.Errorf("report with no argument: %v\n%s", err, b)
	}
	if o := thruput(t, "report", "--db", db, a.ID, "--format", "markdown"); o.code != 0 || !strings.Contains(o.stdout, "| ") {
		t.Errorf("report markdown: exit %d\n%s", o.code, o.stdout)
	}
}

// TestSuite runs the command the README calls the main job, as a newcomer
// would, in an empty directory: it must finish in under three minutes and
// leave nothing but its results (the store and the report beside it).
func TestSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite runs for a minute or more")
	}
	// Beside the other parallel tests: it checks what the suite ran and
	// saved, not how fast, and waits on its timed phases.
	t.Parallel()
	home := t.TempDir()
	work := t.TempDir()
	db := filepath.Join(home, "results.db")
	cmd := exec.Command(thruputBin, "suite", "--db", db, "--json", "--label", "ci=yes")
	cmd.Dir = work
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, stderr.String())
	}
	if took > 3*time.Minute {
		t.Errorf("suite took %v, want under 3 minutes", took)
	}
	var out struct {
		Suite, Report string
		Runs          []report.Entry
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("suite --json: %v\n%s", err, stdout.String())
	}
	methods := map[result.Method]int{}
	for _, r := range out.Runs {
		methods[r.Method]++
		if r.Labels["suite"] != out.Suite || r.Labels["ci"] != "yes" || r.Status != "ok" {
			t.Errorf("suite run %+v: want status ok and labels suite=%s, ci=yes", r, out.Suite)
		}
	}
	for m, n := range map[result.Method]int{"disk.sweep": 1, "disk.random": 1, "disk.mark": 1, "net.client": 2, "net.http": 1} {
		if methods[m] != n {
			t.Errorf("suite ran %d %s, want %d (%v)", methods[m], m, n, methods)
		}
	}
	if filepath.Dir(out.Report) != home {
		t.Errorf("report %s is not beside the store in %s", out.Report, home)
	}
	if fi, err := os.Stat(out.Report); err != nil || fi.Size() < 10000 {
		t.Errorf("report: %v", err)
	}
	if left := entries(t, work); len(left) != 0 {
		t.Errorf("the suite left %v in the directory it measured", left)
	}
	if got := listed(t, db, "--label", "suite="+out.Suite); len(got) != len(out.Runs) {
		t.Errorf("store holds %d runs of the suite, it reported %d", len(got), len(out.Runs))
	}
	// The suite's page again, from the store.
	page := filepath.Join(home, "again.html")
	if o := thruput(t, "report", "suite="+out.Suite, "--db", db, "-o", page); o.code != 0 {
		t.Errorf("report suite=%s: exit %d %s", out.Suite, o.code, o.stderr)
	} else if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), out.Runs[0].ID) {
		t.Errorf("report suite=%s: %v, page lacks its runs", out.Suite, err)
	}
	// The loopback test's two ends are one process, and say so.
	for _, r := range out.Runs {
		if r.Method != "net.client" {
			continue
		}
		o := thruput(t, "results", "show", r.ID, "--db", db, "--json")
		if doc, err := result.Read(strings.NewReader(o.stdout)); err != nil || !doc.Net.CPU.OneProcess {
			t.Errorf("suite's loopback net run %s: one_process not set (%v)", r.ID, err)
		}
	}
	t.Logf("suite took %v", took.Round(time.Second))
}

// needPeer skips without the peer tool, and fails under CI, where
// scripts/setup installs it.
func needPeer(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (scripts/setup installs it)", tool)
		}
		t.Skipf("%s not installed", tool)
	}
}

// TestImportPeers brings real fio, sysbench and iperf3 output (made here,
// now) into a store, and prints each as thruput's own runs print.
func TestImportPeers(t *testing.T) {
	fstest.Long(t, "runs fio, iperf3 and sysbench")
	for _, tool := range []string{"fio", "sysbench", "iperf3"} {
		needPeer(t, tool)
	}
	dir := t.TempDir()
	out := t.TempDir()
	run := func(name string, cmd *exec.Cmd) string {
		t.Helper()
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
		path := filepath.Join(out, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fio := run("fio.json", exec.Command("fio", "--name=r", "--rw=randread", "--bs=4k", "--size=4M", "--runtime=1", "--ioengine=psync", "--directory="+dir, "--output-format=json"))
	prepare := exec.Command("sysbench", "fileio", "--file-num=2", "--file-total-size=4M", "prepare")
	prepare.Dir = dir
	if b, err := prepare.CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, b)
	}
	cmd := exec.Command("sysbench", "fileio", "--file-num=2", "--file-total-size=4M", "--file-test-mode=rndrw", "--time=1", "run")
	sysbench := run("sysbench.txt", cmd)
	port := nettest.FreePort(t)
	srv := startBackground(t, exec.Command("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	iperf := run("iperf3.json", exec.Command("iperf3", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "-J"))
	srv.wait(t)

	db := filepath.Join(t.TempDir(), "results.db")
	o := thruput(t, "results", "import", "--db", db, "--host", "bench-pc", "--label", "site=lab", fio, sysbench, iperf)
	if o.code != 0 || !strings.Contains(o.stdout, "saved 3, skipped 0") {
		t.Fatalf("import: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := thruput(t, "results", "import", "--db", db, fio, sysbench, iperf); !strings.Contains(o.stdout, "saved 0, skipped 3") {
		t.Errorf("the same files again must be skipped: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	got := listed(t, db)
	from := map[string]report.Entry{}
	for _, e := range got {
		from[e.Imported] = e
		if e.Labels["site"] != "lab" || e.Summary == "" {
			t.Errorf("imported %+v: want label site=lab and a summary", e)
		}
		for _, format := range []string{"table", "csv", "markdown"} {
			if o := thruput(t, "results", "show", "--db", db, "--format", format, e.ID); o.code != 0 || o.stdout == "" {
				t.Errorf("results show %s (%s) --format %s: exit %d\n%s", e.ID, e.Imported, format, o.code, o.stderr)
			}
		}
	}
	if from["fio"].Method != "disk.io" || from["sysbench"].Method != "disk.random" || from["iperf3"].Method != "net.client" {
		t.Errorf("imported methods: %+v", from)
	}
	if from["fio"].Host != "bench-pc" || from["iperf3"].Host != "bench-pc" {
		t.Errorf("--host names the machine of every imported run, iperf3's too: %+v", from)
	}
	page := filepath.Join(out, "peers.html")
	if o := thruput(t, "report", "--db", db, from["fio"].ID, from["iperf3"].ID, "-o", page); o.code != 2 || !strings.Contains(o.stderr, "cannot compare") {
		t.Errorf("a report comparing disk.io with net.client: exit %d, %s", o.code, o.stderr)
	}
	if o := thruput(t, "report", "--db", db, from["iperf3"].ID, "-o", page); o.code != 0 {
		t.Errorf("report of an imported iperf3 run: exit %d, %s", o.code, o.stderr)
	}
}

// TestNetRunComparedWithLast: a network test run again is set against the
// last run of the same test (each test's random iperf3 cookie was once
// among its parameters, so none ever was), and not against one with other
// parameters.
func TestNetRunComparedWithLast(t *testing.T) {
	fstest.Long(t, "three network tests of a second")
	p := nettest.FreePort(t)
	port := strconv.Itoa(p)
	startBackground(t, exec.Command(thruputBin, "net", "server", "-B", "127.0.0.1", "-p", port, "-q", "--no-save"))
	waitListening(t, p)
	db := filepath.Join(t.TempDir(), "results.db")
	run := func(rate string) *result.Document {
		t.Helper()
		o := thruput(t, "net", "client", "127.0.0.1", "-p", port, "-t", "1", "-b", rate, "--no-latency", "--db", db, "--json", "-q")
		if o.code != 0 {
			t.Fatalf("net client -b %s: exit %d\n%s", rate, o.code, o.stderr)
		}
		var d result.Document
		if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
			t.Fatalf("net client --json: %v\n%s", err, o.stdout)
		}
		return &d
	}
	first := run("20M")
	if first.Previous != nil {
		t.Errorf("the first run was set against %s", first.Previous.ID)
	}
	if again := run("20M"); again.Previous == nil || again.Previous.ID != first.ID {
		t.Errorf("the same test again: previous %+v, want run %s", again.Previous, first.ID)
	}
	if other := run("10M"); other.Previous != nil {
		t.Errorf("a test at another -b was set against %s", other.Previous.ID)
	}
}

// TestSuiteRepeatAgainstServer runs the suite's network part against a
// thruput server, twice a few seconds apart: each round's runs carry their
// round and time, and compare can set the rounds side by side.
func TestSuiteRepeatAgainstServer(t *testing.T) {
	fstest.Long(t, "a suite against a server, for seconds")
	port := nettest.FreePort(t)
	startBackground(t, exec.Command(thruputBin, "net", "server", "-B", "127.0.0.1", "-p", strconv.Itoa(port), "-q", "--no-save"))
	waitListening(t, port)
	db := filepath.Join(t.TempDir(), "results.db")
	page := filepath.Join(t.TempDir(), "rounds.html")
	start := time.Now()
	o := thruput(t, "suite", "--db", db, "--net", "127.0.0.1:"+strconv.Itoa(port), "--quick", "--repeat", "2", "--every", "10s", "-o", page, "--json", "-q")
	if o.code != 0 {
		t.Fatalf("suite: exit %d\n%s", o.code, o.stderr)
	}
	var out struct {
		Report string
		Runs   []report.Entry
	}
	if err := json.Unmarshal([]byte(o.stdout), &out); err != nil {
		t.Fatalf("suite --json: %v\n%s", err, o.stdout)
	}
	if out.Report != page {
		t.Errorf("report at %s, -o said %s", out.Report, page)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("-o %s is not the HTML report: %v", page, err)
	}
	rounds := map[string]int{}
	for _, r := range out.Runs {
		if r.Method != "net.client" || r.Labels["time"] == "" {
			t.Errorf("run %+v: want net.client with a time label", r)
		}
		rounds[r.Labels["round"]]++
	}
	if len(out.Runs) != 4 || rounds["1"] != 2 || rounds["2"] != 2 {
		t.Errorf("runs per round %v, want 2 in round 1 and 2 in round 2", rounds)
	}
	// --every counts from the start of one round to the next.
	if took := time.Since(start); took < 10*time.Second {
		t.Errorf("two rounds 10 s apart took %v", took)
	}
	if o := thruput(t, "compare", "--db", db, "round=1", "round=2"); o.code != 0 || !strings.Contains(o.stdout, "net up") || !strings.Contains(o.stdout, "net down") {
		t.Errorf("compare round=1 round=2: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestStoreCheckedFirst: a store that cannot take the run stops it in the
// first second (not after a long measurement), exit 2, and nothing is made.
func TestStoreCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := []string{"net", "client", "127.0.0.1", "-p", strconv.Itoa(nettest.FreePort(t)), "-t", "300"}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{args: []string{"--db="}, want: "--db is empty"},
		{args: []string{"--db", "mysql://u:pw@db/x"}, want: "mysql://u:xxxxx@db/x"},
		{args: []string{"--db", "http://example/x"}, want: "SQLite file"},
		{args: []string{"--db", filepath.Join(dir, "no", "such", "dir", "r.db")}, want: "does not exist"},
		{args: []string{"--db", dir}, want: "is a directory"},
		{args: []string{"--db", "/proc/r.db"}, want: "cannot make the store"},
		{env: []string{"HOME=/nonexistent", "XDG_DATA_HOME=", "THRUPUT_DB="}, want: "$HOME is /nonexistent"},
		{env: []string{"THRUPUT_DB=mysql://h/x"}, want: "THRUPUT_DB mysql://h/x"},
	} {
		cmd := exec.Command(thruputBin, append(c.args, long...)...)
		cmd.Env = append(os.Environ(), c.env...)
		cmd.Dir = dir
		start := time.Now()
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%v %v: %v %s, want exit 2 saying %q", c.env, c.args, err, out, c.want)
		}
		// At once, not after the 300 s test: 10 s leaves room for a
		// loaded machine, and under qemu-arm for the emulator's start.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v %v: refused after %v, want at once", c.env, c.args, d)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("refused stores left %v behind", es)
	}
}

// TestImportRefusesEmpty: a document with no measurement is not a run.
func TestImportRefusesEmpty(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "empty.json")
	os.WriteFile(f, []byte(`{"start":{},"intervals":[],"end":{}}`), 0o600)
	db := filepath.Join(dir, "r.db")
	o := thruput(t, "results", "import", f, "--db", db)
	if o.code != 2 || !strings.Contains(o.stderr, "no measurement") {
		t.Errorf("exit %d %q, want 2 and a reason", o.code, o.stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused import made a store")
	}
}

// TestExportMetrics: a .prom file for node_exporter's textfile collector,
// written beside and renamed into place.
func TestExportMetrics(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	quickSweep(t, db, t.TempDir(), "fs=tmp")
	out := filepath.Join(dir, "prom", "thruput.prom")
	os.Mkdir(filepath.Dir(out), 0o755)
	if o := thruput(t, "results", "export", "--db", db, "-o", out); o.code != 0 {
		t.Fatalf("export -o .prom: exit %d %s", o.code, o.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "thruput_disk_sweep_bytes_per_second{") || !strings.HasSuffix(string(b), "# EOF\n") {
		t.Errorf("%s: %v\n%s", out, err, b)
	}
	// --format openmetrics names the format whatever the file is called;
	// Prometheus' own checker must accept what it writes.
	named := filepath.Join(dir, "prom", "metrics.txt")
	if o := thruput(t, "results", "export", "--db", db, "--format", "openmetrics", "-o", named); o.code != 0 {
		t.Fatalf("export --format openmetrics: exit %d %s", o.code, o.stderr)
	}
	b2, _ := os.ReadFile(named)
	if string(b2) != string(b) {
		t.Errorf("--format openmetrics wrote\n%s\nnot what the .prom file holds", b2)
	}
	if es, _ := os.ReadDir(filepath.Dir(out)); len(es) != 2 {
		t.Errorf("the temporary file was left beside: %v", es)
	}
	promtest.Check(t, b2)
}

// TestCopySources: the store push and pull copy from must exist, and is
// only read: a mistyped --from makes nothing, and a store the user may
// not write (another user's) can be pulled from.
func TestCopySources(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	a := quickSweep(t, db, t.TempDir(), "fs=tmp")
	mine := filepath.Join(dir, "mine.db")
	for _, args := range [][]string{
		{"results", "pull", "--db", mine, "--from", filepath.Join(dir, "typo.db")},
		{"results", "push", "--db", filepath.Join(dir, "typo.db"), "--to", mine},
	} {
		o := thruput(t, args...)
		if o.code != 2 || !strings.Contains(o.stderr, "no result store at "+filepath.Join(dir, "typo.db")) {
			t.Errorf("%v: exit %d %q, want 2 and no result store", args, o.code, o.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "typo.db")); err == nil {
			t.Fatalf("%v made the missing store", args)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	// As nobody: the source is root's, in root's directory, 0644.
	os.Chmod(filepath.Dir(dir), 0o755) // t.TempDir's own parent
	bin := nobodyBinary(t, dir)
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o755)
	os.Chown(home, 65534, 65534)
	os.Chmod(db, 0o644)
	before, _ := os.ReadFile(db)
	cmd := exec.Command(bin, "results", "pull", "--from", db, "--db", filepath.Join(home, "copy.db"))
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME=", "XDG_DATA_HOME=")
	cmd.SysProcAttr = asNobody
	if o := runOutcome(t, cmd, nil); o.code != 0 || !strings.Contains(o.stdout, "pulled 1 run(s)") {
		t.Errorf("pull from a store nobody may write: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	// Commands that read work on a store nobody may write; one that
	// writes says it cannot.
	list := exec.Command(bin, "results", "list", "--db", db, "--format", "csv")
	list.Env, list.SysProcAttr = cmd.Env, cmd.SysProcAttr
	if o := runOutcome(t, list, nil); o.code != 0 || !strings.Contains(o.stdout, a.ID) {
		t.Errorf("list of a store nobody may write: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	del := exec.Command(bin, "results", "delete", "--db", db, a.ID)
	del.Env, del.SysProcAttr = cmd.Env, cmd.SysProcAttr
	if o := runOutcome(t, del, nil); o.code == 0 || !strings.Contains(o.stderr, "readonly") {
		t.Errorf("delete from a store nobody may write: exit %d %s", o.code, o.stderr)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Error("reading changed the source")
	}
	if es, _ := os.ReadDir(dir); len(es) != 3 {
		t.Errorf("pulling left files beside the source: %v", es)
	}
	if got := listed(t, filepath.Join(home, "copy.db")); len(got) != 1 || got[0].ID != a.ID {
		t.Errorf("the pulled copy holds %+v", got)
	}
}
