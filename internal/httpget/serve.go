package httpget

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/payload"
)

// Content returns size bytes of incompressible data: a compressing link
// or proxy must not make the download look faster than the wire.
func Content(size int) []byte {
	b := make([]byte, size)
	payload.Fill(b)
	return b
}

// Serving bounds. A client that takes nothing for writeStall is dropped,
// so a vanished peer does not hold a goroutine and a socket forever; the
// bound is per chunk, not per response, so a slow link can still take a
// large file.
const (
	chunk      = 1 << 20
	writeStall = time.Minute
)

// Handler serves data read-only at every path: GET and HEAD, ranges too.
// Every request shares data; nothing is copied per request.
func Handler(data []byte, logf func(format string, args ...any)) http.Handler {
	return &handler{data: data, logf: logf}
}

type handler struct {
	data []byte
	logf func(format string, args ...any)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	start := time.Now()
	cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	// A cache on the way would be measured instead of the link.
	hd.Set("Cache-Control", "no-store")
	if r.Header.Get("Range") != "" {
		// The rare case gets the standard library's full treatment
		// (multiple ranges, If-Range, 416); without a modification time
		// or ETag there is no validator to match, so conditional requests
		// get the whole body, as they must.
		http.ServeContent(cw, r, "", time.Time{}, bytes.NewReader(h.data))
	} else {
		// The common case writes the buffer in large slices itself:
		// ServeContent would copy it through a 32 KiB buffer, one system
		// call each, and over loopback the server would be the limit.
		hd.Set("Accept-Ranges", "bytes")
		hd.Set("Content-Length", strconv.Itoa(len(h.data)))
		cw.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			rc := http.NewResponseController(w)
			for off := 0; off < len(h.data); off += chunk {
				_ = rc.SetWriteDeadline(time.Now().Add(writeStall))
				if _, err := cw.Write(h.data[off:min(off+chunk, len(h.data))]); err != nil {
					break
				}
			}
		}
	}
	el := time.Since(start)
	h.logf("%s %s from %s: %d, %d bytes in %.3f s (%.1f MiB/s)", r.Method, r.URL.RequestURI(), r.RemoteAddr, cw.status,
		cw.n, el.Seconds(), float64(cw.n)/(1<<20)/max(el.Seconds(), 1e-9))
}

// countingWriter notes the status and the body bytes sent, for the log.
type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Serve serves h on ln until ctx ends, then drops every connection at
// once: Ctrl-C on a server means stop now, not after the downloads.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, errLog io.Writer) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(errLog, "thruput: ", 0),
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
