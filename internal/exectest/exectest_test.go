package exectest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	t.Setenv(Env, "")
	if c := Command("/bin/echo", "a b"); c.Path != "/bin/echo" || strings.Join(c.Args, "|") != "/bin/echo|a b" {
		t.Errorf("direct: %s %q", c.Path, c.Args)
	}
	t.Setenv(Env, "/usr/bin/env -u X")
	if c := Command("/bin/echo", "a b"); c.Path != "/usr/bin/env" || strings.Join(c.Args, "|") != "/usr/bin/env|-u|X|/bin/echo|a b" {
		t.Errorf("wrapped: %s %q", c.Path, c.Args)
	}
}

// TestScript runs the script it writes: the wrapper (env, standing in for
// an emulator) gets the binary and every argument as it was given.
func TestScript(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, "/usr/bin/env FROM_WRAPPER=it's")
	path := filepath.Join(dir, "thruput")
	if err := Script("/bin/sh", path); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv(Env) // what runs the script runs it as a native binary
	out, err := exec.Command(path, "-c", `echo "$FROM_WRAPPER|$0|$1"`, "one two", "three").Output()
	if err != nil || string(out) != "it's|one two|three\n" {
		t.Errorf("script: %q %v", out, err)
	}
}
