package compare

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// Group is what the user named as one column: a run id (one doc) or a
// label query (all runs it matched, which become repeats).
type Group struct {
	Name string
	Docs []*result.Document
}

// New lines the groups up. All docs must share one method family;
// net.client and net.server compare together, since both carry both ends'
// figures. baseline indexes the resulting Columns.
//
// A group becomes one column, but a sweep measures several targets in one
// run, and comparing them ("ext4 vs vfat per block size") is what it is
// for: so a sweep group becomes one column per target index, named
// "<group> <target path>", with the group's docs as the repeats of each.
//
// A column of one run takes that run's own repeats (disk io --repeat,
// net http --repeat) as its samples. A column of several runs takes one
// sample per run, the mean of its repeats: repeats within a run share the
// conditions of the moment, so pooling them with whole runs would make
// the spread look smaller than it is between runs.
func New(groups []Group, baseline int) (*Comparison, error) {
	method, err := family(groups)
	if err != nil {
		return nil, err
	}
	rows := map[key]figure{}
	var cols []column
	for _, g := range groups {
		cols = append(cols, split(g, rows)...)
	}
	c := &Comparison{Method: method, Columns: make([]Column, len(cols))}
	for i, col := range cols {
		c.Columns[i] = col.Column
		c.Columns[i].Suspect = suspectRuns(groups, col.Runs)
	}
	for _, k := range order(rows) {
		r := Row{Section: k.section, Step: k.step, Metric: k.metric, HigherIsBetter: rows[k].higher, headline: rows[k].headline}
		for _, col := range cols {
			c := newCell(col.samples(k))
			if rel := col.rel[k]; rel > 0 && len(c.Samples) == 1 {
				c.HalfWidth = rel * c.Value
			}
			r.Cells = append(r.Cells, c)
		}
		c.Rows = append(c.Rows, r)
	}
	if err := c.SetBaseline(baseline); err != nil {
		return nil, err
	}
	return c, nil
}

// SetBaseline makes column i the one every ratio, difference and noise
// mark is taken against. The columns come from the groups alone, so a
// baseline named by the user can be looked up among them first.
func (c *Comparison) SetBaseline(i int) error {
	if i < 0 || i >= len(c.Columns) {
		return fmt.Errorf("baseline %d is out of range: the comparison has %d column(s), numbered from 0", i, len(c.Columns))
	}
	c.Baseline = i
	for _, r := range c.Rows {
		base := r.Cells[i]
		for j := range r.Cells {
			r.Cells[j].against(base, j == i)
		}
	}
	return nil
}

// family checks every doc can stand beside the first and names what they
// measured: the one method, or the net methods joined with "+".
func family(groups []Group) (string, error) {
	if len(groups) == 0 {
		return "", errors.New("nothing to compare: no runs given")
	}
	var first *result.Document
	var methods []string
	for _, g := range groups {
		if len(g.Docs) == 0 {
			return "", fmt.Errorf("%s: no runs to compare", g.Name)
		}
		for _, d := range g.Docs {
			if d == nil {
				return "", fmt.Errorf("%s: a run without a document", g.Name)
			}
			if first == nil {
				first = d
			}
			if Kind(d.Method) != Kind(first.Method) {
				return "", fmt.Errorf("cannot compare %s with %s", first.Method, d.Method)
			}
			if !slices.Contains(methods, string(d.Method)) {
				methods = append(methods, string(d.Method))
			}
		}
	}
	slices.Sort(methods)
	return strings.Join(methods, "+"), nil
}

// Kind is what makes two methods comparable: the same method, or the two
// ends of a network test.
func Kind(method result.Method) string {
	if method == result.MethodNetClient || method == result.MethodNetServer {
		return "net"
	}
	return string(method)
}

// column is a Column with the figures of each of its runs.
type column struct {
	Column
	runs []map[key][]float64
	// rel holds a single run's relative interval widths.
	rel map[key]float64
}

