package sqlite

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/exectest"
	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/store"
)

// helperEnv selects what TestHelperProcess does when the test binary is
// re-executed as a separate process.
const helperEnv = "THRUPUT_STORE_HELPER"

// TestHelperProcess is not a test: it is the other process of the tests
// below. It saves STORE_COUNT runs (0: until killed) into STORE_PATH,
// printing each id once Save has returned.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "save" {
		t.Skip("helper process only")
	}
	path, prefix := os.Getenv("STORE_PATH"), os.Getenv("STORE_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("STORE_COUNT"))
	if at, err := strconv.ParseInt(os.Getenv("STORE_START"), 10, 64); err == nil {
		time.Sleep(time.Until(time.Unix(0, at)))
	}
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; n == 0 || i < n; i++ {
		d := realisticDoc(i, rngFor(i))
		d.ID = fmt.Sprintf("%s-%06d", prefix, i)
		if err := s.Save(d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Fprintln(out, d.ID)
		out.Flush()
	}
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(5)
	}
	os.Exit(0)
}

func helper(path, prefix string, n int, start time.Time) *exec.Cmd {
	cmd := exectest.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=save", "STORE_PATH="+path, "STORE_PREFIX="+prefix, "STORE_COUNT="+strconv.Itoa(n))
	if !start.IsZero() {
		cmd.Env = append(cmd.Env, "STORE_START="+strconv.FormatInt(start.UnixNano(), 10))
	}
	cmd.Stderr = os.Stderr
	return cmd
}

func integrityOK(t *testing.T, db *sql.DB) {
	t.Helper()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check: %q, %v", res, err)
	}
}

// Two processes create (the file does not exist yet) and fill one store at
// the same time.
func TestTwoProcesses(t *testing.T) {
	fstest.Long(t, "starts processes racing on one store")
	path := filepath.Join(t.TempDir(), "results.db")
	const each = 200
	// Both start at the same moment, so that both find no file and race to
	// create it, then take turns at the write lock.
	start := time.Now().Add(300 * time.Millisecond)
	var wg sync.WaitGroup
	for _, prefix := range []string{"procA", "procB"} {
		cmd := helper(path, prefix, each, start)
		wg.Go(func() {
			if out, err := cmd.Output(); err != nil {
				t.Errorf("process %s: %v\n%s", prefix, err, out)
			}
		})
	}
	wg.Wait()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawDB(t, s)
	integrityOK(t, raw)
	for _, prefix := range []string{"procA", "procB"} {
		es, err := s.List(store.Filter{IDs: []string{prefix + "-"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != each {
			t.Errorf("process %s: %d runs stored, want %d", prefix, len(es), each)
		}
	}
	var docs, labels int
	raw.QueryRow(`SELECT count(*) FROM documents`).Scan(&docs)
	raw.QueryRow(`SELECT count(*) FROM labels`).Scan(&labels)
	if docs != 2*each || labels != 3*2*each {
		t.Errorf("%d documents and %d labels, want %d and %d", docs, labels, 2*each, 3*2*each)
	}
	// How often the writer changed, in commit order: the two did overlap.
	rows, err := raw.Query(`SELECT substr(id, 1, 5) FROM runs ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	switches, last := 0, ""
	for rows.Next() {
		var p string
		rows.Scan(&p)
		if last != "" && p != last {
			switches++
		}
		last = p
	}
	t.Logf("the writer changed %d times", switches)
}

// A process killed while saving loses nothing it was told was saved, and
// leaves a sound file.
func TestKilledWhileSaving(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	cmd := helper(path, "kill", 0, time.Time{})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var saved []string
	sc := bufio.NewScanner(stdout)
	for len(saved) < 150 && sc.Scan() {
		saved = append(saved, sc.Text())
	}
	// Kill mid-save: the child is saving the next run as we read.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() { // ids printed before the kill landed are saved too
		saved = append(saved, sc.Text())
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("helper was not killed: %v", err)
	}
	if len(saved) < 150 {
		t.Fatalf("helper saved only %d runs", len(saved))
	}

	start := time.Now()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("reopened after the kill in %v", time.Since(start))
	integrityOK(t, rawDB(t, s))
	for _, id := range saved {
		if _, err := s.Get(id); err != nil {
			t.Errorf("printed as saved, but: %v", err)
		}
	}
}
