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
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/units"
)

// Step is one run of the suite: the command line of a thruput command.
type Step struct {
	Name string
	Args []string
	// Phases counts the timed phases a budget can bound; Bound is the
	// bound the plan gives each of them (0: none but their data); Fixed
	// estimates what the step takes besides them: files laid out, an
	// omitted start, downloads no flag bounds.
	Phases int
	Bound  time.Duration
	Fixed  time.Duration
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
	// Budget, when set, bounds a round: every phase runs until stable
	// (2 % unless UntilStable says otherwise), bounded by its share of
	// what is left of the budget when its step starts (Run).
	Budget time.Duration
}

// minPhase is the shortest bound a budget gives a phase: time for the
// eight windows of 100 ms an interval takes (steady.MinWindows), and a
// little more.
const minPhase = time.Second

// prepRate is the rate files are laid out at, as the budget estimates
// it: an SD card's sustained write, so that the estimate errs long and a
// faster disk leaves the time it saves to the phases after it.
const prepRate = 20 << 20

// stepCost is what a step takes besides its phases and its files:
// gathering the machine's context, evicting, saving the run.
const stepCost = 500 * time.Millisecond

// downloadCost is a download's time as the budget estimates it: no flag
// bounds it, and --until-stable ends it no sooner than 3 s.
const downloadCost = 5 * time.Second

// Plan lists the steps of one round. With a budget or a target, every
// step runs --until-stable; with a budget, one too small for the steps'
// fixed costs and minPhase a phase (or their own bound, when shorter) is
// an error.
func Plan(o Options) ([]Step, error) {
	steps := plan(o)
	for i := range steps {
		steps[i].Phases, steps[i].Bound, steps[i].Fixed = cost(steps[i].Args)
	}
	if o.Budget <= 0 && o.UntilStable <= 0 {
		return steps, nil
	}
	pct := o.UntilStable
	if pct <= 0 {
		pct = 2
	}
	if o.Budget > 0 {
		var need time.Duration
		n := 0
		for _, st := range steps {
			need += st.Fixed + time.Duration(st.Phases)*minBound(st)
			n += st.Phases
		}
		if need > o.Budget {
			return nil, fmt.Errorf("--budget %v cannot fit %d timed phases of at least %v each and the steps' other costs (%v in all): give more, or fewer targets", o.Budget, n, minPhase, need.Round(time.Second))
		}
	}
	for i, st := range steps {
		steps[i].Args = append(slices.Clone(st.Args), "--until-stable="+strconv.FormatFloat(pct, 'g', -1, 64))
	}
	return steps, nil
}

func minBound(st Step) time.Duration {
	if st.Bound > 0 {
		return min(st.Bound, minPhase)
	}
	return minPhase
}

// share is the bound of each phase when left is what remains of the
// budget for steps: the same for every phase, but that a step whose own
// bound is lower keeps it and leaves the rest to the others; 0 when every
// step's own bound fits (no bound need be given).
func share(steps []Step, left time.Duration) time.Duration {
	var fixed time.Duration
	n := 0
	for _, st := range steps {
		fixed, n = fixed+st.Fixed, n+st.Phases
	}
	rest := left - fixed
	byBound := slices.Clone(steps)
	slices.SortFunc(byBound, func(a, b Step) int {
		switch {
		case a.Bound == b.Bound:
			return 0
		case a.Bound == 0:
			return 1
		case b.Bound == 0:
			return -1
		}
		return int(a.Bound - b.Bound)
	})
	for _, st := range byBound {
		if st.Phases == 0 {
			continue
		}
		if st.Bound == 0 || st.Bound*time.Duration(n) > rest {
			return max(minPhase, (rest / time.Duration(n)).Truncate(100*time.Millisecond))
		}
		rest -= st.Bound * time.Duration(st.Phases)
		n -= st.Phases
	}
	return 0
}

// bounded gives step i its phases' bound when left remains of the
// round's budget: its share (share), never above the plan's own bound.
func bounded(plan []Step, i int, left time.Duration) []string {
	st := plan[i]
	flag := boundFlag(st.Args)
	s := share(plan[i:], left)
	if flag == "" || st.Phases == 0 || s == 0 || st.Bound > 0 && s >= st.Bound {
		// A copy: the caller appends its own flags.
		return slices.Clone(st.Args)
	}
	return append(slices.Clone(st.Args), flag, s.String())
}

