package main

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

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
	if (f.compat || f.opts.jsonStream) && cmd.Flags().Changed("format") {
		return usage.Errorf("-J or --json-stream, and --format: choose one")
	}
	if err := checkClients(f.clients, format, f.compat); err != nil {
		return err
	}
	if f.port < 1 || f.port > 65535 {
		return usage.Errorf("-p %d: a port from 1 to 65535", f.port)
	}
	cfg := iperf3.ClientConfig{Host: host, Port: f.port, Version: "thruput " + toolVersion(), Stable: f.stable.options()}
	f.TimeSet = cmd.Flags().Changed("time")
	if err := f.config(&cfg); err != nil {
		return err
	}
	interval, err := parseInterval(f.interval)
	if err != nil {
		return err
	}
	cfg.IntervalNs, cfg.ZeroCopy = int64(interval), f.zero
	if err := f.opts.apply(&cfg, a.output); err != nil {
		return err
	}
	defer f.opts.unpin()
	// One probe stream measures --clients' load together.
	if cfg.Latency, err = f.latency.prober(cfg.PacedBps() * float64(max(f.clients, 1))); err != nil {
		return err
	}
	secret, out, closeOut, err := a.netSetup(f.secretFile)
	if err != nil {
		return err
	}
	defer closeOut()
	if out, closeOut, err = f.opts.output(out); err != nil {
		return err
	}
	defer closeOut()
	cfg.Secret = secret
	doc := a.newDocument(result.MethodNetClient)
	doc.Targets = []result.Target{}
	counters := a.begin(cmd.Context())
	// Live lines go where the table goes; with other formats a terminal
	// gets a progress line instead.
	live := format == "table" && !f.compat && !f.opts.jsonStream
	if f.Title != "" && live {
		out = titled(out, f.Title)
	}
	lines := &report.NetIntervals{W: out, Units: a.units, MiB: a.units == report.UnitsBoth, UDP: f.UDP}
	line := a.progress()
	var mu sync.Mutex
	stream := f.opts.stream(out, doc)
	h := progress.Hooks{
		Progress: func(r progress.Report) {
			mu.Lock()
			defer mu.Unlock()
			if r.Streams != nil {
				// Said once connected, so that a refused connection
				// prints its error alone. The idle latency probes ran
				// before: the health's CPU figures start from the load.
				counters.LoadBegins()
				if live {
					fmt.Fprintf(out, "Connecting to %s, port %d\n", host, f.port)
				}
				for _, s := range r.Streams {
					if live {
						fmt.Fprintf(out, "[%3d] local %s connected to %s\n", s.ID, s.Local, s.Remote)
					}
					if stream != nil {
						stream.Connected(s.ID, s.Local, s.Remote)
					}
				}
			}
			iv := r.NetInterval
			if iv == nil {
				return
			}
			if stream != nil {
				stream.Interval(*iv)
			}
			if live {
				// -i 0: no interval lines, as iperf3.
				if interval > 0 {
					lines.Line(*iv)
				}
				return
			}
			var bps float64
			for _, s := range iv.Sums {
				bps += s.BitsPerSecond
			}
			line.Set(fmt.Sprintf("%s  %.1f s  %s Mbit/s", r.Target, float64(iv.EndNs)/1e9, strconv.FormatFloat(bps/1e6, 'f', 1, 64)))
		},
		Note: func(s string) {
			line.Clear()
			fmt.Fprintln(cmd.ErrOrStderr(), "thruput: "+s)
		},
	}
	if f.clients > 1 {
		return a.netClients(cmd.Context(), cfg, f.clients, format, out)
	}
	n := &result.Net{}
	doc.Net = n
	runErr := usage.Named(iperf3.Run(cmd.Context(), cfg, n, h), netClientNames)
	if cfg.Latency != nil {
		doc.LoadLatency = cfg.Latency.Result()
	}
	line.Clear()
	n.Parameters.Interface = netInterface(n)
	return a.deliver(doc, runErr, counters, func() error {
		switch {
		case stream != nil:
			return stream.End(doc)
		case f.compat:
			return iperf3.WriteCompat(out, doc)
		case live:
			fmt.Fprintln(out)
			if err := report.NetSummary(out, doc, report.Options{Format: format, Units: a.units}, false); err != nil {
				return err
			}
			return serverOutput(out, n)
		}
		return report.Write(out, doc, report.Options{Format: format, Units: a.units})
	})
}
