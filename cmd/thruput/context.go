package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/result"
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

// begin starts a run's context (lifecycle.Begin), sampling its health unless
// --no-health.
func (a *app) begin(ctx context.Context) *lifecycle.Begun {
	return lifecycle.Begin(ctx, !a.health.noHealth)
}

// strictErr fails a suspect run under --strict (exit 1).
func (a *app) strictErr(doc *result.Document) error {
	if !a.health.strict || !doc.Suspect() {
		return nil
	}
	return errors.New("--strict: the run is " + doc.SuspectNote())
}
