package notify

import (
	"context"
	"mime"
	"net/http"
	"os"
	"strings"
)

// ntfy publishes n's summary to the topic's URL, with the headers ntfy's
// publishing docs name: Title, Priority (high while firing, default once
// resolved), Tags (shown as emoji), Click (the dashboard), and the access
// token as a bearer token. Non-ASCII titles are RFC 2047 encoded, which
// ntfy decodes.
func (s *spool) ntfy(ctx context.Context, r Receiver, n Notification) error {
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Title", mime.QEncoding.Encode("utf-8", "thruput: "+n.Rule+" "+n.Status))
	if n.Status == "firing" {
		h.Set("Priority", "high")
		h.Set("Tags", "warning,thruput")
	} else {
		h.Set("Priority", "default")
		h.Set("Tags", "white_check_mark,thruput")
	}
	if n.DashboardURL != "" {
		h.Set("Click", n.DashboardURL)
	}
	if r.NtfyTokenFile != "" {
		tok, err := os.ReadFile(r.NtfyTokenFile)
		if err != nil {
			return &failure{err: err}
		}
		h.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	return s.post(ctx, r.Ntfy, []byte(n.Summary), h)
}
