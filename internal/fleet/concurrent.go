package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

// Groups gathers pairs by their server, in the order servers first appear:
// the clients of a group run at once into it.
func Groups(pairs []Pair) [][]Pair {
	var out [][]Pair
	at := map[int]int{}
	for _, p := range pairs {
		i, ok := at[p.To]
		if !ok {
			i = len(out)
			at[p.To] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// NetConcurrent runs each group's clients at once into one server on the
// group's host (net server --max-clients, as many as the clients), group
// after group, and gives every pair's test and why each host that failed
// to get ready did.
func (f *Fleet) NetConcurrent(ctx context.Context, hosts []Host, groups [][]Pair, o NetOptions) ([][]PairResult, []error) {
	sessions, errs := f.openAll(ctx, hosts)
	defer closeSessions(sessions)
	if o.Port == 0 {
		o.Port = 5201
	}
	res := make([][]PairResult, len(groups))
	for g, group := range groups {
		res[g] = make([]PairResult, len(group))
		var run []int
		for i, p := range group {
			r := &res[g][i]
			*r = PairResult{From: hosts[p.From], To: hosts[p.To]}
			if r.Err = startErr(ctx, r, p, errs); r.Err == nil {
				run = append(run, i)
			}
		}
		if len(run) == 0 {
			continue
		}
		gctx, cancel := f.hostContext(ctx)
		f.serveGroup(gctx, sessions, group, run, res[g], o)
		cancel()
	}
	return res, errs
}

// serveGroup starts the group's server, then the clients of the pairs run
// (indexes into group) at once, and stops the server once they ended.
func (f *Fleet) serveGroup(ctx context.Context, sessions []*session, group []Pair, run []int, res []PairResult, o NetOptions) {
	to := sessions[group[0].To]
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() {
		// Its input closing (stop) ends it, as it ends a measurement.
		_, err := to.command(sctx, []string{"net", "server", "--no-save", "--max-clients", strconv.Itoa(len(run)), "-p", strconv.Itoa(o.Port)})
		served <- err
	}()
	if err := to.run(ctx, fmt.Sprintf(listenScript, o.Port), nil, io.Discard); err != nil {
		err = fmt.Errorf("server on %s: %w", to.host.Name, firstErr(served, err))
		for _, i := range run {
			res[i].Err = err
		}
		return
	}
	addr := f.dialer.resolve(to.host).hostname
	var wg sync.WaitGroup
	for _, i := range run {
		from := sessions[group[i].From]
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.progress(from.host, "-> %s (with %d others at once)", to.host.Name, len(run)-1)
			args := append([]string{"net", "client", addr, "-p", strconv.Itoa(o.Port)}, o.ClientArgs...)
			docs, _, err := from.measure(ctx, args)
			if len(docs) == 0 {
				if err == nil {
					err = errors.New("no run")
				}
				res[i].Err = err
				return
			}
			d := docs[0]
			d.Labels["from"], d.Labels["to"] = from.host.Name, to.host.Name
			res[i].Doc, res[i].Err = d, err
		}()
	}
	wg.Wait()
	stop()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
	}
}

// ConcurrentRuns is the outcome of fleet net --concurrent: per server, each
// client's figure, their sum and Jain's fairness index.
type ConcurrentRuns struct {
	Hosts  []Host
	Groups [][]PairResult
	// HostErrs are why hosts failed to get ready, by index.
	HostErrs []error
}

// ConcurrentOutput is fleet net --concurrent's JSON (field names
// documented in docs/result-json.md).
type ConcurrentOutput struct {
	Groups      []result.ClientGroup `json:"groups"`
	FailedHosts []MatrixHost         `json:"failed_hosts,omitempty"`
}

// Output arranges the runs by server.
func (r ConcurrentRuns) Output() ConcurrentOutput {
	out := ConcurrentOutput{Groups: []result.ClientGroup{}}
	for _, g := range r.Groups {
		if len(g) == 0 {
			continue
		}
		var clients []result.GroupClient
		for _, p := range g {
			clients = append(clients, result.GroupClientOf(p.From.Name, p.Doc, p.Err))
		}
		out.Groups = append(out.Groups, result.NewClientGroup(g[0].To.Name, clients))
	}
	for i, h := range r.Hosts {
		if i < len(r.HostErrs) && r.HostErrs[i] != nil {
			out.FailedHosts = append(out.FailedHosts, MatrixHost{Host: h.Name, Error: r.HostErrs[i].Error()})
		}
	}
	return out
}

func (r ConcurrentRuns) Write(w io.Writer, format string) error {
	out := r.Output()
	if format == "json" {
		return writeJSON(w, out)
	}
	if err := report.WriteFairness(w, out.Groups, format); err != nil {
		return err
	}
	for _, h := range out.FailedHosts {
		if _, err := fmt.Fprintf(w, "\n%s: failed: %s\n", h.Host, h.Error); err != nil {
			return err
		}
	}
	return nil
}

func (r ConcurrentRuns) Runs() []*result.Document {
	var out []*result.Document
	for _, g := range r.Groups {
		out = append(out, pairDocs(g)...)
	}
	return out
}

func (r ConcurrentRuns) Failed() error {
	n, total := 0, 0
	for _, g := range r.Groups {
		for _, p := range g {
			total++
			if p.Err != nil {
				n++
			}
		}
	}
	return failures(n, total, "clients")
}
