package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := Write(path, 0o666, text("<p>new</p>")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "<p>new</p>" {
		t.Errorf("content %q, %v", b, err)
	}
	// The umask applies as it does to any file the process creates.
	ref, err := os.OpenFile(filepath.Join(dir, "ref"), os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	got, _ := os.Stat(path)
	want, _ := os.Stat(ref.Name())
	if got.Mode() != want.Mode() {
		t.Errorf("mode %v, want %v as os.OpenFile gives", got.Mode(), want.Mode())
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("directory holds %v, want page.html and ref", es)
	}
}

// A file that exists is replaced whole and keeps its mode; a link to it
// stays a link.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metrics.prom")
	if err := os.WriteFile(path, []byte("old content, longer than the new"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	link := filepath.Join(dir, "link.prom")
	if err := os.Symlink("metrics.prom", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, 0o666, text("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q, want new", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link became %v", fi.Mode())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("directory holds %v", es)
	}
}

// A failed write leaves the old file as it was and no temporary file.
func TestFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "capture.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("the capture failed")
	err := Write(path, 0o666, func(w io.Writer) error {
		fmt.Fprint(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want the fill's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content %q, want old", b)
	}
	if err := Write(filepath.Join(dir, "new.txt"), 0o666, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("directory holds %v, want capture.txt alone", es)
	}
}

func TestNoDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "page.html")
	err := Write(path, 0o666, text("x"))
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != path || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %#v, want an open error naming %s", err, path)
	}
}

// /dev/null is written, not replaced by a regular file.
func TestDevice(t *testing.T) {
	if err := Write("/dev/null", 0o666, text("discarded")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("/dev/null")
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v (%v)", fi.Mode(), err)
	}
}

// A FIFO is written in place: its reader gets the content, and the
// FIFO is still one.
func TestFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := Write(path, 0o666, text("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
}

// A descriptor's path (/dev/stdout is /proc/self/fd/1) is written after
// what the descriptor already holds, even when it is a regular file: it
// is not renamed over.
func TestDescriptor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("printed before\n")
	if err := Write(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), 0o666, text("the report\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f.Name()); string(b) != "printed before\nthe report\n" {
		t.Errorf("content %q", b)
	}
	if !descriptor("/dev/stdout") || !descriptor("/dev/fd/3") || descriptor("/dev/shm/x") || descriptor("out.html") {
		t.Error("descriptor paths told wrong")
	}
}
