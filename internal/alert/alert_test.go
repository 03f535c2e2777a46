package alert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/sqlite"
	"github.com/thruput/thruput/internal/usage"
)

// example is the README's example, as written.
const example = `receivers:
  - name: hook
    webhook: http://127.0.0.1:9099/alert
rules:
  - name: lan-down
    match: {method: net.client, labels: {link: lan}}
    below: 80 Mbit/s
    for: 2
    notify: [hook]
`

func TestParseExample(t *testing.T) {
	f, err := Parse([]byte(example), "alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := f.Rules[0]
	if r.Name != "lan-down" || r.Match.Method != "net.client" || r.Match.Labels["link"] != "lan" || r.For != 2 || !r.Resolved ||
		r.Below == nil || r.Below.Base != 80e6/8 || r.Line != 5 || len(f.Receivers) != 1 || f.Receivers[0].Webhook != "http://127.0.0.1:9099/alert" {
		t.Errorf("parsed %+v", f)
	}
	if got := r.condition(); got != "below 80 Mbit/s for 2 runs" {
		t.Errorf("condition %q", got)
	}
}

func TestParseRelative(t *testing.T) {
	f, err := Parse([]byte(`dashboard: http://pi4.lan:8080
receivers: [{name: hook, webhook: "http://127.0.0.1:9/a"}]
rules:
  - {name: rel, match: {method: net.client}, drop: 25%, baseline: 7d, notify: [hook], resolved: false}
  - {name: iops, match: {method: disk.io, direction: read}, below: 500 IOPS, retest: true}
  - {name: lat, match: {method: net.client}, above: 50 ms}
  - {name: disk, match: {method: disk.sweep, host: pi4}, below: 20 MB/s, drop: "", for: 3}
`), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := f.Rules
	if r[0].Drop != 0.25 || r[0].BaselineAge != 7*24*time.Hour || r[0].Resolved || r[1].Below.Base != 500 || !r[1].Retest ||
		r[2].Above.Base != 0.05 || r[3].Below.Base != 20e6 || r[3].For != 3 {
		t.Errorf("parsed %+v", r)
	}
	if got := r[0].condition(); got != "25 % under the median of the runs of the last 7d, beyond noise, for 1 run" {
		t.Errorf("condition %q", got)
	}
}

// TestParseRefusals holds each bad file to a message naming the line and
// the problem, as a usage error (exit 2).
func TestParseRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "empty"},
		{"rules: [", "did not find expected node content"},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 80 Mbit/s\n    fro: 2\n", `a.yaml:5: rules: unknown key "fro"; known keys are name, match, below`},
		{"rule: []\n", `a.yaml:1: the file: unknown key "rule"`},
		{"rules:\n  - name: a\n    match: {method: net.client, hots: pi4}\n    below: 1 Mbit/s\n", `a.yaml:3: match: unknown key "hots"`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 500 IOPS\n", `a.yaml:2: rule "a": "500 IOPS" is operations per second, which net.client does not measure; it measures a rate and a latency`},
		{"rules:\n  - name: a\n    match: {method: disk.sweep}\n    above: 5 ms\n", `"5 ms" is a latency, which disk.sweep does not measure`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 80 furlongs\n", `unknown unit "furlongs"`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: fast\n", `want a number and a unit`},
		{"rules:\n  - name: a\n    match: {method: net}\n    below: 1 Mbit/s\n", `match: method "net": want one of disk.check`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n", "give exactly one of below:, above: and drop:"},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n    above: 2 Mbit/s\n", "give exactly one of"},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    drop: 25\n", `drop: "25": want a percentage`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    drop: 25%\n    baseline: 2 runs\n", `baseline: "2 runs": want a number of runs`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n    baseline: 7d\n", "this rule has none"},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n    for: 0\n", "for: 0: want 1 to 100"},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n    notify: [pager]\n", `notify: no receiver is named "pager"`},
		{"rules:\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n  - name: a\n    match: {method: net.client}\n    below: 1 Mbit/s\n", `a.yaml:5: a second rule named "a"`},
		{"rules:\n  - match: {method: net.client}\n    below: 1 Mbit/s\n", "a.yaml:2: a rule without a name"},
		{"receivers:\n  - name: hook\nrules:\n  - {name: a, match: {method: net.client}, below: 1 Mbit/s}\n", `a.yaml:2: receiver "hook": no webhook`},
		{"receivers:\n  - name: hook\n    webhok: http://x/\nrules: []\n", `a.yaml:3: receivers: unknown key "webhok"`},
		{"dashboard: ftp://x\nrules:\n  - {name: a, match: {method: net.client}, below: 1 Mbit/s}\n", `a.yaml:1: dashboard "ftp://x"`},
		{"rules: []\n", "a.yaml:1: no rules"},
		{"rules:\n  - {name: a, match: {method: net.client}, below: 1 Mbit/s}\n---\nrules: []\n", "a second YAML document"},
		{"rules:\n  - {name: a, match: {method: net.client}, below: 1 Mbit/s, for: two}\n", "cannot unmarshal"},
	} {
		_, err := Parse([]byte(c.text), "a.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !usage.Is(err) {
			t.Errorf("Parse(%q) = %v, want a usage error containing %q", c.text, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte("rules:\n  - {name: a, match: {method: disk.io, labels: {x: y}}, drop: 10%, baseline: 36h}\n"))
	f.Add([]byte("rules: {a: b}\nreceivers: 3\n"))
	f.Add([]byte("&a [*a, *a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "f.yaml")
		if err != nil {
			if !usage.Is(err) || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("refusal %v is not a usage error naming the file", err)
			}
			return
		}
		for _, r := range file.Rules {
			if r.Name == "" || r.For < 1 || (r.Below == nil) == (r.Above == nil) == (r.Drop == 0) {
				t.Fatalf("accepted a rule without a name, a for or exactly one condition: %+v", r)
			}
		}
	})
}

