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
}

// Plan lists the steps of one round.
func Plan(o Options) []Step {
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
