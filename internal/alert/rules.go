// Package alert reads alert rules (a YAML file of receivers and rules),
// judges the stored runs of each series a rule selects against it, keeps
// which alerts fire between commands, and hands each change of state, once,
// to the receivers of internal/notify.
package alert

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// File is a rules file: the receivers, the rules, and where the dashboard
// is for the notifications' links.
type File struct {
	// Path names the file in messages.
	Path      string
	Dashboard string
	Receivers []notify.Receiver
	Rules     []Rule
}

// Rule is one rule: which series it watches, the limit or the drop it
// fires on, after how many breaches, and whom it tells.
type Rule struct {
	Name  string
	Match Match
	// Below or Above is an absolute limit; Drop (a fraction, 0.25) a fall
	// against the series' own baseline. A rule has exactly one.
	Below, Above *Limit
	Drop         float64
	// BaselineRuns or BaselineAge is the baseline a Drop is measured
	// against: the median of the last BaselineRuns runs before those
	// judged, or of the runs of the last BaselineAge.
	BaselineRuns int
	BaselineAge  time.Duration
	// For is how many judged runs in a row must breach before the alert
	// fires, and how many must not before it resolves.
	For int
	// Retest runs the step again at once when a run would make the alert
	// fire, and fires only if the retest breaches too.
	Retest bool
	// Resolved sends a notice when a firing alert recovers.
	Resolved bool
	Notify   []string
	// Line is where the rule starts in its file.
	Line int
}

// Match selects the runs of a rule: every field set must match, and every
// label.
type Match struct {
	Method    string            `yaml:"method"`
	Host      string            `yaml:"host"`
	Target    string            `yaml:"target"`
	Direction string            `yaml:"direction"`
	Interface string            `yaml:"interface"`
	Labels    map[string]string `yaml:"labels"`
}

// Limit is an absolute limit as the file writes it ("80 Mbit/s"), and in
// the base unit of its kind of figure.
type Limit struct {
	Text string
	// Value and Unit are as written; Base is Value in its kind's base unit
	// (bytes per second, operations per second, seconds).
	Value float64
	Unit  unit
	Base  float64
}

// rawFile and rawRule are the file as YAML spells it; Parse checks every
// key against their yaml tags and every value after.
type rawFile struct {
	Dashboard string            `yaml:"dashboard"`
	Receivers []notify.Receiver `yaml:"receivers"`
	Rules     []rawRule         `yaml:"rules"`
}

type rawRule struct {
	Name     string   `yaml:"name"`
	Match    Match    `yaml:"match"`
	Below    string   `yaml:"below"`
	Above    string   `yaml:"above"`
	Drop     string   `yaml:"drop"`
	Baseline string   `yaml:"baseline"`
	For      *int     `yaml:"for"`
	Retest   bool     `yaml:"retest"`
	Resolved *bool    `yaml:"resolved"`
	Notify   []string `yaml:"notify"`
}

// maxFile bounds what Load reads: a rules file is a page of text.
const maxFile = 1 << 20

