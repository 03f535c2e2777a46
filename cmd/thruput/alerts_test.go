package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/notify"
	"github.com/thruput/thruput/internal/realdata"
)

// readmeRules is the example of the README's section on alerts, as
// written there: the test holds the README to it.
func readmeRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realdata.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(b), "\n### Alerts\n")
	_, ex, _ := strings.Cut(sec, "```yaml\n")
	ex, _, ok := strings.Cut(ex, "```")
	if !ok || !strings.Contains(ex, "below: 80 Mbit/s") {
		t.Fatalf("README.md: no example under ### Alerts")
	}
	return ex
}

// webhook is a webhook receiver: every notification posted, by path.
type webhook struct {
	mu  sync.Mutex
	got map[string][]notify.Notification
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n notify.Notification
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got[r.URL.Path] = append(h.got[r.URL.Path], n)
	h.mu.Unlock()
}

func (h *webhook) statuses(path string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var s []string
	for _, n := range h.got[path] {
		s = append(s, n.Rule+" "+n.Status)
	}
	return strings.Join(s, ", ")
}

// watched is a command's stderr that calls then once want appears in it.
type watched struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	then func()
}

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.then != nil && strings.Contains(w.b.String(), w.want) {
		w.then()
		w.then = nil
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestAlertsShapedLink changes the rate of a tbf-shaped link between runs
// of net client (healthy, degraded, recovered) under the README's example
// and a relative rule, with a real webhook server: the example sends
// exactly one firing and one resolved notice; healthy runs, within their
// own few per cent, never fire; the relative rule fires on the real drop;
// retest: true lets a one-off dip (a competing flow during the first run
// only) pass; a suspect run does not fire.
func TestAlertsShapedLink(t *testing.T) {
	l := nettest.NewLink(t, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The webhook listens on the client's loopback, at the example's own
	// address: the namespace is the test's alone.
	hook := &webhook{got: map[string][]notify.Notification{}}
	var ln net.Listener
	if err := l.Enter(l.A, func() (err error) { ln, err = net.Listen("tcp", "127.0.0.1:9099"); return err }); err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: hook, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	dir := t.TempDir()
	rules := filepath.Join(dir, "alerts.yaml")
	extra := `  - name: rel
    match: {method: net.client, labels: {link: lan}}
    drop: 25%
    baseline: 3 runs
    notify: [rel]
  - name: dip
    match: {method: net.client, labels: {link: retest}}
    below: 80 Mbit/s
    retest: true
    notify: [hook]
  - name: sus
    match: {method: net.client, labels: {link: sus}}
    below: 80 Mbit/s
    notify: [hook]
`
	text := strings.Replace(readmeRules(t), "rules:\n", "  - name: rel\n    webhook: http://127.0.0.1:9099/rel\nrules:\n", 1) + extra
	if err := os.WriteFile(rules, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "results.db")
	env := append(os.Environ(), "THRUPUT_DB="+db, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "THRUPUT_ALERTS="+rules)
	startBackground(t, l.Command(ctx, l.B, thruputBin, "net", "server", "-q", "--no-save")).listens(t, 5201)
	client := func(args ...string) *exec.Cmd {
		cmd := l.Command(ctx, l.A, thruputBin, append([]string{"net", "client", l.AddrB, "-q", "--json"}, args...)...)
		cmd.Env = env
		return cmd
	}
	// run runs net client labelled link=<link>; retested, when set, is
	// called as the command says it runs the step again.
	var retested func()
	run := func(link string, args ...string) (float64, string) {
		t.Helper()
		var out []byte
		var stderr *watched
		var err error
		for try := 0; try < 20; try++ {
			cmd := client(append([]string{"-t", "2", "--label", "link=" + link}, args...)...)
			stderr = &watched{want: "running the step again", then: retested}
			cmd.Stderr = stderr
			if out, err = cmd.Output(); err == nil || !strings.Contains(stderr.String(), "refused") {
				break
			}
			time.Sleep(100 * time.Millisecond) // the servers were not listening yet
		}
		if err != nil {
			t.Fatalf("net client: %v\n%s", err, stderr.String())
		}
		var doc struct {
			Net struct {
				Sums []struct {
					Receiver struct {
						Bps float64 `json:"bits_per_second"`
					} `json:"receiver"`
				} `json:"sums"`
			} `json:"net"`
		}
		// A retest prints a second document after the first.
		dec := json.NewDecoder(bytes.NewReader(out))
		if err := dec.Decode(&doc); err != nil || len(doc.Net.Sums) == 0 {
			t.Fatalf("net client --json: %v\n%s", err, out)
		}
		return doc.Net.Sums[0].Receiver.Bps / 1e6, stderr.String()
	}
	shape := func(mbit int) {
		burst := strconv.Itoa(max(mbit*1_000_000/8/200, 2*1514))
		for _, end := range []struct{ ns, dev string }{{l.A, l.DevA}, {l.B, l.DevB}} {
			// Errorf: a retest's stderr calls this from its own goroutine.
			if out, err := exec.Command("tc", "-n", end.ns, "qdisc", "change", "dev", end.dev, "root", "tbf", "rate", strconv.Itoa(mbit)+"mbit", "burst", burst, "latency", "50ms").CombinedOutput(); err != nil {
				t.Errorf("tc: %v: %s", err, out)
			}
		}
	}

	// Healthy (the link's rate moved by 5 %), degraded, recovered.
	var rates []float64
	for _, mbit := range []int{100, 95, 100, 60, 60, 100, 100} {
		shape(mbit)
		r, stderr := run("lan")
		rates = append(rates, r)
		if strings.Contains(stderr, "alerts:") {
			t.Errorf("a run at %d Mbit/s warned: %s", mbit, stderr)
		}
		if len(rates) <= 3 && hook.statuses("/alert")+hook.statuses("/rel") != "" {
			t.Errorf("healthy runs %.1f fired: %s %s", rates, hook.statuses("/alert"), hook.statuses("/rel"))
		}
	}
	t.Logf("rates %.1f Mbit/s", rates)
	if got := hook.statuses("/alert"); got != "lan-down firing, lan-down resolved" {
		t.Errorf("the example sent %q, want one firing and one resolved", got)
	}
	if got := hook.statuses("/rel"); got != "rel firing, rel resolved" {
		t.Errorf("the relative rule sent %q, want it to fire on the drop to 60 Mbit/s and resolve", got)
	}
	hook.mu.Lock()
	if ns := hook.got["/alert"]; len(ns) == 2 {
		f := ns[0]
		if f.Key != ns[1].Key || f.Figure.Unit != "Mbit/s" || f.Figure.Value > 60 || f.Threshold == nil || f.Threshold.Value != 80 ||
			len(f.RunIDs) != 2 || f.StartsAt.IsZero() || !ns[1].StartsAt.Equal(f.StartsAt) || ns[1].EndsAt.IsZero() || f.Series.Labels["link"] != "lan" {
			t.Errorf("notices %+v", ns)
		}
	}
	hook.mu.Unlock()

	// A dip during the first run only (the link at 60 Mbit/s until the
	// command says it runs the step again): the retest passes.
	shape(60)
	retested = func() { shape(100) }
	dip, stderr := run("retest")
	retested = nil
	if !strings.Contains(stderr, "running the step again") || dip > 80 {
		t.Errorf("the dip (%.1f Mbit/s) was not retested: %s", dip, stderr)
	}
	// A suspect run at 60 Mbit/s: a kernel error on the veth during it.
	shape(60)
	wrote := make(chan error, 1)
	go func() {
		// Once the run reads the kernel log: a line before it is not its.
		if !whenOpened("link=sus", "/dev/kmsg", 30*time.Second) {
			wrote <- fmt.Errorf("no client labelled %s opened /dev/kmsg within 30 s", "link=sus")
			return
		}
		// Past the seek to the log's end that follows the open.
		time.Sleep(500 * time.Millisecond)
		wrote <- os.WriteFile("/dev/kmsg", []byte("thruput-alerts-test: NETDEV WATCHDOG: "+l.DevA+" (thruput-test): transmit queue 0 timed out\n"), 0)
	}()
	run("sus")
	if err := <-wrote; err != nil {
		t.Fatalf("the kernel line for the suspect run: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if got := hook.statuses("/alert"); got != "lan-down firing, lan-down resolved" {
		t.Errorf("after the retest and the suspect run the hook has %q", got)
	}
	o := thruput(t, "results", "list", "--json", "--db", db, "--label", "link=retest")
	var entries []struct {
		ID     string            `json:"id"`
		Labels map[string]string `json:"labels"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &entries); err != nil || len(entries) != 2 || entries[0].Labels["retest"] != entries[1].ID {
		t.Errorf("the dip and its retest are not both stored, the retest labelled: %s", o.stdout)
	}
	o = thruput(t, "results", "list", "--json", "--db", db, "--label", "link=sus")
	if !strings.Contains(o.stdout, "suspect") {
		t.Errorf("the suspect run is not marked suspect: %s", o.stdout)
	}
}

// TestAlertsBadInput: a bad rules file stops a measuring command before
// it measures (exit 2, no store made); check without rules is exit 2; a
// selector that matches nothing warns; a receiver that is down warns,
// and the run is saved.
func TestAlertsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(dir, "results.db")
	target := filepath.Join(dir, "t")
	os.Mkdir(target, 0o755)
	sweep := []string{"disk", "sweep", target, "--sizes", "64k", "--file-size", "1M", "--max-time", "1s", "-q", "--db", db}
	for _, c := range []struct{ text, want string }{
		{strings.Replace(readmeRules(t), "for: 2", "fro: 2", 1), `bad.yaml:8: rules: unknown key "fro"`},
		{strings.Replace(readmeRules(t), "80 Mbit/s", "500 IOPS", 1), `"500 IOPS" is operations per second, which net.client does not measure`},
	} {
		o := thruput(t, append(sweep, "--alerts", write("bad.yaml", c.text))...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("a bad rules file: exit %d, %q; want exit 2 naming %q", o.code, o.stderr, c.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("a run refused for its rules file made the store")
		}
	}
	if o := thruput(t, "alerts", "check", "--db", db); o.code != 2 || !strings.Contains(o.stderr, "give --alerts FILE or set THRUPUT_ALERTS") {
		t.Errorf("check without rules: exit %d, %q", o.code, o.stderr)
	}
	// THRUPUT_ALERTS naming a file that is not there stops the run first.
	t.Setenv("THRUPUT_ALERTS", filepath.Join(dir, "missing.yaml"))
	if o := thruput(t, sweep...); o.code != 2 || !strings.Contains(o.stderr, "alert rules: open "+filepath.Join(dir, "missing.yaml")) {
		t.Errorf("THRUPUT_ALERTS of a missing file: exit %d, %q", o.code, o.stderr)
	}
	os.Unsetenv("THRUPUT_ALERTS")
	// A receiver nothing listens on: the run is saved, with a warning.
	down := write("down.yaml", `receivers:
  - name: down-bad-input
    webhook: http://127.0.0.1:1/alert
rules:
  - name: slow-disk
    match: {method: disk.sweep}
    below: 1000 GB/s
    notify: [down-bad-input]
  - name: no-such
    match: {method: net.http, host: nowhere}
    below: 1 MB/s
`)
	o := thruput(t, append(sweep, "--alerts", down)...)
	if o.code != 0 || !strings.Contains(o.stderr, `thruput: alerts: receiver "down-bad-input"`) {
		t.Errorf("a receiver down: exit %d, %q; want exit 0 and a warning", o.code, o.stderr)
	}
	if n := len(listed(t, db)); n != 1 {
		t.Errorf("%d runs stored, want the run saved despite the receiver", n)
	}
	o = thruput(t, "alerts", "check", "--alerts", down, "--db", db, "--json", "--dry-run")
	var rep struct {
		Alerts []struct {
			Rule, State string
			Figure      *notify.Figure
		}
		Warnings []string
	}
	if err := json.Unmarshal([]byte(o.stdout), &rep); o.code != 0 || err != nil || len(rep.Alerts) != 1 || rep.Alerts[0].State != "firing" ||
		rep.Alerts[0].Figure == nil || rep.Alerts[0].Figure.Unit != "GB/s" || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `rule "no-such": no stored run matches its selector`) {
		t.Errorf("check --json: exit %d %v\n%s\n%s", o.code, err, o.stdout, o.stderr)
	}
	o = thruput(t, "alerts", "check", "--alerts", down, "--db", db)
	if o.code != 0 || !strings.Contains(o.stdout, "slow-disk") || !strings.Contains(o.stdout, "firing") || !strings.Contains(o.stdout, "warning: ") ||
		!strings.Contains(o.stdout, "waiting in the alert spool") || !strings.Contains(o.stdout, "down-bad-input  slow-disk  firing") {
		t.Errorf("check: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
