// Package promtest is for tests only: it holds metrics text against
// Prometheus's own linter, `promtool check metrics` (Debian's prometheus,
// which scripts/setup installs), and finds promtool for the tests of the
// shipped rules.
package promtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Promtool is promtool's path. Without promtool the test is skipped,
// except under CI, where a skip would check nothing.
func Promtool(t testing.TB) string {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no promtool: install prometheus (scripts/setup does)")
		}
		t.Skip("no promtool (apt-get install prometheus)")
	}
	return promtool
}

// Check fails t when promtool finds fault with body (Promtool says what
// happens without it).
func Check(t testing.TB, body []byte) {
	t.Helper()
	cmd := exec.Command(Promtool(t), "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
