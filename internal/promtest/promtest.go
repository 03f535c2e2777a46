// Package promtest is for tests only: it holds metrics text against
// Prometheus's own linter, `promtool check metrics` (Debian's prometheus,
// which scripts/setup installs).
package promtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Check fails t when promtool finds fault with body. Without promtool the
// check is skipped, except under CI, where a skip would check nothing.
func Check(t testing.TB, body []byte) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no promtool: install prometheus (scripts/setup does)")
		}
		t.Skip("no promtool (apt-get install prometheus)")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
