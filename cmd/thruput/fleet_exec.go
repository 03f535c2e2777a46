package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/fleet"
)

// newFleetExecCmd is what the fleet controller runs on a host, in the
// same process so that a quick command costs the host no more forks: the
// command with a scratch store in a temporary directory, removed
// whatever happens; its standard input closing (the controller
// interrupted, timed out or lost) is an interrupt. A command that saved
// runs prints fleet.RunsMark and its runs as JSON lines instead of its
// tables.
func newFleetExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "exec -- COMMAND...",
		Short:              "Run a thruput command as the fleet controller does on a host (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			// With the controller gone (its SSH channel closed), writes
			// to stdout fail; Go would die of SIGPIPE on the first one,
			// before the deferred removal of the scratch directory.
			signal.Ignore(syscall.SIGPIPE)
			if _, err := fmt.Println(fleet.ExecMark); err != nil {
				return err
			}
			dir, err := os.MkdirTemp("", "thruput-fleet.")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			go func() {
				_, _ = io.Copy(io.Discard, os.Stdin)
				cancel()
			}()
			db := filepath.Join(dir, "r.db")
			var out bytes.Buffer
			code := run(ctx, append([]string{"thruput", "--db", db, "-q"}, args...), &out)
			if _, err := os.Stat(db); err != nil {
				_, err = os.Stdout.Write(out.Bytes())
				return exitWith(code, err)
			}
			if _, err := fmt.Println(fleet.RunsMark); err != nil {
				return err
			}
			if c := run(context.WithoutCancel(ctx), []string{"thruput", "--db", db, "-q", "results", "export"}, os.Stdout); code == 0 {
				code = c
			}
			return exitWith(code, nil)
		},
	}
}

// exitStatus is an error that already said what it had to: the process
// exits with it and prints nothing more.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func exitWith(code int, err error) error {
	if err != nil {
		return err
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}
