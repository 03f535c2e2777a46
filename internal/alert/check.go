package alert

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// Options say how Check evaluates and where it sends.
type Options struct {
	// Only is the run a command just saved (Evaluate's only); nil judges
	// every series. Retest says the command can run Only's step again:
	// without, a rule with retest: true fires at once (a server's run, a
	// fleet's).
	Only   *result.Document
	Retest bool
	// Now bounds baselines of an age; zero is the clock's now.
	Now time.Time
	// DryRun sends nothing and records nothing.
	DryRun bool
	// StatePath is the state file (StateFile of the spool's directory);
	// StoreKey the store's key in it (store.Location.Key).
	StatePath, StoreKey string
	// Send delivers a notification or keeps it for later (notify.Send
	// with the spool's directory); Flush resends what the spool holds for
	// the receivers (notify.Flush), when set.
	Send  func(ctx context.Context, r notify.Receiver, n notify.Notification) error
	Flush func(ctx context.Context, rs []notify.Receiver) (int, error)
	// Pending lists what the spool holds after the flush (notify.Pending),
	// when set.
	Pending func() ([]notify.Queued, error)
}

// Report is what Check did: the evaluation, what it sent, and the
// receivers that could not take a notice now (warnings: the notice waits
// in the spool).
type Report struct {
	Evaluation
	Sent    int `json:"sent"`
	Flushed int `json:"flushed,omitempty"`
	// Retest names the rules whose firing waits for a retest of Only.
	Retest []string `json:"retest,omitempty"`
	// Waiting is what the spool still holds, receiver by receiver.
	Waiting []Waiting `json:"waiting,omitempty"`
}

// Waiting is a notice the spool holds: for whom, what, how often it was
// tried, when next, the last error, and whether the receiver refused it.
type Waiting struct {
	Receiver  string    `json:"receiver"`
	Rule      string    `json:"rule"`
	Status    string    `json:"status"`
	Attempts  int       `json:"attempts"`
	NextTry   time.Time `json:"next_try,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	Refused   bool      `json:"refused,omitempty"`
}

// Check evaluates the rules over s, sends each change of state to the
// rule's receivers once, and records it, all under the state file's lock.
// A receiver that fails is a warning, never an error: the run is saved
// and the notice waits in notify's spool.
func Check(ctx context.Context, s store.Store, f *File, o Options) (*Report, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	l, err := OpenLedger(o.StatePath)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	st := l.For(o.StoreKey)
	ev, err := Evaluate(s, f, st, o.Only, o.Retest, o.Now)
	if err != nil {
		return nil, err
	}
	rep := &Report{Evaluation: *ev}
	for _, a := range ev.Alerts {
		if a.Retest {
			rep.Retest = append(rep.Retest, a.Rule)
		}
	}
	if o.DryRun {
		return rep, nil
	}
	for _, d := range f.deliveries(ev) {
		if err := o.Send(ctx, d.receiver, d.notification); err != nil {
			// notify's errors name the receiver and where the notice waits.
			rep.Warnings = append(rep.Warnings, err.Error())
			continue
		}
		rep.Sent++
	}
	st.Apply(ev)
	if err := l.Save(); err != nil {
		return rep, err
	}
	if o.Flush != nil && o.Only == nil {
		n, err := o.Flush(ctx, f.Receivers)
		rep.Flushed = n
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the alert spool: %v", err))
		}
	}
	if o.Pending != nil && o.Only == nil {
		qs, err := o.Pending()
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the alert spool: %v", err))
		}
		for _, q := range qs {
			rep.Waiting = append(rep.Waiting, Waiting{Receiver: q.Receiver, Rule: q.Notification.Rule, Status: q.Notification.Status,
				Attempts: q.Attempts, NextTry: q.NextTry, LastError: q.LastError, Refused: q.Permanent})
		}
	}
	return rep, nil
}

// Peek judges the rules over s as Check would, from the state file at
// statePath without locking it, and sends and records nothing: what a
// page shows.
func Peek(s store.Store, f *File, statePath, storeKey string) (*Evaluation, error) {
	st, err := ReadState(statePath, storeKey)
	if err != nil {
		return nil, err
	}
	return Evaluate(s, f, st, nil, false, time.Now())
}

// delivery is one notice for one receiver.
type delivery struct {
	receiver     notify.Receiver
	notification notify.Notification
}

// deliveries are the notices of ev's changes, a firing always, a resolved
// unless the rule says resolved: false, each to every receiver its rule
// names.
func (f *File) deliveries(ev *Evaluation) []delivery {
	var out []delivery
	for _, a := range ev.Alerts {
		if a.Change == "" || a.Change == StateResolved && !a.rule.Resolved {
			continue
		}
		n := f.notification(a)
		for _, name := range a.rule.Notify {
			for _, r := range f.Receivers {
				if r.Name == name {
					out = append(out, delivery{r, n})
				}
			}
		}
	}
	return out
}

// notification is the notice of alert a's change.
func (f *File) notification(a Alert) notify.Notification {
	n := notify.Notification{Status: a.Change, Rule: a.Rule, Key: a.Key, Series: a.Series, Threshold: a.Threshold, Baseline: a.Baseline,
		Condition: a.Condition, RunIDs: a.RunIDs, StartsAt: a.startsAt}
	if a.Figure != nil {
		n.Figure = *a.Figure
	}
	if a.Change == StateResolved {
		n.EndsAt = a.Since
	}
	if f.Dashboard != "" {
		n.DashboardURL = strings.TrimSuffix(f.Dashboard, "/") + "/trend?" + url.Values{"host": {a.Series.Host}, "method": {a.Series.Method}}.Encode()
	}
	fig := FormatFigure(n.Figure)
	what := a.Series.Method + " on " + a.Series.Host
	if a.Series.Target != "" {
		what += " to " + a.Series.Target
	}
	if a.Series.Direction != "" {
		what += " " + a.Series.Direction
	}
	n.Summary = fmt.Sprintf("%s %s: %s %s (%s)", a.Rule, a.Change, what, fig, a.Condition)
	return n
}

// FormatFigure writes a figure as tables and notices show it: "61.2 ±
// 0.6 Mbit/s", "941 Mbit/s", "1234 IOPS".
func FormatFigure(f notify.Figure) string {
	if f.PlusMinus > 0 {
		return number(f.Value) + " ± " + number(f.PlusMinus) + " " + f.Unit
	}
	return number(f.Value) + " " + f.Unit
}

// number keeps three or four significant digits, without an exponent.
func number(x float64) string {
	switch a := math.Abs(x); {
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}
