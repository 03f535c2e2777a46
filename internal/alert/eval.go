package alert

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
	"github.com/thruput/thruput/internal/store"
)

// States of an alert as a table and the JSON show them.
const (
	// StateOK: the newest judged runs do not breach.
	StateOK = "ok"
	// StatePending: breaching, fewer runs in a row than for: asks.
	StatePending = "pending"
	// StateFiring: fired, and not yet for: good runs in a row.
	StateFiring = "firing"
	// StateRecovering: firing, with good runs in a row, fewer than for:.
	StateRecovering = "recovering"
	// StateResolved: this evaluation resolved it.
	StateResolved = "resolved"
	// StateNoData: too few judged runs to decide (or to make a baseline).
	StateNoData = "no data"
)

// Alert is one rule over one series: its state after the newest runs, and
// the change this evaluation made, if any (docs/result-json.md).
type Alert struct {
	Rule   string        `json:"rule"`
	Key    string        `json:"key"`
	Series notify.Series `json:"series"`
	// State is ok, pending, firing, recovering, resolved or "no data";
	// Streak the runs in a row that led to it, out of For.
	State  string `json:"state"`
	Streak int    `json:"streak"`
	For    int    `json:"for"`
	// Change is "firing" or "resolved" when this evaluation changed the
	// alert's state; "" otherwise.
	Change string `json:"change,omitempty"`
	// Figure is the newest judged run's figure; Threshold the rule's
	// limit, Baseline the median a drop is measured against.
	Figure    *notify.Figure `json:"figure,omitempty"`
	Threshold *notify.Figure `json:"threshold,omitempty"`
	Baseline  *notify.Figure `json:"baseline,omitempty"`
	Condition string         `json:"condition"`
	// Since is when the alert began firing (or resolved).
	Since time.Time `json:"since,omitzero"`
	// RunIDs are the runs of the streak, oldest first.
	RunIDs []string `json:"run_ids,omitempty"`
	// Note says what the state alone does not: a suspect newest run left
	// out, a difference within noise, a baseline too short.
	Note string `json:"note,omitempty"`
	// Retest is set when the change to firing waits for the step to be
	// run again (retest: true): the newest run is its first breach to
	// complete the streak, and was not itself a retest.
	Retest bool `json:"retest,omitempty"`
	rule   *Rule
	// startsAt is when the alert began firing, which a resolved notice
	// carries too.
	startsAt time.Time
}

// RetestLabel is the label a retest carries: the id of the run it
// retests.
const RetestLabel = "retest"

// Evaluation is what Evaluate found.
type Evaluation struct {
	Alerts []Alert `json:"alerts"`
	// Warnings are selectors that matched no stored run.
	Warnings []string `json:"warnings,omitempty"`
}

// Evaluate judges every series each rule selects in s against the state
// the alerts were in (st, by Key). With onlyDoc set (the run a command
// just saved), it judges only the rules whose selector takes that run,
// and only that run's series; retest says the command can run that run's
// step again (retest: true then waits for it). now bounds a baseline of
// an age.
func Evaluate(s store.Store, f *File, st State, onlyDoc *result.Document, retest bool, now time.Time) (*Evaluation, error) {
	ev := &Evaluation{}
	var only *result.Point
	if onlyDoc != nil {
		p := onlyDoc.Point()
		only = &p
	}
	rd := &reader{s: s, deepest: map[string]int{}, read: map[string]recentRead{}}
	for i := range f.Rules {
		r := &f.Rules[i]
		if only == nil || r.Match.takes(only) {
			k := fmt.Sprint(r.filter(only, now))
			rd.deepest[k] = max(rd.deepest[k], r.need()+4)
		}
	}
	for i := range f.Rules {
		r := &f.Rules[i]
		if only != nil && !r.Match.takes(only) {
			continue
		}
		series, err := r.series(rd, only, now)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Name, err)
		}
		if len(series) == 0 && only == nil {
			ev.Warnings = append(ev.Warnings, fmt.Sprintf("%s:%d: rule %q: no stored run matches its selector (%s)", f.Path, r.Line, r.Name, r.Match))
		}
		for _, runs := range series {
			ev.Alerts = append(ev.Alerts, r.judge(runs, st[r.key(&runs[0])], only, retest, now))
		}
	}
	return ev, nil
}

// String is the selector as a message shows it.
func (m Match) String() string {
	parts := []string{"method " + m.Method}
	for _, kv := range [][2]string{{"host", m.Host}, {"target", m.Target}, {"direction", m.Direction}, {"interface", m.Interface}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		parts = append(parts, k+"="+m.Labels[k])
	}
	return strings.Join(parts, ", ")
}

// seriesOf is the series a run belongs to as a notice names it
// (result.SeriesKey: the store's, so /metrics and the alerts agree).
// Labels select runs but do not split series: a suite's id differs on
// every run.
func seriesOf(d *result.Point) notify.Series {
	k := d.Series
	return notify.Series{Method: string(k.Method), Host: k.Host, Target: k.Target, Direction: k.Direction, Interface: k.Interface}
}

