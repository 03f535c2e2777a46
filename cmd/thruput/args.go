package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/usage"
)

// markUsageErrors makes errors cobra raises before any RunE (unknown
// commands, wrong argument counts) exit with the usage status.
func markUsageErrors(c *cobra.Command) {
	if c.Args != nil {
		args := c.Args
		c.Args = func(cmd *cobra.Command, a []string) error { return argsError(cmd, a, args(cmd, a)) }
	}
	if c.HasSubCommands() && c.RunE == nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if len(a) > 0 {
				return usage.Errorf("unknown command %q for %q; see %s --help", a[0], cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	for _, sub := range c.Commands() {
		markUsageErrors(sub)
	}
}

// argsError says in words what a command's arguments lacked, with its
// usage line, instead of cobra's "accepts 1 arg(s), received 0".
func argsError(cmd *cobra.Command, a []string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "unknown command") {
		return usage.Wrap(err)
	}
	got := "no argument"
	if len(a) > 0 {
		got = fmt.Sprintf("%d: %s", len(a), strings.Join(a, " "))
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return usage.Errorf("%s: wrong arguments (got %s); usage: %s", name, got, cmd.UseLine())
}
