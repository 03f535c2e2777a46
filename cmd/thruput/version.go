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

// commit and buildDate are set at build time (make build, make deb) with
// -ldflags "-X main.commit=... -X main.buildDate=...", the date being the
// commit's, not the clock's: two builds of one commit are the same bytes.
var commit, buildDate string

// tool is thruput as documents and `thruput version` name it.
func tool() result.Tool {
	return result.Tool{Name: "thruput", Version: toolVersion(), GoVersion: runtime.Version(), Platform: platform(), Commit: commit, BuildDate: buildDate}
}

func versionLine() string {
	t := tool()
	s := fmt.Sprintf("thruput %s (", t.Version)
	if t.Commit != "" {
		s += fmt.Sprintf("commit %.12s, %s, ", t.Commit, t.BuildDate)
	}
	return s + fmt.Sprintf("%s, %s)", t.GoVersion, t.Platform)
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
			return a.write(func(w io.Writer) error {
				if format == "json" {
					return writeJSON(w, tool())
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
