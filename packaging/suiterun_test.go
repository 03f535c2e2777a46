package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSuiteRun: the service's command line is thruput suite with a flag
// for each target, binding and label /etc/default/thruput names, words
// taken as they are (no glob expanded), THRUPUT_SUITE_ARGS last; the alert
// rules file reaches thruput as THRUPUT_ALERTS only when it exists, and
// a THRUPUT_ALERTS of the user's is kept.
func TestSuiteRun(t *testing.T) {
	dir := t.TempDir()
	// A stand-in for thruput: its arguments a line each, then the
	// THRUPUT_ALERTS it was given.
	fake := filepath.Join(dir, "thruput")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\necho \"alerts=${THRUPUT_ALERTS:-}\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(dir, "alerts.yaml")
	base := []string{"suite", "-q", "-o", "/var/lib/thruput/report.html"}
	for _, tc := range []struct {
		env   []string
		rules bool
		want  []string
	}{
		{nil, false, append(base, "alerts=")},
		{nil, true, append(base, "alerts="+rules)},
		{[]string{"THRUPUT_ALERTS=/elsewhere.yaml"}, true, append(base, "alerts=/elsewhere.yaml")},
		{[]string{"THRUPUT_DISKS=/mnt/usb  /media/*", "THRUPUT_NET=192.168.1.10:5201", "THRUPUT_HTTP=http://192.168.1.10:8080/f",
			"THRUPUT_BIND=192.168.1.20", "THRUPUT_BIND_DEV=eth0", "THRUPUT_LABELS=link=lan site=home", "THRUPUT_SUITE_ARGS=--quick --until-stable=5"}, false,
			append(slices.Clone(base), "--disk", "/mnt/usb", "--disk", "/media/*", "--net", "192.168.1.10:5201", "--http", "http://192.168.1.10:8080/f",
				"--bind", "192.168.1.20", "--bind-dev", "eth0", "--label", "link=lan", "--label", "site=home", "--quick", "--until-stable=5", "alerts=")},
	} {
		os.Remove(rules)
		if tc.rules {
			if err := os.WriteFile(rules, []byte("rules: []\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("sh", "lib/thruput-suite-run")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "THRUPUT_BIN=" + fake, "THRUPUT_ALERTS_FILE=" + rules}, tc.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tc.env, err, out)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, tc.want) {
			t.Errorf("%q, rules file %v:\n got %q\nwant %q", tc.env, tc.rules, got, tc.want)
		}
	}
}
