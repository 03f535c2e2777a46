package serve

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

// pageSize is the runs a list page shows; older ones are a link away.
const pageSize = 100

type listPage struct {
	Runs     []listRun
	Alerts   []alertRow
	Query    url.Values
	Older    string
	Writable bool
	Version  string
	Count    int
	Statuses []string
}

// alertRow is an alert as report.AlertRow words it, with its series'
// trend.
type alertRow struct {
	Cells []string
	State string
	Trend string
}

// alerts are the alerts of the rules (Options.Alerts) that keep: all, or
// those of one host and method.
func (s *Server) alerts(keep func(alert.Alert) bool) ([]alertRow, error) {
	if s.o.Alerts == nil {
		return nil, nil
	}
	ev, err := s.o.Alerts()
	if err != nil {
		return nil, err
	}
	var out []alertRow
	for _, a := range ev.Alerts {
		if keep(a) {
			out = append(out, alertRow{Cells: report.AlertRow(a), State: a.State,
				Trend: "/trend?" + url.Values{"host": {a.Series.Host}, "method": {a.Series.Method}}.Encode()})
		}
	}
	return out, nil
}

type listRun struct {
	store.Entry
	Labels string
	Fleet  string
	Trend  string
}

// when reads a time filter: what --since and --until take, or an exact
// time.
func when(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return store.ParseWhen(s, time.Now())
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.Filter{Method: q.Get("method"), Host: q.Get("host"), Status: q.Get("status"), Limit: pageSize}
	var err error
	if d := q.Get("device"); d != "" {
		if f.Device, err = result.ParseDeviceID(d); err != nil {
			s.fail(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	for _, l := range q["label"] {
		if l == "" {
			continue
		}
		lq, err := store.ParseLabelQuery(l)
		if err != nil {
			s.fail(w, http.StatusBadRequest, err.Error())
			return
		}
		f.Labels = append(f.Labels, lq)
	}
	if f.Since, err = when(q.Get("since")); err != nil {
		s.fail(w, http.StatusBadRequest, "since: "+err.Error())
		return
	}
	if f.Until, err = when(q.Get("until")); err != nil {
		s.fail(w, http.StatusBadRequest, "until: "+err.Error())
		return
	}
	// The page before ended at this run: the next starts after it.
	if f.BeforeID = q.Get("before_id"); f.BeforeID != "" {
		if f.Before, err = time.Parse(time.RFC3339Nano, q.Get("before")); err != nil {
			s.fail(w, http.StatusBadRequest, "before: want the time an older-runs link carries")
			return
		}
	}
	switch f.Status {
	case "", result.StatusOK, result.StatusPartial, result.StatusFailed, result.StatusInterrupted:
	default:
		s.fail(w, http.StatusBadRequest, "status: ok, partial, failed or interrupted")
		return
	}
	es, err := s.o.Store.List(f)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	p := listPage{Query: q, Writable: s.o.Token != "", Version: s.o.Version, Count: len(es),
		Statuses: []string{result.StatusOK, result.StatusPartial, result.StatusFailed, result.StatusInterrupted}}
	// The alerts a person should see on the first page: those not ok.
	if f.BeforeID == "" {
		if p.Alerts, err = s.alerts(func(a alert.Alert) bool { return a.State != alert.StateOK && a.State != alert.StateNoData }); err != nil {
			s.fail(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	for _, e := range es {
		e.Summary = report.Summary(e.Method, e.Summary, s.o.Units)
		p.Runs = append(p.Runs, listRun{Entry: e, Fleet: e.Labels["fleet"], Labels: labelList(e.Labels),
			Trend: "/trend?" + url.Values{"host": {e.Host}, "method": {string(e.Method)}}.Encode()})
	}
	if len(es) == pageSize {
		last := es[len(es)-1]
		older := url.Values{}
		for k, v := range q {
			older[k] = v
		}
		older.Set("before", last.StartedAt.Format(time.RFC3339Nano))
		older.Set("before_id", last.ID)
		p.Older = "/?" + older.Encode()
	}
	s.html(w, "list.html", p)
}

func (s *Server) html(w http.ResponseWriter, name string, data any) {
	s.htmlCode(w, http.StatusOK, name, data)
}

func (s *Server) htmlCode(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, name, data); err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// storeErr answers a store or selection error: what the request named
// wrongly is 4xx, anything else the server's fault.
func (s *Server) storeErr(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(w, http.StatusNotFound, err.Error())
	case errors.Is(err, store.ErrAmbiguous), usage.Is(err):
		s.fail(w, http.StatusBadRequest, err.Error())
	default:
		s.fail(w, http.StatusInternalServerError, err.Error())
	}
}

// runNav is the bar above a report: a way back to the list and, on a
// single run's page of a server that may change the store, its labels
// with a form to edit them.
type runNav struct {
	ID, Labels string
	Writable   bool
}

// report answers with report's page of docs, a way back to the list
// added at its top.
func (s *Server) report(w http.ResponseWriter, docs []*result.Document, cmp *compare.Comparison) {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, docs, cmp, report.HTMLOptions{Units: s.o.Units}); err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	var nav runNav
	if _, ok := s.o.Store.(store.Labeler); ok && len(docs) == 1 && cmp == nil && s.o.Token != "" {
		nav = runNav{ID: docs[0].ID, Labels: labelList(docs[0].Labels), Writable: true}
	}
	var nb bytes.Buffer
	nb.WriteString("<body>")
	if err := pages().ExecuteTemplate(&nb, "runnav", nav); err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	// A report written to a file sends no referrer; served, its label
	// form must name its origin, as Chromium sends Origin: null from a
	// no-referrer page and the change would be refused as cross-origin.
	page := bytes.Replace(b.Bytes(), []byte(`<meta name="referrer" content="no-referrer">`), []byte(`<meta name="referrer" content="same-origin">`), 1)
	if i := bytes.Index(page, []byte("<body>")); i >= 0 {
		page = append(page[:i:i], append(nb.Bytes(), page[i+len("<body>"):]...)...)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	d, err := s.o.Store.Get(r.PathValue("id"))
	if err != nil {
		s.storeErr(w, err)
		return
	}
	s.report(w, []*result.Document{d}, nil)
}

// compare puts the runs named by run= (ids or label queries, as
// `thruput compare` takes them) side by side.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	args := r.URL.Query()["run"]
	if len(args) == 0 {
		s.fail(w, http.StatusBadRequest, "name the runs: /compare?run=ID&run=ID, or label queries such as run=fs=ext4")
		return
	}
	docs, cmp, err := store.Select(s.o.Store, args, store.Selection{Method: r.URL.Query().Get("method")})
	if err != nil {
		s.storeErr(w, err)
		return
	}
	s.report(w, docs, cmp)
}

func (s *Server) fleet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if strings.ContainsAny(id, ",=") {
		s.fail(w, http.StatusBadRequest, "a fleet id")
		return
	}
	docs, _, err := store.Select(s.o.Store, []string{"fleet=" + id}, store.Selection{})
	if err != nil {
		s.storeErr(w, err)
		return
	}
	s.report(w, docs, nil)
}

// trendRuns bounds the runs a trend reads: a year of daily runs.
const trendRuns = 400

type trendPage struct {
	Host, Method string
	// Device is the hardware id of a device's page: one card's figures
	// over its life, whatever host or slot it was in.
	Device  string
	Alerts  []alertRow
	Runs    int
	Charts  []template.HTML
	Version string
}

func (s *Server) trend(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := trendPage{Host: q.Get("host"), Method: q.Get("method"), Version: s.o.Version}
	f := store.Filter{Host: p.Host, Method: p.Method, Status: result.StatusOK, Limit: trendRuns}
	what := p.Method + " on " + p.Host
	switch d := q.Get("device"); {
	case d != "":
		id, err := result.ParseDeviceID(d)
		if err != nil {
			s.fail(w, http.StatusBadRequest, err.Error())
			return
		}
		p.Device, f.Device, what = id, id, "device "+id
	case p.Host == "" || p.Method == "":
		s.fail(w, http.StatusBadRequest, "name a host and a method, or a device: /trend?host=pi4&method=disk.sweep, /trend?device=sd:03-5344")
		return
	}
	docs, err := s.o.Store.Documents(f)
	if err != nil {
		s.storeErr(w, err)
		return
	}
	if len(docs) == 0 {
		s.fail(w, http.StatusNotFound, "no run of "+what+" ended ok")
		return
	}
	p.Runs = len(docs)
	// The runs of each alert's streak are marked on the charts.
	marks := map[string]string{}
	if p.Alerts, err = s.alerts(func(a alert.Alert) bool {
		if a.Series.Host != p.Host || a.Series.Method != p.Method {
			return false
		}
		for _, id := range a.RunIDs {
			marks[id] = strings.TrimPrefix(marks[id]+", ", ", ") + a.Rule + " " + a.State
		}
		return true
	}); err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, c := range report.Trend(docs, s.o.Units, marks) {
		svg, err := c.SVG()
		if err != nil {
			s.fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		// Our own chart code drew it.
		p.Charts = append(p.Charts, template.HTML(svg))
	}
	s.html(w, "trend.html", p)
}

// metrics is the Prometheus text format of the newest run of every host,
// method and target: what `results export --format openmetrics` writes.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	docs, err := s.o.Store.Latest(store.Filter{})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	var b bytes.Buffer
	if err := report.WriteMetrics(&b, docs); err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}

// labelList is labels as sorted key=value words.
func labelList(labels map[string]string) string {
	var ls []string
	for k, v := range labels {
		ls = append(ls, k+"="+v)
	}
	slices.Sort(ls)
	return strings.Join(ls, " ")
}

// label sets (key=value) or removes (key=) a run's labels, one edit per
// label field, and shows the run again.
func (s *Server) label(w http.ResponseWriter, r *http.Request) {
	l, ok := s.o.Store.(store.Labeler)
	if s.o.Token == "" || !ok {
		s.fail(w, http.StatusForbidden, "this server is read-only: start it with --token-file to allow changing labels")
		return
	}
	if !s.parseForm(w, r) {
		return
	}
	for _, v := range r.PostForm["label"] {
		if !isText(v) {
			s.fail(w, http.StatusBadRequest, "a label that is not text (a NUL byte or invalid UTF-8)")
			return
		}
	}
	set, remove, err := store.ParseLabelEdits(r.PostForm["label"])
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	id, _, err := l.Label(r.PathValue("id"), set, remove)
	if err != nil {
		s.storeErr(w, err)
		return
	}
	http.Redirect(w, r, "/runs/"+url.PathEscape(id), http.StatusSeeOther)
}

// parseForm reads a POST's form, answering a body too large (413) or
// malformed (400) itself.
func (s *Server) parseForm(w http.ResponseWriter, r *http.Request) bool {
	err := r.ParseForm()
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooBig):
		s.fail(w, http.StatusRequestEntityTooLarge, "the request is too large")
	default:
		s.fail(w, http.StatusBadRequest, err.Error())
	}
	return false
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	if s.o.Token == "" {
		s.fail(w, http.StatusForbidden, "this server is read-only: start it with --token-file to allow deleting runs")
		return
	}
	if _, err := s.o.Store.Delete(r.PathValue("id")); err != nil {
		s.storeErr(w, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	s.html(w, "login.html", map[string]any{"Version": s.o.Version, "Wrong": false})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.o.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.parseForm(w, r) {
		return
	}
	r.Header.Set("Authorization", "Bearer "+r.PostForm.Get("token"))
	if !s.authorized(r) {
		s.htmlCode(w, http.StatusUnauthorized, "login.html", map[string]any{"Version": s.o.Version, "Wrong": true})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.session(), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
