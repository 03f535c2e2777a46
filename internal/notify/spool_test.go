package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/exectest"
)

// sample is a firing notification as internal/alert hands one over.
func sample() Notification {
	return Notification{
		Status: "firing", Rule: "lan-down", Key: "lan-down|net.client|pi4|link=lan",
		Series:    Series{Method: "net.client", Host: "pi4", Target: "10.0.0.2:5201", Direction: "download", Labels: map[string]string{"link": "lan"}},
		Figure:    Figure{Value: 61.2, Unit: "Mbit/s", PlusMinus: 1.4},
		Threshold: &Figure{Value: 80, Unit: "Mbit/s"},
		Condition: "below 80 Mbit/s for 2 runs",
		Summary:   "lan-down: net.client on pi4 at 61.2 Mbit/s, below 80 Mbit/s for 2 runs",
		RunIDs:    []string{"20261128T050000Z-a1", "20261128T130000Z-b2"},
		StartsAt:  time.Date(2026, 11, 28, 13, 0, 5, 0, time.UTC),
	}
}

func resolved(n Notification) Notification {
	n.Status, n.EndsAt = "resolved", n.StartsAt.Add(8*time.Hour)
	n.Figure.Value = 93.5
	return n
}

// hook is a webhook server that records what it was given and answers
// with status (200 unless set).
type hook struct {
	mu     sync.Mutex
	status int
	got    []Notification
	hdr    []http.Header
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var n Notification
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status != 0 {
		http.Error(w, "no such hook", h.status)
		return
	}
	if err := json.Unmarshal(b, &n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.got, h.hdr = append(h.got, n), append(h.hdr, r.Header.Clone())
}

// newHook starts a webhook server for the test and returns it and its URL.
func newHook(t *testing.T) (*hook, string) {
	h := &hook{}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *hook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got)
}

// clock is a test's time, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func testSpool(t *testing.T) (*spool, *clock) {
	c := &clock{t: time.Date(2026, 11, 28, 13, 0, 10, 0, time.UTC)}
	s := newSpool(t.TempDir())
	s.now, s.timeout = c.now, 5*time.Second
	s.backoff = func(a int) time.Duration { return time.Duration(a) * time.Minute }
	return s, c
}

func TestWebhookBody(t *testing.T) {
	h, url := newHook(t)
	n := sample()
	if err := Send(context.Background(), t.TempDir(), Receiver{Name: "hook", Webhook: url + "/alert"}, n); err != nil {
		t.Fatal(err)
	}
	if h.count() != 1 {
		t.Fatalf("server got %d posts, want 1", h.count())
	}
	got := h.got[0]
	if got.Status != "firing" || got.Rule != "lan-down" || got.Key != n.Key || got.Figure != n.Figure ||
		*got.Threshold != *n.Threshold || got.Series.Labels["link"] != "lan" || !got.StartsAt.Equal(n.StartsAt) ||
		len(got.RunIDs) != 2 || got.Summary != n.Summary || !got.EndsAt.IsZero() {
		t.Errorf("server got %+v, want %+v", got, n)
	}
	hd := h.hdr[0]
	if hd.Get("Content-Type") != "application/json" || hd.Get("Idempotency-Key") != n.ID() || !strings.HasPrefix(hd.Get("User-Agent"), "thruput/") {
		t.Errorf("headers %v", hd)
	}
}

// The JSON keys are the contract docs/result-json.md documents.
func TestWebhookJSONKeys(t *testing.T) {
	b, err := json.Marshal(resolved(sample()))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"status", "rule", "key", "series", "figure", "threshold", "condition", "summary", "run_ids", "starts_at", "ends_at"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if _, ok := m["baseline"]; ok {
		t.Errorf("baseline present without one: %s", b)
	}
}

