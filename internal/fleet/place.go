package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// cacheDir is where binaries live on a host: per user, under the XDG
// cache, so that no root is needed and `fleet clean` has one thing to
// remove.
const cacheDir = `"${XDG_CACHE_HOME:-$HOME/.cache}/thruput"`

// quote makes s one word for a POSIX shell.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// exitError is a remote command's non-zero exit, with what it said.
type exitError struct {
	status int
	stderr string
}

func (e *exitError) Error() string {
	if e.stderr == "" {
		return fmt.Sprintf("exit status %d", e.status)
	}
	return e.stderr
}

// run runs a shell command on the host with stdin as its input; with no
// stdin the input stays open while the command runs. When ctx ends
// first, the command's standard input is closed, which `thruput fleet
// exec` turns into an interrupt so that it removes its scratch files; the
// session is closed if it has not ended 10 s later.
func (c *Conn) run(ctx context.Context, cmd string, stdin io.Reader, stdout io.Writer) error {
	s, err := c.NewSession()
	if err != nil {
		return fmt.Errorf("ssh session: %w", err)
	}
	defer s.Close()
	in, err := s.StdinPipe()
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	s.Stdout, s.Stderr = stdout, &limitWriter{w: &errb, n: 64 << 10}
	if err := s.Start(cmd); err != nil {
		return fmt.Errorf("ssh exec: %w", err)
	}
	return finish(ctx, c, in, stdin, &errb, wait(s))
}

// wait is s.Wait's answer, on a channel; a session can be waited for once.
func wait(s *ssh.Session) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	return done
}

// finish feeds a started session its input and waits for it (done is
// its wait), closing its input when ctx ends first, and returns its end
// as an error. A host that has not ended the command 10 s after its
// input closed loses its connection: one that stopped answering would
// otherwise hold every write to it, and the close of the input too.
func finish(ctx context.Context, c *Conn, in io.WriteCloser, stdin io.Reader, errb *bytes.Buffer, done <-chan error) error {
	var copyErr error
	copied := make(chan struct{})
	go func() {
		if stdin != nil {
			_, copyErr = io.Copy(in, stdin)
			in.Close()
		}
		close(copied)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if stdin != nil {
			// A copy has nothing there to clean up but its temporary
			// file, which the shell's trap removes once its input ends.
			c.Close()
		}
		go in.Close()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			c.Close()
			err = <-done
		}
		if err == nil {
			err = stopped(ctx, nil)
		}
	}
	if stdin != nil {
		<-copied
	}
	if err == nil && copyErr != nil {
		return copyErr
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		xe := &exitError{status: ee.ExitStatus(), stderr: strings.TrimSpace(errb.String())}
		// A command the host timeout ended says it was interrupted;
		// the reason is the timeout.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w; the host: %s", context.Cause(ctx), lastLine(xe.Error()))
		}
		return xe
	}
	var missing *ssh.ExitMissingError
	switch {
	case ctx.Err() != nil:
		return stopped(ctx, err)
	case errors.As(err, &missing):
		return errors.New("the connection closed before the command ended")
	}
	return err
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > l.n {
		p = p[:l.n]
	}
	l.n -= len(p)
	if len(p) > 0 {
		if _, err := l.w.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Binaries finds the static thruput binary for each platform: the running
// executable for its own platform, and `make dist`'s files (named
// thruput-linux-<arch>) in a directory for the others.
type Binaries struct {
	// Dir holds make dist's files; empty means the running binary's
	// directory and ./dist.
	Dir string

	mu   sync.Mutex
	bins map[Platform]*binary
}

type binary struct {
	path string
	// size and sum are the file's; hosts are sent it from the file, so
	// the controller never holds a binary in memory.
	size int64
	sum  string
}

func (b *Binaries) find(p Platform) (*binary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bin, ok := b.bins[p]; ok {
		return bin, nil
	}
	var candidates []string
	self, _ := os.Executable()
	if self != "" && runtime.GOOS == "linux" && p == hostPlatform() {
		candidates = append(candidates, self)
	}
	dirs := []string{b.Dir}
	if b.Dir == "" {
		dirs = []string{filepath.Dir(self), "dist"}
	}
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, p.distName()))
	}
	bin, err := pick(candidates)
	if err != nil {
		return nil, fmt.Errorf("no static thruput binary for %s: %w", p, err)
	}
	if b.bins == nil {
		b.bins = map[Platform]*binary{}
	}
	b.bins[p] = bin
	return bin, nil
}

// pick gives the first of candidates that exists and is static. A
// dynamically linked one (a plain go build with cgo) is passed over: it
// needs the loader and C library it was built against, which a Pi's may
// not be.
func pick(candidates []string) (*binary, error) {
	var skipped []string
	for _, c := range candidates {
		f, err := os.Open(c)
		if err != nil {
			continue
		}
		bin, err := read(f)
		f.Close()
		if errors.Is(err, errDynamic) {
			skipped = append(skipped, c)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		bin.path = c
		return bin, nil
	}
	why := "looked for " + strings.Join(candidates, ", ")
	if len(skipped) > 0 {
		why = strings.Join(skipped, ", ") + " dynamically linked; " + why
	}
	return nil, fmt.Errorf("run `make dist` and pass --binaries DIR (%s)", why)
}

var errDynamic = errors.New("dynamically linked")

// read checks that f is a static ELF executable and takes its size and
// SHA-256. Static means no interpreter and no shared library needed; a
// static-pie binary has a dynamic section of its own, yet runs alone.
func read(f *os.File) (*binary, error) {
	e, err := elf.NewFile(f)
	if err != nil {
		return nil, err
	}
	for _, p := range e.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, errDynamic
		}
	}
	if libs, _ := e.ImportedLibraries(); len(libs) > 0 {
		return nil, errDynamic
	}
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return nil, err
	}
	return &binary{size: n, sum: hex.EncodeToString(h.Sum(nil))}, nil
}

func hostPlatform() Platform {
	p := Platform{GOARCH: runtime.GOARCH}
	if p.GOARCH == "arm" {
		p.GOARM = goarm()
	}
	return p
}

// place copies bin into the host's cache and returns its path there and
// the bytes it sent (open skips this when the cache already holds it).
// The name carries the version and the SHA-256; the copy is checked
// against the sum on arrival and written under a temporary name, then
// renamed, as is the sum recorded beside it, so controllers sharing a
// home over NFS never see each other's half-written copy.
func (c *Conn) place(ctx context.Context, bin *binary, version string) (string, int64, error) {
	dir := cacheDir + "/" + quote(version+"-"+bin.sum[:16])
	final := dir + "/thruput"
	put := fmt.Sprintf(`set -e; d=%s; mkdir -p "$d"; t="$d/.thruput.$$.tmp"; trap 'rm -f "$t" "$t.sum"' EXIT; cat > "$t"; chmod 755 "$t"; `+
		`[ "$(sha256sum "$t" | cut -d' ' -f1)" = %s ] || { echo "the copy arrived damaged" >&2; exit 1; }; mv -f "$t" "$d/thruput"; `+
		`printf %%s %s > "$t.sum"; mv -f "$t.sum" "$d/thruput.sha256"; trap - EXIT`, dir, bin.sum, bin.sum)
	f, err := os.Open(bin.path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if err := c.run(ctx, put, f, io.Discard); err != nil {
		return "", 0, fmt.Errorf("copying thruput to the host: %w", err)
	}
	return final, bin.size, nil
}
