package result

import (
	"slices"
	"strings"
	"testing"
)

// seriesOf lists the series of every figure of d as
// "name{label=value,...}" (labels sorted) with the values of its repeats.
func seriesOf(d *Document) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range d.Sections() {
		for _, f := range s.Figures() {
			if f.Series == nil {
				continue
			}
			kv := append(d.SeriesLabels(f), f.Series.Labels...)
			var labels []string
			for i := 0; i+1 < len(kv); i += 2 {
				labels = append(labels, kv[i]+"="+kv[i+1])
			}
			slices.Sort(labels)
			k := f.Series.Name + "{" + strings.Join(labels, ",") + "}"
			out[k] = append(out[k], f.Series.Value)
		}
	}
	return out
}

// TestSeriesFromMeasurements: each method's series hold the measurement
// itself in the gauge's base unit (bytes per second, seconds, a ratio),
// not the figure's value for people (Mbit/s, ms) converted back, and are
// labelled with what the run measured; a figure the run did not measure
// (a direction without a request, an empty body, a failed download) has
// no series.
func TestSeriesFromMeasurements(t *testing.T) {
	const mib = 1 << 20
	bps, p50, added := 941234567.3, int64(4123457), int64(4039457)
	io := func(v float64) *IODirection { return &IODirection{IOs: 1, IOPS: v * 256, MiBPerSec: v} }
	latency := &LoadLatency{Idle: &LatencyPhase{Phase: "idle", Sent: 100, Loss: 0.01, RTT: &Delays{P50Ns: 84001, P90Ns: 91003, P99Ns: 123457}},
		Loaded: []LatencyPhase{{Phase: "down", Sent: 200, Loss: 0.005, RTT: &Delays{P50Ns: p50, P90Ns: 5000001, P99Ns: 98100007},
			Added: &Added{Ns: added}, RPM: &RPM{Value: 14551.3}}}}
	for _, c := range []struct {
		name string
		doc  *Document
		want map[string][]float64
	}{
		{"sweep", &Document{Method: MethodSweep, Targets: []Target{{Path: "/mnt/a"}, {Path: "/mnt/b"}}, Sweep: &Sweep{Steps: []SweepStep{
			{Target: 1, Phase: PhaseWrite, BlockSize: 4096, MiBPerSec: 12.345678901},
			{Target: 0, Phase: PhaseRead, BlockSize: 1 << 20, MiBPerSec: 98.7654321}}}},
			map[string][]float64{
				"thruput_disk_sweep_bytes_per_second{block_size=4k,phase=write,target=/mnt/b}": {12.345678901 * mib},
				"thruput_disk_sweep_bytes_per_second{block_size=1M,phase=read,target=/mnt/a}":  {98.7654321 * mib},
			}},
		{"random", &Document{Method: MethodRandom, Targets: []Target{{Path: "/mnt/a"}}, Random: &Random{
			Parameters: RandomParameters{Mode: "rndrw", BlockSize: 16384}, Reads: 600, RequestsPerSec: 1234.56789, ReadMiBPerSec: 11.5511}},
			map[string][]float64{
				"thruput_disk_random_requests_per_second{mode=rndrw,target=/mnt/a}":             {1234.56789},
				"thruput_disk_random_bytes_per_second{direction=read,mode=rndrw,target=/mnt/a}": {11.5511 * mib},
			}},
		{"io", &Document{Method: MethodIO, IO: &IO{Parameters: IOParameters{RW: "randread", Jobs: 1},
			Runs: []IORun{{Read: io(261.71)}, {Read: io(266.93)}}}},
			map[string][]float64{
				"thruput_disk_io_bytes_per_second{block_size=unknown,direction=read,iodepth=unknown,rw=randread,target=}":      {261.71 * mib, 266.93 * mib},
				"thruput_disk_io_operations_per_second{block_size=unknown,direction=read,iodepth=unknown,rw=randread,target=}": {261.71 * 256, 266.93 * 256},
			}},
		{"mark", &Document{Method: MethodMark, Targets: []Target{{Path: "/mnt/a"}}, Mark: &Mark{Results: []MarkResult{
			{Preset: "SEQ1M Q8T1", Phase: PhaseRead, MiBPerSec: 429.38, IOPS: 429}}}},
			map[string][]float64{"thruput_disk_mark_bytes_per_second{direction=read,preset=SEQ1M Q8T1,target=/mnt/a}": {429.38 * mib}}},
		{"net client with latency", &Document{Method: MethodNetClient, LoadLatency: latency, Net: &Net{
			Parameters: NetParameters{Role: "client", Server: "10.0.0.2:5201"},
			Sums:       []NetSum{{Direction: DirDown, Receiver: NetFigure{Bytes: 1, BitsPerSecond: bps}, Sender: NetFigure{BitsPerSecond: 2 * bps}}}}},
			map[string][]float64{
				"thruput_net_bytes_per_second{direction=down,peer=10.0.0.2:5201,role=client}":              {bps / 8},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=50,phase=idle,role=client}": {84001 / 1e9},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=90,phase=idle,role=client}": {91003 / 1e9},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=99,phase=idle,role=client}": {123457 / 1e9},
				"thruput_net_latency_probe_loss_ratio{peer=10.0.0.2:5201,phase=idle,role=client}":          {0.01},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=50,phase=down,role=client}": {float64(p50) / 1e9},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=90,phase=down,role=client}": {5000001 / 1e9},
				"thruput_net_latency_rtt_seconds{peer=10.0.0.2:5201,percentile=99,phase=down,role=client}": {98100007 / 1e9},
				"thruput_net_latency_added_seconds{peer=10.0.0.2:5201,phase=down,role=client}":             {float64(added) / 1e9},
				"thruput_net_latency_probe_loss_ratio{peer=10.0.0.2:5201,phase=down,role=client}":          {0.005},
				"thruput_net_latency_rpm{peer=10.0.0.2:5201,phase=down,role=client}":                       {14551.3},
			}},
		{"net server", &Document{Method: MethodNetServer, Net: &Net{Parameters: NetParameters{Role: "server", Client: "10.0.0.9:40000"},
			Sums: []NetSum{{Direction: DirUp, Receiver: NetFigure{BitsPerSecond: bps}}}}},
			map[string][]float64{"thruput_net_bytes_per_second{direction=up,peer=10.0.0.9,role=server}": {bps / 8}}},
		{"http", &Document{Method: MethodHTTP, HTTP: &HTTP{Parameters: HTTPParameters{URL: "http://pi5/1G"}, Runs: []HTTPRun{
			{Bytes: 1 << 30, MiBPerSec: 110.123456789}, {Bytes: 0}, {Bytes: 1 << 30, MiBPerSec: 112.5}, {Bytes: 1 << 20, MiBPerSec: 1, Error: "reset"}}}},
			map[string][]float64{"thruput_http_bytes_per_second{url=http://pi5/1G}": {110.123456789 * mib, 112.5 * mib}}},
	} {
		got := seriesOf(c.doc)
		for k, want := range c.want {
			if !slices.Equal(got[k], want) {
				t.Errorf("%s: %s = %v, want %v", c.name, k, got[k], want)
			}
		}
		for k := range got {
			if _, ok := c.want[k]; !ok {
				t.Errorf("%s: a series %s = %v it should not have", c.name, k, got[k])
			}
		}
	}
}
