// Command thruput measures how fast a Linux machine moves data through its
// storage and its network. This package only wires the command line to the
// engines under internal/; see docs/architecture.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/thruput/thruput/internal/store"
	// The store backends register with store.Open.
	_ "github.com/thruput/thruput/internal/store/postgres"
	_ "github.com/thruput/thruput/internal/store/sqlite"
	"github.com/thruput/thruput/internal/usage"
)

// Exit codes, documented in the root command's help.
const (
	exitOK     = 0
	exitFailed = 1 // the measurement failed or was interrupted
	exitUsage  = 2 // bad flags, arguments or targets: nothing was measured
	// exitVerdict is disk check's FAIL: the card fell short of its class
	// or Raspberry Pi's test, is a fake, or lost data. Apart from 1, so a
	// script can tell a card to throw away from a run that went wrong.
	exitVerdict = 3
)

// verdictErr is the exit status of a check whose verdict is pass; a nil
// pass (nothing judged) is no failure.
func verdictErr(pass *bool) error {
	if pass != nil && !*pass {
		return exitStatus(exitVerdict)
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args, nil)
	stop()
	os.Exit(code)
}

// run runs one command line; stdout, when not nil, receives what it
// would print on standard output.
func run(ctx context.Context, argv []string, stdout io.Writer) int {
	a := &app{argv: argv, stdout: stdout}
	// Ending ctx stops what a command left running (a run's health
	// sampler when the run was refused after it began).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	root := newRoot(a)
	root.SetArgs(argv[1:])
	cmd, err := root.ExecuteContextC(ctx)
	err = errors.Join(err, a.Close())
	if err == nil {
		return exitOK
	}
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	if !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "thruput: %v\n", err)
		if usage.Is(err) || storeRefused(err) {
			return exitUsage
		}
		return exitFailed
	}
	// Say what happened in the user's words: Go's "context canceled" is
	// the interrupt, and only the disk methods made test files to remove.
	msg := strings.ReplaceAll(err.Error(), context.Canceled.Error(), "interrupted")
	if msg != "interrupted" {
		fmt.Fprintf(os.Stderr, "thruput: %s\n", msg)
	}
	if cmd != nil && (cmd.Parent() != nil && cmd.Parent().Name() == "disk" || cmd.Name() == "suite") {
		fmt.Fprintln(os.Stderr, "thruput: interrupted; test files removed")
	} else {
		fmt.Fprintln(os.Stderr, "thruput: interrupted")
	}
	return exitFailed
}

// storeRefused says whether the result store refused what the user gave
// (a location, a file that is not a store, a newer schema, an id that
// names no run or several): theirs to fix, exit 2. A run the store could
// not take (store.ErrExists, a server down) was measured: exit 1.
func storeRefused(err error) bool {
	for _, refusal := range []error{store.ErrLocation, store.ErrNotStore, store.ErrNewer, store.ErrNotFound, store.ErrAmbiguous} {
		if errors.Is(err, refusal) {
			return true
		}
	}
	return false
}
