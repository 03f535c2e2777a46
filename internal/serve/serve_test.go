package serve

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/pgtest"
	"github.com/thruput/thruput/internal/promtest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/postgres"
	"github.com/thruput/thruput/internal/store/sqlite"

	"github.com/thruput/thruput/internal/fstest"
)

func init() { fstest.RoomyHeap() }

var t0 = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)

func sweep(id, host string, day int, read float64, labels map[string]string) *result.Document {
	d := &result.Document{ID: id, Method: "disk.sweep", Status: result.StatusOK, Labels: labels,
		StartedAt: t0.AddDate(0, 0, day), EndedAt: t0.AddDate(0, 0, day).Add(time.Minute)}
	d.Host.Hostname = host
	d.Targets = []result.Target{{Path: "/mnt/usb", FSType: "ext4"}}
	d.Sweep = &result.Sweep{Parameters: result.SweepParameters{Write: true, Read: true}, Steps: []result.SweepStep{
		{Phase: "write", BlockSize: 4 << 10, Bytes: 64 << 20, ElapsedNs: 8e9, MiBPerSec: read / 8},
		{Phase: "read", BlockSize: 4 << 10, Bytes: 64 << 20, ElapsedNs: 4e9, MiBPerSec: read / 4},
		{Phase: "write", BlockSize: 1 << 20, Bytes: 64 << 20, ElapsedNs: 2e9, MiBPerSec: read / 2},
		{Phase: "read", BlockSize: 1 << 20, Bytes: 64 << 20, ElapsedNs: 1e9, MiBPerSec: read},
	}}
	return d
}

func pair(id, from, to string, mbit float64) *result.Document {
	at := t0.AddDate(0, 0, 4)
	d := &result.Document{ID: id, Method: "net.client", Status: result.StatusOK, StartedAt: at, EndedAt: at.Add(10 * time.Second),
		Labels: map[string]string{"fleet": "f1", "from": from, "to": to, "host": from}}
	d.Host.Hostname = from
	d.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: to}, Sums: []result.NetSum{
		{Direction: result.DirUp, Receiver: result.NetFigure{Bytes: int64(mbit * 1e6 / 8 * 10), Seconds: 10, BitsPerSecond: mbit * 1e6}}}}
	return d
}

func fixture(t *testing.T) store.Store {
	t.Helper()
	s := emptyStore(t)
	fill(t, s)
	return s
}