// takes says whether the selector takes run d.
func (m Match) takes(d *result.Point) bool {
	s := d.Series
	if string(s.Method) != m.Method || m.Host != "" && m.Host != s.Host || m.Target != "" && m.Target != s.Target ||
		m.Interface != "" && m.Interface != s.Interface {
		return false
	}
	// A direction selects a network test's direction; on a disk method it
	// selects the figure read (read, write), which every run has.
	if m.Direction != "" && (s.Method == result.MethodNetClient || s.Method == result.MethodNetServer) && m.Direction != s.Direction {
		return false
	}
	for k, v := range m.Labels {
		if d.Labels[k] != v {
			return false
		}
	}
	return true
}

// key names the alert of this rule over the series of run d.
func (r *Rule) key(d *result.Point) string {
	s := d.Series
	return strings.Join([]string{r.Name, string(s.Method), s.Host, s.Target, s.Direction, s.Interface}, "|")
}

// need is how many runs of a series the rule judges: its streak and its
// baseline (a baseline of an age reads what its time bound selects).
func (r *Rule) need() int {
	if r.BaselineAge > 0 {
		return r.For + maxAgeRuns
	}
	return r.For + r.BaselineRuns
}

// series reads the runs the rule needs, oldest first, split into its
// series: by SQL the newest few of each series the selector's columns and
// labels pick (store.Recent), then by the selector's other fields here. A
// read that left a series short of what the rule needs (suspect runs)
// reads again, deeper.
func (r *Rule) series(rd *reader, only *result.Point, now time.Time) ([][]result.Point, error) {
	flt := r.filter(only, now)
	n := r.need() + 4
	for {
		points, err := rd.recent(flt, n)
		if err != nil {
			return nil, err
		}
		var order []string
		split := map[string][]result.Point{}
		for i := range points {
			d := &points[i]
			if !r.Match.takes(d) || only != nil && d.Series != only.Series {
				continue
			}
			k := r.key(d)
			if split[k] == nil {
				order = append(order, k)
			}
			split[k] = append(split[k], *d)
		}
		short := false
		out := make([][]result.Point, 0, len(order))
		for _, k := range order {
			out = append(out, split[k])
			short = short || len(split[k]) < r.need()
		}
		if !short || len(points) < n || n >= 16*maxBaseline {
			return out, nil
		}
		n *= 4
	}
}

// filter selects the runs the rule reads: its selector's method, host
// and labels, only's host when set, and the runs of its baseline's age.
func (r *Rule) filter(only *result.Point, now time.Time) store.Filter {
	flt := store.Filter{Method: r.Match.Method, Host: r.Match.Host}
	if only != nil {
		flt.Host = only.Series.Host
	}
	if r.BaselineAge > 0 {
		flt.Since = now.Add(-r.BaselineAge)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Match.Labels)) {
		flt.Labels = append(flt.Labels, store.LabelQuery{Key: k, Value: r.Match.Labels[k]})
	}
	return flt
}

// reader reads the store's recent points for an evaluation's rules, once
// for the rules that share a filter (a limit and a drop on one link): the
// deepest first read any of them asks for, which holds what each of the
// others needs (older runs than a rule needs change none of its figures).
type reader struct {
	s       store.Store
	deepest map[string]int
	read    map[string]recentRead
}

// recentRead is what one read gave: n's runs of each series.
type recentRead struct {
	n      int
	points []result.Point
}

// recent is store.Recent(flt, n), or at least as deep a read of flt made
// before.
func (rd *reader) recent(flt store.Filter, n int) ([]result.Point, error) {
	k := fmt.Sprint(flt)
	n = max(n, rd.deepest[k])
	if got, ok := rd.read[k]; ok && got.n >= n {
		return got.points, nil
	}
	ps, err := rd.s.Recent(flt, n)
	if err != nil {
		return nil, err
	}
	rd.read[k] = recentRead{n, ps}
	return ps, nil
}

