package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

func newResultsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "results",
		Short: "The history: list, show, compare, export, import, label and delete stored runs",
		Long: `Every run of every method is kept in the result store, unless it was given
--no-save: a SQLite file, or a PostgreSQL database (a postgres:// URL or a
libpq string such as 'host=db.lab dbname=thruput') that many machines share.
The store is $THRUPUT_DB, else $XDG_DATA_HOME/thruput/results.db
(~/.local/share/thruput/results.db); --db names another. Runs are named by
their id or any unique prefix of it (at least 4 characters).`,
		Example: `  thruput results list --method disk. --label fs=ext4
  thruput results show 20261121T0530
  thruput results compare host=pi1 host=pi2
  thruput results export --format csv -o history.csv
  thruput results import fio.json iperf3-lan.json sysbench.txt --label site=lab
  thruput results delete 20261121T0530Z-a1b2c3`,
	}
	// compare is also a command of its own, `thruput compare`: the same
	// command in both places.
	c.AddCommand(newResultsListCmd(a), newResultsShowCmd(a), newCompareCmd(a), newResultsExportCmd(a),
		newResultsImportCmd(a), newResultsLabelCmd(a), newResultsDeleteCmd(a), newResultsPushCmd(a), newResultsPullCmd(a))
	return c
}

func newResultsListCmd(a *app) *cobra.Command {
	var f filterFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first, with their headline figures",
		Args:  cobra.NoArgs,
		Example: `  thruput results list
  thruput results list --method net. --since 7d
  thruput results list --device sd:03-5344-sr64g
  thruput results list --label channel --label site=home --json`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flt, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			format, err := a.listFormat()
			if err != nil {
				return err
			}
			s, err := a.Read()
			if err != nil {
				return err
			}
			entries, err := s.List(flt)
			if err != nil {
				return err
			}
			return a.write(func(w io.Writer) error { return report.WriteEntries(w, listLines(entries), format, a.units) })
		},
	}
	f.add(c.Flags(), 50)
	f.all = c.Flags().Bool("all", false, "also the runs that did not end ok (partial, failed, interrupted), which are left out otherwise")
	return c
}

// listFormat is outputFormat for the commands whose output is a list of
// runs, which has no markdown form of its own: markdown gets the table.
func (a *app) listFormat() (string, error) {
	format, err := a.outputFormat()
	if format == "markdown" {
		format = "table"
	}
	return format, err
}

func newResultsShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run as it printed when it ran (table, json, csv, markdown)",
		Args:  cobra.ExactArgs(1),
		Example: `  thruput results show 20261121T0530
  thruput results show 20261121T0530 --json > run.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			s, err := a.Read()
			if err != nil {
				return err
			}
			doc, err := s.Get(args[0])
			if err != nil {
				return err
			}
			return a.emit(doc, format)
		},
	}
}

func newResultsLabelCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "label ID key=value|key= ...",
		Short: "Set or remove labels of a stored run (key= removes the key)",
		Example: `  thruput results label 20261121T0530 card=sandisk-extreme fs=ext4
  thruput results label 20261121T0530 site=`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, remove, err := store.ParseLabelEdits(args[1:])
			if err != nil {
				return usage.Wrap(err)
			}
			s, err := a.Read()
			if err != nil {
				return err
			}
			l, ok := s.(store.Labeler)
			if !ok {
				return fmt.Errorf("the store %s cannot change labels", s.Path())
			}
			id, labels, err := l.Label(args[0], set, remove)
			if err != nil {
				return err
			}
			if !a.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "thruput: %s in %s is labelled %s\n", id, s.Path(), labelList(labels))
			}
			return nil
		},
	}
}

// labelList is labels as key=value words, sorted; "(none)" for none.
func labelList(labels map[string]string) string {
	if len(labels) == 0 {
		return "(none)"
	}
	var ls []string
	for k, v := range labels {
		ls = append(ls, k+"="+v)
	}
	slices.Sort(ls)
	return strings.Join(ls, " ")
}

func newResultsDeleteCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID...",
		Short:   "Remove runs from the store",
		Example: "  thruput results delete 20261121T0530Z-a1b2c3 20261121T0612",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.Read()
			if err != nil {
				return err
			}
			// Every id must name a run before any is deleted.
			ids := make([]string, len(args))
			for i, arg := range args {
				if ids[i], err = s.Resolve(arg); err != nil {
					return err
				}
			}
			n, err := s.Delete(ids...)
			if err != nil {
				return fmt.Errorf("deleting from %s: %w", s.Path(), err)
			}
			if !a.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "thruput: deleted %d run(s) from %s\n", n, s.Path())
			}
			return nil
		},
	}
}
