package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

func newNetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "net",
		Short: "Measure the network: an iperf3-compatible client and server",
		Example: `  thruput net server
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5
  thruput net client 192.168.1.10 -R
  thruput net client iperf.example.net -u -b 40M`,
	}
	c.AddCommand(newNetClientCmd(a), newNetServerCmd(a), newNetHTTPCmd(a), newNetHTTPServeCmd(a))
	return c
}

type clientFlags struct {
	port                   int
	time, omit, interval   string
	bytes, length, window  string
	bitrate                string
	blocks                 int64
	parallel, mss          int
	reverse, bidir, udp    bool
	noDelay, compat, zero  bool
	congestion, secretFile string
	connectTimeout         time.Duration
}

func newNetClientCmd(a *app) *cobra.Command {
	var f clientFlags
	c := &cobra.Command{
		Use:   "client HOST[:PORT]",
		Short: "Run a throughput test against an iperf3 or thruput server",
		Long: `Run a TCP or UDP throughput test against HOST, which runs 'iperf3 -s' (any 3.x)
or 'thruput net server'. The flags are iperf3's: -P parallel streams, -t time,
-O omitted start, -R reverse (server sends), --bidir both ways at once, -b a
bitrate cap per stream (for TCP too), -u UDP with -l datagram size.

Figures are Mbit/s (10^6 bit/s, the unit links are sold in) for the sender and
the receiver of every stream, with TCP retransmits or UDP jitter and loss, and
the CPU load of both ends. -J prints iperf3's own JSON so tools made for iperf3
read it; --json prints thruput's result document.`,
		Example: `  # a long iperf3 test: 10 streams for 65 s, the first 5 s left out, each way and both
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5 -R
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5 --bidir

  # a capped sender, to tell send limits from receive limits
  thruput net client 192.168.1.10 -b 40M

  # UDP at 90 Mbit/s in 1400-byte datagrams; 100 MiB then stop
  thruput net client 192.168.1.10 -u -b 90M -l 1400
  thruput net client 192.168.1.10 -n 100M`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNetClient(cmd, a, f, args[0])
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.IntVarP(&f.port, "port", "p", iperf3.DefaultPort, "server port")
	fl.StringVarP(&f.time, "time", "t", "10", "seconds to measure, after the omitted start (0 with -n or -k)")
	fl.StringVarP(&f.bytes, "bytes", "n", "", "end after this many bytes (1024-based: 100M, 1G) instead of -t")
	fl.Int64VarP(&f.blocks, "blockcount", "k", 0, "end after this many blocks (writes or datagrams) instead of -t")
	fl.StringVarP(&f.omit, "omit", "O", "0", "seconds left out of the figures at the start (TCP slow start)")
	fl.StringVarP(&f.interval, "interval", "i", "1", "seconds between live figures (0 = none)")
	fl.IntVarP(&f.parallel, "parallel", "P", 1, "parallel streams (per direction with --bidir)")
	fl.BoolVarP(&f.reverse, "reverse", "R", false, "the server sends, the client receives")
	fl.BoolVar(&f.bidir, "bidir", false, "both directions at once")
	fl.StringVarP(&f.bitrate, "bitrate", "b", "", "cap each stream at this rate, bits/s, 1000-based (40M, 100mbit); UDP default 1M")
	fl.BoolVarP(&f.udp, "udp", "u", false, "UDP instead of TCP")
	fl.StringVarP(&f.length, "length", "l", "", "block size: one write (TCP, default 128K) or one datagram (UDP, default the path MSS)")
	fl.StringVarP(&f.window, "window", "w", "", "socket buffer size (SO_SNDBUF and SO_RCVBUF), e.g. 4M")
	fl.IntVarP(&f.mss, "set-mss", "M", 0, "TCP maximum segment size (TCP_MAXSEG)")
	fl.BoolVarP(&f.noDelay, "no-delay", "N", false, "disable Nagle's algorithm (TCP_NODELAY)")
	fl.StringVarP(&f.congestion, "congestion", "C", "", "TCP congestion control algorithm (cubic, bbr ...)")
	fl.BoolVarP(&f.zero, "zerocopy", "Z", false, "send TCP with sendfile(2) from memory: no copy into the kernel")
	fl.BoolVarP(&f.compat, "iperf3-json", "J", false, "print iperf3's JSON (as iperf3 -J) instead of a table")
	fl.StringVar(&f.secretFile, "secret-file", "", "file holding the shared secret a thruput server was started with")
	fl.Var(units.NewDuration(&f.connectTimeout, 10*time.Second), "connect-timeout", "give up connecting after this long")
	return c
}

// congestionAvailable checks -C against the kernel's list; the server end
// checks its own.
func congestionAvailable(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return true // cannot tell here: let the kernel refuse it at connect
	}
	return slices.Contains(strings.Fields(string(b)), name)
}

