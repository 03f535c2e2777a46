package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
)

// endMark ends what a parked shell prints before it waits for its command.
const endMark = "#thruput-ready"

// parked is a shell on the host that ran a script, printed its output
// and now waits for one command line on its input. A host's first
// command goes to it: the host forks no second session and the
// controller waits no second round trip, which is most of what a quick
// command costs a host (sshd's fork and a shell per session).
type parked struct {
	c    *Conn
	s    *ssh.Session
	done <-chan error
	in   io.WriteCloser
	out  *handoff
	errb *bytes.Buffer
}

// park starts script on the host followed by a wait for a command line,
// and returns the shell with what the script printed.
func (c *Conn) park(ctx context.Context, script string) (*parked, string, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, "", fmt.Errorf("ssh session: %w", err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		s.Close()
		return nil, "", err
	}
	p := &parked{c: c, s: s, in: in, out: &handoff{ready: make(chan struct{})}, errb: &bytes.Buffer{}}
	s.Stdout, s.Stderr = p.out, &limitWriter{w: p.errb, n: 64 << 10}
	// dash and bash read a line byte by byte, so the command's input
	// starts just after it.
	if err := s.Start(script + "\necho '" + endMark + "'\nIFS= read -r c || exit 0\neval \"exec $c\""); err != nil {
		s.Close()
		return nil, "", fmt.Errorf("ssh exec: %w", err)
	}
	p.done = wait(s)
	select {
	case <-p.out.ready:
		return p, p.out.probe(), nil
	case err := <-p.done:
		s.Close()
		if err == nil {
			err = errors.New("the host's shell ended before it was ready")
		} else if ee := (*ssh.ExitError)(nil); errors.As(err, &ee) && p.errb.Len() > 0 {
			err = errors.New(lastLine(p.errb.String()))
		}
		return nil, "", err
	case <-ctx.Done():
		go s.Close()
		return nil, "", stopped(ctx, nil)
	}
}

// run gives the shell its command (which replaces it) and waits for it
// as Conn.run does; the shell serves one command.
func (p *parked) run(ctx context.Context, line string, stdout io.Writer) error {
	defer p.s.Close()
	p.out.forward(stdout)
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		return err
	}
	return finish(ctx, p.c, p.in, nil, p.errb, p.done)
}

// close lets an unused shell end.
func (p *parked) close() {
	p.in.Close()
	p.s.Close()
}

// handoff keeps a parked shell's output until the end mark and sends what
// comes after it, the command's, where forward says.
type handoff struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	dest  io.Writer
}

func (h *handoff) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dest != nil {
		return h.dest.Write(b)
	}
	if h.buf.Len() < 1<<20 {
		h.buf.Write(b)
	}
	select {
	case <-h.ready:
	default:
		if bytes.HasSuffix(h.buf.Bytes(), []byte(endMark+"\n")) {
			close(h.ready)
		}
	}
	return len(b), nil
}

func (h *handoff) probe() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.TrimSuffix(h.buf.String(), endMark+"\n")
}

func (h *handoff) forward(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dest = w
}
