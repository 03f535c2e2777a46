package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startDashboard runs thruput serve on a free loopback port and returns its
// URL; the process is stopped with SIGTERM when the test ends, and must
// exit 0.
func startDashboard(t *testing.T, args ...string) string {
	t.Helper()
	u, _ := startDashboardStderr(t, args...)
	return u
}

// startDashboardStderr is startDashboard that also returns what serve
// said on stderr before the line naming its address.
func startDashboardStderr(t *testing.T, args ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(thruputBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	var before strings.Builder
	var url string
	for {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, "thruput: serving ") {
			url = strings.TrimSpace(line[strings.LastIndex(line, " on ")+4:])
			break
		}
		before.WriteString(line)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("serve said %q: %v", before.String(), err)
		}
	}
	go io.Copy(io.Discard, r)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve after SIGTERM: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop within 10 s of SIGTERM")
		}
	})
	said := before.String()
	return strings.TrimSuffix(url, "/"), func() string { return said }
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	doc := quickSweep(t, db, t.TempDir(), "fs=tmp")
	u := startDashboard(t, "--db", db)
	if code, body := get(t, u+"/"); code != 200 || !strings.Contains(body, doc.ID) {
		t.Errorf("/: %d\n%.500s", code, body)
	}
	if code, body := get(t, u+"/runs/"+doc.ID); code != 200 || !strings.Contains(body, "<svg") {
		t.Errorf("/runs/ID: %d", code)
	}
	if code, body := get(t, u+"/metrics"); code != 200 || !strings.Contains(body, "thruput_disk_sweep_bytes_per_second{") {
		t.Errorf("/metrics: %d\n%s", code, body)
	}
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("short\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "not loopback"},
		{[]string{"--listen", ":0"}, "not loopback"},
		{[]string{"--listen", "nonsense"}, "HOST:PORT"},
		{[]string{"--token-file", filepath.Join(dir, "none")}, "--token-file"},
		{[]string{"--token-file", token}, "at least 16"},
		// A store in a directory that does not exist (one that does is
		// an empty history, served: TestServeBeforeFirstRun).
		{[]string{"--db", filepath.Join(dir, "none", "none.db")}, "no result store"},
	} {
		o := thruput(t, append([]string{"serve", "--db", db}, c.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("serve %v: exit %d %q, want 2 saying %q", c.args, o.code, o.stderr, c.want)
		}
	}
	os.WriteFile(token, []byte("a-token-of-32-characters-or-so-x\n"), 0o600)
	u = startDashboard(t, "--db", db, "--token-file", token)
	if code, _ := get(t, u+"/"); code != 401 {
		t.Errorf("a token server without the token: %d", code)
	}
}
