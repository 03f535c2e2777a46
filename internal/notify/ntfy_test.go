package notify

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// ntfy's publish docs: the message is the body; Title, Priority, Tags and
// Click are headers; an access token is a bearer token.
func TestNtfy(t *testing.T) {
	type req struct {
		path, body string
		h          http.Header
	}
	var got []req
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, req{r.URL.Path, string(b), r.Header.Clone()})
	}))
	defer srv.Close()
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("tk_7eevizlsiwf9yi4uxsrs83r4352o0\n"), 0o600)
	r := Receiver{Name: "phone", Ntfy: srv.URL + "/thruput-lan", NtfyTokenFile: tok}
	n := sample()
	n.Rule = "lan-düşük" // a title that is not ASCII
	n.DashboardURL = "http://pi4:8080/"
	dir := t.TempDir()
	if err := Send(context.Background(), dir, r, n); err != nil {
		t.Fatal(err)
	}
	if err := Send(context.Background(), dir, r, resolved(n)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("server got %d posts, want 2", len(got))
	}
	var dec mime.WordDecoder
	for i, want := range []struct{ title, prio, tags string }{
		{"thruput: lan-düşük firing", "high", "warning,thruput"},
		{"thruput: lan-düşük resolved", "default", "white_check_mark,thruput"},
	} {
		g := got[i]
		title, err := dec.DecodeHeader(g.h.Get("Title"))
		if err != nil || title != want.title || g.h.Get("Priority") != want.prio || g.h.Get("Tags") != want.tags {
			t.Errorf("post %d: title %q (%v), priority %q, tags %q; want %+v", i, title, err, g.h.Get("Priority"), g.h.Get("Tags"), want)
		}
		if g.path != "/thruput-lan" || g.body != n.Summary || g.h.Get("Click") != n.DashboardURL ||
			g.h.Get("Authorization") != "Bearer tk_7eevizlsiwf9yi4uxsrs83r4352o0" {
			t.Errorf("post %d: %s %q, headers %v", i, g.path, g.body, g.h)
		}
	}
}