// netInterface names the interface the test's data crossed here.
func netInterface(n *result.Net) string {
	if len(n.Streams) == 0 {
		return ""
	}
	return sysinfo.InterfaceOf(n.Streams[0].LocalAddr)
}

// netUnits checks --units for a network page: Mbit/s, with MiB/s beside
// it on request.
func (a *app) netUnits() error {
	switch a.units {
	case "", report.UnitsMbit, report.UnitsBoth:
		return nil
	}
	return usage.Errorf("--units %s: network figures are in Mbit/s; --units both adds MiB/s beside them", a.units)
}

// clientParams checks the flags as iperf3 would, naming the flag at fault.
func clientParams(cmd *cobra.Command, f clientFlags) (iperf3.Params, error) {
	p := iperf3.Params{UDP: f.udp, Reverse: f.reverse, Bidir: f.bidir, NoDelay: f.noDelay, Congestion: f.congestion, MSS: f.mss}
	var err error
	seconds := func(flag, s string, max time.Duration) (time.Duration, error) {
		d, err := units.ParseSeconds(s)
		if err != nil {
			return 0, usage.Errorf("-%s: %w", flag, err)
		}
		if d > max {
			return 0, usage.Errorf("-%s %s: at most %v", flag, s, max)
		}
		return d, nil
	}
	if p.Time, err = seconds("t", f.time, 86400*time.Second); err != nil {
		return p, err
	}
	if p.Omit, err = seconds("O", f.omit, 600*time.Second); err != nil {
		return p, err
	}
	if p.Time%time.Second != 0 || p.Omit%time.Second != 0 {
		return p, usage.Errorf("-t and -O: whole seconds (the iperf3 protocol carries seconds)")
	}
	if f.bytes != "" {
		if p.Bytes, err = units.ParseSize(f.bytes); err != nil {
			return p, usage.Errorf("-n: %w", err)
		}
	}
	if f.blocks < 0 {
		return p, usage.Errorf("-k %d: a count of blocks must be positive", f.blocks)
	}
	p.Blocks = f.blocks
	if (p.Bytes > 0 || p.Blocks > 0) && !cmd.Flags().Changed("time") {
		p.Time = 0
	}
	if p.Time == 0 && p.Bytes == 0 && p.Blocks == 0 {
		return p, usage.Errorf("-t 0 needs -n or -k: the test must end somehow")
	}
	if f.parallel < 1 || f.parallel > 128 {
		return p, usage.Errorf("-P %d: from 1 to 128 streams", f.parallel)
	}
	p.Parallel = f.parallel
	if f.reverse && f.bidir {
		return p, usage.Errorf("-R and --bidir: choose one (--bidir already includes the reverse direction)")
	}
	if f.bitrate != "" {
		if p.Bitrate, err = units.ParseBitrate(f.bitrate); err != nil {
			return p, usage.Errorf("-b: %w", err)
		}
	} else if f.udp {
		p.Bitrate = iperf3.DefaultUDPBitrate // iperf3's default; -b 0 is unlimited
	}
	if c := f.congestion; c != "" {
		if len(c) > 15 || !congestionAvailable(c) {
			return p, usage.Errorf("-C %q: not a congestion control this kernel has (see /proc/sys/net/ipv4/tcp_available_congestion_control)", c)
		}
	}
	if f.length != "" {
		n, err := units.ParseSize(f.length)
		if err != nil {
			return p, usage.Errorf("-l: %w", err)
		}
		if f.udp && (n < 16 || n > 65507) {
			return p, usage.Errorf("-l %s: a UDP datagram carries 16 to 65507 bytes", f.length)
		}
		if !f.udp && n > 1<<20 {
			return p, usage.Errorf("-l %s: at most 1M for TCP (as iperf3 servers allow)", f.length)
		}
		p.Len = int(n)
	}
	if f.window != "" {
		n, err := units.ParseSize(f.window)
		if err != nil {
			return p, usage.Errorf("-w: %w", err)
		}
		if n > 512<<20 {
			return p, usage.Errorf("-w %s: at most 512M", f.window)
		}
		p.Window = int(n)
	}
	if f.mss < 0 || f.mss > 32767 || (f.mss > 0 && f.mss < 88) {
		return p, usage.Errorf("-M %d: from 88 to 32767 bytes", f.mss)
	}
	return p, nil
}