// netRun is a net client run to a server at rate Mbit/s, with a 1 %
// interval, started hour hours after t0.
func netRun(hour int, mbit float64, labels map[string]string) *result.Document {
	d := &result.Document{ID: fmt.Sprintf("20260301T%02d0000Z-run%03d", hour%24, hour), Method: result.MethodNetClient, Status: result.StatusOK,
		StartedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(hour) * time.Hour), Labels: labels}
	d.ID = d.StartedAt.Format("20060102T150405Z") + fmt.Sprintf("-run%03d", hour)
	d.Host.Hostname = "pi4"
	bps := mbit * 1e6
	d.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "10.0.0.2:5201", Interface: "eth0", Protocol: "tcp", Streams: 1, Direction: "up"},
		Sums: []result.NetSum{{Direction: "up", Sender: result.NetFigure{Bytes: 1, BitsPerSecond: bps}, Receiver: result.NetFigure{Bytes: 1, BitsPerSecond: bps},
			Interval: &result.Interval{Mean: bps / 8, HalfWidth: bps / 8 * 0.01, Relative: 0.01, Windows: 20}}}}
	return d
}

func suspect(d *result.Document) *result.Document {
	d.Health = &result.Health{Suspect: []result.Suspect{{Reason: "under-voltage", Detail: "bit 0"}}}
	return d
}

func openStore(t *testing.T, docs ...*result.Document) store.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
	return s
}

// sent collects what Check sends.
type sent struct{ got []notify.Notification }

func (s *sent) send(_ context.Context, _ notify.Receiver, n notify.Notification) error {
	s.got = append(s.got, n)
	return nil
}

// series runs rates one run an hour through Check after each, as runs
// saved one after another are, and returns every notice and the last
// evaluation.
func series(t *testing.T, rules string, rates []float64, mark map[int]func(*result.Document) *result.Document) ([]notify.Notification, *Report) {
	t.Helper()
	f, err := Parse([]byte(rules), "rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	var out sent
	state := filepath.Join(t.TempDir(), "state.json")
	var rep *Report
	for i, v := range rates {
		d := netRun(i, v, map[string]string{"link": "lan"})
		if m := mark[i]; m != nil {
			d = m(d)
		}
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
		rep, err = Check(context.Background(), s, f, Options{Only: d, Now: d.StartedAt.Add(time.Minute), StatePath: state, StoreKey: "k", Send: out.send})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out.got, rep
}

func statuses(ns []notify.Notification) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.Status)
	}
	return strings.Join(s, ",")
}

