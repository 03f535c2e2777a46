// Package exectest runs a binary built for the platform under test the way
// `go test -exec` runs the test binary: directly when the tests are built
// for this machine, through an emulator when they are built for another
// (make check runs every package's tests for 32-bit ARM under
// `qemu-arm-static -cpu arm1176`). go test hands its -exec to nobody, so
// the Makefile names the same emulator in THRUPUT_TEST_EXEC, and the tests
// that start a binary of their own (the test binary again, or thruput)
// start it through Command or a Script.
package exectest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Env names the emulator command line, split at spaces; empty or unset,
// binaries run directly.
const Env = "THRUPUT_TEST_EXEC"

// Wrapper is the emulator's command line, nil when binaries run directly.
func Wrapper() []string { return strings.Fields(os.Getenv(Env)) }

// Command is exec.Command(name, args...), through the emulator when there
// is one.
func Command(name string, args ...string) *exec.Cmd {
	return CommandContext(context.Background(), name, args...)
}

// CommandContext is exec.CommandContext(ctx, name, args...), through the
// emulator when there is one.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	w := Wrapper()
	if len(w) == 0 {
		return exec.CommandContext(ctx, name, args...)
	}
	return exec.CommandContext(ctx, w[0], append(append(w[1:], name), args...)...)
}

// Script makes path run bin through the emulator: a shell script that
// execs the emulator with bin and its own arguments. Shells, completions
// and other tools that exec path by name then run the emulated binary as
// they would a native one. Without an emulator, path is bin linked there.
func Script(bin, path string) error {
	w := Wrapper()
	if len(w) == 0 {
		return os.Link(bin, path)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec")
	for _, word := range append(w, bin) {
		fmt.Fprintf(&b, " '%s'", strings.ReplaceAll(word, "'", `'\''`))
	}
	b.WriteString(" \"$@\"\n")
	return os.WriteFile(path, []byte(b.String()), 0o755)
}
