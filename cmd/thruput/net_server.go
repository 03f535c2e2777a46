package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// netSetup reads the shared secret, if any, from its file (so it never
// shows in ps) and opens -o or standard output: the last checks before a
// network command starts.
func (a *app) netSetup(secretFile string) (secret []byte, out io.Writer, closeOut func(), err error) {
	if secretFile != "" {
		b, err := os.ReadFile(secretFile)
		if err != nil {
			return nil, nil, nil, usage.Errorf("--secret-file: %w", err)
		}
		if secret = []byte(strings.TrimSpace(string(b))); len(secret) < 8 {
			return nil, nil, nil, usage.Errorf("--secret-file %s: the secret must be at least 8 characters", secretFile)
		}
	}
	if err := a.openHistory(os.Stderr); err != nil {
		return nil, nil, nil, err
	}
	if a.output == "" {
		return secret, a.out(), func() {}, nil
	}
	f, err := os.Create(a.output)
	if err != nil {
		return nil, nil, nil, usage.Errorf("-o %s: %w", a.output, errors.Unwrap(err))
	}
	return secret, f, func() { f.Close() }, nil
}

type serverFlags struct {
	port        int
	bind        string
	once, zero  bool
	interval    string
	maxDuration time.Duration
	maxStreams  int
	maxBitrate  string
	maxClients  int
	idle        time.Duration
	secretFile  string
	affinity    string
}

func newNetServerCmd(a *app) *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "server",
		Short: "Serve throughput tests to iperf3 and thruput clients",
		Long: `Listen for iperf3 clients (any 3.x, or 'thruput net client') and serve one
test at a time; a second client meanwhile is told the server is busy, as
iperf3 does. With --max-clients N up to N tests run at once, each client
with its own control connection, and the next is told busy. Each test prints
its live figures (one test at a time only) and final summary (or, with
--json, one result document per test).

The server bounds what a client can do: every control read has a deadline,
parameters are capped at 8 KiB and checked for type and range, a test that
moves no data for --idle-timeout is ended, and --max-duration, --max-streams
and --max-bitrate refuse tests beyond what the operator allows, with a message
the iperf3 client prints. With --secret-file only thruput clients holding the
same secret are served.`,
		Example: `  thruput net server
  thruput net server --bind 192.168.1.10 --once --json -o test.json
  thruput net server --max-duration 60s --max-streams 16 --max-bitrate 500M
  thruput net server --max-clients 6`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runNetServer(cmd, a, f)
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.IntVarP(&f.port, "port", "p", iperf3.DefaultPort, "port to listen on")
	fl.StringVarP(&f.bind, "bind", "B", "", "address to listen on (default all)")
	fl.BoolVarP(&f.once, "once", "1", false, "serve one test, then exit (with its status)")
	fl.StringVarP(&f.interval, "interval", "i", "1", "seconds between live figures (0 = none)")
	fl.Var(units.NewDuration(&f.maxDuration, 0), "max-duration", "refuse tests longer than this, end byte-limited ones at it (0 = no limit)")
	fl.IntVar(&f.maxStreams, "max-streams", 0, "refuse tests with more data connections, each or all running together (0 = no limit)")
	fl.StringVar(&f.maxBitrate, "max-bitrate", "", "refuse tests whose senders together may exceed this rate, each or all running together, e.g. 500M (uncapped tests too)")
	fl.IntVar(&f.maxClients, "max-clients", 1, "tests served at once; one more client is told the server is busy")
	fl.Var(units.NewDuration(&f.idle, 60*time.Second), "idle-timeout", "end a test in which no data moved for this long")
	fl.StringVar(&f.secretFile, "secret-file", "", "serve only thruput clients that know the secret in this file")
	fl.StringVarP(&f.affinity, "affinity", "A", "", "run on CPU `n` (a client's -A n,m moves a test to its CPU m)")
	fl.BoolVarP(&f.zero, "zerocopy", "Z", false, "send TCP with sendfile(2) from memory (reverse tests)")
	return c
}