// emptyStore is a SQLite store of the test's own, closed after it.
func emptyStore(t *testing.T) *store.DB {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// pgFixture is fixture in a PostgreSQL database of a throwaway cluster.
func pgFixture(t *testing.T) store.Store {
	t.Helper()
	s, err := postgres.Open(pgtest.New(t).NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	fill(t, s)
	return s
}

func fill(t *testing.T, s store.Store) {
	t.Helper()
	docs := []*result.Document{
		sweep("20261101T060000Z-aaaa01", "pi4", 0, 40, map[string]string{"card": "a"}),
		sweep("20261102T060000Z-aaaa02", "pi4", 1, 42, map[string]string{"card": "a"}),
		sweep("20261103T060000Z-bbbb03", "pi4", 2, 21, map[string]string{"card": "b"}),
		sweep("20261104T060000Z-cccc04", "pi5", 3, 90, nil),
		pair("20261105T060000Z-dddd05", "h1", "h2", 94.1),
		pair("20261105T060010Z-dddd06", "h2", "h1", 93.8),
	}
	// Card a in pi4's slot, then card b in its place under the same
	// path, then card a in pi5.
	for i, card := range []string{cardA, cardA, cardB, cardA} {
		docs[i].Targets[0].DeviceID = card
	}
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
}

const cardA, cardB = "sd:03-5344-sr64g-0000aaaa-2018-08", "sd:03-5344-sr64g-0000bbbb-2019-01"

type client struct {
	t   *testing.T
	url string
}

func (c client) do(method, path string, hdr map[string]string, body string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if h := hdr["Host"]; h != "" {
		req.Host = h
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// newClient serves o with Run, as thruput serve does, on a loopback port.
func newClient(t *testing.T, o Options) client {
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "127.0.0.1:0", New(o), func(a net.Addr) { addr <- a }) }()
	var u string
	select {
	case a := <-addr:
		u = "http://" + a.String()
	case err := <-done:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return client{t, u}
}

// The tests with a server run beside each other: each has a server and a
// store of its own, and TestPages and TestToken spend half a second idle
// in their server's shutdown, which waits for a connection their checks
// left open (net/http lingers 500 ms before closing one it refused).
func TestPages(t *testing.T) {
	t.Parallel()
	testPages(t, fixture(t))
}

// TestPagesPostgres: the same pages over PostgreSQL, which refuses some
// text SQLite takes.
func TestPagesPostgres(t *testing.T) { testPages(t, pgFixture(t)) }

func testPages(t *testing.T, s store.Store) {
	c := newClient(t, Options{Store: s, Version: "test"})
	for _, tc := range []struct {
		path string
		code int
		want []string
	}{
		{"/", 200, []string{"20261104T060000Z-cccc04", "pi5", "read 90.0 MiB/s", `href="/fleet/f1"`, `href="/trend?host=pi4&amp;method=disk.sweep"`}},
		{"/?host=pi4&label=card%3Db", 200, []string{"20261103T060000Z-bbbb03"}},
		{"/?since=2026-11-03&until=2026-11-04", 200, []string{"20261103T060000Z-bbbb03"}},
		{"/runs/20261101T060000Z-aaaa01", 200, []string{"<svg", "/mnt/usb", `href="/"`}},
		{"/runs/20261101T06", 200, []string{"<svg"}},
		{"/compare?run=card%3Da&run=card%3Db", 200, []string{"0.51x", "<svg"}},
		{"/trend?host=pi4&method=disk.sweep", 200, []string{"<svg", "3 run(s)", `data-series="8"`, "sd …0000aaaa 1M read /mnt/usb", "sd …0000bbbb 1M read /mnt/usb"}},
		{"/trend?device=" + cardA, 200, []string{"<svg", cardA + ", 3 run(s) over time", `href="/?device=` + url.QueryEscape(cardA)}},
		{"/trend?device=SD:03-5344", 200, []string{"4 run(s)"}},
		{"/?device=" + cardB, 200, []string{"20261103T060000Z-bbbb03", `href="/trend?device=` + url.QueryEscape(cardB)}},
		{"/trend?device=mac:00", 404, []string{"no run of device mac:00"}},
		{"/trend?device=card-a", 400, []string{"want KIND:"}},
		{"/?device=sd:%00", 400, nil},
		{"/fleet/f1", 200, []string{"h1", "h2", "94.1"}},
		{"/runs/nope-nope-nope", 404, []string{"not in the store"}},
		{"/runs/2026", 400, []string{"ambiguous"}},
		{"/fleet/none", 400, []string{"no stored run"}},
		{"/compare", 400, nil},
		{"/compare?run=nope%3Dx", 400, []string{"no stored run matches"}},
		{"/trend?host=pi4", 400, nil},
		{"/trend?host=zz&method=disk.sweep", 404, nil},
		{"/?label=%3D%3D", 400, nil},
		{"/?status=odd", 400, nil},
		{"/?since=yesterday", 400, nil},
		{"/nothing-here", 404, nil},
		{"/runs/../../../etc/passwd", 400, nil},
		{"/runs/..%2f..%2fetc%2fpasswd", 400, nil},
		{"//etc/passwd", 400, nil},
		{"/?host=%00", 400, []string{"not text"}},
		{"/?host=%ff", 400, []string{"not text"}},
		{"/?label=card%3D%ff", 400, nil},
		{"/?method=disk.%00", 400, nil},
		{"/runs/%00abcd", 400, nil},
		{"/runs/%ffabcd", 400, nil},
		{"/trend?host=%ff&method=x", 400, nil},
		{"/compare?run=card%3D%00", 400, nil},
		{"/fleet/%ff", 400, nil},
	} {
		code, body := c.do("GET", tc.path, nil, "")
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d\n%.300s", tc.path, code, tc.code, body)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: no %q in\n%.2000s", tc.path, w, body)
			}
		}
		if strings.Contains(body, "root:") {
			t.Errorf("GET %s: a file of the machine was served", tc.path)
		}
	}
	// Read-only without a token: a change is refused, the run stays.
	if code, _ := c.do("POST", "/runs/20261101T060000Z-aaaa01/delete", map[string]string{"Origin": c.url}, ""); code != 403 {
		t.Errorf("delete on a read-only server: %d", code)
	}
	if _, err := s.Get("20261101T060000Z-aaaa01"); err != nil {
		t.Error(err)
	}
	if code, _ := c.do("POST", "/runs/20261101T060000Z-aaaa01/labels", map[string]string{"Origin": c.url}, "label=card%3Dz"); code != 403 {
		t.Errorf("a label change on a read-only server: %d", code)
	}
	if code, body := c.do("GET", "/runs/20261101T060000Z-aaaa01", nil, ""); code != 200 || strings.Contains(body, "/labels") {
		t.Errorf("a read-only server's run page offers to change labels: %d", code)
	}
	if d, _ := s.Get("20261101T060000Z-aaaa01"); d.Labels["card"] != "a" {
		t.Errorf("a refused label change changed: %v", d.Labels)
	}
	// Without a token, only loopback names are answered: a page of
	// another site rebinding its name to 127.0.0.1 is not.
	port := c.url[strings.LastIndex(c.url, ":")+1:]
	for host, want := range map[string]int{"evil.example:" + port: 421, "evil.example": 421, "127.0.0.1.nip.io:" + port: 421, "192.168.1.2:" + port: 421,
		"localhost:" + port: 200, "127.0.0.1:" + port: 200, "[::1]:" + port: 200, "127.1.2.3": 200, "LOCALHOST.": 200} {
		if code, _ := c.do("GET", "/", map[string]string{"Host": host}, ""); code != want {
			t.Errorf("GET / with Host %s: %d, want %d", host, code, want)
		}
	}
	req, _ := http.NewRequest("GET", c.url+"/", nil)
	req.Header.Set("X-Big", strings.Repeat("y", 64<<10))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != 431 {
			t.Errorf("a 64 KiB header: %d", resp.StatusCode)
		}
	}
}

