package nettest

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

// cmdTimeout bounds every ip and tc command so that a wedged one fails the
// test instead of hanging CI until the global test timeout.
const cmdTimeout = 30 * time.Second

// pollEvery is how often waits look again.
const pollEvery = 20 * time.Millisecond

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
func run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	// Error messages are matched by humans reading logs; keep them English.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v: %w", cmdTimeout, err)
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
	out, err := run(name, args...)
	if err != nil {
		t.Fatalf("nettest: command failed: %v", err)
	}
	return out
}
