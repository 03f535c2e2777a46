package report

import (
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// metricHelp names each metric WriteMetrics writes and says what it is.
// Names are in base units (bytes per second, seconds), as Prometheus asks.
var metricHelp = map[string]string{
	"thruput_disk_sweep_bytes_per_second":     "Sequential write (fsync included) or read of one block size, the latest run's.",
	"thruput_disk_random_bytes_per_second":    "Random file I/O (sysbench fileio's method), reads or writes, the latest run's.",
	"thruput_disk_random_requests_per_second": "Random file I/O requests (reads and writes) per second, the latest run's.",
	"thruput_disk_io_bytes_per_second":        "Queue-depth I/O (fio's method), the mean of the latest run's repeats.",
	"thruput_disk_io_operations_per_second":   "Queue-depth I/O operations per second, the mean of the latest run's repeats.",
	"thruput_disk_mark_bytes_per_second":      "CrystalDiskMark's presets, the latest run's.",
	"thruput_net_bytes_per_second":            "Network throughput the receiver counted (iperf3's method), the latest run's.",
	"thruput_net_latency_rtt_seconds":         "Round trip of the latency probes (UDP echo or TCP handshake) at a percentile, idle or under a network test's load in a direction, the latest run's.",
	"thruput_net_latency_added_seconds":       "Latency a network test's load added in a direction: the loaded median round trip less the idle one, the latest run's.",
	"thruput_net_latency_probe_loss_ratio":    "Share of latency probes without an answer (0 to 1), idle or under load, the latest run's.",
	"thruput_net_latency_rpm":                 "Round trips per minute under a network test's load in a direction: 60 s over the loaded median round trip, the latest run's.",
	"thruput_http_bytes_per_second":           "HTTP download rate (wget's method), the mean of the latest run's repeats.",
	"thruput_last_run_timestamp_seconds":      "When the latest run of a method on a host ended, in seconds since 1970.",
}

type metricSample struct {
	name   string
	labels map[string]string
	value  float64
}

// WriteMetrics writes the latest figure of every series in docs in the
// Prometheus text format, ending with OpenMetrics' # EOF (a comment to
// Prometheus' parser): what node_exporter's textfile collector reads and
// thruput serve's /metrics sends. A series is a host, a method, a target
// and a step; its labels never name a run, so they stay few. docs are
// oldest first; a later run of a series replaces an earlier one.
func WriteMetrics(w io.Writer, docs []*result.Document) error {
	latest := map[string]metricSample{}
	for _, d := range docs {
		if d.Status != result.StatusOK {
			continue
		}
		for _, s := range samples(d) {
			latest[s.name+"{"+labelText(s.labels)+"}"] = s
		}
	}
	byName := map[string][]string{}
	for k, s := range latest {
		byName[s.name] = append(byName[s.name], k)
	}
	ew := &errWriter{w: w}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		ew.printf("# HELP %s %s\n# TYPE %s gauge\n", name, metricHelp[name], name)
		keys := byName[name]
		slices.Sort(keys)
		for _, k := range keys {
			ew.printf("%s %s\n", k, strconv.FormatFloat(latest[k].value, 'g', -1, 64))
		}
	}
	ew.printf("# EOF\n")
	return ew.err
}

// sampler gathers a run's figures as metric samples, through its
// method's view.
type sampler struct {
	d   *result.Document
	out []metricSample
}

// add is a sample of the series name of the run's host and the labels
// kv (name, value, name, value ...).
func (s *sampler) add(name string, v float64, kv ...string) {
	l := map[string]string{"host": s.d.Host.Hostname}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	s.out = append(s.out, metricSample{name, l, v})
}

// target is the path of target i, "" when the run has no such target.
func (s *sampler) target(i int) string {
	if i < len(s.d.Targets) {
		return s.d.Targets[i].Path
	}
	return ""
}

// samples are a run's figures as metric samples.
func samples(d *result.Document) []metricSample {
	s := &sampler{d: d}
	if v := viewOf(d); v != nil && v.samples != nil {
		v.samples(s)
	}
	if len(s.out) > 0 && !d.EndedAt.IsZero() {
		s.add("thruput_last_run_timestamp_seconds", float64(d.EndedAt.UnixNano())/1e9, "method", string(d.Method))
	}
	return s.out
}

// bytesPerMiB converts the documents' MiB/s to the bytes per second
// Prometheus asks for.
const bytesPerMiB = 1 << 20

func sweepSamples(s *sampler) {
	for _, st := range s.d.Sweep.Steps {
		s.add("thruput_disk_sweep_bytes_per_second", st.MiBPerSec*bytesPerMiB, "target", s.target(st.Target), "phase", st.Phase, "block_size", units.BlockLabel(st.BlockSize))
	}
}

