package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultHold is how long a firing alert stays active in Alertmanager
// when the receiver sets no alertmanager_hold: a day, longer than the gap
// between the scheduled runs people use (three a day), each of which
// posts it again.
const DefaultHold = 24 * time.Hour

// amAlert is one alert as Alertmanager's v2 API takes it
// (api/v2/openapi.yaml, postableAlert).
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

func (r Receiver) hold() time.Duration {
	if r.AlertmanagerHold > 0 {
		return r.AlertmanagerHold
	}
	return DefaultHold
}

// alertmanager posts n to <base>/api/v2/alerts. A firing alert's endsAt is
// now plus the receiver's hold: Alertmanager resolves an alert by itself
// when its endsAt passes (and one posted without endsAt after its
// resolve_timeout, 5 min by default, far shorter than the time between
// runs), so thruput posts it again while it fires (see refresh). A
// resolved one carries the time it recovered.
func (s *spool) alertmanager(ctx context.Context, r Receiver, n Notification) error {
	a := amAlertOf(n)
	switch {
	case n.Status == "firing":
		a.EndsAt = s.now().Add(r.hold()).UTC()
	case a.EndsAt.IsZero():
		a.EndsAt = s.now().UTC()
	}
	body, err := json.Marshal([]amAlert{a})
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return s.post(ctx, strings.TrimRight(r.Alertmanager, "/")+"/api/v2/alerts", body, h)
}

// amAlertOf maps a notification onto Alertmanager's labels (which name
// the alert: the rule as alertname, then the series) and annotations
// (what a template shows), leaving endsAt to the caller.
func amAlertOf(n Notification) amAlert {
	labels := map[string]string{}
	for _, kv := range n.Series.pairs() {
		if name := labelName(kv[0]); name != "" && labels[name] == "" && kv[1] != "" {
			labels[name] = kv[1]
		}
	}
	// The rule names the alert whatever the series' labels hold.
	labels["alertname"] = n.Rule
	ann := map[string]string{
		"summary":     n.Summary,
		"description": text(n.fields()),
		"figure":      n.Figure.String(),
		"condition":   n.Condition,
		"run_ids":     strings.Join(n.RunIDs, " "),
		"thruput_key": n.Key,
	}
	if n.Threshold != nil {
		ann["threshold"] = n.Threshold.String()
	}
	if n.Baseline != nil {
		ann["baseline"] = n.Baseline.String()
	}
	for k, v := range ann {
		if v == "" {
			delete(ann, k)
		}
	}
	return amAlert{Labels: labels, Annotations: ann, StartsAt: n.StartsAt.UTC(), EndsAt: n.EndsAt.UTC(), GeneratorURL: n.DashboardURL}
}

// labelName makes a series label a Prometheus label name
// ([a-zA-Z_][a-zA-Z0-9_]*), which Alertmanager 0.25 requires: anything
// else becomes "_".
func labelName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// activeFile holds, for an Alertmanager receiver, the firing alerts it
// took that no resolved notice has followed yet, and when each was last
// posted.
const activeFile = "firing"

type activeAlert struct {
	Notification Notification `json:"notification"`
	Posted       time.Time    `json:"posted"`
}

func readActive(dir string) (map[string]activeAlert, error) {
	path := filepath.Join(dir, activeFile)
	b, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]activeAlert{}, nil
	}
	if err == nil {
		var m map[string]activeAlert
		if m, err = parseActive(b); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("alerts spool: %s: %w (remove it: the alerts firing in Alertmanager then expire after their hold)", path, err)
}

func parseActive(b []byte) (map[string]activeAlert, error) {
	m := map[string]activeAlert{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, a := range m {
		if err := checkNotification(a.Notification); err != nil {
			return nil, err
		}
		if a.Notification.Key != k || a.Notification.Status != "firing" {
			return nil, fmt.Errorf("entry %q holds a %s notification for %q", k, a.Notification.Status, a.Notification.Key)
		}
	}
	return m, nil
}

func writeActive(dir string, m map[string]activeAlert) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeSmall(filepath.Join(dir, activeFile), append(b, '\n'))
}

// delivered records n in the receiver's firing alerts when it is an
// Alertmanager: a firing is added, its resolved notice removes it.
func (s *spool) delivered(r Receiver, dir string, n Notification) error {
	if r.Alertmanager == "" {
		return nil
	}
	m, err := readActive(dir)
	if err != nil {
		return err
	}
	if n.Status == "firing" {
		m[n.Key] = activeAlert{Notification: n, Posted: s.now()}
	} else {
		delete(m, n.Key)
	}
	return writeActive(dir, m)
}

// refresh posts again the alerts still firing in an Alertmanager whose
// hold is half gone, so that they stay active between runs; one whose
// next notice waits in the spool is left to it. Alertmanager merges a
// repeat with the alert of the same labels: no one is notified twice.
func (s *spool) refresh(ctx context.Context, r Receiver, dir string, waiting []*entry) error {
	if r.Alertmanager == "" {
		return nil
	}
	m, err := readActive(dir)
	if err != nil || len(m) == 0 {
		return err
	}
	queued := map[string]bool{}
	for _, e := range waiting {
		queued[e.Notification.Key] = true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	changed := false
	for _, k := range keys {
		a := m[k]
		if queued[k] || s.now().Sub(a.Posted) < r.hold()/2 {
			continue
		}
		if err := s.deliver(ctx, r, a.Notification); err != nil {
			errs = append(errs, fmt.Errorf("posting the firing %s again: %w", a.Notification.Rule, err))
			continue
		}
		a.Posted, changed = s.now(), true
		m[k] = a
	}
	if changed {
		errs = append(errs, writeActive(dir, m))
	}
	return errors.Join(errs...)
}
