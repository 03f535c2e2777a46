package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/serve"
	"github.com/thruput/thruput/internal/usage"
)

func newServeCmd(a *app) *cobra.Command {
	var listen, tokenFile string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the result history as web pages and Prometheus metrics",
		Long: `serve shows the store (--db: a SQLite file, a postgres:// URL or a libpq
"host=... dbname=..." string) in a browser:
the runs with filters (method, host, label, device, date, status), each run's report
with its charts, a comparison of the runs ticked, each host's trend per
method, each device's history (/trend?device=ID: one card's figures over
time, whatever host or slot it was in), fleet net's host x host matrix, and /metrics in the Prometheus text
format (the newest figure of every host, method and target, in base units).
Nothing on the pages loads from anywhere else. With --alerts FILE (or
$THRUPUT_ALERTS) the run list shows the alerts that are not ok, and each
trend the alerts of its series, as alerts check would judge them now,
with the runs of their streaks marked on its charts.

It is read-only and listens on loopback unless given --token-file: then every
page asks for the token (Authorization: Bearer, or a login at /login), runs
can be deleted and their labels changed, and it may listen on any address.
Without a token it answers only requests naming a loopback host (against
DNS rebinding). It stops cleanly on Ctrl-C or SIGTERM.

A SQLite store named by --db, $THRUPUT_DB or the default that does not
exist yet, in a directory that does, is an empty history until the first run
saves there, so the dashboard can start before the first measurement, as
thruput-serve.service does; serve says so on stderr (a mistyped path shows
there) and never creates it. A directory that does not exist is an error.

Under systemd, --token-file NAME (a name without a slash) is read from
$CREDENTIALS_DIRECTORY, where LoadCredential=NAME:FILE puts it.`,
		Example: `  thruput serve                                   # http://127.0.0.1:8080/
  thruput serve --db postgres://lab@db/thruput --listen 0.0.0.0:8080 --token-file /etc/thruput/token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var token string
			if tokenFile != "" {
				path := credential(tokenFile)
				b, err := os.ReadFile(path)
				if err != nil {
					return usage.Errorf("--token-file: %w", err)
				}
				if token = strings.TrimSpace(string(b)); len(token) < 16 {
					return usage.Errorf("--token-file %s: the token must be at least 16 characters", path)
				}
			}
			if err := serve.CheckListen(listen, token != ""); err != nil {
				return usage.Wrap(err)
			}
			if err := a.loadAlerts(); err != nil {
				return err
			}
			s, err := a.Follow(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			o := serve.Options{Store: s, Token: token, Units: a.units, Version: toolVersion()}
			if a.rules != nil {
				ao, err := a.alertOptions()
				if err != nil {
					return err
				}
				o.Alerts = func() (*alert.Evaluation, error) { return alert.Peek(s, a.rules, ao.StatePath, ao.StoreKey) }
			}
			h := serve.New(o)
			err = serve.Run(cmd.Context(), listen, h, func(addr net.Addr) {
				fmt.Fprintf(cmd.ErrOrStderr(), "thruput: serving %s on http://%s/\n", s.Path(), addr)
			})
			if le := (*serve.ListenError)(nil); errors.As(err, &le) {
				return usage.Wrap(err)
			}
			return err
		},
	}
	c.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "the `HOST:PORT` to listen on (anything but loopback needs --token-file)")
	c.Flags().StringVar(&tokenFile, "token-file", "", "`FILE` holding the token every page then asks for; allows deleting runs and changing their labels")
	return c
}

// credential is where --token-file's file is: a bare name is a systemd
// credential when the service has any, because an EnvironmentFile (where
// /etc/default/thruput sets serve's flags) cannot name
// $CREDENTIALS_DIRECTORY itself: systemd does not expand variables there.
func credential(name string) string {
	if dir := os.Getenv("CREDENTIALS_DIRECTORY"); dir != "" && !strings.Contains(name, "/") {
		return filepath.Join(dir, name)
	}
	return name
}
