package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// Options are what every fleet command shares.
type Options struct {
	SSH      SSHOptions
	Binaries *Binaries
	// Version keys the host cache next to the binary's SHA-256.
	Version string
	// Parallel bounds the hosts worked on at once; 0 means all.
	Parallel int
	// HostTimeout bounds everything done on one host (0: no bound).
	HostTimeout time.Duration
	// Progress receives one line per host and state change; nil: none.
	Progress io.Writer
}

// Fleet runs thruput on many hosts.
type Fleet struct {
	opts   Options
	dialer *sshDialer
	pmu    sync.Mutex
}

// New checks the SSH settings (the config file parses) before any host
// is contacted.
func New(o Options) (*Fleet, error) {
	d, err := newDialer(o.SSH)
	if err != nil {
		return nil, err
	}
	if o.Binaries == nil {
		o.Binaries = &Binaries{}
	}
	return &Fleet{opts: o, dialer: d}, nil
}

// HostResult is what one host gave: its runs, or why it gave none.
type HostResult struct {
	Host     Host
	Platform Platform
	// Sent counts the bytes of binary copied to the host (0 when its
	// cache already held it).
	Sent int64
	Docs []*result.Document
	// Output is what a command that saves no run (sysinfo) printed.
	Output string
	Err    error
}

func (f *Fleet) progress(h Host, format string, args ...any) {
	if f.opts.Progress == nil {
		return
	}
	f.pmu.Lock()
	defer f.pmu.Unlock()
	fmt.Fprintf(f.opts.Progress, "%-16s %s\n", h.Name, fmt.Sprintf(format, args...))
}

// session is one host made ready: connected, its platform known, thruput
// in its cache.
type session struct {
	*Conn
	host     Host
	platform Platform
	bin      string
	sent     int64
	// shell is the probe's shell, waiting to run the first command.
	shell *parked
	// binary is what bin should be.
	binary *binary
	fleet  *Fleet
}

func (f *Fleet) open(ctx context.Context, h Host) (*session, error) {
	f.progress(h, "connecting")
	c, err := f.dialer.dial(ctx, h)
	if err != nil {
		return nil, err
	}
	// Until the host is ready, an interrupt or the host timeout closes
	// the connection: a host that stops answering mid-way (its shell
	// silent, a copy stalled) holds nothing up. The session may outlive
	// ctx after that (fleet net's tests come later).
	stop := context.AfterFunc(ctx, func() { c.Close() })
	s, err := f.ready(ctx, c, h)
	if !stop() {
		if err == nil {
			s.Close()
		}
		return nil, stopped(ctx, err)
	}
	return s, err
}

func (f *Fleet) ready(ctx context.Context, c *Conn, h Host) (*session, error) {
	s := &session{Conn: c, host: h, fleet: f}
	// One session reads the platform and the cache and then runs the
	// first command: a warm run costs the host one session.
	shell, out, err := c.park(ctx, probeScript+"\necho '"+cacheMark+"'\n"+cacheScript)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("reading the platform: %w", err)
	}
	s.shell = shell
	probe, listing, _ := strings.Cut(out, cacheMark+"\n")
	if s.platform, err = DetectPlatform(probe); err != nil {
		s.Close()
		return nil, err
	}
	if s.binary, err = f.opts.Binaries.find(s.platform); err != nil {
		s.Close()
		return nil, err
	}
	if path, ok := cached(listing, s.binary); ok {
		s.bin = quote(path)
		return s, nil
	}
	f.progress(h, "placing thruput for %s", s.platform)
	if err := s.place(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *session) place(ctx context.Context) error {
	path, sent, err := s.Conn.place(ctx, s.binary, s.fleet.opts.Version)
	s.bin, s.sent = path, s.sent+sent
	return err
}

// Close ends the session's connection and its shell if no command took it.
func (s *session) Close() error {
	if s.shell != nil {
		s.shell.close()
	}
	return s.Conn.Close()
}

// ExecMark is the first line `thruput fleet exec` prints: a cached file
// that does not print it (damaged, or another platform's, which the
// kernel or Go's runtime refuses before main) is not thruput.
const ExecMark = "#thruput-exec"

// RunsMark heads the output of `thruput fleet exec` when the command
// saved runs: what follows is its runs as JSON lines, not what it
// printed.
const RunsMark = "#thruput-runs"

