package suite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRun: every step of every round runs with the suite's labels, a
// failed step is reported and the others still run, and Every spaces the
// rounds from their starts.
func TestRun(t *testing.T) {
	plan := []Step{{"a", []string{"disk", "sweep"}}, {"b", []string{"net", "client", "x"}}}
	var calls [][]string
	var reported []string
	start := time.Now()
	failed := Run(context.Background(), plan, Rounds{ID: "s1", Repeat: 2, Every: 100 * time.Millisecond, Labels: []string{"site=lab"}, Quiet: true},
		func(_ context.Context, args []string) error {
			calls = append(calls, args)
			if args[0] == "net" {
				return errors.New("refused")
			}
			return nil
		},
		func(name string, err error) { reported = append(reported, name+": "+err.Error()) })
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("two rounds 100 ms apart took %v", d)
	}
	if len(calls) != 4 || !slices.Equal(failed, []string{"b", "b"}) || len(reported) != 2 {
		t.Fatalf("calls %v, failed %v, reported %v", calls, failed, reported)
	}
	first := strings.Join(calls[0], " ")
	for _, want := range []string{"--label suite=s1", "--label site=lab", "--label round=1", "-q"} {
		if !strings.Contains(first, want) {
			t.Errorf("%q lacks %q", first, want)
		}
	}
	if !strings.Contains(strings.Join(calls[2], " "), "round=2") {
		t.Errorf("second round: %v", calls[2])
	}
	// A cancelled context stops before the next step.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	Run(ctx, plan, Rounds{ID: "s2", Repeat: 3}, func(context.Context, []string) error { n++; return nil }, func(string, error) {})
	if n != 0 {
		t.Errorf("%d steps ran after cancel", n)
	}
}

// TestBudget: a budget gives every timed phase an equal share as its
// bound and turns --until-stable on; one too small is refused.
func TestBudget(t *testing.T) {
	steps, err := Plan(Options{Disks: []string{"/d"}, Budget: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The quick plan: a sweep of 512 B..1 MiB (12 sizes, 24 phases),
	// random (1), mark (8): 33 phases, 18.1 s each.
	for _, s := range steps {
		line := strings.Join(s.Args, " ")
		if !strings.Contains(line, "--until-stable=2") || !strings.Contains(line, " 18.1s") {
			t.Errorf("%s: %s", s.Name, line)
		}
	}
	if _, err := Plan(Options{Disks: []string{"/d"}, Budget: time.Minute}); err == nil || !strings.Contains(err.Error(), "33 timed phases") {
		t.Errorf("a one-minute budget for 33 phases: %v", err)
	}
	steps, _ = Plan(Options{Net: "h", UntilStable: 0.5})
	if line := strings.Join(steps[0].Args, " "); !strings.Contains(line, "--until-stable=0.5") || strings.Contains(line, "-t 4 -t") {
		t.Errorf("until-stable alone: %s", line)
	}
}