// Load reads and checks a rules file. Every refusal is a usage error
// (exit 2) naming the file and the line.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usage.Errorf("alert rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, usage.Errorf("alert rules %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse checks a rules file's text; name is what messages call it.
func Parse(data []byte, name string) (*File, error) {
	if len(data) > maxFile {
		return nil, usage.Errorf("%s: over %d bytes; a rules file is a page of text", name, maxFile)
	}
	fail := func(line int, format string, a ...any) error {
		if line > 0 {
			return usage.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
		}
		return usage.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(0, "empty; a rules file has rules: and receivers:")
		}
		return nil, fail(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fail(more.Line, "a second YAML document; a rules file is one")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err := strict(root, reflect.TypeFor[rawFile](), "the file"); err != nil {
		return nil, usage.Errorf("%s:%w", name, err)
	}
	var raw rawFile
	if err := root.Decode(&raw); err != nil {
		return nil, fail(0, "%s", strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
	}
	f := &File{Path: name, Dashboard: raw.Dashboard, Receivers: raw.Receivers}
	if f.Dashboard != "" {
		if u, err := url.Parse(f.Dashboard); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fail(lineOf(root, "dashboard"), "dashboard %q: want the http:// or https:// URL of thruput serve", f.Dashboard)
		}
	}
	recvLines := itemLines(root, "receivers")
	var names []string
	for i, r := range f.Receivers {
		switch {
		case r.Name == "":
			return nil, fail(recvLines[i], "a receiver without a name")
		case slices.Contains(names, r.Name):
			return nil, fail(recvLines[i], "a second receiver named %q", r.Name)
		}
		if err := notify.Validate(r); err != nil {
			return nil, fail(recvLines[i], "%v", err)
		}
		names = append(names, r.Name)
	}
	ruleLines := itemLines(root, "rules")
	if len(raw.Rules) == 0 {
		return nil, fail(lineOf(root, "rules"), "no rules; a rules file has at least one under rules:")
	}
	for i, rr := range raw.Rules {
		r, err := rr.rule(names)
		if err != nil {
			return nil, fail(ruleLines[i], "%v", err)
		}
		if slices.ContainsFunc(f.Rules, func(o Rule) bool { return o.Name == r.Name }) {
			return nil, fail(ruleLines[i], "a second rule named %q", r.Name)
		}
		r.Line = ruleLines[i]
		f.Rules = append(f.Rules, r)
	}
	return f, nil
}

// rule checks one rule against the receivers named.
func (rr rawRule) rule(receivers []string) (Rule, error) {
	r := Rule{Name: rr.Name, Match: rr.Match, Retest: rr.Retest, Resolved: true, Notify: rr.Notify, For: 1}
	if r.Name == "" {
		return r, errors.New("a rule without a name")
	}
	if rr.Resolved != nil {
		r.Resolved = *rr.Resolved
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("rule %q: %s", r.Name, fmt.Sprintf(format, a...))
	}
	m := result.Method(r.Match.Method)
	if _, ok := fits[m]; !ok {
		return r, fail("match: method %q: want one of %s", r.Match.Method, methodList())
	}
	for k := range r.Match.Labels {
		if _, _, err := result.ParseLabel(k + "=" + r.Match.Labels[k]); err != nil {
			return r, fail("match: labels: %v", err)
		}
	}
	set := 0
	for _, s := range []string{rr.Below, rr.Above, rr.Drop} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		return r, fail("give exactly one of below:, above: and drop:")
	}
	var err error
	switch {
	case rr.Below != "":
		r.Below, err = parseLimit(rr.Below, m)
	case rr.Above != "":
		r.Above, err = parseLimit(rr.Above, m)
	default:
		r.Drop, err = parseDrop(rr.Drop)
	}
	if err != nil {
		return r, fail("%v", err)
	}
	switch {
	case rr.Baseline != "" && r.Drop == 0:
		return r, fail("baseline: is what a drop: is measured against; this rule has none")
	case r.Drop > 0:
		bl := rr.Baseline
		if bl == "" {
			bl = defaultBaseline
		}
		if r.BaselineRuns, r.BaselineAge, err = parseBaseline(bl); err != nil {
			return r, fail("%v", err)
		}
	}
	if rr.For != nil {
		r.For = *rr.For
	}
	if r.For < 1 || r.For > maxFor {
		return r, fail("for: %d: want 1 to %d runs in a row", r.For, maxFor)
	}
	for _, n := range r.Notify {
		if !slices.Contains(receivers, n) {
			return r, fail("notify: no receiver is named %q (receivers: %s)", n, strings.Join(receivers, ", "))
		}
	}
	return r, nil
}

const (
	// maxFor keeps a rule's runs a handful: a streak of more than this is
	// a trend, which a drop against the baseline catches.
	maxFor = 100
	// defaultBaseline is a drop's baseline when the rule names none.
	defaultBaseline = "10 runs"
	// minBaseline is the fewest runs a median is a baseline of.
	minBaseline = 3
	// maxBaseline bounds the runs a baseline reads.
	maxBaseline = 1000
	// maxAgeRuns bounds the runs of a baseline of an age: a median of 50
	// runs is as steady as one of thousands (a series measured every 5
	// minutes has 2016 in a week), and reading them all would be most of
	// a check's time.
	maxAgeRuns = 50
)