// split makes a group's columns, recording in rows a figure of each row
// for its rank, direction and headline.
func split(g Group, rows map[key]figure) []column {
	n := 1
	for _, d := range g.Docs {
		if perTarget(d) {
			n = max(n, len(d.Targets))
		}
	}
	labels := sharedLabels(g.Docs)
	cols := make([]column, n)
	for ti := range cols {
		col := &cols[ti]
		col.Name, col.Labels = g.Name, maps.Clone(labels)
		var paths []string
		for _, d := range g.Docs {
			if n > 1 && ti >= len(d.Targets) {
				continue // a run with fewer targets has nothing in this column
			}
			if ti < len(d.Targets) && !slices.Contains(paths, d.Targets[ti].Path) {
				paths = append(paths, d.Targets[ti].Path)
			}
			figs := map[key][]float64{}
			for _, f := range figures(d, ti) {
				figs[f.key] = append(figs[f.key], f.sample)
				rows[f.key] = f
				if f.rel > 0 && len(g.Docs) == 1 {
					if col.rel == nil {
						col.rel = map[key]float64{}
					}
					col.rel[f.key] = f.rel
				}
			}
			for _, s := range cachedSteps(d, ti) {
				if !slices.Contains(col.Cached, s) {
					col.Cached = append(col.Cached, s)
				}
			}
			col.Runs = append(col.Runs, d.ID)
			col.runs = append(col.runs, figs)
		}
		// A column's target is named when it is one: always for a split
		// group, otherwise when every run measured the same path.
		if len(paths) == 1 || n > 1 && len(paths) > 0 {
			col.Target = paths[0]
		}
		if n > 1 {
			col.Name += " " + col.Target
		}
	}
	return cols
}

// perTarget says whether doc measured more than one of its targets, as
// only a sweep does: a figure on another target than the first.
func perTarget(d *result.Document) bool {
	for _, s := range d.Sections() {
		if slices.ContainsFunc(s.Figures(), func(f result.Figure) bool { return f.Target > 0 }) {
			return true
		}
	}
	return false
}

// sharedLabels are the labels every doc carries with the same value.
func sharedLabels(docs []*result.Document) map[string]string {
	out := maps.Clone(docs[0].Labels)
	for _, d := range docs[1:] {
		for k, v := range out {
			if w, ok := d.Labels[k]; !ok || w != v {
				delete(out, k)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// samples are the column's figures for row k; see New for why several
// runs give one sample each.
func (c column) samples(k key) []float64 {
	var out []float64
	for _, figs := range c.runs {
		s := figs[k]
		if len(c.runs) > 1 && len(s) > 1 {
			s = []float64{stats.Summarize(s).Mean}
		}
		out = append(out, s...)
	}
	return out
}

// order sorts the rows: sections as the reports print them, steps by rank
// (size, preset order) then name, metrics as listed in metrics.
func order(rows map[key]figure) []key {
	keys := slices.Collect(maps.Keys(rows))
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(
			cmp.Compare(sectionRank(a.section), sectionRank(b.section)),
			strings.Compare(a.section, b.section),
			cmp.Compare(rows[a].stepRank, rows[b].stepRank),
			strings.Compare(a.step, b.step),
			cmp.Compare(metricRank(a.metric), metricRank(b.metric)),
			strings.Compare(a.metric, b.metric),
		)
	})
	return keys
}

func newCell(samples []float64) Cell {
	if len(samples) == 0 {
		return Cell{}
	}
	s := result.SpreadOf(stats.Summarize(samples))
	c := Cell{Present: true, Value: s.Mean, Samples: samples}
	if s.N >= 2 {
		c.Spread = &s
	}
	return c
}

// against sets the cell's ratio and difference to the baseline's cell, and
// whether the difference is inside the noise (see noise).
func (c *Cell) against(base Cell, self bool) {
	c.Ratio, c.Diff, c.Noise, c.Needed = nil, nil, false, 0
	if !c.Present || !base.Present {
		return
	}
	if base.Value != 0 {
		r := c.Value / base.Value
		d := r - 1
		c.Ratio, c.Diff = &r, &d
	}
	if !self {
		c.Noise = Noise(base, *c)
		if len(base.Samples) >= 2 && len(c.Samples) >= 2 {
			c.Needed = stats.WelchTest(c.Spread.Stats(), base.Spread.Stats()).Threshold(0.05)
		}
	}
}
