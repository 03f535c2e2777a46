package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// sendTimeout bounds one delivery: connecting, sending and the answer.
const sendTimeout = 15 * time.Second

type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

var defaultClient = &http.Client{Timeout: sendTimeout}

// failure is a delivery that did not work. Permanent failures are those
// trying again cannot mend: the receiver understood and refused.
type failure struct {
	permanent bool
	err       error
}

func (f *failure) Error() string {
	if f.permanent {
		return "refused, not retried: " + f.err.Error()
	}
	return f.err.Error()
}

func (f *failure) Unwrap() error { return f.err }

// target is where the receiver delivers, as a permanent refusal records
// it: when the rules file changes it, what was refused is tried again.
func (r Receiver) target() string {
	switch {
	case r.Webhook != "":
		return "webhook " + r.Webhook
	case r.Alertmanager != "":
		return "alertmanager " + r.Alertmanager
	case r.Ntfy != "":
		return "ntfy " + r.Ntfy
	case r.Email != nil:
		return fmt.Sprintf("email %s %s %v insecure=%v", r.Email.SMTP, r.Email.From, r.Email.To, r.Email.Insecure)
	}
	return ""
}

// deliver hands n to r once, within the spool's timeout.
func (s *spool) deliver(ctx context.Context, r Receiver, n Notification) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	switch {
	case r.Webhook != "":
		return s.webhook(ctx, r.Webhook, n)
	case r.Alertmanager != "":
		return s.alertmanager(ctx, r, n)
	case r.Ntfy != "":
		return s.ntfy(ctx, r, n)
	case r.Email != nil:
		return s.email(ctx, r.Email, n)
	}
	return fmt.Errorf("receiver %q: no way to deliver", r.Name)
}

// webhook posts n as JSON, with its id as the Idempotency-Key so that a
// receiver can drop the rare repeat (see the spool's comment).
func (s *spool) webhook(ctx context.Context, url string, n Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Idempotency-Key", n.ID())
	return s.post(ctx, url, body, h)
}

// post sends body to url. A 2xx is delivered; a 4xx other than 408 and
// 429 is a permanent failure; anything else (no connection, a timeout, a
// 5xx) may pass and is retried.
func (s *spool) post(ctx context.Context, url string, body []byte, h http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return &failure{permanent: true, err: err}
	}
	req.Header = h
	req.Header.Set("User-Agent", userAgent())
	resp, err := s.client.Do(req)
	if err != nil {
		return &failure{err: err}
	}
	defer resp.Body.Close()
	// A little of the answer says why it was refused; the rest is drained
	// so the connection can be reused.
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	err = fmt.Errorf("POST %s: %s", url, resp.Status)
	if m := strings.Join(strings.Fields(string(msg)), " "); m != "" {
		err = fmt.Errorf("%w: %s", err, m)
	}
	c := resp.StatusCode
	return &failure{permanent: c >= 400 && c < 500 && c != http.StatusRequestTimeout && c != http.StatusTooManyRequests, err: err}
}

// userAgent is thruput/<version>, the version the module was built as
// ("dev" from a source tree).
func userAgent() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return "thruput/" + bi.Main.Version
	}
	return "thruput/dev"
}