// parseDrop reads "25%" (or "25 %") as 0.25.
func parseDrop(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(s), "%") || math.IsNaN(v) || v <= 0 || v >= 100 {
		return 0, fmt.Errorf("drop: %q: want a percentage above 0 and below 100, such as 25%%", s)
	}
	return v / 100, nil
}

// parseBaseline reads "10 runs" or an age: "7d", "36h".
func parseBaseline(s string) (int, time.Duration, error) {
	t := strings.TrimSpace(s)
	bad := fmt.Errorf("baseline: %q: want a number of runs (10 runs, %d to %d) or an age (7d, 36h)", s, minBaseline, maxBaseline)
	if n, ok := strings.CutSuffix(t, "runs"); ok {
		v, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || v < minBaseline || v > maxBaseline {
			return 0, 0, bad
		}
		return v, 0, nil
	}
	if n, ok := strings.CutSuffix(t, "d"); ok {
		v, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || v < 1 || v > 3660 {
			return 0, 0, bad
		}
		return 0, time.Duration(v) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < time.Minute || d > 3660*24*time.Hour {
		return 0, 0, bad
	}
	return 0, d, nil
}

// parseLimit reads "80 Mbit/s", "50 ms", "500 IOPS", and checks that the
// method has a figure of that kind.
func parseLimit(s string, m result.Method) (*Limit, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i <= 0 {
		return nil, fmt.Errorf("%q: want a number and a unit, such as 80 Mbit/s, 50 ms or 500 IOPS", s)
	}
	num, name := t[:i], strings.TrimSpace(t[i:])
	u, ok := unitNamed(name)
	if !ok {
		return nil, fmt.Errorf("%q: unknown unit %q; want one of %s", s, name, unitList())
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return nil, fmt.Errorf("%q: want a number above 0 before the unit", s)
	}
	base := v * u.scale
	if strings.HasSuffix(u.name, "bit/s") {
		// Bit rates read as -b reads them, in bits per second.
		bps, err := units.ParseBitrate(t)
		if err != nil {
			return nil, err
		}
		base = float64(bps) / 8
	}
	if !slices.Contains(fits[m], u.kind) {
		return nil, fmt.Errorf("%q is %s, which %s does not measure; it measures %s", s, u.kind, m, kindList(fits[m]))
	}
	return &Limit{Text: t, Value: v, Unit: u, Base: base}, nil
}

// strict refuses a key that t (a struct, a slice of them, a map of
// strings) has no yaml tag for, naming its line: a misspelt key would
// otherwise be a rule that silently never fires.
func strict(n *yaml.Node, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%d: %s: want a mapping of keys", n.Line, where)
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if seen[k.Value] {
				return fmt.Errorf("%d: %s: %q given twice", k.Line, where, k.Value)
			}
			seen[k.Value] = true
			f, ok := fieldTagged(t, k.Value)
			if !ok {
				return fmt.Errorf("%d: %s: unknown key %q; known keys are %s", k.Line, where, k.Value, strings.Join(tags(t), ", "))
			}
			if err := strict(v, f.Type, k.Value); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("%d: %s: want a list", n.Line, where)
		}
		for _, c := range n.Content {
			if err := strict(c, t.Elem(), where); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldTagged is t's field whose yaml tag names key.
func fieldTagged(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tags are t's keys, for a message.
func tags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// lineOf is the line of key's value in mapping n, 0 when it is absent.
func lineOf(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return 0
}

// itemLines are the lines of the items of the list under key.
func itemLines(n *yaml.Node, key string) []int {
	var out []int
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			for _, c := range n.Content[i+1].Content {
				out = append(out, c.Line)
			}
		}
	}
	return out
}