// judge decides the state of the alert of one series (runs oldest first)
// from the state it was in.
func (r *Rule) judge(runs []result.Point, was Entry, only *result.Point, retest bool, now time.Time) Alert {
	newest := &runs[len(runs)-1]
	u := r.displayUnit()
	a := Alert{Rule: r.Name, Key: r.key(newest), Series: seriesOf(newest), For: r.For, Condition: r.condition(), rule: r, startsAt: was.StartsAt}
	a.Series.Labels = r.Match.Labels
	k := rate
	switch {
	case r.Below != nil:
		k = r.Below.Unit.kind
		a.Threshold = &notify.Figure{Value: r.Below.Value, Unit: u.name}
	case r.Above != nil:
		k = r.Above.Unit.kind
		a.Threshold = &notify.Figure{Value: r.Above.Value, Unit: u.name}
	}
	// A suspect run is left out: its figure may not be the machine's
	// own, so it neither starts a streak nor completes one.
	var judged []reading
	for i := range runs {
		if x, ok := read(&runs[i], k, r.Match.Direction); ok && len(runs[i].Suspect) == 0 {
			judged = append(judged, x)
		}
	}
	if len(newest.Suspect) > 0 {
		a.Note = fmt.Sprintf("the newest run %s is suspect and not judged (%s)", newest.ID, newest.SuspectReasons())
	}
	firing := was.Status == StateFiring
	a.State = StateNoData
	if firing {
		a.State, a.Since = StateFiring, was.StartsAt
	}
	if len(judged) == 0 {
		return a
	}
	last := judged[len(judged)-1]
	a.Figure = &notify.Figure{Value: last.value / u.scale, Unit: u.name, PlusMinus: last.half / u.scale}
	if len(judged) < r.For {
		return a
	}
	window := judged[len(judged)-r.For:]
	breach := func(x reading) bool {
		switch {
		case r.Below != nil:
			return x.value < r.Below.Base
		case r.Above != nil:
			return x.value > r.Above.Base
		}
		return false
	}
	beyond := true
	if r.Drop > 0 {
		base := r.baseline(judged[:len(judged)-r.For], now)
		if len(base) < minBaseline {
			a.Note = joinNote(a.Note, fmt.Sprintf("a baseline of %d runs before the %d judged; a drop needs %d", len(base), r.For, minBaseline))
			return a
		}
		vals := make([]float64, len(base))
		for i, x := range base {
			vals[i] = x.value
		}
		med := stats.Median(vals)
		a.Baseline = &notify.Figure{Value: med / u.scale, Unit: u.name}
		breach = func(x reading) bool { return x.value <= med*(1-r.Drop) }
		// The drop must be beyond the noise compare calls a difference
		// real by: the window's runs against the baseline's.
		cur := compare.Cell{Present: true}
		for _, x := range window {
			cur.Samples = append(cur.Samples, x.value)
		}
		if len(window) == 1 {
			cur.HalfWidth = window[0].half
		}
		beyond = !compare.Noise(compare.Cell{Present: true, Samples: vals}, cur)
	}
	// Streaks count back from the newest judged run.
	bad, good := 0, 0
	for i := len(judged) - 1; i >= 0 && breach(judged[i]); i-- {
		bad++
	}
	for i := len(judged) - 1; i >= 0 && !breach(judged[i]); i-- {
		good++
	}
	bad, good = min(bad, r.For), min(good, r.For)
	ids := func(n int) []string {
		var out []string
		for _, x := range judged[len(judged)-n:] {
			out = append(out, x.pt.ID)
		}
		return out
	}
	switch {
	case !firing && bad == r.For && !beyond:
		a.State, a.Streak = StatePending, bad
		a.Note = joinNote(a.Note, "the drop is within the noise of the baseline's runs")
	case !firing && bad == r.For:
		a.State, a.Streak, a.RunIDs = StateFiring, bad, ids(bad)
		a.Change, a.Since = StateFiring, judged[len(judged)-bad].pt.StartedAt
		a.startsAt = a.Since
		if r.Retest && retest && only != nil && last.pt.ID == only.ID && only.Labels[RetestLabel] == "" {
			a.State, a.Change, a.Retest = StatePending, "", true
		}
	case !firing && bad > 0:
		a.State, a.Streak, a.RunIDs = StatePending, bad, ids(bad)
	case !firing:
		a.State = StateOK
		if was.Status == StateResolved {
			a.Since = was.EndsAt
		}
	case good == r.For:
		a.State, a.Streak, a.RunIDs = StateResolved, good, ids(good)
		a.Change, a.Since = StateResolved, last.pt.StartedAt
	case good > 0:
		a.State, a.Streak, a.RunIDs = StateRecovering, good, ids(good)
	default:
		a.Streak, a.RunIDs = bad, ids(bad)
	}
	return a
}

// baseline are the judged runs a drop is measured against: the last
// BaselineRuns before the streak, or those of the BaselineAge before now
// (the newest maxAgeRuns of them at most).
func (r *Rule) baseline(before []reading, now time.Time) []reading {
	if r.BaselineAge > 0 {
		from := now.Add(-r.BaselineAge)
		i, _ := slices.BinarySearchFunc(before, from, func(x reading, t time.Time) int { return x.pt.StartedAt.Compare(t) })
		return before[max(i, len(before)-maxAgeRuns):]
	}
	return before[max(0, len(before)-r.BaselineRuns):]
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// condition says the rule in words.
func (r *Rule) condition() string {
	runs := "runs"
	if r.For == 1 {
		runs = "run"
	}
	switch {
	case r.Below != nil:
		return fmt.Sprintf("below %s for %d %s", r.Below.Text, r.For, runs)
	case r.Above != nil:
		return fmt.Sprintf("above %s for %d %s", r.Above.Text, r.For, runs)
	}
	base := fmt.Sprintf("the last %d runs", r.BaselineRuns)
	if r.BaselineAge > 0 {
		base = "the runs of the last " + age(r.BaselineAge)
	}
	return fmt.Sprintf("%g %% under the median of %s, beyond noise, for %d %s", r.Drop*100, base, r.For, runs)
}

// age words a baseline's age as the file would: 7d, 36h.
func age(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}
