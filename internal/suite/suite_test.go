package suite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
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

// commandFlag is the flag each method's command bounds a phase with,
// written out apart from the plan's own table.
var commandFlag = map[result.Method]string{
	result.MethodSweep:     "--max-time",
	result.MethodRandom:    "-t",
	result.MethodIO:        "-t",
	result.MethodMark:      "-t",
	result.MethodNetClient: "-t",
	result.MethodHTTP:      "",
}

// TestPlanDirectoryNames: a disk directory named as a method or a command
// (sweep, mark, random, io, http, client) plans exactly as a neutral name
// does, quick and full, without a budget, with one that fits and with one
// that does not: the same methods, timed phases, bounds and costs, the
// same command lines but for the name, and, as Run bounds them with
// little or much of the budget left, the same bound flags, each one its
// command has.
func TestPlanDirectoryNames(t *testing.T) {
	const neutral = "/data/d1"
	for _, tc := range []struct {
		full   bool
		budget time.Duration
		phases int // the neutral plan's, 0 when refused
	}{
		// The quick plan: a sweep of 12 sizes, written and read (24),
		// random (1), the presets, written and read (8).
		{false, 0, 33},
		{false, 100 * time.Second, 33},
		{false, 30 * time.Second, 0},
		// The full plan: a sweep of 18 sizes (36), random (1), fio's
		// write and read 4 times each (8), the presets (8). Its files
		// alone take more than 100 s to lay out.
		{true, 0, 53},
		{true, 100 * time.Second, 0},
		{true, time.Hour, 53},
	} {
		o := Options{Full: tc.full, Budget: tc.budget}
		o.Disks = []string{neutral}
		want, wantErr := Plan(o)
		if (wantErr == nil) != (tc.phases > 0) || phases(want) != tc.phases {
			t.Fatalf("full=%v budget %v: %d phases, %v; want %d", tc.full, tc.budget, phases(want), wantErr, tc.phases)
		}
		for _, name := range []string{"sweep", "mark", "random", "io", "http", "client"} {
			t.Run(fmt.Sprintf("%s/full=%v/budget=%v", name, tc.full, tc.budget), func(t *testing.T) {
				o.Disks = []string{name}
				got, err := Plan(o)
				if fmt.Sprint(err) != strings.ReplaceAll(fmt.Sprint(wantErr), neutral, name) {
					t.Fatalf("error %v, a neutral name's %v", err, wantErr)
				}
				if len(got) != len(want) {
					t.Fatalf("%d steps, a neutral name's %d", len(got), len(want))
				}
				for i, st := range got {
					w := want[i]
					if st.Method != w.Method || st.Phases != w.Phases || st.Bound != w.Bound || st.Fixed != w.Fixed || st.BoundFlag != w.BoundFlag {
						t.Errorf("step %d: %+v, a neutral name's %+v", i, st, w)
					}
					if st.BoundFlag != commandFlag[st.Method] {
						t.Errorf("%s: bound flag %q, its command's is %q", st.Name, st.BoundFlag, commandFlag[st.Method])
					}
					if !slices.Equal(rename(st.Args, name, neutral), w.Args) {
						t.Errorf("%s: %v, a neutral name's %v", st.Name, st.Args, w.Args)
					}
				}
				if tc.budget == 0 || err != nil {
					return
				}
				// Little left (every phase bounded) and all of it.
				for _, left := range []time.Duration{tc.budget / 5, tc.budget} {
					for i := range got {
						args := bounded(got, i, left)
						if w := bounded(want, i, left); !slices.Equal(rename(args, name, neutral), w) {
							t.Errorf("%s with %v left: %v, a neutral name's %v", got[i].Name, left, args, w)
						}
						for _, f := range []string{"--max-time", "-t"} {
							if slices.Contains(args, f) && f != commandFlag[got[i].Method] {
								t.Errorf("%s with %v left: %v has %s", got[i].Name, left, args, f)
							}
						}
					}
				}
			})
		}
	}
}

