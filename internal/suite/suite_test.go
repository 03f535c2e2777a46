package suite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRun: every step of every round runs with the suite's labels, a
// failed step is reported and the others still run, and Every spaces the
// rounds from their starts.
func TestRun(t *testing.T) {
	plan := []Step{{Name: "a", Args: []string{"disk", "sweep"}}, {Name: "b", Args: []string{"net", "client", "x"}}}
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

// TestBudget: a budget turns --until-stable on, never raises a bound
// above the plan's own, sets the steps' fixed costs aside, and gives a
// step the time the ones before it saved; one too small is refused.
func TestBudget(t *testing.T) {
	plan, err := Plan(Options{Disks: []string{"/d"}, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The quick plan: a sweep of 512 B..1 MiB (12 sizes, 24 phases of
	// 2 s), random (1 of 8 s, 128 MiB laid out: 6.4 s), mark (8 of 2 s,
	// 64 MiB: 3.2 s), each step 0.5 s besides.
	var got []string
	for _, s := range plan {
		got = append(got, fmt.Sprintf("%s %d %v %v", s.Name, s.Phases, s.Bound, s.Fixed))
		if line := strings.Join(s.Args, " "); !strings.Contains(line, "--until-stable=2") {
			t.Errorf("%s: %s", s.Name, line)
		}
	}
	if g := strings.Join(got, ", "); g != "sweep /d 24 2s 500ms, random /d 1 8s 6.9s, mark /d 8 2s 3.7s" {
		t.Errorf("plan %s", g)
	}
	// A minute less 11.1 s of fixed costs over 33 phases: 1.4 s each.
	if args := strings.Join(bounded(plan, 0, time.Minute), " "); !strings.HasSuffix(args, "--max-time 1.4s") {
		t.Errorf("the sweep with a minute: %s", args)
	}
	// The sweep stopped early and left 55 s: the others' own bounds fit.
	for i := 1; i < 3; i++ {
		if args := bounded(plan, i, 55*time.Second); !slices.Equal(args, plan[i].Args) {
			t.Errorf("%s with 55 s left: %v", plan[i].Name, args)
		}
	}
	// Mark with 10 s left: its 3.7 s set aside, 6.3 s over 8 phases is
	// less than the 1 s an interval takes, which it gets.
	if args := strings.Join(bounded(plan, 2, 10*time.Second), " "); !strings.HasSuffix(args, "--until-stable=2 -t 1s") {
		t.Errorf("mark with 10 s left: %s", args)
	}
	// Ten minutes raise no bound.
	plan, _ = Plan(Options{Disks: []string{"/d"}, Budget: 10 * time.Minute})
	for i := range plan {
		if args := bounded(plan, i, 10*time.Minute); !slices.Equal(args, plan[i].Args) {
			t.Errorf("%s with ten minutes: %v", plan[i].Name, args)
		}
	}
	if _, err := Plan(Options{Disks: []string{"/d"}, Budget: 30 * time.Second}); err == nil || !strings.Contains(err.Error(), "33 timed phases") {
		t.Errorf("30 s for 33 phases and 11 s of other costs: %v", err)
	}
	// io has no time bound of its own: a budget gives it one.
	plan, err = Plan(Options{Disks: []string{"/d"}, Full: true, Budget: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range plan {
		if strings.HasPrefix(s.Name, "io") && s.Bound == 0 {
			if args := strings.Join(bounded(plan, i, 20*time.Minute), " "); !strings.Contains(args, "--until-stable=2 -t ") {
				t.Errorf("%s: %s", s.Name, args)
			}
		}
	}
	steps, _ := Plan(Options{Net: "h", UntilStable: 0.5})
	if line := strings.Join(steps[0].Args, " "); !strings.Contains(line, "--until-stable=0.5") || strings.Contains(line, "-t 4 -t") {
		t.Errorf("until-stable alone: %s", line)
	}
}

// TestRunBudget: Run bounds each step by what is left when it starts.
func TestRunBudget(t *testing.T) {
	plan, err := Plan(Options{Disks: []string{"/d"}, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	Run(context.Background(), plan, Rounds{ID: "s", Repeat: 1, Budget: time.Minute}, func(_ context.Context, args []string) error {
		calls = append(calls, strings.Join(args, " "))
		return nil
	}, func(string, error) {})
	if len(calls) != 3 || !strings.Contains(calls[0], "--max-time 1.4s --label") || !strings.Contains(calls[1], "-t 8s --until-stable=2 --label") || !strings.Contains(calls[2], "-t 2s --until-stable=2 --label") {
		t.Errorf("calls:\n%s", strings.Join(calls, "\n"))
	}
}
