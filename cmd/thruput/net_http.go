package main

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/httpget"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

func newNetHTTPCmd(a *app) *cobra.Command {
	var c httpget.Config
	var stable stableFlags
	cmd := &cobra.Command{
		Use:   "http URL",
		Short: "Download a URL into nothing and time it, as wget -O /dev/null",
		Long: `GET URL (http or https, following up to 10 redirects) and throw the body away,
reading it into one buffer, so no disk plays a part. Reports the bytes, the
time to the first byte of the response, the total time, the average rate over
the transfer and the peak rate over --window spans of it, in MiB/s and Mbit/s,
with the status code, the URL after redirects and the declared length.
--repeat downloads it several times, each on a new connection, and adds the
mean, standard deviation, min and max.

It connects directly, whatever http_proxy says: through a proxy, the proxy
would be what is measured. It speaks HTTP/1.1, as wget does, and asks for the
body uncompressed. 'thruput net http-serve' on another machine serves a file
from memory to download, so that machine's disk plays no part either.`,
		Example: `  # wget's test: 100 MiB from a LAN server that serves it from RAM
  thruput net http-serve --size 100M          # on the server
  thruput net http http://192.168.1.10:8080/  # on the client

  # five times, with the spread; peaks over half-second windows
  thruput net http http://192.168.1.10:8080/ --repeat 5 --window 500ms
  thruput net http https://nas.local/big.iso --insecure --json -o nas.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Stable = stable.options()
			return runNetHTTP(cmd, a, c, args[0])
		},
	}
	fl := cmd.Flags()
	a.addSaveFlags(fl)
	fl.Var(units.NewDuration((*time.Duration)(&c.WindowNs), time.Second), "window", "span of the windows the peak rate is taken over")
	fl.Var(units.NewDuration((*time.Duration)(&c.TimeoutNs), 30*time.Second), "timeout", "give up when connecting, the response or the body stalls this long")
	fl.IntVar(&c.Repeat, "repeat", 1, "download this many times and report the spread")
	fl.BoolVarP(&c.Insecure, "insecure", "k", false, "do not check the server's TLS certificate")
	stable.add(fl)
	return cmd
}

func runNetHTTP(cmd *cobra.Command, a *app, c httpget.Config, rawURL string) error {
	format, err := a.outputFormat()
	if err != nil {
		return err
	}
	c.URL, c.UserAgent = rawURL, "thruput/"+toolVersion()
	if err := c.Validate(); err != nil {
		return usage.Named(err, httpNames)
	}
	_, out, closeOut, err := a.netSetup("")
	if err != nil {
		return err
	}
	defer closeOut()
	doc := a.newDocument(result.MethodHTTP)
	doc.Targets = []result.Target{}
	counters := a.begin(cmd.Context())
	doc.HTTP = &result.HTTP{}
	line := a.progress()
	var h progress.Hooks
	if line != nil { // nobody reads the reports without it
		h.Progress = func(p progress.Report) {
			s := fmt.Sprintf("run %d/%d  %s", p.Run, p.Runs, units.IEC(p.Bytes))
			if p.Total >= 0 {
				s += " of " + units.IEC(p.Total)
			}
			line.Set(report.Rates(fmt.Sprintf("%s  %.1f s  %s MiB/s", s, p.Elapsed.Seconds(), strconv.FormatFloat(result.MiBPerSec(p.Bytes, int64(p.Elapsed)), 'f', 1, 64)), a.units))
		}
	}
	runErr := httpget.Get(cmd.Context(), c, doc.HTTP, h)
	line.Clear()
	if usage.Is(runErr) {
		return usage.Named(runErr, httpNames)
	}
	if runs := doc.HTTP.Runs; len(runs) > 0 {
		doc.HTTP.Interface = sysinfo.InterfaceOf(runs[0].LocalAddr)
	}
	return a.deliver(doc, runErr, counters, func() error { return report.Write(out, doc, report.Options{Format: format, Units: a.units}) })
}

// httpNames are the flags that set the fields httpget.Config's messages
// name.
var httpNames = map[string]string{"WindowNs": "--window", "TimeoutNs": "--timeout", "Repeat": "--repeat"}

func newNetHTTPServeCmd(a *app) *cobra.Command {
	var bind, size string
	var port int
	cmd := &cobra.Command{
		Use:   "http-serve",
		Short: "Serve a generated file from memory for 'thruput net http' (or wget, curl)",
		Long: `Generate --size bytes of incompressible data once, keep them in memory and serve
them over HTTP at / and at any other path, read-only: GET and HEAD, with
ranges. Nothing is read from or written to any disk, so a download from it
measures the network and the client, not this machine's storage. Every
request shares the one buffer.

It listens on every address of the machine unless --bind names one, as
iperf3 does, prints the URLs it serves, logs each request on stderr (not with
-q) and runs until Ctrl-C.`,
		Example: `  thruput net http-serve                        # 100 MiB on port 8080, every address
  thruput net http-serve --bind 192.168.1.10 --port 8000 --size 1G
  wget -O /dev/null http://192.168.1.10:8000/    # any client will do`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runNetHTTPServe(cmd, a, bind, port, size)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&bind, "bind", "", "address to listen on (default all, as iperf3)")
	fl.IntVarP(&port, "port", "p", 8080, "port to listen on")
	fl.StringVar(&size, "size", "100M", "bytes to serve (1024-based: 100M, 1G), held in memory")
	return cmd
}

func runNetHTTPServe(cmd *cobra.Command, a *app, bind string, port int, sizeFlag string) error {
	if port < 1 || port > 65535 {
		return usage.Errorf("--port %d: a port from 1 to 65535", port)
	}
	if bind != "" && net.ParseIP(bind) == nil {
		return usage.Errorf("--bind %q: an IP address of this host", bind)
	}
	size, err := units.ParseSize(sizeFlag)
	if err != nil {
		return usage.Errorf("--size: %w", err)
	}
	if size > math.MaxInt {
		return usage.Errorf("--size %s: more than this build can hold in memory", sizeFlag)
	}
	if mem := sysinfo.Default().Host().MemoryBytes; mem > 0 && size > mem/4*3 {
		return usage.Errorf("--size %s: more than 3/4 of this machine's memory (%s); the file is served from memory", sizeFlag, units.IEC(mem))
	}
	if a.output != "" || a.json || a.format != "" {
		return usage.Errorf("http-serve prints no result: --json, --format and -o do not apply")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(port)))
	if err != nil {
		return usage.Wrap(err)
	}
	defer ln.Close()
	stderr := cmd.ErrOrStderr()
	logf := func(format string, args ...any) {
		if !a.quiet {
			fmt.Fprintf(stderr, "thruput: "+format+"\n", args...)
		}
	}
	data := httpget.Content(int(size))
	stdout := cmd.OutOrStdout()
	fmt.Fprintf(stdout, "Serving %s of random data from memory, at every path, read-only:\n", units.IEC(size))
	for _, u := range serveURLs(bind, port) {
		fmt.Fprintf(stdout, "  %s\n", u)
	}
	if bind == "" {
		fmt.Fprintf(stdout, "(every address of this machine, port %d; Ctrl-C ends it)\n", port)
	} else {
		fmt.Fprintln(stdout, "(Ctrl-C ends it)")
	}
	return httpget.Serve(cmd.Context(), ln, httpget.Handler(data, logf), stderr)
}

// serveURLs lists URLs clients can use: bind's, or one per address of
// the machine's interfaces that are up (link-local ones need a zone no one
// types, so they are left out).
func serveURLs(bind string, port int) []string {
	p := strconv.Itoa(port)
	if bind != "" {
		return []string{"http://" + net.JoinHostPort(bind, p) + "/"}
	}
	var urls []string
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, ad := range addrs {
			ipn, ok := ad.(*net.IPNet)
			if !ok || ipn.IP.IsLinkLocalUnicast() {
				continue
			}
			urls = append(urls, "http://"+net.JoinHostPort(ipn.IP.String(), p)+"/")
		}
	}
	if len(urls) == 0 {
		urls = []string{"http://" + net.JoinHostPort("localhost", p) + "/"}
	}
	return urls
}
