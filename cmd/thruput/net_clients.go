package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"sync"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/usage"
)

// maxClients bounds --clients: iperf3's own limit on parallel streams.
const maxClients = 128

// checkClients refuses what --clients cannot do, before anything runs.
func checkClients(n int, format string, compat bool) error {
	switch {
	case n < 1 || n > maxClients:
		return usage.Errorf("--clients %d: from 1 to %d", n, maxClients)
	case n == 1:
		return nil
	case compat:
		return usage.Errorf("-J and --clients: iperf3's JSON is one test's; --json gives the clients' figures")
	case format != "table" && format != "json" && format != "markdown":
		return usage.Errorf("--clients writes table, json or markdown, not %s", format)
	}
	return nil
}

// netClients runs n independent tests from here into one server at once,
// each with its own control connection, as n iperf3 clients would; a
// server must take that many (thruput net server --max-clients). Each
// test is saved as a run labelled clients=ID and client=1..n; the output
// is each client's figure, their sum and Jain's fairness index, and the
// latency under their load.
func (a *app) netClients(ctx context.Context, cfg iperf3.ClientConfig, n int, format string, out io.Writer) error {
	// One probe stream for the lot, beside the first client's test: the
	// others start once its idle phase is over (its streams connect), so
	// the idle path is quiet and the load is all n clients'.
	lat := cfg.Latency
	cfg.Latency = nil
	idleDone := make(chan struct{})
	var release sync.Once
	// Each client's run has its own health sampler, so each document
	// carries the machine's health over its own test; their CPU figures
	// start from the load, as a single client's do.
	begins := make([]*lifecycle.Begun, n)
	loadBegins := func() {
		release.Do(func() {
			for _, b := range begins {
				b.LoadBegins()
			}
			close(idleDone)
		})
	}
	docs := make([]*result.Document, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		docs[i] = a.newDocument(result.MethodNetClient)
		docs[i].Targets = []result.Target{}
		docs[i].Net = &result.Net{}
		begins[i] = a.begin(ctx)
	}
	for i := range n {
		c, h := cfg, progress.Hooks{}
		if i == 0 {
			c.Latency = lat
			h.Progress = func(r progress.Report) {
				if r.Streams != nil {
					loadBegins()
				}
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				// A first client that fails early lets the others go.
				defer loadBegins()
			} else if lat != nil {
				select {
				case <-idleDone:
				case <-ctx.Done():
				}
			}
			errs[i] = usage.Named(iperf3.Run(ctx, c, docs[i].Net, h), netClientNames)
			docs[i].Net.Parameters.Interface = netInterface(docs[i].Net)
		}()
	}
	wg.Wait()
	var group *result.LoadLatency
	if lat != nil {
		group = lat.Result()
		docs[0].LoadLatency = group
	}
	id := lifecycle.NewID()
	clients := make([]result.GroupClient, n)
	failed := 0
	for i, d := range docs {
		name := strconv.Itoa(i + 1)
		if errs[i] != nil {
			failed++
		}
		if errs[i] != nil && !d.Measured() {
			begins[i].Abandon()
			clients[i] = result.GroupClientOf(name, nil, errs[i])
			continue
		}
		a.conclude(d, errs[i], begins[i])
		// conclude shares the command's labels between runs: each gets
		// its own copy before its own labels go in.
		d.Labels = maps.Clone(d.Labels)
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels["clients"], d.Labels["client"] = id, name
		clients[i] = result.GroupClientOf(name, d, errs[i])
		if err := a.Save(d); err != nil {
			fmt.Fprintf(os.Stderr, "thruput: %v\n", err)
		}
	}
	server := cfg.Host + ":" + strconv.Itoa(cfg.Port)
	g := result.NewClientGroup(server, clients)
	g.LoadLatency = group
	if err := report.WriteFairness(out, []result.ClientGroup{g}, format); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d clients failed", failed, n)
	}
	return nil
}

// netInterface names the interface the test's data crossed here.
func netInterface(n *result.Net) string {
	if len(n.Streams) == 0 {
		return ""
	}
	return sysinfo.InterfaceOf(n.Streams[0].LocalAddr)
}
