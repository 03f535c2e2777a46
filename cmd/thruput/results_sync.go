package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

// newResultsPushCmd and newResultsPullCmd copy runs between stores; a
// copy is idempotent by run id.
func newResultsPushCmd(a *app) *cobra.Command {
	var to string
	var f filterFlags
	c := &cobra.Command{
		Use:   "push [--to STORE]",
		Short: "Deliver spooled runs, or copy this store's runs to another store",
		Long: `Without --to, push delivers the runs that were measured but could not be
saved (kept in $XDG_STATE_HOME/thruput/spool, ~/.local/state/thruput/spool),
each into the store it was meant for, and names them. The spool records a
PostgreSQL store without its password: libpq's PGPASSWORD or ~/.pgpass gives
it, or --db (or THRUPUT_DB) naming that store with its password. With --to,
it copies the runs of the store (--db), as the filters select, into another:
a SQLite path, a postgres:// URL or a libpq connection string. Runs already
there are skipped, so pushing twice copies nothing the second time.`,
		Example: `  thruput results push
  thruput results push --to postgres://lab@db.example/thruput --since 7d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flt, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			if to == "" {
				return lifecycle.Push(&a.History, a.out())
			}
			src, err := a.ReadOnly()
			if err != nil {
				return err
			}
			dst, err := lifecycle.OpenNamed(to)
			if err != nil {
				return err
			}
			defer dst.Close()
			saved, skipped, err := store.Copy(dst, src, flt)
			fmt.Fprintf(a.out(), "pushed %d run(s) to %s, %d already there\n", saved, dst.Path(), skipped)
			return err
		},
	}
	c.Flags().StringVar(&to, "to", "", "the `STORE` to copy into: a SQLite path, sqlite:PATH or a postgres:// URL")
	f.add(c.Flags(), 0)
	return c
}

func newResultsPullCmd(a *app) *cobra.Command {
	var from string
	var f filterFlags
	c := &cobra.Command{
		Use:   "pull --from STORE",
		Short: "Copy another store's runs into this one",
		Long: `pull copies the runs of another store (a SQLite path or a postgres:// URL), as
the filters select, into the store (--db). Runs already there are skipped.`,
		Example: `  thruput results pull --from postgres://lab@db.example/thruput --label site=lab`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return usage.Errorf("pull needs --from STORE")
			}
			flt, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			loc, err := store.Resolve(from, true)
			if err != nil {
				return err
			}
			src, err := store.Open(loc, store.ReadOnly)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := a.Open()
			if err != nil {
				return err
			}
			saved, skipped, err := store.Copy(dst, src, flt)
			fmt.Fprintf(a.out(), "pulled %d run(s) from %s, %d already here\n", saved, src.Path(), skipped)
			return err
		},
	}
	c.Flags().StringVar(&from, "from", "", "the `STORE` to copy from: a SQLite path, sqlite:PATH or a postgres:// URL")
	f.add(c.Flags(), 0)
	return c
}
