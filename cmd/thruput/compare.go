package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

// selectFlags narrow what a label query picks, for compare and report.
type selectFlags store.Selection

func newCompareCmd(a *app) *cobra.Command {
	var sel selectFlags
	var baseline string
	c := &cobra.Command{
		Use:   "compare ID|LABELS ...",
		Short: "Put stored runs side by side, each figure as a ratio to a baseline",
		Long: `Each argument is one column: a run id (or a unique prefix of one), or a label
query, key=value with several joined by commas (fs=ext4,site=lan), which
takes every stored run that matches as repeats of one condition. A run of
several targets (a sweep of ext4 and vfat) gives one column per target.
device_id=ID in a query takes the runs that measured that hardware (an id
as thruput sysinfo shows it, or its start), whatever host or slot it was in;
a query whose runs measured different hardware (a card swapped under the
same path) gives a column per device, never their mean.

Rows are aligned on the same step: block size and phase for a sweep, preset
and direction for disk mark, direction for the network. Each column shows
its value (the mean and ± the standard deviation when it has repeats), the
ratio to the baseline column and the difference in percent. A difference
marked ~ is inside the noise: the repeats do not tell the two apart.`,
		Example: `  thruput compare 20261121T0530 20261121T0612
  thruput compare fs=ext4 fs=vfat --method disk.sweep
  thruput compare device_id=sd:03-5344-sr64g-1a2b3c4d device_id=sd:1b-534d --method disk.mark
  thruput compare channel=1 channel=6 channel=11 --baseline channel=6 --format markdown`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat()
			if err != nil {
				return err
			}
			s, err := a.Read()
			if err != nil {
				return err
			}
			groups, err := store.Groups(s, args, store.Selection(sel))
			if err != nil {
				return err
			}
			c, err := compare.New(groups, 0)
			if err != nil {
				return usage.Wrap(err)
			}
			b, err := baselineIndex(c, baseline)
			if err != nil {
				return err
			}
			if err := c.SetBaseline(b); err != nil {
				return usage.Wrap(err)
			}
			return a.write(func(w io.Writer) error {
				return report.WriteComparison(w, c, report.Options{Format: format, Units: a.units})
			})
		},
	}
	fl := c.Flags()
	sel.add(fl)
	fl.StringVar(&baseline, "baseline", "1", "the column the others are divided by: its number (1 is the first) or its name")
	return c
}

func (sel *selectFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&sel.Method, "method", "", "label queries take only runs of this method (disk.sweep) or family (disk.)")
	fl.StringVar(&sel.Host, "host", "", "label queries take only runs made on this hostname")
	fl.BoolVar(&sel.All, "all", false, "label queries also take runs that did not end ok (partial, failed, interrupted)")
}

// baselineIndex finds --baseline among the columns: a column's name
// exactly, else a 1-based number, else a unique prefix of a name (so an
// all-digit prefix of a run id still names its column when no number
// fits).
func baselineIndex(c *compare.Comparison, b string) (int, error) {
	for i, col := range c.Columns {
		if col.Name == b {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(b); err == nil && n >= 1 && n <= len(c.Columns) {
		return n - 1, nil
	}
	found := -1
	for i, col := range c.Columns {
		if strings.HasPrefix(col.Name, b) {
			if found >= 0 {
				return 0, usage.Errorf("--baseline %q names more than one column", b)
			}
			found = i
		}
	}
	if found < 0 {
		names := make([]string, len(c.Columns))
		for i, col := range c.Columns {
			names[i] = fmt.Sprintf("%d %q", i+1, col.Name)
		}
		return 0, usage.Errorf("--baseline %q is no column; the columns are %s", b, strings.Join(names, ", "))
	}
	return found, nil
}
