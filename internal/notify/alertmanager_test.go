package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// peer is the path of a program a test runs as a real receiver; without
// it the test is skipped, except under CI, where scripts/setup installs it.
func peer(t *testing.T, path, pkg string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing: install %s (scripts/setup does)", path, pkg)
		}
		t.Skipf("%s missing (apt-get install %s)", path, pkg)
	}
	return path
}

// start runs cmd until the test ends, its output kept for a failure's
// message, and waits until ready says yes (at most 20 s).
func start(t *testing.T, cmd *exec.Cmd, ready func() bool) {
	t.Helper()
	var out bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout, cmd.Stderr = lockedWriter{&mu, &out}, lockedWriter{&mu, &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	for deadline := time.Now().Add(20 * time.Second); !ready(); time.Sleep(50 * time.Millisecond) {
		select {
		case <-done:
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s stopped: %s\n%s", cmd.Path, cmd.ProcessState, out.String())
		default:
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s not ready after 20 s:\n%s", cmd.Path, out.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// gettableAlert is what GET /api/v2/alerts answers, as far as the test
// reads it.
type gettableAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
	Generator   string            `json:"generatorURL"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

// Debian's Alertmanager takes thruput's alerts through its v2 API: the
// firing one is active with the labels and annotations thruput maps, and
// the resolved one ends it.
func TestAlertmanager(t *testing.T) {
	bin := peer(t, "/usr/bin/prometheus-alertmanager", "prometheus-alertmanager")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "alertmanager.yml")
	os.WriteFile(cfg, []byte("route:\n  receiver: \"null\"\nreceivers:\n  - name: \"null\"\n"), 0o600)
	addr := freePort(t)
	base := "http://" + addr
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--cluster.listen-address=")
	start(t, cmd, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	get := func() []gettableAlert {
		t.Helper()
		resp, err := http.Get(base + "/api/v2/alerts")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var as []gettableAlert
		if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
			t.Fatal(err)
		}
		return as
	}

	r := Receiver{Name: "am", Alertmanager: base + "/"}
	spoolDir := t.TempDir()
	n := sample()
	now := time.Now().UTC().Truncate(time.Second)
	n.StartsAt = now.Add(-10 * time.Minute)
	n.Series.Labels["site-a.b"] = "lab" // not a Prometheus label name
	n.DashboardURL = "http://pi4:8080/series?method=net.client&host=pi4"
	if err := Send(context.Background(), spoolDir, r, n); err != nil {
		t.Fatal(err)
	}
	as := get()
	if len(as) != 1 {
		t.Fatalf("alertmanager holds %d alerts, want 1: %+v", len(as), as)
	}
	a := as[0]
	want := map[string]string{"alertname": "lan-down", "method": "net.client", "host": "pi4", "target": "10.0.0.2:5201", "direction": "download", "link": "lan", "site_a_b": "lab"}
	for k, v := range want {
		if a.Labels[k] != v {
			t.Errorf("label %s = %q, want %q (labels %v)", k, a.Labels[k], v, a.Labels)
		}
	}
	if len(a.Labels) != len(want) {
		t.Errorf("labels %v, want %v", a.Labels, want)
	}
	if a.Annotations["summary"] != n.Summary || a.Annotations["figure"] != "61.2 ± 1.4 Mbit/s" || a.Annotations["threshold"] != "80 Mbit/s" ||
		a.Annotations["condition"] != n.Condition || !strings.Contains(a.Annotations["description"], "Runs: 20261128T050000Z-a1 20261128T130000Z-b2") {
		t.Errorf("annotations %v", a.Annotations)
	}
	if a.Status.State != "active" || !a.StartsAt.Equal(n.StartsAt) || a.Generator != n.DashboardURL {
		t.Errorf("alert %+v: want active since %v, from %s", a, n.StartsAt, n.DashboardURL)
	}
	// Held for a day, not Alertmanager's 5 min resolve_timeout.
	if hold := time.Until(a.EndsAt); hold < 23*time.Hour || hold > DefaultHold {
		t.Errorf("endsAt %v is %v away, want about %v", a.EndsAt, hold, DefaultHold)
	}

	res := resolved(n)
	res.EndsAt = now
	if err := Send(context.Background(), spoolDir, r, res); err != nil {
		t.Fatal(err)
	}
	// 0.25 lists only alerts that have not ended: the resolved one is
	// gone, and its own counters show it arrived as resolved.
	if after := get(); len(after) != 0 {
		t.Errorf("after the resolved notice alertmanager still lists %+v", after)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m, _ := io.ReadAll(resp.Body)
	for _, line := range []string{`alertmanager_alerts_received_total{status="firing",version="v2"} 1`, `alertmanager_alerts_received_total{status="resolved",version="v2"} 1`} {
		if !bytes.Contains(m, []byte(line+"\n")) {
			t.Errorf("alertmanager's /metrics lacks %s", line)
		}
	}
}

// A firing alert is posted again when half its hold has passed, and not
// once it is resolved.
func TestAlertmanagerRefresh(t *testing.T) {
	var mu sync.Mutex
	var posts [][]amAlert
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var as []amAlert
		if r.URL.Path != "/api/v2/alerts" || json.NewDecoder(r.Body).Decode(&as) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		posts = append(posts, as)
		mu.Unlock()
	}))
	defer srv.Close()
	s, c := testSpool(t)
	r := Receiver{Name: "am", Alertmanager: srv.URL, AlertmanagerHold: 8 * time.Hour}
	n := sample()
	if err := s.send(context.Background(), r, n); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(3 * time.Hour)
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 0 || err != nil || len(posts) != 1 {
		t.Fatalf("flush before half the hold: %d, %v, %d posts", k, err, len(posts))
	}
	c.t = c.t.Add(2 * time.Hour)
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 0 || err != nil || len(posts) != 2 {
		t.Fatalf("flush after half the hold: %d, %v, %d posts", k, err, len(posts))
	}
	if got := posts[1][0].EndsAt; !got.Equal(c.t.Add(8 * time.Hour)) {
		t.Errorf("refreshed endsAt %v, want %v", got, c.t.Add(8*time.Hour))
	}
	if err := s.send(context.Background(), r, resolved(n)); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(10 * time.Hour)
	if _, err := s.flush(context.Background(), []Receiver{r}); err != nil || len(posts) != 3 {
		t.Fatalf("flush after the resolved: %v, %d posts, want 3", err, len(posts))
	}
	if got := posts[2][0].EndsAt; !got.Equal(resolved(n).EndsAt) {
		t.Errorf("resolved endsAt %v, want %v", got, resolved(n).EndsAt)
	}
}
