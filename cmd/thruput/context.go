package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/health"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// healthFlags are --strict and --no-health of every measuring command.
type healthFlags struct {
	strict   bool
	noHealth bool
}

func (a *app) addHealthFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&a.health.strict, "strict", false, "exit 1 when the run is suspect (under-voltage, throttling, a lowered clock, a kernel error during it)")
	fl.BoolVar(&a.health.noHealth, "no-health", false, "do not sample the CPUs, clocks, throttling and kernel log during the run")
}

// begun is what a run reads as it starts measuring: sysinfo's Counters,
// and the health sampler running until the run concludes.
type begun struct {
	counters map[string]int64
	health   *health.Sampler
}

// begin starts a run's context; ctx ending stops the sampler of a run
// that never concludes (refused after it began).
func (a *app) begin(ctx context.Context) *begun {
	b := &begun{counters: sysinfo.Default().Counters()}
	if !a.health.noHealth {
		b.health = health.Start(ctx, health.Default())
	}
	return b
}

// addContext records the run's health, the hardware its data crossed,
// what the other disks and interfaces moved meanwhile, and explains the
// figures against the ceilings of the links and the CPU.
func addContext(doc *result.Document, b *begun) {
	doc.Health = b.health.Stop()
	paths := make([]string, len(doc.Targets))
	for i, t := range doc.Targets {
		paths[i] = t.Path
	}
	fs := sysinfo.Default()
	sys := fs.System(paths...)
	sys.Activity = sysinfo.Activity(b.counters, fs.Counters(), doc.EndedAt.Sub(doc.StartedAt).Seconds())
	doc.System = &sys
	ceiling.Explain(doc)
}

// strictErr fails a suspect run under --strict (exit 1).
func (a *app) strictErr(doc *result.Document) error {
	if !a.health.strict || !doc.Suspect() {
		return nil
	}
	return errors.New("--strict: the run is " + doc.SuspectNote())
}
