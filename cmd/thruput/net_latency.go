package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/latency"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// latencyFlags are net client's latency under load: on unless
// --no-latency, a probe every --latency-interval (by default
// latency.IntervalFor the test's paced load) through --idle before the
// load and through the load.
type latencyFlags struct {
	off            bool
	interval, idle string
}

// Bounds of the latency flags: probes faster than 1 ms would be traffic of
// their own; an idle phase is what the server waits through before the
// streams connect (internal/iperf3 bounds it at 30 s).
const (
	minLatencyInterval = time.Millisecond
	maxLatencyInterval = time.Second
	minIdle            = 100 * time.Millisecond
	maxIdle            = 30 * time.Second
)

func (l *latencyFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&l.off, "no-latency", false, "do not measure latency under load (the probes beside the test)")
	fl.StringVar(&l.interval, "latency-interval", "", "time between latency probes (1ms to 1s); by default 10ms, and under the load of a test paced below about 10 Mbit/s in all longer (up to 100ms), so that the probes add at most 1 % to it")
	fl.StringVar(&l.idle, "idle", "3s", "longest idle phase the latency probes measure before the load; it ends once the idle median is known to ±5 % (0.1s to 30s)")
}

// prober is the probe stream the flags ask for, for a test paced at load
// bits/s each way (0: not paced); nil with --no-latency.
func (l *latencyFlags) prober(load float64) (*latency.Prober, error) {
	if l.off {
		return nil, nil
	}
	idle, err := units.ParseSeconds(l.idle)
	if err != nil || idle < minIdle || idle > maxIdle {
		return nil, usage.Errorf("--idle %s: from 0.1s to 30s (3s, 0.5)", l.idle)
	}
	if l.interval == "" {
		// The idle path has no load to add to: it is probed at the
		// default interval, and only the load at its own.
		return latency.New(latency.Config{Idle: idle, LoadInterval: latency.IntervalFor(load)}), nil
	}
	iv, err := units.ParseSeconds(l.interval)
	if err != nil || iv < minLatencyInterval || iv > maxLatencyInterval {
		return nil, usage.Errorf("--latency-interval %s: from 1ms to 1s (10ms, 0.05)", l.interval)
	}
	if idle < 10*iv {
		return nil, usage.Errorf("--idle %s with --latency-interval %s: the idle phase needs at least 10 probes", l.idle, l.interval)
	}
	return latency.New(latency.Config{Interval: iv, Idle: idle}), nil
}
