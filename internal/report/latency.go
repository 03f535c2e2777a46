package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// latencyTable is the latency under load block under a network test's
// throughput table: a row per phase (idle, then each loaded direction),
// with the round trip's median and its interval, p90, p99, the one-way
// medians when the probes measured them, the probe loss, the latency the
// load added and RPM; its notes say which probe, the clock offset, a lost
// probe stream and the verdict. nil without the section.
func latencyTable(l *result.LoadLatency) *Table {
	if l == nil {
		return nil
	}
	every := "every " + time.Duration(l.IntervalNs).String()
	if l.IdleIntervalNs > 0 {
		every = fmt.Sprintf("idle every %s, loaded every %s", time.Duration(l.IdleIntervalNs), time.Duration(l.IntervalNs))
	}
	t := &Table{
		Title:  fmt.Sprintf("Latency under load (%s, %s)", l, every),
		Header: []string{"phase", "probes", "lost", "RTT p50 ms", "95 % interval", "p90 ms", "p99 ms", "up p50 ms", "down p50 ms", "added ms", "RPM"},
	}
	row := func(p *result.LatencyPhase) {
		name := p.Phase
		if name == "idle" && l.IdleAfter {
			name = "idle (after)"
		}
		r := []string{name, strconv.Itoa(p.Sent), fmt.Sprintf("%.1f %%", 100*p.Loss), "-", "", "-", "-", "-", "-", "-", "-"}
		if d := p.RTT; d != nil {
			r[3], r[4] = units.Millis(d.P50Ns), "["+units.Millis(d.P50LowNs)+", "+units.Millis(d.P50HighNs)+"]"
			r[5], r[6] = units.Millis(d.P90Ns), units.Millis(d.P99Ns)
		}
		if p.Up != nil && p.Down != nil {
			r[7], r[8] = units.Millis(p.Up.P50Ns), units.Millis(p.Down.P50Ns)
		}
		if a := p.Added; a != nil {
			r[9] = units.SignedMillis(a.Ns) + " [" + units.SignedMillis(a.LowNs) + ", " + units.SignedMillis(a.HighNs) + "]"
		}
		if m := p.RPM; m != nil {
			r[10] = fmt.Sprintf("%.0f [%.0f, %.0f]", m.Value, m.Low, m.High)
		}
		t.Rows = append(t.Rows, r)
	}
	if l.Idle != nil {
		row(l.Idle)
	}
	for i := range l.Loaded {
		row(&l.Loaded[i])
	}
	if l.ClockOffsetNs != nil && l.ClockOffsetErrorNs != nil {
		t.Notes = append(t.Notes, note{Text: fmt.Sprintf("one-way delays: the server's clock is %s ms ±%s ms off this one's (from the idle probes, taking the idle path as symmetric)",
			strconv.FormatFloat(float64(*l.ClockOffsetNs)/1e6, 'f', 3, 64), units.Millis(*l.ClockOffsetErrorNs))})
	}
	if l.Probe == "tcp-connect" {
		t.Notes = append(t.Notes, note{Text: "probes are TCP handshakes (the server offered no UDP echo): round trips only, each a new connection through the loaded queue"})
	}
	if l.Lost != "" {
		t.Notes = append(t.Notes, note{Text: l.Lost})
	}
	if l.Verdict != "" {
		t.Notes = append(t.Notes, note{Text: l.Verdict})
	}
	return t
}

// loadLatencyHeader are the CSV columns of latency under load, after the
// throughput's: a probe phase's counts, its round trip (nanoseconds, the
// median with its 95 % interval), the one-way medians, the added latency
// with its interval and RPM with its interval. Throughput rows leave
// them empty; latency rows name the phase in the direction column and
// the probe in the side column.
var loadLatencyHeader = []string{"probes_sent", "probes_received", "probe_loss",
	"rtt_min_ns", "rtt_p50_ns", "rtt_p50_low_ns", "rtt_p50_high_ns", "rtt_p90_ns", "rtt_p99_ns", "rtt_max_ns",
	"up_p50_ns", "down_p50_ns", "added_ns", "added_low_ns", "added_high_ns", "rpm", "rpm_low", "rpm_high"}

// latencyCSV is a row per phase, idle first: the phase's name, then the
// cells of loadLatencyHeader, empty where the phase has no such figure.
func latencyCSV(l *result.LoadLatency) [][]string {
	var rows [][]string
	row := func(p *result.LatencyPhase) {
		r := []string{p.Phase, strconv.Itoa(p.Sent), strconv.Itoa(p.Received), strconv.FormatFloat(p.Loss, 'f', -1, 64)}
		if d := p.RTT; d != nil {
			r = append(r, nsStr(d.MinNs), nsStr(d.P50Ns), nsStr(d.P50LowNs), nsStr(d.P50HighNs), nsStr(d.P90Ns), nsStr(d.P99Ns), nsStr(d.MaxNs))
		} else {
			r = append(r, make([]string, 7)...)
		}
		if p.Up != nil && p.Down != nil {
			r = append(r, nsStr(p.Up.P50Ns), nsStr(p.Down.P50Ns))
		} else {
			r = append(r, "", "")
		}
		if a := p.Added; a != nil {
			r = append(r, nsStr(a.Ns), nsStr(a.LowNs), nsStr(a.HighNs))
		} else {
			r = append(r, "", "", "")
		}
		if m := p.RPM; m != nil {
			r = append(r, f1(m.Value), f1(m.Low), f1(m.High))
		} else {
			r = append(r, "", "", "")
		}
		rows = append(rows, r)
	}
	if l.Idle != nil {
		row(l.Idle)
	}
	for i := range l.Loaded {
		row(&l.Loaded[i])
	}
	return rows
}