func TestToken(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	const token = "0123456789abcdef-token"
	c := newClient(t, Options{Store: s, Token: token})
	bearer := map[string]string{"Authorization": "Bearer " + token}
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Cookie": cookieName + "=forged"}} {
		if code, _ := c.do("GET", "/", h, ""); code != 401 {
			t.Errorf("GET / with %v: %d, want 401", h, code)
		}
		if code, _ := c.do("GET", "/metrics", h, ""); code != 401 {
			t.Errorf("GET /metrics with %v: %d, want 401", h, code)
		}
	}
	if code, _ := c.do("GET", "/", map[string]string{"Accept": "text/html"}, ""); code != 303 {
		t.Errorf("a browser without the token is not sent to /login: %d", code)
	}
	if code, _ := c.do("GET", "/", bearer, ""); code != 200 {
		t.Errorf("GET / with the token: %d", code)
	}
	// With a token, any name may reach it (a lab's DNS name).
	if code, _ := c.do("GET", "/", map[string]string{"Authorization": bearer["Authorization"], "Host": "thruput.lab:8080"}, ""); code != 200 {
		t.Errorf("GET / by another name with the token: %d", code)
	}
	// A login gives a cookie that is not the token.
	req, _ := http.NewRequest("POST", c.url+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.url)
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session string
	for _, ck := range resp.Cookies() {
		if ck.Name == cookieName {
			session = ck.Value
		}
	}
	if resp.StatusCode != 303 || session == "" || strings.Contains(session, token) {
		t.Fatalf("login: %d cookie %q", resp.StatusCode, session)
	}
	cookie := map[string]string{"Cookie": cookieName + "=" + session}
	if code, _ := c.do("GET", "/runs/20261101T060000Z-aaaa01", cookie, ""); code != 200 {
		t.Errorf("a page with the login cookie: %d", code)
	}
	if code, _ := c.do("POST", "/login", map[string]string{"Origin": c.url}, "token=wrong"); code != 401 {
		t.Errorf("a wrong login: %d", code)
	}
	// Cross-origin changes are refused, whatever the credentials.
	for _, h := range []map[string]string{
		{"Cookie": cookie["Cookie"], "Origin": "http://evil.example"},
		{"Cookie": cookie["Cookie"], "Referer": "http://evil.example/page"},
		{"Cookie": cookie["Cookie"]},
		{"Authorization": bearer["Authorization"], "Origin": "http://evil.example"},
	} {
		if code, _ := c.do("POST", "/runs/20261101T060000Z-aaaa01/delete", h, ""); code != 403 {
			t.Errorf("a cross-origin delete with %v: %d, want 403", h, code)
		}
	}
	if _, err := s.Get("20261101T060000Z-aaaa01"); err != nil {
		t.Fatalf("a refused delete deleted: %v", err)
	}
	// The server's own page may delete, as may a script with the token.
	if code, _ := c.do("POST", "/runs/20261101T060000Z-aaaa01/delete", map[string]string{"Cookie": cookie["Cookie"], "Origin": c.url}, ""); code != 303 {
		t.Errorf("a same-origin delete: %d", code)
	}
	if code, _ := c.do("POST", "/runs/20261102T060000Z-aaaa02/delete", bearer, ""); code != 303 {
		t.Errorf("a delete with the bearer token: %d", code)
	}
	if code, _ := c.do("POST", "/runs/20261102T060000Z-aaaa02/delete", bearer, ""); code != 404 {
		t.Errorf("deleting an unknown run: %d", code)
	}
	if es, _ := s.List(store.Filter{Host: "pi4"}); len(es) != 1 {
		t.Errorf("%d runs of pi4 left, want 1", len(es))
	}

	// Labels: the run's page offers the form; changes take the same
	// checks as delete.
	const run = "/runs/20261103T060000Z-bbbb03"
	if code, body := c.do("GET", run, cookie, ""); code != 200 || !strings.Contains(body, `action="/runs/20261103T060000Z-bbbb03/labels"`) || !strings.Contains(body, "card=b") {
		t.Errorf("the run's page with a token has no label form: %d", code)
	}
	for _, h := range []map[string]string{
		{"Cookie": cookie["Cookie"], "Origin": "http://evil.example"},
		{"Cookie": cookie["Cookie"]},
		{"Authorization": bearer["Authorization"], "Origin": "http://evil.example"},
		{"Origin": c.url},
	} {
		if code, _ := c.do("POST", run+"/labels", h, "label=card%3Devil"); code != 403 && code != 401 {
			t.Errorf("a cross-origin or unauthorized label change with %v: %d", h, code)
		}
	}
	if d, _ := s.Get("20261103T060000Z-bbbb03"); d.Labels["card"] != "b" {
		t.Fatalf("a refused label change changed the labels: %v", d.Labels)
	}
	same := map[string]string{"Cookie": cookie["Cookie"], "Origin": c.url}
	if code, _ := c.do("POST", run+"/labels", same, "label=slot%3D2&label=card%3Dc"); code != 303 {
		t.Errorf("a same-origin label change: %d", code)
	}
	if code, _ := c.do("POST", "/runs/20261103T06/labels", bearer, "label=card%3D"); code != 303 {
		t.Errorf("removing a label with the bearer token: %d", code)
	}
	if d, _ := s.Get("20261103T060000Z-bbbb03"); len(d.Labels) != 1 || d.Labels["slot"] != "2" {
		t.Errorf("after setting slot=2 and card=c, then removing card: %v", d.Labels)
	}
	if es, _ := s.List(store.Filter{Labels: []store.LabelQuery{{Key: "slot", Value: "2"}}}); len(es) != 1 {
		t.Errorf("the list does not find the new label: %v", es)
	}
	for body, want := range map[string]int{"label=bad+key%3Dx": 400, "": 400, "label=k%3D%00": 400, "label=k%3D%ff": 400} {
		if code, _ := c.do("POST", run+"/labels", bearer, body); code != want {
			t.Errorf("labels %q: %d, want %d", body, code, want)
		}
	}
	if code, _ := c.do("POST", "/runs/nope-nope-nope/labels", bearer, "label=a%3Db"); code != 404 {
		t.Errorf("labelling an unknown run: %d", code)
	}
	// An oversized body, to a route that reads it, is refused.
	if code, _ := c.do("POST", run+"/labels", bearer, "label=a%3D"+strings.Repeat("x", 1<<20)); code != 413 {
		t.Errorf("an oversized POST: %d, want 413", code)
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:8080", false, true}, {"[::1]:8080", false, true}, {"localhost:8080", false, true},
		{"0.0.0.0:8080", false, false}, {":8080", false, false}, {"192.168.1.2:80", false, false},
		{"0.0.0.0:8080", true, true}, {"nonsense", true, false},
	} {
		if err := CheckListen(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckListen(%s, %v) = %v", c.addr, c.token, err)
		}
	}
}

