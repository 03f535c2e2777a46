package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/result"
)

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func versionLine() string {
	return fmt.Sprintf("thruput %s (%s, %s)", toolVersion(), runtime.Version(), platform())
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print thruput's version and build",
		Args:    cobra.NoArgs,
		Example: "  thruput version\n  thruput version --json",
		RunE: func(*cobra.Command, []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			t := result.Tool{Name: "thruput", Version: toolVersion(), GoVersion: runtime.Version(), Platform: platform()}
			return a.write(func(w io.Writer) error {
				if format == "json" {
					return writeJSON(w, t)
				}
				_, err := fmt.Fprintln(w, versionLine())
				return err
			})
		},
	}
}

func platform() string {
	p := runtime.GOOS + "/" + runtime.GOARCH
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOARM" {
				p += "/v" + strings.TrimSuffix(s.Value, ",softfloat")
			}
		}
	}
	return p
}