func randomSamples(s *sampler) {
	r := s.d.Random
	if r.Reads > 0 {
		s.add("thruput_disk_random_bytes_per_second", r.ReadMiBPerSec*bytesPerMiB, "target", s.target(0), "mode", r.Parameters.Mode, "direction", "read")
	}
	if r.Writes > 0 {
		s.add("thruput_disk_random_bytes_per_second", r.WriteMiBPerSec*bytesPerMiB, "target", s.target(0), "mode", r.Parameters.Mode, "direction", "write")
	}
	s.add("thruput_disk_random_requests_per_second", r.RequestsPerSec, "target", s.target(0), "mode", r.Parameters.Mode)
}

// ioSamples are the means of the repeats, per direction.
func ioSamples(s *sampler) {
	p := s.d.IO.Parameters
	for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
		var bps, iops float64
		n := 0
		for _, run := range s.d.IO.Runs {
			x := run.Read
			if dir == result.PhaseWrite {
				x = run.Write
			}
			if x != nil {
				bps, iops, n = bps+x.MiBPerSec*bytesPerMiB, iops+x.IOPS, n+1
			}
		}
		if n == 0 {
			continue
		}
		bs, depth := p.Shape(units.BlockLabel, "unknown")
		kv := []string{"target", s.target(0), "rw", p.RW, "block_size", bs, "iodepth", depth, "direction", dir}
		s.add("thruput_disk_io_bytes_per_second", bps/float64(n), kv...)
		s.add("thruput_disk_io_operations_per_second", iops/float64(n), kv...)
	}
}

func markSamples(s *sampler) {
	for _, r := range s.d.Mark.Results {
		s.add("thruput_disk_mark_bytes_per_second", r.MiBPerSec*bytesPerMiB, "target", s.target(0), "preset", r.Preset, "direction", r.Phase)
	}
}

func netSamples(s *sampler) {
	for _, sum := range s.d.Net.Sums {
		s.add("thruput_net_bytes_per_second", sum.Receiver.BitsPerSecond/8, "role", s.d.Net.Parameters.Role, "peer", peerOf(s.d), "direction", sum.Direction)
	}
	if l := s.d.LoadLatency; l != nil {
		latencySamples(s, l)
	}
}

// latencySamples are latency under load per phase (idle, then each
// loaded direction): the round trip's p50, p90 and p99 (label percentile), the probe loss,
// and for the load the added latency and RPM. A phase without answers
// has its loss alone.
func latencySamples(s *sampler, l *result.LoadLatency) {
	phase := func(p *result.LatencyPhase) {
		kv := []string{"role", s.d.Net.Parameters.Role, "peer", peerOf(s.d), "phase", p.Phase}
		if p.Sent > 0 {
			s.add("thruput_net_latency_probe_loss_ratio", p.Loss, kv...)
		}
		if d := p.RTT; d != nil {
			for _, q := range []struct {
				label string
				ns    int64
			}{{"50", d.P50Ns}, {"90", d.P90Ns}, {"99", d.P99Ns}} {
				// "quantile" is a summary's label; promtool refuses it on a gauge.
				s.add("thruput_net_latency_rtt_seconds", float64(q.ns)/1e9, append(kv, "percentile", q.label)...)
			}
		}
		if p.Added != nil {
			s.add("thruput_net_latency_added_seconds", float64(p.Added.Ns)/1e9, kv...)
		}
		if p.RPM != nil {
			s.add("thruput_net_latency_rpm", p.RPM.Value, kv...)
		}
	}
	if l.Idle != nil {
		phase(l.Idle)
	}
	for i := range l.Loaded {
		phase(&l.Loaded[i])
	}
}

// httpSamples are the mean of the downloads that received a body.
func httpSamples(s *sampler) {
	var sum float64
	n := 0
	for _, r := range s.d.HTTP.Runs {
		if r.Bytes > 0 {
			sum, n = sum+r.MiBPerSec*bytesPerMiB, n+1
		}
	}
	if n > 0 {
		s.add("thruput_http_bytes_per_second", sum/float64(n), "url", s.d.HTTP.Parameters.URL)
	}
}

// peerOf is the other end of a network run: the server as dialled, or
// the client's address without its port, which changes every test and
// would make a series per test.
func peerOf(d *result.Document) string {
	p := d.Net.Parameters
	if p.Role == "client" {
		return p.Server
	}
	if h, _, err := net.SplitHostPort(p.Client); err == nil {
		return h
	}
	return p.Client
}

// labelText prints labels sorted by name, values escaped as the text
// format wants.
func labelText(l map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		v := strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(l[k])
		parts = append(parts, fmt.Sprintf(`%s="%s"`, k, v))
	}
	return strings.Join(parts, ",")
}