func runNetServer(cmd *cobra.Command, a *app, f serverFlags) error {
	format, err := a.outputFormat()
	if err != nil {
		return err
	}
	if f.port < 1 || f.port > 65535 {
		return usage.Errorf("-p %d: a port from 1 to 65535", f.port)
	}
	interval, err := parseInterval(f.interval)
	if err != nil {
		return err
	}
	if f.maxDuration < 0 || f.maxStreams < 0 || f.idle < time.Second {
		return usage.Errorf("--max-duration, --max-streams: 0 or more; --idle-timeout: at least 1s")
	}
	if f.maxClients < 1 || f.maxClients > 1024 {
		return usage.Errorf("--max-clients %d: from 1 to 1024", f.maxClients)
	}
	limits := iperf3.Limits{MaxDuration: f.maxDuration, MaxStreams: f.maxStreams}
	if f.maxBitrate != "" {
		if limits.MaxBitrate, err = units.ParseBitrate(f.maxBitrate); err != nil {
			return usage.Errorf("--max-bitrate: %w", err)
		}
	}
	if f.bind != "" && net.ParseIP(f.bind) == nil {
		return usage.Errorf("--bind %q: an IP address of this host", f.bind)
	}
	if f.affinity != "" {
		cpu, server, err := parseAffinity(f.affinity)
		if err == nil && server >= 0 {
			err = fmt.Errorf("-A %s: a server takes one CPU (n,m is a client's)", f.affinity)
		}
		if err != nil {
			return usage.Wrap(err)
		}
		unpin, err := iperf3.Pin(cpu)
		if err != nil {
			return usage.Errorf("-A %s: %w", f.affinity, err)
		}
		defer unpin()
	}
	secret, out, closeOut, err := a.netSetup(f.secretFile)
	if err != nil {
		return err
	}
	defer closeOut()
	stderr := cmd.ErrOrStderr()
	logf := func(format string, args ...any) {
		if !a.quiet {
			fmt.Fprintf(stderr, "thruput: "+format+"\n", args...)
		}
	}
	// Live lines of tests running at once would interleave: with
	// --max-clients above 1 each test prints its summary alone.
	live := format == "table" && f.maxClients == 1
	// Tests run at once with --max-clients: each has its own document,
	// and one lock keeps their output whole.
	type running struct {
		doc      *result.Document
		lines    *report.NetIntervals
		counters *lifecycle.Begun
	}
	var mu sync.Mutex
	tests := map[string]*running{}
	srv, err := iperf3.Listen(iperf3.ServerConfig{
		Addr: net.JoinHostPort(f.bind, strconv.Itoa(f.port)), Limits: limits, Secret: secret,
		MaxClients: f.maxClients, Once: f.once, Interval: interval, ZeroCopy: f.zero, IdleTimeout: f.idle, OutputJSON: format == "json",
		OnTest: func(client string, np result.NetParameters) {
			r := &running{doc: a.newDocument(result.MethodNetServer), counters: a.begin(cmd.Context()),
				lines: &report.NetIntervals{W: out, Units: a.units, MiB: a.units == report.UnitsBoth, UDP: np.Protocol == "udp"}}
			r.doc.Targets = []result.Target{}
			mu.Lock()
			defer mu.Unlock()
			tests[client] = r
			logf("test from %s (%s)", client, orVersion(np.PeerVersion))
		},
		Hooks: progress.Hooks{
			Progress: func(p progress.Report) {
				mu.Lock()
				defer mu.Unlock()
				if r := tests[p.Target]; live && r != nil && p.NetInterval != nil {
					r.lines.Line(*p.NetInterval)
				}
			},
			Note: func(s string) { fmt.Fprintln(stderr, "thruput: "+s) },
		},
		OnResult: func(n *result.Net, client string, err error) {
			mu.Lock()
			defer mu.Unlock()
			r := tests[client]
			delete(tests, client)
			doc, counters := r.doc, r.counters
			n.Parameters.Interface = netInterface(n)
			doc.Net = n
			a.conclude(doc, err, counters)
			if err != nil {
				logf("test from %s failed: %v", client, err)
			}
			var werr error
			if live {
				fmt.Fprintln(out)
				werr = report.NetSummary(out, doc, report.Options{Format: format, Units: a.units}, false)
				fmt.Fprintln(out)
			} else {
				werr = report.Write(out, doc, report.Options{Format: format, Units: a.units})
			}
			if werr != nil {
				logf("output: %v", werr)
			}
			if serr := a.Save(doc); serr != nil {
				logf("%v", serr)
			}
		},
		OnReject: func(client string, err error) { logf("refused %s: %v", client, err) },
	})
	if err != nil {
		return usage.Wrap(err)
	}
	logf("listening on %s", srv.Addr())
	return srv.Serve(cmd.Context())
}

func orVersion(v string) string {
	if v == "" {
		return "version not given"
	}
	if strings.HasPrefix(v, "thruput") {
		return v
	}
	return "iperf " + v
}
