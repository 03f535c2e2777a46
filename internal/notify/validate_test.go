package notify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/usage"
)

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("secret\n"), 0o600)
	notPEM := filepath.Join(dir, "ca.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	mail := func(f func(*Email)) *Email {
		e := &Email{SMTP: "smtp.example.org:587", From: "thruput <pi@example.org>", To: []string{"ops@example.org"}}
		f(e)
		return e
	}
	good := []Receiver{
		{Name: "hook", Webhook: "http://127.0.0.1:9099/alert"},
		{Name: "am", Alertmanager: "https://am.example.org:9093"},
		{Name: "phone", Ntfy: "https://ntfy.sh/thruput-lan", NtfyTokenFile: pw},
		{Name: "mail", Email: mail(func(*Email) {})},
		{Name: "mail", Email: mail(func(e *Email) { e.Username, e.PasswordFile = "pi", pw })},
	}
	for _, r := range good {
		if err := Validate(r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	bad := []struct {
		r    Receiver
		want string
	}{
		{Receiver{Webhook: "http://x"}, "receiver without a name"},
		{Receiver{Name: "r"}, `receiver "r": no webhook, alertmanager, ntfy or email`},
		{Receiver{Name: "r", Webhook: "http://x", Ntfy: "http://y"}, "webhook and ntfy given together"},
		{Receiver{Name: "r", Webhook: "ftp://x/y"}, `webhook "ftp://x/y": the scheme must be http or https`},
		{Receiver{Name: "r", Webhook: "127.0.0.1:9099/alert"}, "is not a URL"},
		{Receiver{Name: "r", Alertmanager: "http:///api"}, "has no host"},
		{Receiver{Name: "r", Ntfy: "https://ntfy.sh/t", NtfyTokenFile: filepath.Join(dir, "none")}, "ntfy_token_file: open"},
		{Receiver{Name: "r", Webhook: "http://x", NtfyTokenFile: pw}, "ntfy_token_file without ntfy"},
		{Receiver{Name: "r", Webhook: "http://x", AlertmanagerHold: time.Hour}, "alertmanager_hold without alertmanager"},
		{Receiver{Name: "r", Alertmanager: "http://x", AlertmanagerHold: -time.Hour}, "alertmanager_hold -1h0m0s is negative"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.SMTP = "smtp.example.org" })}, "must be host:port"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.SMTP = "smtp.example.org:smtp" })}, `port "smtp" is not a number`},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.From = "" })}, "no from address"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.From = "pi at home" })}, `email from "pi at home"`},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.To = nil })}, "no to addresses"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.To = []string{"ops@"} })}, `email to "ops@"`},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.Username = "pi" })}, "without password_file"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.PasswordFile = pw })}, "password_file without username"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.Username, e.PasswordFile = "pi", filepath.Join(dir, "none") })}, "password_file: open"},
		{Receiver{Name: "r", Email: mail(func(e *Email) { e.CAFile = notPEM })}, "holds no PEM certificate"},
	}
	for _, c := range bad {
		err := Validate(c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
			continue
		}
		if !usage.Is(err) {
			t.Errorf("%+v: %v is not a usage error", c.r, err)
		}
	}
}
