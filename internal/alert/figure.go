package alert

import (
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// kind is the kind of figure a rule reads from a run.
type kind string

const (
	// rate is the headline rate (result.Figure.Headline), in bytes per
	// second: what compare's previous-run line and the list's summary set
	// side by side.
	rate kind = "a rate"
	// iops is the operations per second of a disk run, the IOPS or
	// sysbench's requests per second.
	iops kind = "operations per second"
	// latency is the loaded median round trip of a network test
	// (latency under load), or a disk io run's median completion, in
	// seconds.
	latency kind = "a latency"
)

// fits says which kinds of figure each method measures, so a rule whose
// unit its method has no figure in is refused rather than never firing.
var fits = map[result.Method][]kind{
	result.MethodSweep:     {rate},
	result.MethodRandom:    {rate, iops},
	result.MethodIO:        {rate, iops, latency},
	result.MethodMark:      {rate},
	result.MethodCheck:     {rate, iops},
	result.MethodNetClient: {rate, latency},
	result.MethodNetServer: {rate, latency},
	result.MethodHTTP:      {rate},
}

// unit is a unit a limit may be written in.
type unit struct {
	name string
	kind kind
	// scale turns the unit into its kind's base unit.
	scale float64
}

var unitTable = []unit{
	{"bit/s", rate, 1.0 / 8}, {"kbit/s", rate, 1e3 / 8}, {"Mbit/s", rate, 1e6 / 8}, {"Gbit/s", rate, 1e9 / 8},
	{"B/s", rate, 1}, {"kB/s", rate, 1e3}, {"KB/s", rate, 1e3}, {"MB/s", rate, 1e6}, {"GB/s", rate, 1e9},
	{"KiB/s", rate, 1 << 10}, {"MiB/s", rate, 1 << 20}, {"GiB/s", rate, 1 << 30},
	{"IOPS", iops, 1},
	{"s", latency, 1}, {"ms", latency, 1e-3}, {"µs", latency, 1e-6}, {"us", latency, 1e-6},
}

func unitNamed(name string) (unit, bool) {
	i := slices.IndexFunc(unitTable, func(u unit) bool { return u.name == name })
	if i < 0 {
		return unit{}, false
	}
	return unitTable[i], true
}

func unitList() string {
	names := make([]string, len(unitTable))
	for i, u := range unitTable {
		names[i] = u.name
	}
	return strings.Join(names, ", ")
}

func kindList(ks []kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " and ")
}

func methodList() string {
	var ms []string
	for m := range fits {
		ms = append(ms, string(m))
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// displayUnit is the unit a rule's figures are shown in: its limit's, or
// for a drop the unit the method's pages use (Mbit/s for a link, MiB/s
// for storage).
func (r *Rule) displayUnit() unit {
	switch {
	case r.Below != nil:
		return r.Below.Unit
	case r.Above != nil:
		return r.Above.Unit
	case result.Method(r.Match.Method).Link():
		u, _ := unitNamed("Mbit/s")
		return u
	}
	u, _ := unitNamed("MiB/s")
	return u
}

// reading is the figure a rule reads from one run, in its kind's base
// unit, with the half-width of its 95 % interval (0 when unknown).
type reading struct {
	pt          *result.Point
	value, half float64
}

// metricScale turns a figure's value in its Metric's unit into the base
// unit of its kind.
func metricScale(metric string) float64 {
	switch {
	case strings.HasSuffix(metric, "Mbit/s"):
		return 1e6 / 8
	case strings.HasSuffix(metric, "MiB/s"):
		return 1 << 20
	case strings.HasSuffix(metric, "MB/s"):
		return 1e6
	case strings.HasSuffix(metric, "µs"):
		return 1e-6
	case strings.HasSuffix(metric, "ms"):
		return 1e-3
	}
	return 1
}

// read is the figure of kind k in run pt, restricted to direction dir when
// it is set: the largest of the candidates, which for a rate is the best
// (a sweep's fastest block size, as its summary shows; a bidirectional
// test's faster direction) and for a latency the worst (the slowest
// direction's loaded median, as its brief shows). A figure repeated within the run (--repeat) counts as the mean
// of its repeats. False when the run has no such figure.
func read(pt *result.Point, k kind, dir string) (reading, bool) {
	if k == latency && len(pt.Loaded) > 0 {
		var best *result.PointRTT
		for i, p := range pt.Loaded {
			if (dir == "" || p.Phase == dir) && (best == nil || p.P50Ns > best.P50Ns) {
				best = &pt.Loaded[i]
			}
		}
		if best == nil {
			return reading{}, false
		}
		half := max(best.P50Ns-best.P50LowNs, best.P50HighNs-best.P50Ns, 0)
		return reading{pt: pt, value: float64(best.P50Ns) / 1e9, half: float64(half) / 1e9}, true
	}
	type acc struct {
		sum, half float64
		n         int
	}
	steps := map[string]*acc{}
	var order []string
	for _, f := range pt.Figures {
		if !takes(f, k, dir) {
			continue
		}
		key := f.Group + "\x00" + f.Step
		a := steps[key]
		if a == nil {
			a = &acc{}
			steps[key] = a
			order = append(order, key)
		}
		scale := metricScale(f.Metric)
		a.sum += f.Value * scale
		a.n++
		switch {
		case f.Interval != nil:
			a.half = *f.Interval
		case f.HalfWidth > 0:
			a.half = f.HalfWidth * scale
		}
	}
	var out reading
	found := false
	for _, key := range order {
		a := steps[key]
		v := a.sum / float64(a.n)
		half := a.half
		if a.n > 1 {
			// Repeats are judged by their spread, not one repeat's interval.
			half = 0
		}
		if !found || v > out.value {
			out, found = reading{pt: pt, value: v, half: half}, true
		}
	}
	return out, found
}

// takes says whether figure f is one of kind k in direction dir.
func takes(f result.PointFigure, k kind, dir string) bool {
	var name string
	switch k {
	case rate:
		if f.Headline == "" {
			return false
		}
		name = f.Headline
	case iops:
		if f.Metric != result.MetricIOPS && f.Metric != result.MetricRequests {
			return false
		}
		name = f.Group + " " + f.Step
	case latency:
		if f.Metric != result.MetricP50 {
			return false
		}
		name = f.Group + " " + f.Step
	}
	if dir == "" {
		return true
	}
	return slices.ContainsFunc(strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '+' }), func(w string) bool { return w == dir })
}
