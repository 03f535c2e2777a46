package notify

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// String is the figure as a person reads it: "61.2 ± 1.4 Mbit/s", two
// decimals at most.
func (f Figure) String() string {
	s := num(f.Value)
	if f.PlusMinus != 0 {
		s += " ± " + num(f.PlusMinus)
	}
	if f.Unit != "" {
		s += " " + f.Unit
	}
	return s
}

func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// field is one line of a notification in words.
type field struct{ name, value string }

// fields are what a mail's body lists and what Alertmanager's
// description holds, in that order; empty ones are left out.
func (n Notification) fields() []field {
	fs := []field{
		{"Status", n.Status},
		{"Rule", n.Rule},
		{"Condition", n.Condition},
		{"Figure", n.Figure.String()},
	}
	if n.Threshold != nil {
		fs = append(fs, field{"Threshold", n.Threshold.String()})
	}
	if n.Baseline != nil {
		fs = append(fs, field{"Baseline", n.Baseline.String()})
	}
	fs = append(fs, field{"Series", n.Series.String()},
		field{"Started", n.StartsAt.UTC().Format(time.RFC3339)})
	if !n.EndsAt.IsZero() {
		fs = append(fs, field{"Resolved", n.EndsAt.UTC().Format(time.RFC3339)})
	}
	fs = append(fs, field{"Runs", strings.Join(n.RunIDs, " ")}, field{"Dashboard", n.DashboardURL})
	out := fs[:0]
	for _, f := range fs {
		if f.value != "" {
			out = append(out, f)
		}
	}
	return out
}

// String is the series as selector words: "method=net.client host=pi4
// link=lan", its labels sorted.
func (s Series) String() string {
	var parts []string
	for _, kv := range s.pairs() {
		parts = append(parts, kv[0]+"="+kv[1])
	}
	return strings.Join(parts, " ")
}

// pairs are the series' non-empty fields and then its labels by name.
func (s Series) pairs() [][2]string {
	var out [][2]string
	for _, kv := range [][2]string{{"method", s.Method}, {"host", s.Host}, {"target", s.Target}, {"direction", s.Direction}, {"interface", s.Interface}} {
		if kv[1] != "" {
			out = append(out, kv)
		}
	}
	names := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, [2]string{k, s.Labels[k]})
	}
	return out
}

// text is the fields a line each, "Name: value".
func text(fs []field) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.name + ": " + f.value + "\n")
	}
	return b.String()
}
