package notify

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/usage"
)

// Validate checks a receiver as the rules file gives it: a name, exactly
// one way to deliver, URLs that are http or https with a host, an email
// with an SMTP host:port, a sender and recipients, and the files it names
// readable. Its errors are usage errors (exit 2) naming the receiver and
// the field.
func Validate(r Receiver) error {
	if strings.TrimSpace(r.Name) == "" {
		return usage.Errorf("receiver without a name: each receiver needs a name the rules' notify lists use")
	}
	var kinds []string
	if r.Webhook != "" {
		kinds = append(kinds, "webhook")
	}
	if r.Alertmanager != "" {
		kinds = append(kinds, "alertmanager")
	}
	if r.Ntfy != "" {
		kinds = append(kinds, "ntfy")
	}
	if r.Email != nil {
		kinds = append(kinds, "email")
	}
	switch len(kinds) {
	case 0:
		return usage.Errorf("receiver %q: no webhook, alertmanager, ntfy or email: it needs exactly one", r.Name)
	case 1:
	default:
		return usage.Errorf("receiver %q: %s given together: a receiver has exactly one (make one receiver each)", r.Name, strings.Join(kinds, " and "))
	}
	if r.NtfyTokenFile != "" && r.Ntfy == "" {
		return usage.Errorf("receiver %q: ntfy_token_file without ntfy", r.Name)
	}
	if r.AlertmanagerHold != 0 && r.Alertmanager == "" {
		return usage.Errorf("receiver %q: alertmanager_hold without alertmanager", r.Name)
	}
	if r.AlertmanagerHold < 0 {
		return usage.Errorf("receiver %q: alertmanager_hold %v is negative", r.Name, r.AlertmanagerHold)
	}
	switch kinds[0] {
	case "webhook":
		return checkURL(r.Name, "webhook", r.Webhook)
	case "alertmanager":
		return checkURL(r.Name, "alertmanager", r.Alertmanager)
	case "ntfy":
		if err := checkURL(r.Name, "ntfy", r.Ntfy); err != nil {
			return err
		}
		return checkReadable(r.Name, "ntfy_token_file", r.NtfyTokenFile)
	}
	return checkEmail(r.Name, r.Email)
}

func checkURL(name, field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return usage.Errorf("receiver %q: %s %q is not a URL: %v", name, field, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return usage.Errorf("receiver %q: %s %q: the scheme must be http or https", name, field, raw)
	}
	if u.Host == "" {
		return usage.Errorf("receiver %q: %s %q has no host", name, field, raw)
	}
	return nil
}

func checkReadable(name, field, path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.ReadFile(path); err != nil {
		return usage.Errorf("receiver %q: %s: %v", name, field, err)
	}
	return nil
}

func checkEmail(name string, e *Email) error {
	host, port, err := net.SplitHostPort(e.SMTP)
	if err != nil || host == "" {
		return usage.Errorf("receiver %q: email smtp %q must be host:port (smtp.example.org:587)", name, e.SMTP)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return usage.Errorf("receiver %q: email smtp %q: port %q is not a number from 1 to 65535", name, e.SMTP, port)
	}
	if e.From == "" {
		return usage.Errorf("receiver %q: email has no from address", name)
	}
	if _, err := mail.ParseAddress(e.From); err != nil {
		return usage.Errorf("receiver %q: email from %q: %v", name, e.From, err)
	}
	if len(e.To) == 0 {
		return usage.Errorf("receiver %q: email has no to addresses", name)
	}
	for _, to := range e.To {
		if _, err := mail.ParseAddress(to); err != nil {
			return usage.Errorf("receiver %q: email to %q: %v", name, to, err)
		}
	}
	if e.Username != "" && e.PasswordFile == "" {
		return usage.Errorf("receiver %q: email username %q without password_file", name, e.Username)
	}
	if e.PasswordFile != "" && e.Username == "" {
		return usage.Errorf("receiver %q: email password_file without username", name)
	}
	if err := checkReadable(name, "email password_file", e.PasswordFile); err != nil {
		return err
	}
	if e.CAFile != "" {
		if _, err := caPool(e.CAFile); err != nil {
			return usage.Errorf("receiver %q: email ca_file: %v", name, err)
		}
	}
	return nil
}

// caPool reads PEM certificates from path.
func caPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
