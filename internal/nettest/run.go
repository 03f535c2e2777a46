package nettest

import (
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
)

// cmdTimeout bounds every ip and tc command so that a wedged one fails the
// test instead of hanging CI until the global test timeout.
const cmdTimeout = 30 * time.Second

// pollEvery is how often waits look again.
const pollEvery = 20 * time.Millisecond

// run executes an ip or tc command and returns its combined output.
func run(name string, args ...string) (string, error) { return fstest.Exec(cmdTimeout, name, args...) }

// mustRun is run for setup steps, where there is no point in going on.
func mustRun(t testing.TB, name string, args ...string) string {
	t.Helper()
	return fstest.MustExec(t, cmdTimeout, name, args...)
}