// TestMetrics: promtool accepts /metrics, and it is what the export gives.
func TestMetrics(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	c := newClient(t, Options{Store: s})
	code, body := c.do("GET", "/metrics", nil, "")
	if code != 200 || !strings.Contains(body, `thruput_disk_sweep_bytes_per_second{block_size="1M",device_id="`+cardB+`",host="pi4",phase="read",target="/mnt/usb"} 2.2020096e+07`) {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if strings.Contains(body, "aaaa01") || strings.Contains(body, "card=") {
		t.Error("/metrics names a run or a run's label")
	}
	promtest.Check(t, []byte(body))
}

// TestDirections: one client's runs to one server up, down, both ways at
// once (--bidir) and up over another interface are series of their own,
// the same for /metrics (the newest of each direction) and for the
// alerts (one alert a series, judged on its own runs).
func TestDirections(t *testing.T) {
	t.Parallel()
	s := emptyStore(t)
	run := func(hour int, dir, iface string, mbit ...float64) *result.Document {
		at := t0.Add(time.Duration(hour) * time.Hour)
		d := &result.Document{ID: at.Format("20060102T150405Z") + "-dir000", Method: result.MethodNetClient, Status: result.StatusOK, StartedAt: at, EndedAt: at.Add(10 * time.Second)}
		d.Host.Hostname = "pi4"
		d.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "10.0.0.9:5201", Direction: dir, Interface: iface}}
		for i, m := range mbit {
			sum := result.NetSum{Direction: []string{result.DirUp, result.DirDown}[i], Receiver: result.NetFigure{Bytes: int64(m * 1e6 / 8 * 10), Seconds: 10, BitsPerSecond: m * 1e6}}
			if dir == result.DirDown {
				sum.Direction = result.DirDown
			}
			d.Net.Sums = append(d.Net.Sums, sum)
		}
		return d
	}
	docs := []*result.Document{
		run(0, result.DirUp, "wlan0", 30),
		run(1, result.DirUp, "eth0", 100),
		run(2, result.DirDown, "eth0", 50),
		run(3, "bidir", "eth0", 80, 40),
		run(4, result.DirUp, "eth0", 90),
	}
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Store: s})
	code, body := c.do("GET", "/metrics", nil, "")
	for _, want := range []string{
		`thruput_net_bytes_per_second{direction="up",host="pi4",peer="10.0.0.9:5201",role="client"} 1.125e+07`,
		`thruput_net_bytes_per_second{direction="down",host="pi4",peer="10.0.0.9:5201",role="client"} 5e+06`,
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, want the line\n%s\nin\n%s", code, want, body)
		}
	}
	f, err := alert.Parse([]byte("rules:\n  - {name: slow, match: {method: net.client}, below: 60 Mbit/s}\n"), "alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := alert.Peek(s, f, filepath.Join(t.TempDir(), "state.json"), "k")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range ev.Alerts {
		got = append(got, fmt.Sprintf("%s %s %s %s", a.Series.Direction, a.Series.Interface, alert.FormatFigure(*a.Figure), a.State))
	}
	want := []string{"up wlan0 30.0 Mbit/s firing", "up eth0 90.0 Mbit/s ok", "down eth0 50.0 Mbit/s firing", "bidir eth0 80.0 Mbit/s ok"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("alerts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestOlderRuns: the list's "Older runs" links page through runs that
// share a start time without losing or repeating any.
func TestOlderRuns(t *testing.T) {
	t.Parallel()
	s := emptyStore(t)
	var docs []*result.Document
	for i := range 230 {
		docs = append(docs, sweep(fmt.Sprintf("20261110T060000Z-p%05d", i), "pi4", 9+min(i, 20)/10, 40, nil))
	}
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Store: s})
	row := regexp.MustCompile(`<tr data-id="([^"]+)">`)
	older := regexp.MustCompile(`<a href="(/\?[^"]+)">Older runs</a>`)
	seen := map[string]bool{}
	pages := 0
	for path := "/"; path != ""; pages++ {
		code, body := c.do("GET", path, nil, "")
		if code != 200 || pages > 5 {
			t.Fatalf("GET %s: %d (page %d)", path, code, pages)
		}
		for _, m := range row.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("%s is on two pages", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := older.FindStringSubmatch(body); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	if len(seen) != 230 || pages != 3 {
		t.Errorf("%d pages showed %d of the 230 runs", pages, len(seen))
	}
}

// TestAlerts: with rules (serve --alerts) the run list shows the alerts
// that are not ok, each linked to its trend, and a trend those of its
// series, with the runs of their streaks marked on its charts.
func TestAlerts(t *testing.T) {
	s := fixture(t)
	f, err := alert.Parse([]byte(`rules:
  - {name: slow-card, match: {method: disk.sweep}, below: 30 MiB/s}
  - {name: link, match: {method: net.client}, below: 10 Mbit/s}
`), "alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	c := newClient(t, Options{Store: s, Alerts: func() (*alert.Evaluation, error) { return alert.Peek(s, f, state, "k") }})
	code, body := c.do("GET", "/", nil, "")
	if code != http.StatusOK || !strings.Contains(body, "<h2>Alerts</h2>") || !strings.Contains(body, `<tr class="alert-firing"><td>slow-card</td><td><a href="/trend?host=pi4&amp;method=disk.sweep">pi4 /mnt/usb</a>`) ||
		strings.Contains(body, "<td>link</td>") {
		t.Errorf("the list's alerts: %d\n%s", code, body)
	}
	// The run that fired is marked on the trend's charts.
	code, body = c.do("GET", "/trend?host=pi4&method=disk.sweep", nil, "")
	if code != http.StatusOK || !strings.Contains(body, "20261103T060000Z-bbbb03: 21.0 MiB/s: slow-card firing") || !strings.Contains(body, ">alerts<") {
		t.Errorf("the trend's marks: %d\n%s", code, body)
	}
	code, body = c.do("GET", "/trend?host=h1&method=net.client", nil, "")
	if code != http.StatusOK || !strings.Contains(body, `<tr class="alert-ok"><td>link</td>`) || strings.Contains(body, "slow-card") {
		t.Errorf("the trend's alerts: %d\n%s", code, body)
	}
}
