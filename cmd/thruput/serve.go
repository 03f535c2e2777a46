package main

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/serve"
	"github.com/thruput/thruput/internal/usage"
)

func newServeCmd(a *app) *cobra.Command {
	var listen, tokenFile string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the result history as web pages and Prometheus metrics",
		Long: `serve shows the store (--db: a SQLite file or a postgres:// URL) in a browser:
the runs with filters (method, host, label, date, status), each run's report
with its charts, a comparison of the runs ticked, each host's trend per
method, fleet net's host x host matrix, and /metrics in the Prometheus text
format (the newest figure of every host, method and target, in base units).
Nothing on the pages loads from anywhere else.

It is read-only and listens on loopback unless given --token-file: then every
page asks for the token (Authorization: Bearer, or a login at /login), runs
can be deleted from the list, and it may listen on any address. It stops
cleanly on Ctrl-C or SIGTERM.`,
		Example: `  thruput serve                                   # http://127.0.0.1:8080/
  thruput serve --db postgres://lab@db/thruput --listen 0.0.0.0:8080 --token-file /etc/thruput/token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var token string
			if tokenFile != "" {
				b, err := os.ReadFile(tokenFile)
				if err != nil {
					return usage.Errorf("--token-file: %w", err)
				}
				if token = strings.TrimSpace(string(b)); len(token) < 16 {
					return usage.Errorf("--token-file %s: the token must be at least 16 characters", tokenFile)
				}
			}
			if err := serve.CheckListen(listen, token != ""); err != nil {
				return usage.Wrap(err)
			}
			s, err := a.readStore()
			if err != nil {
				return err
			}
			h := serve.New(serve.Options{Store: s, Token: token, Units: a.units, Version: toolVersion()})
			return serve.Run(cmd.Context(), listen, h, func(addr net.Addr) {
				fmt.Fprintf(cmd.ErrOrStderr(), "thruput: serving %s on http://%s/\n", s.Path(), addr)
			})
		},
	}
	c.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "the `HOST:PORT` to listen on (anything but loopback needs --token-file)")
	c.Flags().StringVar(&tokenFile, "token-file", "", "`FILE` holding the token every page then asks for; allows deleting runs")
	return c
}