func TestForAndResolved(t *testing.T) {
	// One dip does not fire (for: 2); two do, once; one good run does not
	// resolve it (flapping damped); two do, once.
	got, rep := series(t, example, []float64{94, 60, 94, 61, 62, 63, 95, 62, 95, 96, 97}, nil)
	if statuses(got) != "firing,resolved" {
		t.Fatalf("notices %q, want firing,resolved", statuses(got))
	}
	f := got[0]
	if f.Rule != "lan-down" || f.Figure.Unit != "Mbit/s" || f.Figure.Value != 62 || f.Threshold.Value != 80 || len(f.RunIDs) != 2 ||
		!f.StartsAt.Equal(time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)) || f.Series.Host != "pi4" || f.Series.Direction != "up" ||
		f.Series.Labels["link"] != "lan" || f.Figure.PlusMinus < 0.6 || f.Figure.PlusMinus > 0.63 {
		t.Errorf("firing %+v", f)
	}
	r := got[1]
	if r.Key != f.Key || !r.StartsAt.Equal(f.StartsAt) || !r.EndsAt.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) || r.Figure.Value != 96 {
		t.Errorf("resolved %+v", r)
	}
	if a := rep.Alerts[0]; a.State != StateOK {
		t.Errorf("after recovery: %+v", a)
	}
}

func TestRecoveringState(t *testing.T) {
	_, rep := series(t, example, []float64{60, 60, 95}, nil)
	if a := rep.Alerts[0]; a.State != StateRecovering || a.Streak != 1 || a.For != 2 {
		t.Errorf("one good run after firing: %+v", a)
	}
	_, rep = series(t, example, []float64{95, 60}, nil)
	if a := rep.Alerts[0]; a.State != StatePending || a.Streak != 1 {
		t.Errorf("one breach of two: %+v", a)
	}
}

func TestSuspectNeverFires(t *testing.T) {
	// A suspect dip neither starts nor completes the streak.
	sus := map[int]func(*result.Document) *result.Document{1: suspect, 3: suspect}
	got, _ := series(t, example, []float64{94, 50, 94, 50, 94}, sus)
	if len(got) != 0 {
		t.Errorf("suspect runs fired: %v", statuses(got))
	}
	got, rep := series(t, example, []float64{94, 50, 50}, map[int]func(*result.Document) *result.Document{2: suspect})
	if len(got) != 0 || rep.Alerts[0].State != StatePending || !strings.Contains(rep.Alerts[0].Note, "suspect and not judged") {
		t.Errorf("a suspect second breach: %v %+v", statuses(got), rep.Alerts[0])
	}
}

const relative = `receivers: [{name: hook, webhook: "http://127.0.0.1:9/a"}]
rules:
  - {name: rel, match: {method: net.client}, drop: 25%, baseline: 5 runs, notify: [hook]}
`

func TestDropBeyondNoise(t *testing.T) {
	// ±5 % runs never fire; a 30 % drop does.
	noisy := []float64{95, 100, 105, 98, 102, 96, 104, 100, 95, 105}
	if got, _ := series(t, relative, noisy, nil); len(got) != 0 {
		t.Errorf("±5 %% noise fired: %v", statuses(got))
	}
	got, _ := series(t, relative, append(noisy, 70), nil)
	if statuses(got) != "firing" || got[0].Baseline == nil || got[0].Baseline.Value != 100 || got[0].Figure.Value != 70 {
		t.Errorf("a 30 %% drop: %+v", got)
	}
	// A drop of 25 % that the baseline's own runs reach is noise.
	got, rep := series(t, relative, []float64{100, 60, 100, 100, 100, 70}, nil)
	if len(got) != 0 || !strings.Contains(rep.Alerts[0].Note, "within the noise") {
		t.Errorf("a drop within the baseline's range: %v %+v", statuses(got), rep.Alerts[0])
	}
	// Too short a baseline decides nothing.
	_, rep = series(t, relative, []float64{100, 50}, nil)
	if a := rep.Alerts[0]; a.State != StateNoData || !strings.Contains(a.Note, "a baseline of 1 runs") {
		t.Errorf("short baseline: %+v", a)
	}
}

