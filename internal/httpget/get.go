// Package httpget is wget's method: download one URL into nothing
// and time it, the average over the transfer and the peak over windows of
// it. It also serves a generated file from memory for it to download, so a
// LAN server's disk plays no part.
package httpget

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/stats"
	"github.com/thruput/thruput/internal/usage"
)

// BufferSize is the one buffer every read of a body goes into. Reads of a
// quarter MiB let a fast loopback transfer make few system calls, while
// on a slow link each read returns what arrived anyway.
const BufferSize = 256 << 10

// maxRedirects is what curl and Go's own client stop at.
const maxRedirects = 10

// Config is one download, perhaps repeated: the parameters the result
// records (TimeoutNs bounds connecting, the wait for the response headers
// and any stall of the body, as wget's --timeout does; BufferSize is
// always BufferSize), and how to run it.
type Config struct {
	result.HTTPParameters
	UserAgent string
	// Stable is --until-stable and --sustained: a download may end before
	// its body does once its rate is known; each carries its interval.
	Stable stable.Options
}

func (c Config) window() time.Duration  { return time.Duration(c.WindowNs) }
func (c Config) timeout() time.Duration { return time.Duration(c.TimeoutNs) }

// Validate checks the config, naming the field at fault.
func (c Config) Validate() error {
	u, err := url.Parse(c.URL)
	if err != nil {
		return usage.Errorf("URL %q: %v", c.URL, errors.Unwrap(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return usage.Errorf("URL %q: give an http:// or https:// URL", c.URL)
	}
	if u.Hostname() == "" {
		return usage.Errorf("URL %q: no host", c.URL)
	}
	if c.window() < 100*time.Millisecond || c.window() > time.Hour {
		return usage.Invalidf("{WindowNs} %v: from 100ms to 1h", c.window())
	}
	if c.timeout() < 100*time.Millisecond {
		return usage.Invalidf("{TimeoutNs} %v: at least 100ms", c.timeout())
	}
	if c.Repeat < 1 || c.Repeat > 1000 {
		return usage.Invalidf("{Repeat} %d: from 1 to 1000", c.Repeat)
	}
	return nil
}

// Get downloads c.URL c.Repeat times, filling out in place: each run is
// appended as it ends, and Get stops at the first that fails, keeping what
// it measured. h.Progress hears about every progress.Interval while a body
// arrives, from another goroutine: the run (Run of Runs), the bytes so
// far, the declared length (Total, -1 unknown) and the time since the
// first byte.
func Get(ctx context.Context, c Config, out *result.HTTP, h progress.Hooks) error {
	if err := c.Validate(); err != nil {
		return err
	}
	out.Parameters = c.HTTPParameters
	out.Parameters.BufferSize = BufferSize
	out.Runs = []result.HTTPRun{}
	buf := make([]byte, BufferSize)
	var err error
	for i := 1; i <= c.Repeat && err == nil; i++ {
		var run result.HTTPRun
		run, err = c.once(ctx, i, buf, h)
		if err != nil {
			run.Error = err.Error()
		}
		out.Runs = append(out.Runs, run)
	}
	out.Summary = summarize(out.Runs)
	return err
}

// errStalled ends a body that stopped arriving for Timeout.
var errStalled = errors.New("stalled")

// errKnown ends a body early: its rate is known (--until-stable).
var errKnown = errors.New("the rate is known")

func (c Config) once(parent context.Context, n int, buf []byte, h progress.Hooks) (run result.HTTPRun, err error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// A fresh transport per run: each run connects anew, as separate wget
	// runs do, so every TTFB includes the connect.
	tr := &http.Transport{
		// Straight to the server: through a proxy, the proxy would be what
		// is measured (and tests must never leave their namespaces).
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{Timeout: c.timeout()}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return newRawConn(conn)
		},
		TLSHandshakeTimeout:   c.timeout(),
		ResponseHeaderTimeout: c.timeout(),
		// Go would otherwise ask for gzip and count the inflated bytes.
		DisableCompression: true,
		TLSClientConfig:    &tls.Config{InsecureSkipVerify: c.Insecure},
		// HTTP/1.1 only, as wget: one TCP stream and no framing, so the
		// figure is the link's and not HTTP/2's flow control's.
		Protocols: new(http.Protocols),
	}
	tr.Protocols.SetHTTP1(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		run.Redirects = len(via)
		return nil
	}}
	// The trace runs on the transport's goroutines; the mutex orders its
	// writes before the reads below for the race detector's sake too.
	var mu sync.Mutex
	var first time.Time
	var remote, local string
	trace := &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			mu.Lock()
			remote, local = i.Conn.RemoteAddr().String(), i.Conn.LocalAddr().String()
			mu.Unlock()
		},
		GotFirstResponseByte: func() {
			mu.Lock()
			first = time.Now()
			mu.Unlock()
		},
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, c.URL, nil)
	if err != nil {
		return run, usage.Errorf("URL %q: %v", c.URL, err)
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept-Encoding", "identity")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		run.TotalNs = int64(time.Since(start))
		return run, c.requestError(parent, err)
	}
	defer resp.Body.Close()
	mu.Lock()
	origin := first
	run.RemoteAddr, run.LocalAddr = remote, local
	mu.Unlock()
	if origin.IsZero() {
		origin = time.Now()
	}
	run.TTFBNs = int64(origin.Sub(start))
	run.StatusCode, run.Protocol, run.FinalURL = resp.StatusCode, resp.Proto, resp.Request.URL.String()
	if resp.ContentLength >= 0 {
		run.ContentLength = &resp.ContentLength
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		run.TotalNs = int64(time.Since(start))
		return run, fmt.Errorf("GET %s: HTTP %s", run.FinalURL, resp.Status)
	}

	var count atomic.Int64
	sm := c.Stable.Meter()
	m := startMeter(origin, c.window(), c.timeout(), &count, func(b int64, el time.Duration) {
		h.Report(progress.Report{Run: n, Runs: c.Repeat, Bytes: b, Total: resp.ContentLength, Elapsed: el})
	}, func() { cancel(errStalled) }, sm, func() { cancel(errKnown) })
	var readErr error
	for {
		k, err := resp.Body.Read(buf)
		count.Add(int64(k))
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	end := time.Now()
	samples := m.stop(end)
	run.Bytes = count.Load()
	run.TransferNs, run.TotalNs = int64(end.Sub(origin)), int64(end.Sub(start))
	var iv *stable.Interval
	run.MiBPerSec, iv = sm.Figure(result.MiBPerSec(run.Bytes, run.TransferNs), true)
	run.Interval = result.IntervalOf(iv)
	run.BitsPerSecond = mibToBits(run.MiBPerSec)
	run.Windows, run.PeakMiBPerSec = windows(samples, c.window())
	run.PeakBitsPerSecond = mibToBits(run.PeakMiBPerSec)
	if readErr != nil && errors.Is(context.Cause(ctx), errKnown) {
		readErr = nil
	}
	if readErr != nil {
		return run, c.bodyError(parent, ctx, readErr, run.Bytes, resp.ContentLength)
	}
	return run, nil
}

