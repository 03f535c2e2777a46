// Package suite is thruput's whole method in one command: it plans the
// steps (which thruput commands, with which flags, for each directory,
// server and URL) and runs them in rounds, labelling every run so that
// the rounds can be compared. The commands themselves run through a
// function the caller gives, in-process; without targets of the user's,
// they measure against the servers Loopback starts.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
)

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
			err := run(ctx, args)
			// One step follows another against the same server, which may
			// still be closing the last test: busy is worth a few tries.
			for try := 0; s.Method == result.MethodNetClient && errors.Is(err, iperf3.ErrBusy) && try < 4; try++ {
				if sleepUntil(ctx, time.Now().Add(busyWait)) != nil {
					break
				}
				err = run(ctx, args)
			}
			if err != nil {
				// A step refused (a disk too small for the full method)
				// is a failed step: what the others measured is kept.
				names = append(names, s.Name)
				failed(s.Name, err)
			}
		}
	}
	return names
}

// busyWait is the pause before a step the server was too busy for runs
// again (a variable so that a test need not wait it).
var busyWait = 500 * time.Millisecond

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
