package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/thruput/thruput/internal/usage"
)

func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages, thruput(1) and one per subcommand, into DIR",
		Long: `man writes thruput.1 and a page per subcommand (thruput-disk-sweep.1 ...)
from the commands' own help, uncompressed, dated by the build's commit, so
that two builds of one commit write the same pages.`,
		Example: "  thruput man /tmp/man && man -l /tmp/man/thruput-disk-sweep.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return usage.Errorf("man: %w", err)
			}
			date := time.Unix(0, 0).UTC()
			if t, err := time.Parse(time.RFC3339, buildDate); err == nil {
				date = t
			}
			// No Title: cobra then heads each page with its own command
			// (THRUPUT-SERVE for thruput-serve(1)), not the root's.
			h := &doc.GenManHeader{Section: "1", Date: &date, Source: "thruput " + toolVersion(), Manual: "thruput manual"}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			// The packages ship bash, zsh and fish completions; a page for
			// PowerShell's would document what no Linux user installs.
			if ps, _, err := root.Find([]string{"completion", "powershell"}); err == nil && ps.Name() == "powershell" {
				ps.Hidden = true
			}
			if err := doc.GenManTree(root, h, args[0]); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			return nil
		},
	}
}
