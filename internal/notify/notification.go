// Package notify delivers alert notifications to the receivers a rules
// file names (a webhook, Alertmanager's v2 API, an ntfy topic, email over
// SMTP), and keeps in a spool what a receiver that is down could not take,
// so that it arrives later, once.
package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Notification is one alert's change of state, as a webhook receives it in
// JSON (docs/result-json.md documents each field). The alert rules
// (internal/alert) fill it; the receivers here only carry it.
type Notification struct {
	// Status is "firing" or "resolved".
	Status string `json:"status"`
	// Rule is the rule's name in the rules file.
	Rule string `json:"rule"`
	// Key names the alert: the rule and the series. A firing and its
	// resolved notice share it; the spool and Alertmanager deduplicate by it.
	Key string `json:"key"`
	// Series is what the rule watched: the method, host, target, direction,
	// interface and labels of the runs it judged.
	Series Series `json:"series"`
	// Figure is the figure that fired (or recovered), with its unit and ±.
	Figure Figure `json:"figure"`
	// Threshold is the rule's absolute limit, when it has one; Baseline the
	// series' own normal a relative rule compared with, when it has one.
	Threshold *Figure `json:"threshold,omitempty"`
	Baseline  *Figure `json:"baseline,omitempty"`
	// Condition says the rule in words: "below 80 Mbit/s for 2 runs",
	// "25 % under the median of the last 10 runs".
	Condition string `json:"condition"`
	// Summary is one line a person reads in a mail subject or a phone
	// notification.
	Summary string `json:"summary"`
	// RunIDs are the stored runs that made the decision, oldest first.
	RunIDs []string `json:"run_ids"`
	// StartsAt is when the alert began firing; EndsAt when it resolved
	// (zero while firing).
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at,omitzero"`
	// DashboardURL links to the series on thruput serve's dashboard, when
	// the rules file says where the dashboard is.
	DashboardURL string `json:"dashboard_url,omitempty"`
}

// ID names the notification: a hash of its Key, Status and StartsAt, so a
// firing and its resolved notice differ, and the same change of state
// produced twice (a rule evaluated again over the same runs) has one id.
// The spool's sent ledger deduplicates by it, and a webhook gets it in
// the Idempotency-Key header.
func (n Notification) ID() string {
	h := sha256.Sum256([]byte(n.Key + "\x00" + n.Status + "\x00" + n.StartsAt.UTC().Format(time.RFC3339Nano)))
	return hex.EncodeToString(h[:16])
}

// Series is the selector's view of the runs an alert is about.
type Series struct {
	Method    string            `json:"method"`
	Host      string            `json:"host,omitempty"`
	Target    string            `json:"target,omitempty"`
	Direction string            `json:"direction,omitempty"`
	Interface string            `json:"interface,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// Figure is a value with its unit as thruput prints it ("Mbit/s", "ms",
// "IOPS", "MB/s") and its ± (the half-width of its 95 % interval; 0 when
// unknown).
type Figure struct {
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	PlusMinus float64 `json:"plus_minus,omitempty"`
}

// Receiver is one entry of the rules file's receivers list: a name the
// rules' notify lists use, and exactly one way to deliver.
type Receiver struct {
	Name string `yaml:"name"`
	// Webhook is a URL that gets each Notification as a JSON POST.
	Webhook string `yaml:"webhook,omitempty"`
	// Alertmanager is an Alertmanager's base URL (http://host:9093); alerts
	// are posted to its /api/v2/alerts.
	Alertmanager string `yaml:"alertmanager,omitempty"`
	// AlertmanagerHold is how long a firing alert stays active in
	// Alertmanager without news from thruput (its endsAt); thruput posts
	// it again when half of that has passed and it still fires. 0 means
	// DefaultHold.
	AlertmanagerHold time.Duration `yaml:"alertmanager_hold,omitempty"`
	// Ntfy is an ntfy topic's URL (https://ntfy.sh/mytopic): the summary is
	// posted as the message, with a title and priority header.
	Ntfy string `yaml:"ntfy,omitempty"`
	// NtfyTokenFile holds an ntfy access token, sent as a bearer token.
	NtfyTokenFile string `yaml:"ntfy_token_file,omitempty"`
	// Email sends a mail over SMTP.
	Email *Email `yaml:"email,omitempty"`
}

// Email is an SMTP receiver. STARTTLS is used whenever the server offers
// it, and required unless Insecure is set (for a relay on loopback).
type Email struct {
	// SMTP is the server's host:port.
	SMTP     string   `yaml:"smtp"`
	From     string   `yaml:"from"`
	To       []string `yaml:"to"`
	Username string   `yaml:"username,omitempty"`
	// PasswordFile is read for the password, so rules files can be shared.
	PasswordFile string `yaml:"password_file,omitempty"`
	Insecure     bool   `yaml:"insecure,omitempty"`
	// CAFile holds PEM certificates to trust for the server instead of the
	// system's (a private CA, or a test's self-signed certificate).
	CAFile string `yaml:"ca_file,omitempty"`
}
