package fstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// cmdTimeout bounds every external command so that a wedged mkfs or FUSE
// daemon fails the test instead of hanging CI until the global test timeout.
const cmdTimeout = 60 * time.Second

// cmdError keeps the command line and its output together so that both end
// up in the test log.
type cmdError struct {
	cmdline string
	output  string
	err     error
}

func (e *cmdError) Error() string {
	return fmt.Sprintf("%s: %v\noutput:\n%s", e.cmdline, e.err, e.output)
}

func (e *cmdError) Unwrap() error { return e.err }

// run executes a command and returns its combined output.
func run(name string, args ...string) (string, error) { return Exec(cmdTimeout, name, args...) }

// Exec runs a command (as the test helper packages run mkfs, ip and tc)
// within timeout and returns its combined output; an error carries the
// command line and the output, for the test log.
func Exec(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	// Error messages are matched by humans reading logs; keep them English.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// FUSE daemons fork into the background; should one keep our output
	// pipe open, Wait must not block on it forever.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v: %w", timeout, err)
		}
		return out.String(), &cmdError{
			cmdline: strings.Join(append([]string{name}, args...), " "),
			output:  out.String(),
			err:     err,
		}
	}
	return out.String(), nil
}

// mustRun is run for setup steps, where there is no point in going on.
func mustRun(t testing.TB, name string, args ...string) string {
	t.Helper()
	return MustExec(t, cmdTimeout, name, args...)
}

// MustExec is Exec for setup steps: it fails the test on error.
func MustExec(t testing.TB, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	out, err := Exec(timeout, name, args...)
	if err != nil {
		t.Fatalf("command failed: %v", err)
	}
	return out
}
