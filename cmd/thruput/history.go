package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// history is what the app keeps for the result store: the store itself
// (lifecycle.History: --db, the store once open, the spool), and the labels,
// --no-save and --no-compare of the measuring command.
type history struct {
	lifecycle.History
	labels []string
	noSave bool
	// noCompare is --no-compare: no line setting the run against the
	// last comparable one.
	noCompare bool
	// labelMap is labels parsed, set by openHistory.
	labelMap map[string]string
	// collect, when set, receives every document a run concludes (the
	// suite gathers its runs' documents for the report this way).
	collect func(*result.Document)
}

// addSaveFlags gives a measuring command --label and --no-save.
func (a *app) addSaveFlags(fl *pflag.FlagSet) {
	fl.StringArrayVar(&a.labels, "label", nil, "tag the run with `key=value` (device=sandisk-extreme, fs=ext4, channel=6); repeatable")
	fl.BoolVar(&a.noSave, "no-save", false, "do not keep this run in the result store")
	fl.BoolVar(&a.noCompare, "no-compare", false, "do not set the run against the last comparable run in the store")
	a.addHealthFlags(fl)
}

// openHistory checks the labels, the alert rules and the store before
// anything is measured, so a bad label, rules file or a --db that is not a
// thruput store stops the run at once (exit 2) rather than after it.
func (a *app) openHistory(stderr io.Writer) error {
	m, err := result.ParseLabels(a.labels)
	if err != nil {
		return usage.Errorf("--label: %w", err)
	}
	a.labelMap = m
	if err := a.loadAlerts(); err != nil {
		return err
	}
	if a.noSave || a.Store != nil {
		return nil
	}
	if err := a.Prepare(); err != nil {
		return err
	}
	// The note is for a person at a terminal; the suite prints its own list.
	if f, ok := stderr.(*os.File); ok && !a.quiet && a.collect == nil && term.IsTerminal(int(f.Fd())) {
		a.SaveLog = stderr
	}
	return nil
}

// newDocument starts the result of one run of method.
func (a *app) newDocument(method result.Method) *result.Document {
	return lifecycle.New(tool(), method, a.argv)
}

// conclude ends a run the same way for every method (lifecycle.Conclude), and
// tags it with the command's labels.
func (a *app) conclude(doc *result.Document, runErr error, b *lifecycle.Begun) {
	lifecycle.Conclude(doc, runErr, b)
	if len(a.labelMap) > 0 {
		doc.Labels = a.labelMap
	}
	if a.collect != nil {
		a.collect(doc)
	}
}

// deliver ends a run the same way for every method. A run that failed
// before it measured anything is an error and nothing else: one line on
// stderr, no table of zeros, nothing saved. Any other run is concluded,
// set against the last comparable run, printed by show, and saved, with
// what ended it in its status.
func (a *app) deliver(doc *result.Document, runErr error, b *lifecycle.Begun, show func() error) error {
	if runErr != nil && !doc.Measured() {
		b.Abandon()
		return runErr
	}
	a.conclude(doc, runErr, b)
	if !a.noCompare && a.Store != nil && runErr == nil {
		doc.Previous = lifecycle.Previous(a.Store, doc)
	}
	return errors.Join(runErr, show(), a.Save(doc), a.strictErr(doc))
}