func TestRetestWaits(t *testing.T) {
	rules := strings.Replace(example, "for: 2", "for: 1\n    retest: true", 1)
	f, err := Parse([]byte(rules), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	first := netRun(1, 50, map[string]string{"link": "lan"})
	s := openStore(t, netRun(0, 94, map[string]string{"link": "lan"}), first)
	state := filepath.Join(t.TempDir(), "state.json")
	var out sent
	rep, err := Check(context.Background(), s, f, Options{Only: first, Retest: true, StatePath: state, Send: out.send})
	if err != nil || len(out.got) != 0 || len(rep.Retest) != 1 || rep.Alerts[0].State != StatePending {
		t.Fatalf("a breach that asks for a retest: %v %v %+v", err, statuses(out.got), rep)
	}
	// The retest recovers: nothing fires.
	again := netRun(2, 93, map[string]string{"link": "lan", RetestLabel: first.ID})
	s.Save(again)
	if rep, err = Check(context.Background(), s, f, Options{Only: again, Retest: true, StatePath: state, Send: out.send}); err != nil || len(out.got) != 0 || len(rep.Retest) != 0 {
		t.Fatalf("a good retest: %v %v %+v", err, statuses(out.got), rep)
	}
	// A retest that breaches too fires.
	dip := netRun(3, 50, map[string]string{"link": "lan"})
	s.Save(dip)
	Check(context.Background(), s, f, Options{Only: dip, Retest: true, StatePath: state, Send: out.send})
	re := netRun(4, 51, map[string]string{"link": "lan", RetestLabel: dip.ID})
	s.Save(re)
	if _, err = Check(context.Background(), s, f, Options{Only: re, Retest: true, StatePath: state, Send: out.send}); err != nil || statuses(out.got) != "firing" {
		t.Fatalf("a breaching retest: %v %v", err, statuses(out.got))
	}
	// A command that cannot run the step again (a server's) fires at once.
	solo := netRun(5, 94, map[string]string{"link": "lan"})
	s.Save(solo)
	Check(context.Background(), s, f, Options{Only: solo, StatePath: state, Send: out.send})
	down := netRun(6, 50, map[string]string{"link": "lan"})
	s.Save(down)
	Check(context.Background(), s, f, Options{Only: solo, StatePath: state, Send: out.send})
	if rep, err = Check(context.Background(), s, f, Options{Only: down, StatePath: state, Send: out.send}); err != nil || statuses(out.got) != "firing,resolved,firing" || len(rep.Retest) != 0 {
		t.Fatalf("no retest possible: %v %v %+v", err, statuses(out.got), rep)
	}
}

func TestCheckAllWarnsAndStays(t *testing.T) {
	f, err := Parse([]byte(example+"  - {name: other, match: {method: disk.sweep}, below: 1 MB/s}\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var docs []*result.Document
	for i, v := range []float64{94, 60, 60} {
		docs = append(docs, netRun(i, v, map[string]string{"link": "lan"}))
	}
	s := openStore(t, docs...)
	state := filepath.Join(t.TempDir(), "state.json")
	var out sent
	o := Options{StatePath: state, StoreKey: "k", Send: out.send}
	rep, err := Check(context.Background(), s, f, o)
	if err != nil || statuses(out.got) != "firing" || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `r.yaml:10: rule "other": no stored run matches its selector (method disk.sweep)`) {
		t.Fatalf("check: %v %v %+v", err, statuses(out.got), rep)
	}
	// Again: the state file remembers, nothing is sent twice; a dry run
	// sends nothing.
	if rep, err = Check(context.Background(), s, f, o); err != nil || len(out.got) != 1 || rep.Alerts[0].State != StateFiring || rep.Alerts[0].Change != "" {
		t.Fatalf("second check: %v %v %+v", err, statuses(out.got), rep)
	}
	s.Save(netRun(3, 95, map[string]string{"link": "lan"}))
	s.Save(netRun(4, 95, map[string]string{"link": "lan"}))
	o.DryRun = true
	if rep, err = Check(context.Background(), s, f, o); err != nil || len(out.got) != 1 || rep.Alerts[0].Change != StateResolved {
		t.Fatalf("dry run: %v %v %+v", err, statuses(out.got), rep)
	}
	// A receiver that fails is a warning; the change is still recorded
	// (notify's spool keeps the notice).
	o.DryRun = false
	o.Send = func(_ context.Context, r notify.Receiver, _ notify.Notification) error {
		return fmt.Errorf("receiver %q: connection refused", r.Name)
	}
	if rep, err = Check(context.Background(), s, f, o); err != nil || len(rep.Warnings) != 2 || !strings.Contains(rep.Warnings[1], `receiver "hook": connection refused`) {
		t.Fatalf("failing receiver: %v %+v", err, rep)
	}
}

// TestLedgerRefusals: a state file that is not thruput's says which and
// what to do, and keeps what it holds.
func TestLedgerRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"{", "unexpected end of JSON input"},
		{`{"version": 9, "stores": {}}`, "version 9, want 1"},
		{`[1]`, "cannot unmarshal array"},
	} {
		p := filepath.Join(t.TempDir(), "state.json")
		os.WriteFile(p, []byte(c.text), 0o600)
		l, err := OpenLedger(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "remove it to start afresh") {
			t.Errorf("state %q: %v, want %q", c.text, err, c.want)
		}
		if err == nil {
			l.Close()
		}
	}
}