// cost says what a step's command runs: its timed phases (each block
// size of a sweep twice, each preset of disk mark twice, each repeat of io
// once, a net test once), each phase's bound as the command line has it
// (the last of a repeated flag, else the command's default; 0 for io,
// which a pass over its file bounds), and the rest estimated: files laid
// out at prepRate, a net test's omitted start, downloads.
func cost(args []string) (phases int, bound, fixed time.Duration) {
	val := func(name, def string) string {
		v := def
		for i, a := range args {
			if a == name && i+1 < len(args) {
				v = args[i+1]
			}
		}
		return v
	}
	size := func(def string) time.Duration {
		n, err := units.ParseSize(val("--size", def))
		if err != nil {
			return 0
		}
		return time.Duration(float64(n) / prepRate * float64(time.Second))
	}
	seconds := func(name, def string) time.Duration {
		d, err := units.ParseSeconds(val(name, def))
		if err != nil {
			return 0
		}
		return d
	}
	repeat, err := strconv.Atoi(val("--repeat", "1"))
	if err != nil || repeat < 1 {
		repeat = 1
	}
	fixed = stepCost
	switch {
	case slices.Contains(args, "sweep"):
		sizes, err := units.ParseSizeList(val("--bs", "8-1M"))
		if err != nil {
			return 1, 0, fixed
		}
		return 2 * len(sizes), seconds("--max-time", "60s"), fixed
	case slices.Contains(args, "mark"):
		return 8, seconds("-t", "5s"), fixed + size("1G")
	case slices.Contains(args, "random"):
		return 1, seconds("-t", "5m"), fixed + size("5G")
	case slices.Contains(args, "io"):
		if rw := val("--rw", "read"); strings.Contains(rw, "read") || rw == "randrw" {
			fixed += size("1G")
		}
		return repeat, seconds("-t", "0"), fixed
	case slices.Contains(args, "http"):
		return 0, 0, fixed + time.Duration(repeat)*downloadCost
	case slices.Contains(args, "client"):
		return 1, seconds("-t", "10"), fixed + seconds("-O", "0") + time.Second
	}
	return 1, 0, fixed
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

// direct is disk random's --direct for a directory on a device: the
// quick suite's 128 MiB set fits in any free memory, and buffered it
// would time the page cache. A tmpfs or ramfs is memory itself, and
// refuses O_DIRECT.
func direct(dir string) []string {
	var st unix.Statfs_t
	// Compared as uint32: Statfs_t.Type is an int32 on 32-bit ARM, where
	// RAMFS_MAGIC (0x858458f6) does not fit.
	if err := unix.Statfs(dir, &st); err == nil && (uint32(st.Type) == unix.TMPFS_MAGIC || uint32(st.Type) == unix.RAMFS_MAGIC) {
		return nil
	}
	return []string{"--direct"}
}

func plan(o Options) []Step {
	var steps []Step
	full, netAddr, httpURL := o.Full, o.Net, o.HTTP
	for _, d := range o.Disks {
		if full {
			steps = append(steps,
				Step{Name: "sweep " + d, Args: []string{"disk", "sweep", d, "--bs", "8-1M", "--file-size", "1G", "--max-time", "30s"}},
				Step{Name: "random " + d, Args: slices.Concat([]string{"disk", "random", d}, direct(d))},
				Step{Name: "io write " + d, Args: []string{"disk", "io", d, "--rw", "write", "--bs", "4k", "--iodepth", "64", "--size", "4G", "--repeat", "4"}},
				Step{Name: "io read " + d, Args: []string{"disk", "io", d, "--rw", "read", "--bs", "4k", "--iodepth", "64", "--size", "4G", "--repeat", "4"}},
				Step{Name: "mark " + d, Args: []string{"disk", "mark", d}})
			continue
		}
		steps = append(steps,
			Step{Name: "sweep " + d, Args: []string{"disk", "sweep", d, "--bs", "512-1M", "--file-size", "32M", "--max-time", "2s"}},
			Step{Name: "random " + d, Args: slices.Concat([]string{"disk", "random", d, "--files", "16", "--size", "128M"}, direct(d), []string{"-t", "8s"})},
			Step{Name: "mark " + d, Args: []string{"disk", "mark", d, "--size", "64M", "-t", "2s"}})
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
				Step{Name: "net up " + host, Args: long},
				Step{Name: "net down " + host, Args: slices.Concat(long, []string{"-R"})},
				Step{Name: "net both " + host, Args: slices.Concat(long, []string{"--bidir"})},
				Step{Name: "net capped " + host, Args: slices.Concat(client, []string{"-t", "65", "-O", "5", "-b", "40M"})})
		} else {
			steps = append(steps,
				Step{Name: "net up " + host, Args: slices.Concat(client, []string{"-t", "4"})},
				Step{Name: "net down " + host, Args: slices.Concat(client, []string{"-t", "4", "-R"})})
		}
	}
	if httpURL != "" {
		steps = append(steps, Step{Name: "http " + httpURL, Args: []string{"net", "http", httpURL, "--repeat", "3"}})
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
	// Budget, when set, is a round's time: each step's phases are
	// bounded by their share of what is left of it as the step starts,
	// so that time a step saved by stopping early goes to the ones after.
	Budget time.Duration
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
		end := time.Now().Add(r.Budget)
		for i, s := range plan {
			if ctx.Err() != nil {
				break
			}
			if r.Log != nil {
				fmt.Fprintf(r.Log, "thruput suite: %s\n", s.Name)
			}
			args := slices.Clone(s.Args)
			if r.Budget > 0 {
				args = bounded(plan, i, time.Until(end))
			}
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
