package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/suite"
	"github.com/thruput/thruput/internal/units"
)

// TestSuiteStepsParse checks every command line the suite builds, quick
// and full, against the real commands' flags: the full method runs for an
// hour, so a misspelt flag in it would otherwise show only on a user's
// machine.
func TestSuiteStepsParse(t *testing.T) {
	for _, o := range []suite.Options{{}, {Full: true}, {UntilStable: 1}, {Full: true, Budget: 2 * time.Hour}} {
		full := o.Full
		o.Disks, o.Net, o.HTTP = []string{"/mnt/usb", "/media/sd"}, "pi4:5201", "http://pi4:8080/"
		steps, err := suite.Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 2*3 + 2 + 1, true: 2*5 + 4 + 1}[full]
		if len(steps) != want {
			t.Errorf("full=%v: %d steps, want %d", full, len(steps), want)
		}
		for _, s := range steps {
			root := newRoot(&app{argv: []string{"thruput"}})
			cmd, rest, err := root.Find(s.Args)
			if err != nil || cmd == root {
				t.Errorf("%s: %v finds no command: %v", s.Name, s.Args, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: %v: %v", s.Name, s.Args, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: %v: %v", s.Name, s.Args, err)
			}
		}
	}
	// The capped run is one stream at 40 Mbit/s, not ten at 40 each.
	steps, _ := suite.Plan(suite.Options{Net: "pi4", Full: true})
	for _, s := range steps {
		if strings.HasPrefix(s.Name, "net capped") && strings.Contains(strings.Join(s.Args, " "), "-P 10") {
			t.Errorf("%s: %v", s.Name, s.Args)
		}
		if s.Name == "net down pi4" && !strings.Contains(strings.Join(s.Args, " "), "-R") {
			t.Errorf("%s: %v has no -R", s.Name, s.Args)
		}
	}
}

// TestSuitePlanBounds: the bound each planned step records is the one its
// command runs with (its flag on the command line, else the command's
// default), and its bound flag is one its command has; a download has
// none.
func TestSuitePlanBounds(t *testing.T) {
	for _, full := range []bool{false, true} {
		steps, err := suite.Plan(suite.Options{Disks: []string{"sweep"}, Net: "pi4", HTTP: "http://pi4/", Full: full})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			root := newRoot(&app{argv: []string{"thruput"}})
			cmd, rest, err := root.Find(s.Args)
			if err == nil {
				err = cmd.ParseFlags(rest)
			}
			if err != nil {
				t.Fatalf("%s: %v: %v", s.Name, s.Args, err)
			}
			if s.BoundFlag == "" {
				if s.Method != result.MethodHTTP || cmd.Flags().Lookup("time") != nil || s.Bound != 0 {
					t.Errorf("%s: %s unbounded, bound %v", s.Name, s.Method, s.Bound)
				}
				continue
			}
			var f *pflag.Flag
			if name, long := strings.CutPrefix(s.BoundFlag, "--"); long {
				f = cmd.Flags().Lookup(name)
			} else {
				f = cmd.Flags().ShorthandLookup(strings.TrimPrefix(s.BoundFlag, "-"))
			}
			if f == nil {
				t.Errorf("%s: %s has no %s", s.Name, cmd.CommandPath(), s.BoundFlag)
				continue
			}
			if d, err := units.ParseSeconds(f.Value.String()); err != nil || d != s.Bound {
				t.Errorf("%s: %s %s runs %s a phase, the plan counts %v", s.Name, cmd.CommandPath(), s.BoundFlag, f.Value, s.Bound)
			}
		}
	}
}

// TestSuiteDiskNamedSweep: a disk directory named sweep runs as any other
// under a budget that fits the quick plan (33 phases and 11 s of other
// costs: 45 s), each step bounded through its own command's flag; before
// the plan was typed, the name made it count 96 phases and refuse the
// budget. It takes about 20 s: under a budget every phase runs until
// stable, the sweep's 24 to their bound of 1 s.
func TestSuiteDiskNamedSweep(t *testing.T) {
	mnt := fstest.Tmpfs(t, 256*mib)
	if err := os.Mkdir(filepath.Join(mnt, "sweep"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The directory as the bare word sweep, as the plan once misread it.
	t.Chdir(mnt)
	db := filepath.Join(t.TempDir(), "r.db")
	var out bytes.Buffer
	// ±50 % ends random after its 3 s, not at its bound.
	code := run(t.Context(), []string{"thruput", "suite", "--disk", "sweep", "--quick", "--budget", "45s", "--until-stable=50", "--db", db, "-q", "-o", filepath.Join(t.TempDir(), "s.html"), "--json"}, &out)
	var list struct {
		Runs []struct {
			ID, Method, Status, Target string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out.String())
	}
	// disk mark refuses a tmpfs (its presets are O_DIRECT): the suite
	// fails for it alone.
	var got []string
	for _, r := range list.Runs {
		got = append(got, r.Method+" "+r.Status+" "+r.Target)
	}
	slices.Sort(got)
	dir := filepath.Join(mnt, "sweep")
	if want := []string{"disk.random ok " + dir, "disk.sweep ok " + dir}; code != exitFailed || !slices.Equal(got, want) {
		t.Fatalf("exit %d, runs %q, want %q", code, got, want)
	}
	// The sweep was bounded by the budget through its --max-time (a share
	// the budget works out from this machine's layout rate, so not a fixed
	// figure), random through -t; neither got the other's flag.
	flags := map[result.Method][2]string{result.MethodSweep: {"--until-stable=50 --max-time ", " -t "}, result.MethodRandom: {" -t ", "--max-time"}}
	for _, r := range list.Runs {
		out.Reset()
		if code := run(t.Context(), []string{"thruput", "results", "show", r.ID, "--db", db, "--json"}, &out); code != exitOK {
			t.Fatalf("results show %s: exit %d", r.ID, code)
		}
		var doc struct {
			Argv   []string
			Health *result.Health
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		// Each of the suite's steps samples its health.
		if doc.Health == nil || doc.Health.Samples < 2 {
			t.Errorf("suite step %s without its health: %+v", r.Method, doc.Health)
		}
		argv, f := strings.Join(doc.Argv, " "), flags[result.Method(r.Method)]
		if !strings.Contains(argv, f[0]) || strings.Contains(argv, f[1]) {
			t.Errorf("%s ran as %s: want %q and no %q", r.Method, argv, f[0], f[1])
		}
	}
}

// TestSuiteBudgetRefused: a budget the plan cannot fit is bad input, with
// any directory name: exit 2, and no store made for it.
func TestSuiteBudgetRefused(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sweep", "neutral"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, name+".db")
		if code := run(t.Context(), []string{"thruput", "suite", "--disk", filepath.Join(dir, name), "--budget", "100s", "--db", db}, io.Discard); code != exitUsage {
			t.Errorf("%s: exit %d", name, code)
		}
		if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a refused budget left %s: %v", name, db, err)
		}
	}
}
