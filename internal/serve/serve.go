// Package serve is thruput's dashboard: the result history as web pages
// (the run list with filters, each run's report, comparisons, trends, the
// fleet's network matrix) and /metrics for Prometheus, read from any
// store. Pages load nothing from anywhere: style and charts are inline.
package serve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/thruput/thruput/internal/alert"
	"github.com/thruput/thruput/internal/store"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are parsed on first use, not at start-up: every run of the
// binary would pay for them, and only the dashboard needs them.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05")
		},
		// query is a link's query string, already escaped: as a plain
		// string, html/template would escape its '=' and '&' once more.
		"query": func(kv ...string) template.URL {
			v := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return template.URL(v.Encode())
		},
	}).ParseFS(templateFS, "templates/*.html"))
})

// Options configure a server.
type Options struct {
	Store store.Store
	// Token, when set, is needed for every page (a bearer token, or the
	// cookie /login gives) and allows deleting runs and changing their
	// labels; without it the server is read-only and must listen on
	// loopback.
	Token string
	// Units is the pages' unit system, as report's.
	Units string
	// Version is thruput's, for the footer.
	Version string
	// Alerts, when set (serve --alerts), judges the rules over the store
	// as alerts check would, sending nothing: the run list shows the
	// alerts that are not ok, a trend those of its series.
	Alerts func() (*alert.Evaluation, error)
}

// Server is the dashboard's handler.
type Server struct {
	o   Options
	mux *http.ServeMux
}

// New makes the handler.
func New(o Options) *Server {
	s := &Server{o: o, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.list)
	s.mux.HandleFunc("GET /runs/{id}", s.run)
	s.mux.HandleFunc("POST /runs/{id}/delete", s.delete)
	s.mux.HandleFunc("POST /runs/{id}/labels", s.label)
	s.mux.HandleFunc("GET /compare", s.compare)
	s.mux.HandleFunc("GET /trend", s.trend)
	s.mux.HandleFunc("GET /fleet/{id}", s.fleet)
	s.mux.HandleFunc("GET /metrics", s.metrics)
	s.mux.HandleFunc("GET /login", s.loginForm)
	s.mux.HandleFunc("POST /login", s.login)
	return s
}

// maxBody bounds what a request may send: forms of a token or nothing.
const maxBody = 16 << 10

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The pages are self-contained: nothing may load, nothing may run.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	}
	// Without a token the server trusts whoever reaches loopback; a page
	// of another site whose name was made to resolve to 127.0.0.1 (DNS
	// rebinding) reaches it too, but names its own host.
	if s.o.Token == "" && !loopbackHost(r.Host) {
		s.fail(w, http.StatusMisdirectedRequest, "this server answers only to loopback names (localhost, 127.0.0.1, [::1]): start it with --token-file to serve other names")
		return
	}
	// No page has a path with dot segments: refused, not redirected to
	// what they would resolve to.
	if p := r.URL.Path; strings.Contains(p, "/..") || strings.Contains(p, "/./") || strings.Contains(p, "//") || strings.Contains(p, "\\") {
		s.fail(w, http.StatusBadRequest, "a path with dot segments")
		return
	}
	if s.o.Token != "" && r.URL.Path != "/login" && !s.authorized(r) {
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		h.Set("WWW-Authenticate", `Bearer realm="thruput"`)
		s.fail(w, http.StatusUnauthorized, "a token is needed: Authorization: Bearer <token>, or log in at /login")
		return
	}
	if r.Method == http.MethodPost && !s.sameOrigin(r) {
		s.fail(w, http.StatusForbidden, "a change must come from this server's own pages (cross-origin request refused)")
		return
	}
	// Text the store would refuse to compare (PostgreSQL takes no NUL
	// byte or invalid UTF-8) is the request's fault, said before any
	// query.
	if !isText(r.URL.Path) {
		s.fail(w, http.StatusBadRequest, "the path is not text (a NUL byte or invalid UTF-8)")
		return
	}
	for k, vs := range r.URL.Query() {
		for _, v := range append(vs, k) {
			if !isText(v) {
				s.fail(w, http.StatusBadRequest, fmt.Sprintf("%.40q is not text (a NUL byte or invalid UTF-8)", k))
				return
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

// isText is a value a store can hold and compare: UTF-8 without NUL.
func isText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// loopbackHost says whether a Host header names this machine's loopback:
// localhost (and names under .localhost, which resolvers keep on
// loopback) or a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// cookieName holds a login: the token's HMAC, never the token.
const cookieName = "thruput_session"

func (s *Server) session() string {
	m := hmac.New(sha256.New, []byte(s.o.Token))
	m.Write([]byte("thruput serve session"))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) authorized(r *http.Request) bool {
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare([]byte(bearer), []byte(s.o.Token)) == 1
	}
	c, err := r.Cookie(cookieName)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.session())) == 1
}

// sameOrigin is the CSRF check of a state-changing request: a browser
// names the page that sent it in Origin (or Referer), and it must be this
// server. A request with neither comes from no browser page; it must
// carry the bearer token, which a page of another site cannot add.
func (s *Server) sameOrigin(r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Header.Get("Referer")
	}
	if from == "" {
		return strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	u, err := url.Parse(from)
	return err == nil && u.Host == r.Host && (u.Scheme == "http" || u.Scheme == "https")
}

func (s *Server) fail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	pages().ExecuteTemplate(w, "error.html", map[string]any{"Code": code, "Status": http.StatusText(code), "Message": msg, "Version": s.o.Version})
}

// CheckListen refuses an address other than loopback without a token:
// the history names machines, paths and networks, and delete changes it.
func CheckListen(addr string, token bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %s: want HOST:PORT (127.0.0.1:8080): %v", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("--listen %s: the port must be a number from 0 to 65535 (0 picks a free one)", addr)
	}
	if token {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--listen %s is not loopback: give --token-file FILE, so that only who holds the token reads the history", addr)
}

// ListenError is an address Run could not listen on (in use, not this
// machine's): the user's --listen to fix, as net server's -p is.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string {
	msg := e.Err.Error()
	if errors.Is(e.Err, syscall.EADDRINUSE) {
		msg = "the port is in use; pick another"
	}
	return fmt.Sprintf("--listen %s: %s", e.Addr, msg)
}

func (e *ListenError) Unwrap() error { return e.Err }

// Run serves h on addr until ctx ends, then lets requests under way
// finish for up to 10 s. ready, when set, is told the address listened on.
func Run(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &ListenError{Addr: addr, Err: err}
	}
	srv := &http.Server{
		Handler: h,
		// Slow or stuck clients are cut off rather than held forever.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	if ready != nil {
		ready(ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