func FuzzLedger(f *testing.F) {
	f.Add([]byte(`{"version": 1, "stores": {"k": {"a|b": {"status": "firing", "starts_at": "2026-03-01T00:00:00Z", "rule": "a"}}}}`))
	f.Add([]byte(`{"version": 1, "stores": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := OpenLedger(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "alert state "+p) {
				t.Fatalf("refusal %v does not name the file", err)
			}
			return
		}
		defer l.Close()
		l.For("k")["x"] = Entry{Status: StateFiring}
		if err := l.Save(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestFormatFigure(t *testing.T) {
	for _, c := range []struct {
		f    notify.Figure
		want string
	}{
		{notify.Figure{Value: 17190, PlusMinus: 3800, Unit: "Mbit/s"}, "17190 ± 3800 Mbit/s"},
		{notify.Figure{Value: 61.23, PlusMinus: 0.61, Unit: "Mbit/s"}, "61.2 ± 0.61 Mbit/s"},
		{notify.Figure{Value: 1.5, Unit: "ms"}, "1.50 ms"},
		{notify.Figure{Value: 0.0123, Unit: "GB/s"}, "0.0123 GB/s"},
	} {
		if got := FormatFigure(c.f); got != c.want {
			t.Errorf("FormatFigure(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// counting counts the store's Recent reads.
type counting struct {
	store.Store
	reads int
}

func (c *counting) Recent(f store.Filter, n int) ([]result.Point, error) {
	c.reads++
	return c.Store.Recent(f, n)
}

// TestOneReadPerSelector: a limit and a drop on one link read its runs
// once, as deep as the drop's baseline needs, and each judges as it does
// alone.
func TestOneReadPerSelector(t *testing.T) {
	var docs []*result.Document
	for i, v := range []float64{94, 95, 93, 94, 96, 95, 94, 93, 95, 94, 60, 61} {
		docs = append(docs, netRun(i, v, map[string]string{"link": "lan"}))
	}
	s := &counting{Store: openStore(t, docs...)}
	both, err := Parse([]byte(example+`  - name: lan-drop
    match: {method: net.client, labels: {link: lan}}
    drop: 25%
    baseline: 10 runs
`), "rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(s, both, State{}, nil, false, docs[len(docs)-1].StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	if s.reads != 1 || len(ev.Alerts) != 2 {
		t.Fatalf("%d reads, %d alerts; want 1 read and 2 alerts", s.reads, len(ev.Alerts))
	}
	for i := range both.Rules {
		alone := &File{Path: both.Path, Receivers: both.Receivers, Rules: both.Rules[i : i+1]}
		ev1, err := Evaluate(s.Store, alone, State{}, nil, false, docs[len(docs)-1].StartedAt)
		if err != nil {
			t.Fatal(err)
		}
		a, b := ev.Alerts[i], ev1.Alerts[0]
		if a.State != b.State || a.Streak != b.Streak || fmt.Sprint(a.Figure, a.Baseline, a.RunIDs) != fmt.Sprint(b.Figure, b.Baseline, b.RunIDs) {
			t.Errorf("%s with the other rule: %+v; alone: %+v", a.Rule, a, b)
		}
	}
	// The drop's baseline holds the first fall (60), which widens its
	// spread: one run at 61 is within its noise.
	if ev.Alerts[0].State != StateFiring || ev.Alerts[1].State != StatePending {
		t.Errorf("a limit and a drop on a fall from 94 to 60: %+v", ev.Alerts)
	}
}
