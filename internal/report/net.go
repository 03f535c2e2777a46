package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// netRate prints bits/s in the unit u, as mbit prints Mbit/s.
func netRate(u storageUnit, bps float64) string {
	return strconv.FormatFloat(u.of(bps/8/(1<<20)), 'f', 2, 64)
}

func mibs(bytes int64) string { return strconv.FormatFloat(float64(bytes)/(1<<20), 'f', 2, 64) }

func secondsLabel(ns int64) string {
	return strconv.FormatFloat(time.Duration(ns).Seconds(), 'f', -1, 64) + " s"
}

// netTitle says what the test was in one line, its cap in the unit u.
func netTitle(n *result.Net, u storageUnit) string {
	p := n.Parameters
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d stream(s) %s", strings.ToUpper(p.Protocol), p.Streams, p.Direction)
	switch {
	case p.DurationNs > 0:
		fmt.Fprintf(&b, ", %s", secondsLabel(p.DurationNs))
	case p.Bytes > 0:
		fmt.Fprintf(&b, ", %s bytes", itoa(p.Bytes))
	case p.Blocks > 0:
		fmt.Fprintf(&b, ", %s blocks", itoa(p.Blocks))
	}
	if p.OmitNs > 0 {
		fmt.Fprintf(&b, " after %s omitted", secondsLabel(p.OmitNs))
	}
	fmt.Fprintf(&b, ", %d-byte blocks", p.BlockSize)
	if p.BitrateBps > 0 {
		fmt.Fprintf(&b, ", capped at %s %s per stream", netRate(u, float64(p.BitrateBps)), u.name)
	}
	if p.ZeroCopy {
		b.WriteString(", zero-copy")
	}
	fmt.Fprintf(&b, "; %s of %s", p.Role, p.Server)
	if p.Client != "" {
		fmt.Fprintf(&b, " for %s", p.Client)
	}
	return b.String()
}

func init() {
	v := &view{tables: netTables, text: netText, csv: netCSV}
	views[result.MethodNetClient], views[result.MethodNetServer] = v, v
}