func runNetClient(cmd *cobra.Command, a *app, f clientFlags, server string) error {
	format, err := a.outputFormat()
	if err != nil {
		return err
	}
	host, port, err := iperf3.ParseServer(server)
	if err != nil {
		return usage.Wrap(err)
	}
	if port != 0 {
		if cmd.Flags().Changed("port") && port != f.port {
			return usage.Errorf("%s and -p %d name two ports: give one", server, f.port)
		}
		f.port = port
	}
	if err := a.netUnits(); err != nil {
		return err
	}
	if f.compat && cmd.Flags().Changed("format") {
		return usage.Errorf("-J and --format: choose one")
	}
	if f.port < 1 || f.port > 65535 {
		return usage.Errorf("-p %d: a port from 1 to 65535", f.port)
	}
	p, err := clientParams(cmd, f)
	if err != nil {
		return err
	}
	interval, err := units.ParseSeconds(f.interval)
	if err != nil {
		return usage.Errorf("-i: %w", err)
	}
	if interval > 0 && interval < 100*time.Millisecond {
		return usage.Errorf("-i %s: at least 0.1 s, or 0 for none", f.interval)
	}
	if f.connectTimeout <= 0 {
		return usage.Errorf("--connect-timeout %v: more than 0", f.connectTimeout)
	}
	secret, out, closeOut, err := a.netSetup(f.secretFile)
	if err != nil {
		return err
	}
	defer closeOut()
	doc := a.newDocument("net.client")
	doc.Targets = []result.Target{}
	counters := sysinfo.Default().Counters()
	// Live lines go where the table goes; with other formats a terminal
	// gets a progress line instead.
	live := format == "table" && !f.compat
	lines := &report.NetIntervals{W: out, MiB: a.units == report.UnitsBoth, UDP: f.udp}
	line := a.progress()
	var mu sync.Mutex
	var connecting sync.Once
	cfg := iperf3.ClientConfig{
		Host: host, Port: f.port, Params: p, Interval: interval, ZeroCopy: f.zero,
		ConnectTimeout: f.connectTimeout, Secret: secret, Version: "thruput " + toolVersion(),
		OnStreams: func(id int64, local, remote string) {
			// Said once connected, so that a refused connection prints
			// its error alone.
			connecting.Do(func() {
				if live {
					fmt.Fprintf(out, "Connecting to %s, port %d\n", host, f.port)
				}
			})
			if live {
				fmt.Fprintf(out, "[%3d] local %s connected to %s\n", id, local, remote)
			}
		},
		OnInterval: func(iv result.NetInterval) {
			mu.Lock()
			defer mu.Unlock()
			if live {
				// -i 0: no interval lines, as iperf3.
				if interval > 0 {
					lines.Line(iv)
				}
				return
			}
			var bps float64
			for _, s := range iv.Sums {
				bps += s.BitsPerSecond
			}
			line.Set(fmt.Sprintf("%s  %.1f s  %s Mbit/s", host, float64(iv.EndNs)/1e9, strconv.FormatFloat(bps/1e6, 'f', 1, 64)))
		},
	}
	n, runErr := iperf3.Run(cmd.Context(), cfg)
	line.Clear()
	n.Parameters.Interface = netInterface(n)
	doc.Net = n
	return a.deliver(doc, runErr, counters, func() error {
		switch {
		case f.compat:
			return iperf3.WriteCompat(out, doc)
		case live:
			fmt.Fprintln(out)
			return report.NetSummary(out, doc, report.Options{Format: format, Units: a.units}, false)
		}
		return report.Write(out, doc, report.Options{Format: format, Units: a.units})
	})
}

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
	idle        time.Duration
	secretFile  string
}

