package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBeforeFirstRun is thruput-serve.service on a fresh install: the
// configured store does not exist until the suite's first run saves it,
// and the dashboard must serve an empty history meanwhile, not exit.
func TestServeBeforeFirstRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "results.db")
	t.Setenv("THRUPUT_DB", db)
	u := startDashboard(t)
	if code, body := get(t, u+"/"); code != 200 || !strings.Contains(body, "No run") {
		t.Errorf("/ before the first run: %d\n%.500s", code, body)
	}
	if code, body := get(t, u+"/metrics"); code != 200 || series(body) != 0 {
		t.Errorf("/metrics before the first run: %d\n%s", code, body)
	}
	if code, _ := get(t, u+"/runs/20260101T000000Z-0000"); code != 404 {
		t.Errorf("a run before the first run: %d, want 404", code)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("serve made the store: %v", err)
	}

	doc := quickSweep(t, db, t.TempDir(), "fs=tmp")
	if code, body := get(t, u+"/"); code != 200 || !strings.Contains(body, doc.ID) {
		t.Errorf("/ after the first run: %d\n%.500s", code, body)
	}
	if code, body := get(t, u+"/metrics"); code != 200 || !strings.Contains(body, "thruput_disk_sweep_bytes_per_second{") {
		t.Errorf("/metrics after the first run: %d\n%s", code, body)
	}

	// --db behaves as THRUPUT_DB does, and says where it waits.
	t.Setenv("THRUPUT_DB", "")
	other := filepath.Join(t.TempDir(), "results.db")
	u2, stderr := startDashboardStderr(t, "--db", other)
	if code, body := get(t, u2+"/"); code != 200 || !strings.Contains(body, "No run") {
		t.Errorf("--db before the first run: %d\n%.500s", code, body)
	}
	if !strings.Contains(stderr(), "no result store at "+other+" yet") {
		t.Errorf("--db before the first run says nothing of the store: %q", stderr())
	}

	// A directory that does not exist is a configuration to fix, not a
	// store to wait for.
	t.Setenv("THRUPUT_DB", filepath.Join(t.TempDir(), "none", "results.db"))
	if o := thruput(t, "serve", "--listen", "127.0.0.1:0"); o.code != 2 || !strings.Contains(o.stderr, "no result store") {
		t.Errorf("serve with no store directory: exit %d %q", o.code, o.stderr)
	}
	if o := thruput(t, "serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "none", "results.db")); o.code != 2 || !strings.Contains(o.stderr, "no result store") {
		t.Errorf("serve --db with no store directory: exit %d %q", o.code, o.stderr)
	}
}

// series counts the samples in a Prometheus text page.
func series(page string) int {
	n := 0
	for _, l := range strings.Split(page, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// TestServeCredential is the token recipe of /etc/default/thruput:
// LoadCredential=token:/etc/thruput/token puts the file in
// $CREDENTIALS_DIRECTORY and --token-file token names it there.
func TestServeCredential(t *testing.T) {
	db := filepath.Join(t.TempDir(), "results.db")
	quickSweep(t, db, t.TempDir())
	creds := t.TempDir()
	const token = "a-token-of-32-characters-or-so-x"
	if err := os.WriteFile(filepath.Join(creds, "token"), []byte(token+"\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	u := startDashboard(t, "--db", db, "--token-file", "token")
	if code, _ := get(t, u+"/"); code != 401 {
		t.Errorf("without the token: %d, want 401", code)
	}
	req, _ := http.NewRequest("GET", u+"/", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the credential's token: %d", resp.StatusCode)
	}
	o := thruput(t, "serve", "--db", db, "--listen", "127.0.0.1:0", "--token-file", "other")
	if want := filepath.Join(creds, "other"); o.code != 2 || !strings.Contains(o.stderr, want) {
		t.Errorf("a missing credential: exit %d %q, want 2 naming %s", o.code, o.stderr, want)
	}
}
