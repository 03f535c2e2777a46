// Package suite is thruput's whole method in one command: it plans the
// steps (which thruput commands, with which flags, for each directory,
// server and URL) and runs them in rounds, labelling every run so that
// the rounds can be compared. The commands themselves run through a
// function the caller gives, in-process.
package suite

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/units"
)

// Step is one run of the suite: the command line of a thruput command.
type Step struct {
	Name string
	Args []string
}

// Options say what the suite measures: directories for the disk methods,
// a server for the network test, a URL for the download; Full asks for
// each tool's full method rather than the short one.
type Options struct {
	Disks     []string
	Net, HTTP string
	Full      bool
	// UntilStable (a percentage, 0 for none) is given to every step:
	// each phase ends once its figure is known to ±UntilStable %.
	UntilStable float64
	// Budget, when set, bounds the timed phases of a round: every phase
	// runs until stable (2 % unless UntilStable says otherwise) and is
	// bounded by an equal share of the budget.
	Budget time.Duration
}

// minPhase is the shortest share of a budget a phase can be given: an
// adaptive phase runs at least 3 s (steady.MinStop windows) before it may
// stop.
const minPhase = 5 * time.Second

// Plan lists the steps of one round; with a budget, each step's phases
// get an equal share of it as their bound, and a budget too small for
// every phase to have minPhase is an error.
func Plan(o Options) ([]Step, error) {
	steps := plan(o)
	if o.Budget <= 0 && o.UntilStable <= 0 {
		return steps, nil
	}
	pct := o.UntilStable
	if pct <= 0 {
		pct = 2
	}
	n := 0
	for _, st := range steps {
		n += phases(st.Args)
	}
	share := time.Duration(0)
	if o.Budget > 0 {
		share = (o.Budget / time.Duration(n)).Truncate(100 * time.Millisecond)
		if share < minPhase {
			return nil, fmt.Errorf("--budget %v cannot fit %d timed phases of at least %v each (%v): give more, or fewer targets", o.Budget, n, minPhase, minPhase*time.Duration(n))
		}
	}
	for i, st := range steps {
		args := append(slices.Clone(st.Args), "--until-stable="+strconv.FormatFloat(pct, 'g', -1, 64))
		if share > 0 {
			if flag := boundFlag(args); flag != "" {
				args = append(args, flag, share.String())
			}
		}
		steps[i].Args = args
	}
	return steps, nil
}

// phases counts the timed phases a step's command runs: each block size
// of a sweep twice, each preset of disk mark twice, each repeat of io and
// http once.
func phases(args []string) int {
	val := func(name, def string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return def
	}
	switch {
	case slices.Contains(args, "sweep"):
		sizes, err := units.ParseSizeList(val("--bs", "8-1M"))
		if err != nil {
			return 1
		}
		return 2 * len(sizes)
	case slices.Contains(args, "mark"):
		return 8
	case slices.Contains(args, "io"), slices.Contains(args, "http"):
		n, err := strconv.Atoi(val("--repeat", "1"))
		if err != nil || n < 1 {
			return 1
		}
		return n
	}
	return 1
}

// boundFlag is the flag that bounds each phase of a step's command; a
// later flag overrides an earlier one. A download has none: its body
// bounds it.
func boundFlag(args []string) string {
	switch {
	case slices.Contains(args, "sweep"):
		return "--max-time"
	case slices.Contains(args, "http"):
		return ""
	}
	return "-t"
}