func newNetServerCmd(a *app) *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "server",
		Short: "Serve throughput tests to iperf3 and thruput clients",
		Long: `Listen for iperf3 clients (any 3.x, or 'thruput net client') and serve one
test at a time; a second client meanwhile is told the server is busy, as
iperf3 does. Each test prints its live figures and final summary (or, with
--json, one result document per test).

The server bounds what a client can do: every control read has a deadline,
parameters are capped at 8 KiB and checked for type and range, a test that
moves no data for --idle-timeout is ended, and --max-duration, --max-streams
and --max-bitrate refuse tests beyond what the operator allows, with a message
the iperf3 client prints. With --secret-file only thruput clients holding the
same secret are served.`,
		Example: `  thruput net server
  thruput net server --bind 192.168.1.10 --once --json -o test.json
  thruput net server --max-duration 60s --max-streams 16 --max-bitrate 500M`,
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
	fl.IntVar(&f.maxStreams, "max-streams", 0, "refuse tests with more data connections (0 = no limit)")
	fl.StringVar(&f.maxBitrate, "max-bitrate", "", "refuse tests whose senders together may exceed this rate, e.g. 500M (uncapped tests too)")
	fl.Var(units.NewDuration(&f.idle, 60*time.Second), "idle-timeout", "end a test in which no data moved for this long")
	fl.StringVar(&f.secretFile, "secret-file", "", "serve only thruput clients that know the secret in this file")
	fl.BoolVarP(&f.zero, "zerocopy", "Z", false, "send TCP with sendfile(2) from memory (reverse tests)")
	return c
}

func runNetServer(cmd *cobra.Command, a *app, f serverFlags) error {
	format, err := a.outputFormat()
	if err != nil {
		return err
	}
	if err := a.netUnits(); err != nil {
		return err
	}
	if f.port < 1 || f.port > 65535 {
		return usage.Errorf("-p %d: a port from 1 to 65535", f.port)
	}
	interval, err := units.ParseSeconds(f.interval)
	if err != nil {
		return usage.Errorf("-i: %w", err)
	}
	if interval > 0 && interval < 100*time.Millisecond {
		return usage.Errorf("-i %s: at least 0.1 s, or 0 for none", f.interval)
	}
	if f.maxDuration < 0 || f.maxStreams < 0 || f.idle < time.Second {
		return usage.Errorf("--max-duration, --max-streams: 0 or more; --idle-timeout: at least 1s")
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
	live := format == "table"
	var lines *report.NetIntervals
	var doc *result.Document
	var counters map[string]int64
	srv, err := iperf3.Listen(iperf3.ServerConfig{
		Addr: net.JoinHostPort(f.bind, strconv.Itoa(f.port)), Limits: limits, Secret: secret,
		Once: f.once, Interval: interval, ZeroCopy: f.zero, IdleTimeout: f.idle,
		OnTest: func(client string, p *iperf3.Params) {
			doc = a.newDocument("net.server")
			doc.Targets = []result.Target{}
			counters = sysinfo.Default().Counters()
			logf("test from %s (%s)", client, orVersion(p.ClientVersion))
			lines = &report.NetIntervals{W: out, MiB: a.units == report.UnitsBoth, UDP: p.UDP}
		},
		OnInterval: func(iv result.NetInterval) {
			if live {
				lines.Line(iv)
			}
		},
		OnResult: func(n *result.Net, p *iperf3.Params, client string, err error) {
			if n == nil {
				n = &result.Net{}
			}
			n.Parameters = iperf3.Describe(p)
			n.Parameters.Role, n.Parameters.Client, n.Parameters.PeerVersion = "server", client, p.ClientVersion
			n.Parameters.Server = net.JoinHostPort(f.bind, strconv.Itoa(f.port))
			n.Parameters.ZeroCopy = f.zero && !p.UDP
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
			if serr := a.save(doc); serr != nil {
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
