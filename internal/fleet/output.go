package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// HostLine is one host's outcome as fleet commands print it (JSON field
// names documented in docs/result-json.md).
type HostLine struct {
	Host      string   `json:"host"`
	Platform  string   `json:"platform,omitempty"`
	SentBytes int64    `json:"sent_bytes"`
	Runs      []string `json:"runs"`
	// Output is what a command that saves no run printed there.
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Lines summarises results for printing; saved maps a run to the error
// its saving gave, if any.
func Lines(res []HostResult) []HostLine {
	out := make([]HostLine, len(res))
	for i, r := range res {
		l := HostLine{Host: r.Host.Name, SentBytes: r.Sent, Runs: []string{}, Output: r.Output}
		if r.Platform.GOARCH != "" {
			l.Platform = r.Platform.String()
		}
		for _, d := range r.Docs {
			l.Runs = append(l.Runs, d.ID)
		}
		if r.Err != nil {
			l.Error = r.Err.Error()
		}
		out[i] = l
	}
	return out
}

// WriteLines prints one line per host: table, markdown or json.
func WriteLines(w io.Writer, lines []HostLine, format string) error {
	if format == "json" {
		return writeJSON(w, lines)
	}
	t := report.Table{Header: []string{"host", "platform", "copied", "runs", "status"}, Left: true}
	for _, l := range lines {
		status := "ok"
		if l.Error != "" {
			status = "failed: " + l.Error
		}
		copied := "cached"
		if l.SentBytes > 0 {
			copied = units.IEC(l.SentBytes)
		} else if l.Platform == "" {
			copied = "-"
		}
		runs := strings.Join(l.Runs, " ")
		if runs == "" {
			runs = "-"
		}
		t.Rows = append(t.Rows, []string{l.Host, dash(l.Platform), copied, runs, status})
	}
	if err := t.Print(w, format == "markdown"); err != nil {
		return err
	}
	// What commands that save no run printed, host by host.
	for _, l := range lines {
		if l.Output == "" {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n== %s ==\n%s", l.Host, l.Output); err != nil {
			return err
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Matrix is fleet net's outcome: a figure per ordered pair of hosts.
type Matrix struct {
	Hosts []string     `json:"hosts"`
	Pairs []MatrixPair `json:"pairs"`
	// FailedHosts are the hosts that never got ready, with why; their
	// pairs say only that the host failed.
	FailedHosts []MatrixHost `json:"failed_hosts,omitempty"`
}

// MatrixHost is a host of fleet net that failed before its tests.
type MatrixHost struct {
	Host  string `json:"host"`
	Error string `json:"error"`
}

// MatrixPair is one cell: the client on From sent to (or with -R
// received from) the server on To.
type MatrixPair struct {
	From string `json:"from"`
	To   string `json:"to"`
	// MbitPerSecond is the receiver's rate, all directions added.
	MbitPerSecond *float64 `json:"mbit_per_second,omitempty"`
	// LoadedRTTMs is the median round trip of the latency probes under
	// the load, milliseconds: the slowest direction's when the test ran
	// more than one; absent when no probe was answered under load.
	LoadedRTTMs *float64 `json:"loaded_rtt_ms,omitempty"`
	Run         string   `json:"run,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// NewMatrix arranges pair results by host; hostErrs are the hosts'
// own failures, by index (nil when none).
func NewMatrix(hosts []Host, res []PairResult, hostErrs []error) Matrix {
	m := Matrix{}
	for i, h := range hosts {
		m.Hosts = append(m.Hosts, h.Name)
		if i < len(hostErrs) && hostErrs[i] != nil {
			m.FailedHosts = append(m.FailedHosts, MatrixHost{Host: h.Name, Error: hostErrs[i].Error()})
		}
	}
	for _, r := range res {
		p := MatrixPair{From: r.From.Name, To: r.To.Name}
		if v, ok := r.Doc.ReceiverMbits(); ok {
			p.MbitPerSecond = &v
			p.Run = r.Doc.ID
		}
		if r.Doc != nil {
			p.LoadedRTTMs = loadedRTT(r.Doc.LoadLatency)
		}
		if r.Err != nil {
			p.Error = r.Err.Error()
		}
		m.Pairs = append(m.Pairs, p)
	}
	return m
}

// loadedRTT is the slowest direction's loaded median round trip of l,
// in ms; nil without one.
func loadedRTT(l *result.LoadLatency) *float64 {
	p := l.Slowest()
	if p == nil {
		return nil
	}
	v := float64(p.RTT.P50Ns) / 1e6
	return &v
}

// Write prints the matrix (rows: client, columns: server), then when any
// pair measured latency under load a second matrix of its loaded median
// round trip, and below them the pairs that failed with their reasons.
func (m Matrix) Write(w io.Writer, format string) error {
	if format == "json" {
		return writeJSON(w, m)
	}
	cell := map[[2]string]string{}
	rtt := map[[2]string]string{}
	var failed []MatrixPair
	for _, p := range m.Pairs {
		if p.LoadedRTTMs != nil {
			rtt[[2]string{p.From, p.To}] = fmt.Sprintf("%.1f", *p.LoadedRTTMs)
		}
		switch {
		case p.MbitPerSecond != nil && p.Error != "":
			cell[[2]string{p.From, p.To}] = fmt.Sprintf("%.1f (partial)", *p.MbitPerSecond)
			failed = append(failed, p)
		case p.MbitPerSecond != nil:
			cell[[2]string{p.From, p.To}] = fmt.Sprintf("%.1f", *p.MbitPerSecond)
		default:
			cell[[2]string{p.From, p.To}] = "failed"
			failed = append(failed, p)
		}
	}
	if err := m.grid("Mbit/s from \\ to", cell).Print(w, format == "markdown"); err != nil {
		return err
	}
	if len(rtt) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		t := m.grid("loaded RTT ms from \\ to", rtt)
		t.Title = "Latency under load: the median round trip while the pair's test ran"
		if err := t.Print(w, format == "markdown"); err != nil {
			return err
		}
	}
	hostFailed := map[string]bool{}
	for _, h := range m.FailedHosts {
		hostFailed[h.Host] = true
	}
	lines := 0
	for _, p := range failed {
		if hostFailed[p.From] || hostFailed[p.To] {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s -> %s: %s", p.From, p.To, p.Error); err != nil {
			return err
		}
		lines++
	}
	for _, h := range m.FailedHosts {
		if _, err := fmt.Fprintf(w, "\n%s: failed: %s", h.Host, h.Error); err != nil {
			return err
		}
		lines++
	}
	if lines > 0 {
		_, err := fmt.Fprintln(w)
		return err
	}
	return nil
}

// grid is a table of cells by client (rows) and server (columns), "-"
// where a pair has no cell.
func (m Matrix) grid(corner string, cells map[[2]string]string) report.Table {
	t := report.Table{Header: append([]string{corner}, m.Hosts...), Left: true}
	for _, from := range m.Hosts {
		r := []string{from}
		for _, to := range m.Hosts {
			c, ok := cells[[2]string{from, to}]
			if !ok {
				c = "-"
			}
			r = append(r, c)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// pairDocs lists the runs of pair results, for saving.
func pairDocs(res []PairResult) []*result.Document {
	var out []*result.Document
	for _, r := range res {
		if r.Doc != nil {
			out = append(out, r.Doc)
		}
	}
	return out
}

// Outcome is what a fleet command brings back: something to print, the
// runs to save here, and whether any host or pair failed.
type Outcome interface {
	Write(w io.Writer, format string) error
	Runs() []*result.Document
	// Failed is nil when every host (or pair) succeeded.
	Failed() error
}

// HostRuns is the outcome of fleet run, suite and clean.
type HostRuns []HostResult

func (r HostRuns) Write(w io.Writer, format string) error { return WriteLines(w, Lines(r), format) }

func (r HostRuns) Runs() []*result.Document {
	var out []*result.Document
	for _, h := range r {
		out = append(out, h.Docs...)
	}
	return out
}

func (r HostRuns) Failed() error {
	n := 0
	for _, h := range r {
		if h.Err != nil {
			n++
		}
	}
	return failures(n, len(r), "hosts")
}

func failures(n, total int, what string) error {
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d %s failed", n, total, what)
}

// NetRuns is the outcome of fleet net.
type NetRuns struct {
	Hosts []Host
	Pairs []PairResult
	// HostErrs are why hosts failed to get ready, by index.
	HostErrs []error
}

func (r NetRuns) Write(w io.Writer, format string) error {
	return NewMatrix(r.Hosts, r.Pairs, r.HostErrs).Write(w, format)
}

func (r NetRuns) Runs() []*result.Document { return pairDocs(r.Pairs) }

func (r NetRuns) Failed() error {
	n := 0
	for _, p := range r.Pairs {
		if p.Err != nil {
			n++
		}
	}
	return failures(n, len(r.Pairs), "pairs")
}

// Infos is the outcome of fleet sysinfo.
type Infos []HostInfo

func (i Infos) Write(w io.Writer, format string) error { return WriteSysinfo(w, i, format) }

func (Infos) Runs() []*result.Document { return nil }

func (i Infos) Failed() error {
	n := 0
	for _, h := range i {
		if h.Error != "" {
			n++
		}
	}
	return failures(n, len(i), "hosts")
}
