package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// PairResult is one network test between two hosts.
type PairResult struct {
	From, To Host
	// Doc is the client's run, labelled from= and to=.
	Doc *result.Document
	Err error
}

// NetOptions are fleet net's settings beyond the hosts and pairs.
type NetOptions struct {
	// ClientArgs are passed to `net client` (-t, -P, -R, -u -b ...).
	ClientArgs []string
	// Port is the server's port on every host.
	Port int
}

// listenScript waits up to 10 s for a TCP listener on the port (from
// /proc/net/tcp{,6}, so no ss or netstat is needed on the host).
const listenScript = `p=$(printf ':%%04X ' %d); i=0
while [ $i -lt 100 ]; do
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$p" 'index($2 " ", p) && $4 == "0A" {f=1} END {exit !f}' && exit 0
  sleep 0.1; i=$((i+1))
done
echo "the server did not start listening within 10 s" >&2; exit 1`

// Net runs the network tests of pairs between hosts, round by round, the
// tests of a round side by side, and gives the tests and why each host
// that failed to get ready did. Hosts are connected and given thruput
// first, each bounded by the host timeout; a host that cannot be reached
// fails its pairs, not the others.
func (f *Fleet) Net(ctx context.Context, hosts []Host, pairs []Pair, o NetOptions) ([]PairResult, []error) {
	sessions, errs := f.openAll(ctx, hosts)
	defer closeSessions(sessions)
	res := make([]PairResult, len(pairs))
	index := map[Pair]int{}
	for i, p := range pairs {
		index[p] = i
		res[i] = PairResult{From: hosts[p.From], To: hosts[p.To]}
	}
	if o.Port == 0 {
		o.Port = 5201
	}
	for _, round := range Schedule(pairs, f.opts.Parallel) {
		var wg sync.WaitGroup
		for _, p := range round {
			r := &res[index[p]]
			if r.Err = startErr(ctx, r, p, errs); r.Err != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				pctx, cancel := f.hostContext(ctx)
				defer cancel()
				r.Doc, r.Err = f.pair(pctx, sessions[p.From], sessions[p.To], o)
			}()
		}
		wg.Wait()
	}
	for i, h := range hosts {
		if errs[i] != nil {
			continue
		}
		failed := 0
		for _, r := range res {
			var hf *HostFailed
			if r.Err != nil && !errors.As(r.Err, &hf) && (r.From.Name == h.Name || r.To.Name == h.Name) {
				failed++
			}
		}
		if failed > 0 {
			f.progress(h, "done, %d of its tests failed", failed)
		} else {
			f.progress(h, "done")
		}
	}
	return res, errs
}

// openAll makes every host ready, each bounded by the host timeout; errs
// holds why each host that failed did.
func (f *Fleet) openAll(ctx context.Context, hosts []Host) ([]*session, []error) {
	sessions := make([]*session, len(hosts))
	errs := f.each(ctx, hosts, "ready", func(ctx context.Context, i int, h Host) error {
		s, err := f.open(ctx, h)
		sessions[i] = s
		return err
	})
	return sessions, errs
}

func closeSessions(sessions []*session) {
	for _, s := range sessions {
		if s != nil {
			s.Close()
		}
	}
}

// startErr is the pair's error when a host of it is not ready or the run
// was stopped before it started; nil when it may start.
func startErr(ctx context.Context, r *PairResult, p Pair, errs []error) error {
	switch {
	case errs[p.From] != nil:
		return &HostFailed{Host: r.From.Name, Err: errs[p.From]}
	case errs[p.To] != nil:
		return &HostFailed{Host: r.To.Name, Err: errs[p.To]}
	case ctx.Err() != nil:
		return fmt.Errorf("not started: %w", stopped(ctx, nil))
	}
	return nil
}

// HostFailed is a pair's error when one of its hosts never got ready;
// the host's own reason is told once, on the host's line.
type HostFailed struct {
	Host string
	Err  error
}

func (e *HostFailed) Error() string { return e.Host + " failed" }

func (e *HostFailed) Unwrap() error { return e.Err }

// pair runs one test: a server on to, then the client on from against
// to's address.
func (f *Fleet) pair(ctx context.Context, from, to *session, o NetOptions) (*result.Document, error) {
	f.progress(from.host, "-> %s", to.host.Name)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() {
		// Its input closing (stop) ends it, as it ends a measurement.
		_, err := to.command(sctx, []string{"net", "server", "--once", "--no-save", "-p", strconv.Itoa(o.Port)})
		served <- err
	}()
	if err := to.run(ctx, fmt.Sprintf(listenScript, o.Port), nil, io.Discard); err != nil {
		return nil, fmt.Errorf("server on %s: %w", to.host.Name, firstErr(served, err))
	}
	addr := f.dialer.resolve(to.host).hostname
	args := append([]string{"net", "client", addr, "-p", strconv.Itoa(o.Port)}, o.ClientArgs...)
	docs, _, err := from.measure(ctx, args)
	// A --once server ends with its test; one that does not (the client
	// never reached it) is stopped.
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		stop()
		<-served
	}
	if len(docs) == 0 {
		if err == nil {
			err = errors.New("no run")
		}
		return nil, err
	}
	d := docs[0]
	d.Labels["from"], d.Labels["to"] = from.host.Name, to.host.Name
	return d, err
}

// firstErr prefers the server's own reason, if it already ended, over
// the listener check's.
func firstErr(served <-chan error, err error) error {
	select {
	case serr := <-served:
		if serr != nil {
			return serr
		}
	case <-time.After(100 * time.Millisecond):
	}
	return err
}