// netTables: per stream and per direction, the sender's and the
// receiver's figures, iperf3's final report in the page's unit (units).
func netTables(doc *result.Document, units string) []Table {
	n := doc.Net
	u, mib := netUnitOf(units), netMiB(units)
	udp := n.Parameters.Protocol == "udp"
	header := []string{"stream", "direction", "side", "MiB", u.name}
	if mib {
		header = append(header, "MiB/s")
	}
	if udp {
		header = append(header, "jitter ms", "lost/total", "lost %")
	} else {
		header = append(header, "retransmits")
	}
	t := Table{Title: netTitle(n, u), Header: header}
	row := func(id, dir, side string, f result.NetFigure, local bool, iv *result.Interval) {
		if local {
			side += " (here)"
		}
		r := []string{id, dir, side, mibs(f.Bytes), netRate(u, f.BitsPerSecond) + pm(u.of(f.BitsPerSecond/8/(1<<20)), iv)}
		if mib {
			r = append(r, strconv.FormatFloat(f.BitsPerSecond/8/(1<<20), 'f', 2, 64))
		}
		// The far side's count never came (the test was cut short before
		// the results exchange): unknown, not a rate of 0.
		if !local && f.Bytes == 0 && f.Seconds == 0 {
			for i := 3; i < len(r); i++ {
				r[i] = "unknown"
			}
		}
		if udp {
			jitter, lost, pct := "", "", ""
			if f.JitterMs != nil {
				jitter = f3(*f.JitterMs)
			}
			if f.Lost != nil && f.Packets != nil {
				lost = itoa(*f.Lost) + "/" + itoa(*f.Packets)
				if *f.Packets > 0 {
					pct = strconv.FormatFloat(float64(*f.Lost)*100/float64(*f.Packets), 'f', 2, 64)
				}
			} else if f.Packets != nil {
				lost = itoa(*f.Packets) + " sent"
			}
			r = append(r, jitter, lost, pct)
		} else {
			retr := ""
			if f.Retransmits != nil {
				retr = itoa(*f.Retransmits)
			}
			r = append(r, retr)
		}
		t.Rows = append(t.Rows, r)
	}
	client := n.Parameters.Role == "client"
	here := func(sender bool, dir string) bool { return sender == ((dir == result.DirUp) == client) }
	if len(n.Streams) > 1 {
		for _, s := range n.Streams {
			id := strconv.FormatInt(s.ID, 10)
			row(id, s.Direction, "sender", s.Sender, s.Local == "sender", nil)
			row(id, s.Direction, "receiver", s.Receiver, s.Local == "receiver", nil)
		}
	}
	for _, s := range n.Sums {
		// The interval is of this end's bytes; both ends' figures of a
		// direction differ by what was in flight, so it is shown on both.
		row("sum", s.Direction, "sender", s.Sender, here(true, s.Direction), s.Interval)
		row("sum", s.Direction, "receiver", s.Receiver, here(false, s.Direction), s.Interval)
		f := s.Receiver
		if here(true, s.Direction) {
			f = s.Sender
		}
		t.Notes = append(t.Notes, intervalNotes(figureNote{s.Direction, s.Interval, u.rate, f.BitsPerSecond / 8, time.Duration(f.Seconds * float64(time.Second))})...)
	}
	c := n.CPU
	cpu := fmt.Sprintf("CPU here %s %% (user %s, system %s)", f1(c.LocalTotal), f1(c.LocalUser), f1(c.LocalSystem))
	switch {
	case c.OneProcess:
		cpu = fmt.Sprintf("CPU of both ends %s %% (user %s, system %s): client and server were one process", f1(c.LocalTotal), f1(c.LocalUser), f1(c.LocalSystem))
	case c.RemoteTotal != nil:
		cpu += fmt.Sprintf(", at the other end %s %% (user %s, system %s)", f1(*c.RemoteTotal), f1(*c.RemoteUser), f1(*c.RemoteSystem))
	}
	t.Notes = append(t.Notes, note{Mark: "", Text: cpu + "; 100 % is one CPU busy"})
	if n.Parameters.Congestion != "" {
		t.Notes = append(t.Notes, note{Mark: "", Text: "TCP congestion control " + n.Parameters.Congestion})
	}
	return []Table{t}
}

// NetIntervals prints intervals the way iperf3 does while a test runs: a
// header, then a line per stream and a sum line per direction.
type NetIntervals struct {
	W io.Writer
	// Units is the page's --units: the bitrates are in its unit
	// (netUnitOf); MiB adds a column of MiB/s beside them (both).
	Units string
	MiB   bool
	UDP   bool
	n     int
}

// Line prints one interval.
func (l *NetIntervals) Line(iv result.NetInterval) {
	ew := &errWriter{w: l.W}
	if l.n == 0 {
		extra := "   Retr      Cwnd      RTT"
		if l.UDP {
			extra = "  Datagrams   Lost    Jitter"
		}
		unit := ""
		if l.MiB {
			unit = "      MiB/s"
		}
		ew.printf("[ ID] Dir  %-16s %14s %17s%s%s\n", "Interval", "Transfer", "Bitrate", unit, extra)
	}
	l.n++
	interval := fmt.Sprintf("%.2f-%.2f s", float64(iv.StartNs)/1e9, float64(iv.EndNs)/1e9)
	line := func(id string, f result.NetIntervalFlow) {
		u := netUnitOf(l.Units)
		rate := fmt.Sprintf("%10s %-6s", netRate(u, f.BitsPerSecond), u.name)
		if l.MiB {
			rate += fmt.Sprintf(" %10.2f", f.BitsPerSecond/8/(1<<20))
		}
		extra := ""
		switch {
		case f.Retransmits != nil && f.ID != 0:
			extra = fmt.Sprintf(" %6d %5d KiB %5d us", *f.Retransmits, f.CwndBytes>>10, f.RTTUs)
		case f.Retransmits != nil:
			extra = fmt.Sprintf(" %6d", *f.Retransmits)
		case f.Lost != nil:
			extra = fmt.Sprintf(" %10d %6d %6.3f ms", *f.Packets, *f.Lost, *f.JitterMs)
		case f.Packets != nil:
			extra = fmt.Sprintf(" %10d", *f.Packets)
		}
		if iv.Omitted {
			extra += "  (omitted)"
		}
		ew.printf("%s\n", strings.TrimRight(fmt.Sprintf("[%3s] %-4s %-16s %10s MiB %s%s", id, f.Direction, interval, mibs(f.Bytes), rate, extra), " "))
	}
	for _, f := range iv.Streams {
		line(strconv.FormatInt(f.ID, 10), f)
	}
	if len(iv.Streams) > len(iv.Sums) {
		for _, f := range iv.Sums {
			line("SUM", f)
		}
	}
}

