package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportDirectory: a directory of logs with one bad file among good
// ones imports every good file, names the bad one with its reason and
// exits 1; --all-or-nothing refuses the lot; the same outputs again, from
// copies with other times, are skipped.
func TestImportDirectory(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	corpus := filepath.Join("..", "..", "internal", "importer", "testdata", "real")
	for _, name := range []string{"fio-3.12-randrw.json", "sysbench-0.4.12-docker-15runs.txt", "iperf3-3.9-escape-seq.res", "dd-bsd-time.md"} {
		data, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(logs, name), data, 0o644)
	}
	os.WriteFile(filepath.Join(logs, "notes.txt"), []byte("remember to buy a faster card\n"), 0o644)
	os.Mkdir(filepath.Join(logs, ".git"), 0o755)
	os.WriteFile(filepath.Join(logs, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	db := filepath.Join(dir, "r.db")

	o := thruput(t, "results", "import", "--db", db, "--all-or-nothing", logs)
	if o.code != 2 || !strings.Contains(o.stderr, "notes.txt") {
		t.Errorf("--all-or-nothing: exit %d, stderr %q; want 2 naming notes.txt", o.code, o.stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--all-or-nothing refused the import but made a store")
	}

	o = thruput(t, "results", "import", "--db", db, logs)
	if o.code != 1 || !strings.Contains(o.stderr, "notes.txt: not a thruput result document") || strings.Contains(o.stderr, "HEAD") {
		t.Errorf("exit %d, stderr %q; want 1 naming notes.txt and its reason, and nothing of .git", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "saved 18, skipped 0") || !strings.Contains(o.stdout, "15 sysbench run(s)") {
		t.Errorf("stdout %q: want the 18 runs of the four good files saved", o.stdout)
	}

	o = thruput(t, "results", "import", "--db", db, "--json", logs)
	var got struct {
		Saved, Skipped int
		Refused        []struct{ File, Error string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || o.code != 1 || got.Skipped != 18 || len(got.Refused) != 1 || !strings.HasSuffix(got.Refused[0].File, "notes.txt") {
		t.Errorf("--json: exit %d, %+v, %v; want 1, 18 skipped and notes.txt refused", o.code, got, err)
	}

	copies := filepath.Join(dir, "copies")
	os.Mkdir(copies, 0o755)
	for _, name := range []string{"fio-3.12-randrw.json", "sysbench-0.4.12-docker-15runs.txt"} {
		data, _ := os.ReadFile(filepath.Join(logs, name))
		os.WriteFile(filepath.Join(copies, "copy-of-"+name), data, 0o644)
	}
	o = thruput(t, "results", "import", "--db", db, copies)
	if o.code != 0 || !strings.Contains(o.stdout, "saved 0, skipped 16") {
		t.Errorf("copies: exit %d, stdout %q; want every run skipped", o.code, o.stdout)
	}
}