// command runs `thruput ARGS` on the host under `thruput fleet exec`
// (scratch store and files in a temporary directory removed whatever
// happens; the session's input closing is an interrupt) and returns its
// standard output; a failure carries the last line thruput wrote on
// stderr. The cache is trusted without a check that would cost the host
// a fork on every run: a cached file that does not answer as thruput is
// replaced and the command run again.
func (s *session) command(ctx context.Context, args []string) ([]byte, error) {
	out, err := s.exec(ctx, args)
	body, ours := bytes.CutPrefix(out, []byte(ExecMark+"\n"))
	if !ours && s.sent == 0 && ctx.Err() == nil {
		s.fleet.progress(s.host, "the cached thruput did not answer; placing it again")
		if perr := s.place(ctx); perr != nil {
			return nil, perr
		}
		out, err = s.exec(ctx, args)
		body, ours = bytes.CutPrefix(out, []byte(ExecMark+"\n"))
	}
	if !ours && err == nil {
		err = fmt.Errorf("the host's thruput did not answer as thruput: %.80q", bytes.TrimSpace(out))
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.stderr != "" {
		err = errors.New(lastLine(ee.stderr))
	}
	return body, err
}

func (s *session) exec(ctx context.Context, args []string) ([]byte, error) {
	var out bytes.Buffer
	w := &limitWriter{w: &out, n: 256 << 20}
	line := s.bin + " fleet exec -- " + quoteAll(args)
	if shell := s.shell; shell != nil && !strings.Contains(line, "\n") {
		s.shell = nil
		err := shell.run(ctx, line, w)
		return out.Bytes(), err
	}
	err := s.run(ctx, "exec "+line, nil, w)
	return out.Bytes(), err
}

// measure runs one thruput command on the host and returns its runs,
// labelled with the host, or, for a command that saves none, what it
// printed. A command that failed after measuring something returns what
// it measured and the error.
func (s *session) measure(ctx context.Context, args []string) ([]*result.Document, []byte, error) {
	out, err := s.command(ctx, args)
	runs, saved := bytes.CutPrefix(out, []byte(RunsMark+"\n"))
	if !saved {
		if err == nil && measures(args) {
			return nil, nil, fmt.Errorf("the host saved no run; it answered: %.80q", bytes.TrimSpace(out))
		}
		// A command that saves no run (sysinfo, version): what it
		// printed is the host's answer.
		return nil, out, err
	}
	docs, perr := parseDocs(runs)
	if perr != nil {
		return nil, nil, fmt.Errorf("the host returned output that is not thruput's: %w", perr)
	}
	for _, d := range docs {
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		maps.Copy(d.Labels, s.host.Labels)
		d.Labels["host"] = s.host.Name
	}
	if err == nil && len(docs) == 0 {
		err = errors.New("the host saved no run")
	}
	return docs, nil, err
}

// measures says whether a thruput command line saves runs: the disk
// methods, the network client and download, and the suite do.
func measures(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "suite":
		return true
	case "disk":
		return len(args) > 1 && args[1] != "clean"
	case "net":
		return len(args) > 1 && (args[1] == "client" || args[1] == "http")
	}
	return false
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func parseDocs(data []byte) ([]*result.Document, error) {
	var docs []*result.Document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		d, err := result.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
}

// Run runs `thruput ARGS` on every host at once (at most Parallel at a
// time) and returns one result per host, in the order given. A host that
// fails does not stop the others.
func (f *Fleet) Run(ctx context.Context, hosts []Host, args []string) []HostResult {
	res := make([]HostResult, len(hosts))
	for i, h := range hosts {
		res[i].Host = h
	}
	errs := f.each(ctx, hosts, "done", func(ctx context.Context, i int, h Host) error {
		r := &res[i]
		s, err := f.open(ctx, h)
		if err != nil {
			return err
		}
		defer s.Close()
		r.Platform = s.platform
		f.progress(h, "running thruput %s", strings.Join(args, " "))
		var out []byte
		r.Docs, out, err = s.measure(ctx, args)
		r.Output, r.Sent = string(out), s.sent
		return err
	})
	for i, err := range errs {
		res[i].Err = err
	}
	return res
}

// each calls fn for every host, Parallel at a time, each bounded by
// HostTimeout, and gives each host's error. A host still waiting for its
// turn when ctx ends is not started, and says so. The progress stream
// gets each host's state after fn: the word ok when it succeeded, else
// failed and why.
func (f *Fleet) each(ctx context.Context, hosts []Host, ok string, fn func(context.Context, int, Host) error) []error {
	limit := f.opts.Parallel
	if limit <= 0 || limit > len(hosts) {
		limit = len(hosts)
	}
	errs := make([]error, len(hosts))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				if ctx.Err() == nil {
					hctx, cancel := f.hostContext(ctx)
					defer cancel()
					errs[i] = fn(hctx, i, h)
					f.done(h, ok, errs[i])
					return
				}
			case <-ctx.Done():
			}
			errs[i] = fmt.Errorf("not started: %w", stopped(ctx, nil))
			f.done(h, ok, errs[i])
		}()
	}
	wg.Wait()
	return errs
}

// done is a host's last progress line.
func (f *Fleet) done(h Host, ok string, err error) {
	if err != nil {
		f.progress(h, "failed: %v", err)
	} else {
		f.progress(h, "%s", ok)
	}
}

func (f *Fleet) hostContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := f.opts.HostTimeout; d > 0 {
		return context.WithTimeoutCause(ctx, d, fmt.Errorf("gave up on the host after its timeout (%s)", d))
	}
	return context.WithCancel(ctx)
}

// Clean removes the thruput cache from every host.
func (f *Fleet) Clean(ctx context.Context, hosts []Host) []HostResult {
	res := make([]HostResult, len(hosts))
	errs := f.each(ctx, hosts, "done", func(ctx context.Context, i int, h Host) error {
		c, err := f.dialer.dial(ctx, h)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.run(ctx, "rm -rf "+cacheDir, nil, io.Discard)
	})
	for i, h := range hosts {
		res[i] = HostResult{Host: h, Err: errs[i]}
	}
	return res
}

func goarm() int {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOARM" && s.Value != "" {
				n, _ := strconv.Atoi(s.Value[:1])
				return n
			}
		}
	}
	return 7
}