func plan(o Options) []Step {
	var steps []Step
	full, netAddr, httpURL := o.Full, o.Net, o.HTTP
	for _, d := range o.Disks {
		if full {
			steps = append(steps,
				Step{"sweep " + d, []string{"disk", "sweep", d, "--bs", "8-1M", "--file-size", "1G", "--max-time", "30s"}},
				Step{"random " + d, []string{"disk", "random", d}},
				Step{"io write " + d, []string{"disk", "io", d, "--rw", "write", "--bs", "4k", "--iodepth", "64", "--size", "4G", "--repeat", "4"}},
				Step{"io read " + d, []string{"disk", "io", d, "--rw", "read", "--bs", "4k", "--iodepth", "64", "--size", "4G", "--repeat", "4"}},
				Step{"mark " + d, []string{"disk", "mark", d}})
			continue
		}
		steps = append(steps,
			Step{"sweep " + d, []string{"disk", "sweep", d, "--bs", "512-1M", "--file-size", "32M", "--max-time", "2s"}},
			Step{"random " + d, []string{"disk", "random", d, "--files", "16", "--size", "128M", "-t", "8s"}},
			Step{"mark " + d, []string{"disk", "mark", d, "--size", "64M", "-t", "2s"}})
	}
	if netAddr != "" {
		host, port, _ := iperf3.ParseServer(netAddr)
		if port == 0 {
			port = iperf3.DefaultPort
		}
		client := []string{"net", "client", host, "-p", strconv.Itoa(port)}
		if full {
			long := slices.Concat(client, []string{"-P", "10", "-t", "65", "-O", "5"})
			// The capped run is one stream: -b caps each stream, and the
			// 40 Mbit/s of a WiFi survey is what the whole test may send.
			steps = append(steps,
				Step{"net up " + host, long},
				Step{"net down " + host, slices.Concat(long, []string{"-R"})},
				Step{"net both " + host, slices.Concat(long, []string{"--bidir"})},
				Step{"net capped " + host, slices.Concat(client, []string{"-t", "65", "-O", "5", "-b", "40M"})})
		} else {
			steps = append(steps,
				Step{"net up " + host, slices.Concat(client, []string{"-t", "4"})},
				Step{"net down " + host, slices.Concat(client, []string{"-t", "4", "-R"})})
		}
	}
	if httpURL != "" {
		steps = append(steps, Step{"http " + httpURL, []string{"net", "http", httpURL, "--repeat", "3"}})
	}
	return steps
}

// Rounds say how often the plan runs and how its runs are labelled.
type Rounds struct {
	// ID is the suite's id, every run's suite= label.
	ID string
	// Repeat rounds, each started Every after the one before (0: right
	// after); with more than one, runs are labelled round=N and
	// time=HH:MM too.
	Repeat int
	Every  time.Duration
	// Labels are the user's, added to every run.
	Labels []string
	// Quiet passes -q to every step; Log, when set, names each step as
	// it starts.
	Quiet bool
	Log   io.Writer
}

// Run runs the plan's steps round by round through run, and returns the
// names of the steps that failed, each reported to failed as it happens;
// a failed step does not stop the others. It ends early when ctx does.
func Run(ctx context.Context, plan []Step, r Rounds, run func(context.Context, []string) error, failed func(string, error)) []string {
	var names []string
	start := time.Now()
	for round := 1; round <= r.Repeat; round++ {
		if round > 1 && r.Every > 0 {
			if err := sleepUntil(ctx, start.Add(time.Duration(round-1)*r.Every)); err != nil {
				break
			}
		}
		labels := append([]string{"suite=" + r.ID}, r.Labels...)
		if r.Repeat > 1 {
			labels = append(labels, "round="+strconv.Itoa(round), "time="+time.Now().Format("15:04"))
		}
		for _, s := range plan {
			if ctx.Err() != nil {
				break
			}
			if r.Log != nil {
				fmt.Fprintf(r.Log, "thruput suite: %s\n", s.Name)
			}
			args := slices.Clone(s.Args)
			for _, l := range labels {
				args = append(args, "--label", l)
			}
			if r.Quiet {
				args = append(args, "-q")
			}
			if err := run(ctx, args); err != nil {
				// A step refused (a disk too small for the full method)
				// is a failed step: what the others measured is kept.
				names = append(names, s.Name)
				failed(s.Name, err)
			}
		}
	}
	return names
}

func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
