package kfile

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: what os reads, kernel files and a file longer than one
// read alike, cut at the limit.
func TestReadFile(t *testing.T) {
	long := filepath.Join(t.TempDir(), "long")
	want := bytes.Repeat([]byte("0123456789abcdef\n"), 2000) // 34,000 bytes: several reads
	if err := os.WriteFile(long, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/proc/sys/kernel/ostype", "/proc/self/cmdline", long} {
		w, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path, 1<<20)
		if err != nil || !bytes.Equal(got, w) {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", path, got, err, w)
		}
	}
	if got, err := ReadFile(long, 100); err != nil || !bytes.Equal(got, want[:100]) {
		t.Errorf("ReadFile(long, 100) = %d bytes, %v; want the first 100", len(got), err)
	}
	if got, err := ReadFile("/proc/sys/kernel/ostype", 1<<20); err != nil || strings.TrimSpace(string(got)) != "Linux" {
		t.Errorf("ostype = %q, %v", got, err)
	}
}

// TestOpenScan: a File is an io.Reader that a scanner reads to the end.
func TestOpenScan(t *testing.T) {
	f, err := Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var name bool
	lines := 0
	for sc.Scan() {
		lines++
		name = name || strings.HasPrefix(sc.Text(), "Name:")
	}
	if sc.Err() != nil || !name || lines < 10 {
		t.Errorf("scanned %d lines of /proc/self/status, Name: %v, error %v", lines, name, sc.Err())
	}
}

// TestErrors: bad paths fail as os's do, with the path named.
func TestErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := ReadFile(missing, 10); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("ReadFile(missing) = %v, want not-exist naming the path", err)
	}
	if _, err := Open("bad\x00path"); err == nil {
		t.Error("Open of a path with a NUL succeeded")
	}
	dir := t.TempDir()
	if _, err := ReadFile(dir, 10); err == nil || !strings.Contains(err.Error(), "read "+dir) {
		t.Errorf("ReadFile(a directory) = %v, want a read error naming it", err)
	}
	f, err := Open("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v", n, err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("a second Close = %v, want fs.ErrClosed", err)
	}
	if _, err := f.Read(make([]byte, 8)); err == nil {
		t.Error("Read after Close succeeded")
	}
}