func TestSendTwiceDeliversOnce(t *testing.T) {
	h, url := newHook(t)
	s, _ := testSpool(t)
	r := Receiver{Name: "hook", Webhook: url}
	n := sample()
	for range 3 {
		if err := s.send(context.Background(), r, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.send(context.Background(), r, resolved(n)); err != nil {
		t.Fatal(err)
	}
	if h.count() != 2 || h.got[0].Status != "firing" || h.got[1].Status != "resolved" {
		t.Fatalf("server got %+v, want the firing then the resolved, once each", h.got)
	}
}

// freePort is a loopback address nothing listens on.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// A receiver down during the alert gets it, once, when it is back.
func TestDownThenBack(t *testing.T) {
	s, c := testSpool(t)
	addr := freePort(t)
	r := Receiver{Name: "hook", Webhook: "http://" + addr + "/alert"}
	n := sample()
	err := s.send(context.Background(), r, n)
	if !errors.Is(err, ErrSpooled) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("send to a receiver that is down: %v, want it kept in the spool with the reason", err)
	}
	// The resolved notice comes while it is still down: it queues behind.
	if err := s.send(context.Background(), r, resolved(n)); err == nil || !strings.Contains(err.Error(), "retried after") {
		t.Fatalf("second send while the first waits: %v", err)
	}
	q, err := Pending(s.dir)
	if err != nil || len(q) != 2 || q[0].Receiver != "hook" || q[0].Notification.Status != "firing" || q[0].Attempts != 1 || q[1].Attempts != 0 {
		t.Fatalf("pending %+v, %v", q, err)
	}

	h := &hook{}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	// Back, but the retry is not due yet: nothing is sent.
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 0 || err == nil || h.count() != 0 {
		t.Fatalf("flush before the retry is due: %d delivered, %v; server got %d", k, err, h.count())
	}
	c.t = c.t.Add(2 * time.Minute)
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 2 || err != nil {
		t.Fatalf("flush when due: %d delivered, %v", k, err)
	}
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 0 || err != nil {
		t.Fatalf("second flush: %d delivered, %v", k, err)
	}
	for _, m := range []Notification{n, resolved(n)} {
		if err := s.send(context.Background(), r, m); err != nil {
			t.Fatalf("sending again what was delivered: %v", err)
		}
	}
	if h.count() != 2 || h.got[0].Status != "firing" || h.got[1].Status != "resolved" {
		t.Fatalf("server got %+v, want the firing then the resolved, once each", h.got)
	}
	if q, err := Pending(s.dir); len(q) != 0 || err != nil {
		t.Fatalf("spool still holds %+v, %v", q, err)
	}
}

// The next Send, once the retry is due, delivers the backlog first.
func TestSendDeliversBacklogFirst(t *testing.T) {
	s, c := testSpool(t)
	h := &hook{status: http.StatusServiceUnavailable}
	srv := httptest.NewServer(h)
	defer srv.Close()
	r := Receiver{Name: "hook", Webhook: srv.URL}
	n := sample()
	if err := s.send(context.Background(), r, n); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("send to a 503: %v", err)
	}
	h.mu.Lock()
	h.status = 0
	h.mu.Unlock()
	c.t = c.t.Add(time.Hour)
	if err := s.send(context.Background(), r, resolved(n)); err != nil {
		t.Fatal(err)
	}
	if h.count() != 2 || h.got[0].Status != "firing" {
		t.Fatalf("server got %+v, want the spooled firing first", h.got)
	}
}

// A 404 is not retried; changing the URL in the rules file retries it.
func TestPermanentRefusal(t *testing.T) {
	s, c := testSpool(t)
	h := &hook{status: http.StatusNotFound}
	srv := httptest.NewServer(h)
	defer srv.Close()
	r := Receiver{Name: "hook", Webhook: srv.URL + "/wrong"}
	n := sample()
	err := s.send(context.Background(), r, n)
	if err == nil || !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), "refused, not retried") {
		t.Fatalf("send to a 404: %v", err)
	}
	q, _ := Pending(s.dir)
	if len(q) != 1 || !q[0].Permanent || !strings.Contains(q[0].LastError, "no such hook") {
		t.Fatalf("pending %+v: want the refusal kept with its reason", q)
	}
	err = s.send(context.Background(), r, n)
	if !errors.Is(err, ErrSpooled) || !strings.Contains(err.Error(), "refused before") || !strings.Contains(err.Error(), "404 Not Found") {
		t.Fatalf("sending a refused notification again: %v", err)
	}
	h.mu.Lock()
	h.status = 0
	h.mu.Unlock()
	c.t = c.t.Add(24 * time.Hour)
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 0 || err != nil || h.count() != 0 {
		t.Fatalf("flush retried a refusal: %d, %v", k, err)
	}
	// A later notification is not held back by the refused one.
	if err := s.send(context.Background(), r, resolved(n)); err != nil || h.count() != 1 {
		t.Fatalf("send behind a refusal: %v, server got %d", err, h.count())
	}
	r.Webhook = srv.URL + "/right"
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 1 || err != nil || h.count() != 2 || h.got[1].Status != "firing" {
		t.Fatalf("flush after the URL changed: %d, %v", k, err)
	}
}

func TestBackoff(t *testing.T) {
	for a := 1; a <= 12; a++ {
		d := backoff(a)
		lo := min(backoffCap, backoffBase<<min(a-1, 10))
		if d < lo*8/10 || d > lo*12/10 {
			t.Errorf("backoff(%d) = %v, want %v ±20 %%", a, d, lo)
		}
		if a > 8 && d < backoffCap*8/10 {
			t.Errorf("backoff(%d) = %v below the cap", a, d)
		}
	}
}

func TestDefaultSpoolDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/lib/x")
	if d, err := DefaultSpoolDir(); d != "/var/lib/x/thruput/alerts" || err != nil {
		t.Errorf("with XDG_STATE_HOME: %q, %v", d, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/pi")
	if d, err := DefaultSpoolDir(); d != "/home/pi/.local/state/thruput/alerts" || err != nil {
		t.Errorf("with HOME: %q, %v", d, err)
	}
	t.Setenv("HOME", "")
	if _, err := DefaultSpoolDir(); err == nil || !strings.Contains(err.Error(), "$HOME") {
		t.Errorf("without HOME: %v", err)
	}
}

func TestBadSpoolFiles(t *testing.T) {
	h, url := newHook(t)
	s, _ := testSpool(t)
	r := Receiver{Name: "hook", Webhook: url}
	dir := s.receiverDir("hook")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "00000000000000000001-0123.json"), []byte("{"), 0o600)
	if err := s.send(context.Background(), r, sample()); err != nil {
		t.Fatalf("a broken spool file must not stop delivery: %v", err)
	}
	if _, err := s.flush(context.Background(), []Receiver{r}); err == nil || !strings.Contains(err.Error(), "00000000000000000001-0123.json") || !strings.Contains(err.Error(), "left in place") {
		t.Errorf("flush over a broken file: %v, want it named", err)
	}
	os.WriteFile(filepath.Join(dir, ledgerFile), []byte("garbage\n"), 0o600)
	err := s.send(context.Background(), r, resolved(sample()))
	if err == nil || !strings.Contains(err.Error(), "ledger") || !strings.Contains(err.Error(), `line 1 "garbage"`) {
		t.Errorf("send over a broken ledger: %v", err)
	}
	if h.count() != 1 {
		t.Errorf("server got %d, want 1", h.count())
	}
	if err := s.send(context.Background(), r, Notification{Status: "fired", Key: "k", StartsAt: time.Now()}); err == nil || !strings.Contains(err.Error(), `status "fired"`) {
		t.Errorf("bad status: %v", err)
	}
}

// Two processes flushing one spool never send a notification twice.
func TestConcurrentFlush(t *testing.T) {
	if dir := os.Getenv("NOTIFY_TEST_FLUSH"); dir != "" {
		k, err := Flush(context.Background(), dir, []Receiver{{Name: "hook", Webhook: os.Getenv("NOTIFY_TEST_URL")}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("delivered %d", k)
		return
	}
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond) // widen the window a race would need
		mu.Lock()
		seen[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
	}))
	defer srv.Close()
	s := newSpool(t.TempDir())
	s.backoff = func(int) time.Duration { return 0 }
	down := Receiver{Name: "hook", Webhook: "http://" + freePort(t)}
	const total = 20
	for i := range total {
		n := sample()
		n.StartsAt = n.StartsAt.Add(time.Duration(i) * time.Hour)
		s.send(context.Background(), down, n)
	}
	if q, _ := Pending(s.dir); len(q) != total {
		t.Fatalf("spooled %d, want %d", len(q), total)
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Go(func() {
			cmd := exectest.Command(os.Args[0], "-test.run=^TestConcurrentFlush$", "-test.v")
			cmd.Env = append(os.Environ(), "NOTIFY_TEST_FLUSH="+s.dir, "NOTIFY_TEST_URL="+srv.URL)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("flushing process: %v\n%s", err, b)
			}
			outs[i] = string(b)
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != total {
		t.Errorf("server got %d notifications, want %d\n%s", len(seen), total, strings.Join(outs, "\n"))
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("%s delivered %d times", id, k)
		}
	}
}

// A receiver that does not answer in time, or answers 408, 429 or 5xx,
// is tried again; other 4xx are refusals.
func TestPostOutcomes(t *testing.T) {
	for _, c := range []struct {
		status    int
		permanent bool
	}{{200, false}, {202, false}, {400, true}, {401, true}, {404, true}, {408, false}, {429, false}, {500, false}, {503, false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(c.status) }))
		err := newSpool(t.TempDir()).post(context.Background(), srv.URL, nil, http.Header{})
		srv.Close()
		var f *failure
		switch {
		case c.status < 300 && err != nil:
			t.Errorf("%d: %v, want delivered", c.status, err)
		case c.status >= 300 && (!errors.As(err, &f) || f.permanent != c.permanent || !strings.Contains(err.Error(), strconv.Itoa(c.status))):
			t.Errorf("%d: %v, want a failure naming it, permanent %v", c.status, err, c.permanent)
		}
	}
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	s, _ := testSpool(t)
	s.timeout = 200 * time.Millisecond
	err := s.send(context.Background(), Receiver{Name: "slow", Webhook: srv.URL}, sample())
	if !errors.Is(err, ErrSpooled) || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("send to a receiver that does not answer: %v", err)
	}
	if q, _ := Pending(s.dir); len(q) != 1 || q[0].Permanent {
		t.Fatalf("pending %+v: want it kept for a retry", q)
	}
}