// TestPlanBounds: each step names its method and is bounded through its
// command's own flag, on its command line when the plan sets the bound;
// 10 s left of a budget, less than the later steps' other costs, gives
// every phase minPhase through that flag.
func TestPlanBounds(t *testing.T) {
	plan, err := Plan(Options{Disks: []string{"/d"}, Net: "pi4", HTTP: "http://pi4/", Full: true, Budget: 20 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, st := range plan {
		line := strings.Join(bounded(plan, i, 10*time.Second), " ")
		got = append(got, fmt.Sprintf("%s: %s %d×%v %q", st.Name, st.Method, st.Phases, st.Bound, line[strings.Index(line, "--until-stable=2"):]))
	}
	want := []string{
		`sweep /d: disk.sweep 36×30s "--until-stable=2 --max-time 1s"`,
		`random /d: disk.random 1×5m0s "--until-stable=2 -t 1s"`,
		`io write /d: disk.io 4×0s "--until-stable=2 -t 1s"`,
		`io read /d: disk.io 4×0s "--until-stable=2 -t 1s"`,
		`mark /d: disk.mark 8×5s "--until-stable=2 -t 1s"`,
		`net up pi4: net.client 1×1m5s "--until-stable=2 -t 1"`,
		`net down pi4: net.client 1×1m5s "--until-stable=2 -t 1"`,
		`net both pi4: net.client 1×1m5s "--until-stable=2 -t 1"`,
		`net capped pi4: net.client 1×1m5s "--until-stable=2 -t 1"`,
		`http http://pi4/: net.http 0×0s "--until-stable=2"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The bounds the quick plan sets are on the command lines, in each
	// command's spelling.
	plan, _ = Plan(Options{Disks: []string{"/d"}, Net: "pi4"})
	for _, st := range plan {
		v := st.Bound.String()
		if st.Method == result.MethodNetClient {
			v = "4"
		}
		if i := slices.Index(st.Args, st.BoundFlag); i < 0 || st.Args[i+1] != v {
			t.Errorf("%s: %v lacks %s %s", st.Name, st.Args, st.BoundFlag, v)
		}
	}
}

// TestPlanSustained: --sustained goes to the disk steps, which have it,
// and to no other.
func TestPlanSustained(t *testing.T) {
	plan, err := Plan(Options{Disks: []string{"/d"}, Net: "pi4", HTTP: "http://pi4/", Full: true, Sustained: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range plan {
		disk := st.Method != result.MethodNetClient && st.Method != result.MethodHTTP
		if slices.Contains(st.Args, "--sustained") != disk {
			t.Errorf("%s: %v", st.Name, st.Args)
		}
	}
}

// TestRunBusy: a network step the server was busy for runs again; another
// step's failure is its own.
func TestRunBusy(t *testing.T) {
	defer func(w time.Duration) { busyWait = w }(busyWait)
	busyWait = time.Millisecond
	plan := []Step{{Name: "net", Method: result.MethodNetClient, Args: []string{"net", "client", "h"}}, {Name: "sweep", Method: result.MethodSweep, Args: []string{"disk", "sweep", "/d"}}}
	calls := map[string]int{}
	failed := Run(context.Background(), plan, Rounds{ID: "s", Repeat: 1}, func(_ context.Context, args []string) error {
		calls[args[0]]++
		if args[0] == "disk" || calls["net"] == 1 {
			return fmt.Errorf("step: %w", iperf3.ErrBusy)
		}
		return nil
	}, func(string, error) {})
	if calls["net"] != 2 || calls["disk"] != 1 || !slices.Equal(failed, []string{"sweep"}) {
		t.Errorf("calls %v, failed %v", calls, failed)
	}
	// A busy server the suite is interrupted waiting for fails the step.
	ctx, cancel := context.WithCancel(context.Background())
	failed = Run(ctx, plan[:1], Rounds{ID: "s", Repeat: 1}, func(context.Context, []string) error {
		cancel()
		return iperf3.ErrBusy
	}, func(string, error) {})
	if !slices.Equal(failed, []string{"net"}) || !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("interrupted: failed %v", failed)
	}
}

func phases(plan []Step) int {
	n := 0
	for _, st := range plan {
		n += st.Phases
	}
	return n
}

// rename is a disk step's command line (disk METHOD DIR ...) with its
// directory from replaced by to.
func rename(args []string, from, to string) []string {
	out := slices.Clone(args)
	if len(out) > 2 && out[0] == "disk" && out[2] == from {
		out[2] = to
	}
	return out
}

// TestBudgetAsPlanned: on a fast disk the quick local plan's sweep moves
// its files in less than a second a phase, so a budget too short to run every phase until stable, but as
// long as the plain round, runs those steps as planned and shares the
// rest among the others (the download costs the same either way, and
// runs until stable); the net test's share is whole seconds.
func TestBudgetAsPlanned(t *testing.T) {
	o := Options{Disks: []string{"/d"}, Net: "127.0.0.1:5201", HTTP: "http://127.0.0.1/", Rates: map[string]Rate{"/d": {PerSec: 1 << 30, Size: 128 << 20}}}
	plain := plan(o)
	var all, need time.Duration
	for _, st := range plain {
		least := st.Fixed + time.Duration(st.Phases)*minBound(st)
		all, need = all+least, need+min(least, st.Plain)
	}
	// The sweep: 24 phases of 32 MiB at 1 GiB/s, 0.75 s in all and 0.5 s
	// besides.
	if plain[0].Plain != 1250*time.Millisecond {
		t.Errorf("the sweep's plain time %v, want 1.25s", plain[0].Plain)
	}
	o.Budget = need.Round(time.Second) + time.Second
	if o.Budget >= all {
		t.Fatalf("budget %v is not below %v, what every phase until stable needs", o.Budget, all)
	}
	steps, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		want := st.Method == result.MethodSweep
		if st.AsPlanned != want {
			t.Errorf("%s: as planned %v, want %v", st.Name, st.AsPlanned, want)
		}
		line := strings.Join(bounded(steps, i, o.Budget), " ")
		if want && (strings.Contains(line, "--until-stable") || line != strings.Join(plain[i].Args, " ")) {
			t.Errorf("%s as planned: %s", st.Name, line)
		}
		if !want && !strings.Contains(line, "--until-stable=2") {
			t.Errorf("%s: %s", st.Name, line)
		}
	}
	// The net test with 5.5 s left: its 1.5 s, the other's and the
	// download's 15.5 s set aside leave nothing: it gets 1 s, whole.
	if args := strings.Join(bounded(steps, 3, 5500*time.Millisecond), " "); !strings.HasSuffix(args, "--until-stable=2 -t 1") {
		t.Errorf("net up with 5.5 s left: %s", args)
	}
	o.Budget = need - time.Second
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "cannot fit 35 timed phases") {
		t.Errorf("a budget below the least: %v", err)
	}
	// A rate holds for files up to what it was measured on; beyond, the
	// estimate is prepRate's.
	if d := layout(256<<20, o.Rates["/d"]); d != 12800*time.Millisecond {
		t.Errorf("256 MiB past a rate measured on 128 MiB: %v, want 12.8s", d)
	}
}

// TestPlanBind: the network test sends from --bind and --bind-dev; a
// binding without a network test, an address that is not this machine's
// or is no address, and a device it lacks are refused, naming it.
func TestPlanBind(t *testing.T) {
	steps, err := Plan(Options{Net: "127.0.0.1:5202", Bind: "127.0.0.1", BindDev: "lo"})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if line := strings.Join(st.Args, " "); !strings.HasPrefix(line, "net client 127.0.0.1 -p 5202 -B 127.0.0.1 --bind-dev lo") {
			t.Errorf("%s: %s", st.Name, line)
		}
	}
	for o, want := range map[*Options]string{
		{Disks: []string{"/d"}, Bind: "127.0.0.1"}:  "give --net too",
		{Net: "h", Bind: "192.0.2.1"}:               "--bind 192.0.2.1: not an address of this machine",
		{Net: "h", Bind: "eth0"}:                    "--bind eth0: an IP address of this machine",
		{Net: "h", BindDev: "thruput-no-such-dev0"}: "--bind-dev thruput-no-such-dev0: no such network device here",
	} {
		if _, err := Plan(*o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", *o, err, want)
		}
	}
}