// requestError says what kept a response from coming, in the words people
// search for.
func (c Config) requestError(parent context.Context, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("%w before a response", context.Canceled)
	}
	host := c.URL
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var ne net.Error
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("cannot resolve %s: %v", dns.Name, dns.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connect to %s: connection refused (no server on that port?)", host)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Errorf("connect to %s: host unreachable", host)
	case errors.As(err, &cert):
		return fmt.Errorf("%s: the server's certificate: %v (--insecure skips the check)", host, cert.Err)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s: no response within %v (--timeout)", host, c.timeout())
	case ue != nil:
		return fmt.Errorf("GET %s: %w", ue.URL, ue.Err)
	}
	return err
}

// bodyError says why a body ended early; the run keeps its figures.
func (c Config) bodyError(parent, ctx context.Context, err error, got, length int64) error {
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("%w after %d bytes", context.Canceled, got)
	case errors.Is(context.Cause(ctx), errStalled):
		return fmt.Errorf("no data for %v after %d bytes (--timeout)", c.timeout(), got)
	case errors.Is(err, io.ErrUnexpectedEOF) && length >= 0:
		return fmt.Errorf("connection closed after %d of %d bytes (Content-Length)", got, length)
	}
	return fmt.Errorf("reading the body after %d bytes: %w", got, err)
}

// meter samples the byte count once per window and watches for stalls,
// on a goroutine of its own, so the read loop does nothing but read and
// add.
type meter struct {
	origin  time.Time
	count   *atomic.Int64
	samples []sample
	done    chan struct{}
	exited  chan struct{}
}

func startMeter(origin time.Time, window, timeout time.Duration, count *atomic.Int64, progress func(int64, time.Duration), stalled func(), sm *stable.Meter, known func()) *meter {
	m := &meter{origin: origin, count: count, done: make(chan struct{}), exited: make(chan struct{})}
	go m.run(window, timeout, progress, stalled, sm, known)
	return m
}

func (m *meter) run(window, timeout time.Duration, report func(int64, time.Duration), stalled func(), sm *stable.Meter, known func()) {
	defer close(m.exited)
	wt := time.NewTicker(window)
	defer wt.Stop()
	st := time.NewTicker(stable.DefaultWidth / 2)
	defer st.Stop()
	pt := time.NewTicker(min(progress.Interval, timeout/4))
	defer pt.Stop()
	last, moved := int64(0), time.Now()
	for {
		select {
		case <-m.done:
			return
		case <-st.C:
			if sm.Feed(m.count.Load(), time.Since(m.origin)) {
				known()
			}
		case <-wt.C:
			// The clock is read on receipt, not taken from the tick: a
			// late goroutine must not credit a window with bytes that
			// came after its end.
			b := m.count.Load()
			m.samples = append(m.samples, sample{time.Since(m.origin), b})
		case <-pt.C:
			b, now := m.count.Load(), time.Now()
			if b != last {
				last, moved = b, now
			} else if now.Sub(moved) >= timeout {
				stalled()
			}
			report(b, now.Sub(m.origin))
		}
	}
}

// stop ends the sampling and returns the samples, the last at end.
func (m *meter) stop(end time.Time) []sample {
	close(m.done)
	<-m.exited
	at := end.Sub(m.origin)
	// A tick that raced with the end of the body must not stretch the
	// last window past it.
	for len(m.samples) > 0 && m.samples[len(m.samples)-1].at >= at {
		m.samples = m.samples[:len(m.samples)-1]
	}
	return append(m.samples, sample{at, m.count.Load()})
}

// summarize gives the spread of each figure over the runs that ended well.
func summarize(runs []result.HTTPRun) *result.HTTPSummary {
	var mib, peak, ttfb, total []float64
	for _, r := range runs {
		if r.Error == "" {
			mib, peak = append(mib, r.MiBPerSec), append(peak, r.PeakMiBPerSec)
			ttfb, total = append(ttfb, float64(r.TTFBNs)), append(total, float64(r.TotalNs))
		}
	}
	if len(mib) < 2 {
		return nil
	}
	return &result.HTTPSummary{MiBPerSec: result.SpreadOf(stats.Summarize(mib)), PeakMiBPerSec: result.SpreadOf(stats.Summarize(peak)),
		TTFBNs: result.SpreadOf(stats.Summarize(ttfb)), TotalNs: result.SpreadOf(stats.Summarize(total))}
}