// netText is the table view of a stored run: its intervals, then the
// final figures.
func netText(w io.Writer, doc *result.Document, o Options, md bool) error {
	ew := &errWriter{w: w}
	ew.printf("%s\n\n", heading(doc))
	if !md && len(doc.Net.Intervals) > 0 {
		l := &NetIntervals{W: ew, Units: o.Units, MiB: netMiB(o.Units), UDP: doc.Net.Parameters.Protocol == "udp"}
		for _, iv := range doc.Net.Intervals {
			l.Line(iv)
		}
		ew.printf("\n")
	}
	return NetSummary(ew, doc, o, md)
}

// NetSummary prints a network run's final figures and status, the part
// that follows the live interval lines.
func NetSummary(w io.Writer, doc *result.Document, o Options, md bool) error {
	ew := &errWriter{w: w}
	ts := netTables(doc, o.Units)
	if t := latencyTable(doc.LoadLatency); t != nil {
		ts = append(ts, *t)
	}
	body(ew, doc, ts, md, o.Units)
	return ew.err
}

// netCSV is one row per stream side and per direction sum, then with
// latency under load a row per probe phase (latencyCSV).
func netCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	header := []string{"run_id", "role", "protocol", "stream", "direction", "side", "local", "bytes", "seconds", "bits_per_second", "retransmits", "jitter_ms", "lost", "packets",
		ciHeader[0], ciHeader[1], ciHeader[2], ciHeader[3]}
	lat := doc.LoadLatency
	if lat != nil {
		header = append(header, loadLatencyHeader...)
	}
	_ = cw.Write(header)
	n := doc.Net
	opt := func(v *int64) string {
		if v == nil {
			return ""
		}
		return itoa(*v)
	}
	row := func(id, dir, side string, local bool, f result.NetFigure, iv *result.Interval) {
		j := ""
		if f.JitterMs != nil {
			j = strconv.FormatFloat(*f.JitterMs, 'f', -1, 64)
		}
		r := append([]string{doc.ID, n.Parameters.Role, n.Parameters.Protocol, id, dir, side, strconv.FormatBool(local),
			itoa(f.Bytes), strconv.FormatFloat(f.Seconds, 'f', -1, 64), strconv.FormatFloat(f.BitsPerSecond, 'f', 0, 64),
			opt(f.Retransmits), j, opt(f.Lost), opt(f.Packets)}, ciCells(iv)...)
		if lat != nil {
			r = append(r, make([]string, len(loadLatencyHeader))...)
		}
		_ = cw.Write(r)
	}
	for _, s := range n.Streams {
		id := strconv.FormatInt(s.ID, 10)
		row(id, s.Direction, "sender", s.Local == "sender", s.Sender, nil)
		row(id, s.Direction, "receiver", s.Local == "receiver", s.Receiver, nil)
	}
	client := n.Parameters.Role == "client"
	for _, s := range n.Sums {
		senderHere := (s.Direction == result.DirUp) == client
		row("sum", s.Direction, "sender", senderHere, s.Sender, s.Interval)
		row("sum", s.Direction, "receiver", !senderHere, s.Receiver, s.Interval)
	}
	if lat != nil {
		for _, r := range latencyCSV(lat) {
			_ = cw.Write(append([]string{doc.ID, n.Parameters.Role, n.Parameters.Protocol, "latency", r[0], lat.Probe, "", "", "", "", "", "", "", "", "", "", "", ""}, r[1:]...))
		}
	}
	cw.Flush()
	return cw.Error()
}
