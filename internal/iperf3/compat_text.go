package iperf3

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// WriteCompatText writes a test's report in iperf3's text layout: the
// connections, one line per stream and interval, and the summary with
// sender and receiver lines. A server sends it as server_output_text; a
// title prefixes every line, as iperf3's -T does.
func WriteCompatText(w io.Writer, n *result.Net, title string) error {
	var b strings.Builder
	p := n.Parameters
	if p.Role == "server" && p.Client != "" {
		host, port := splitHostPort(p.Client)
		fmt.Fprintf(&b, "Accepted connection from %s, port %d\n", host, port)
	}
	for _, s := range n.Streams {
		lh, lp := splitHostPort(s.LocalAddr)
		rh, rp := splitHostPort(s.RemoteAddr)
		fmt.Fprintf(&b, "[%3d] local %s port %d connected to %s port %d\n", s.ID, lh, lp, rh, rp)
	}
	udp := p.Protocol == "udp"
	header := "[ ID] Interval           Transfer     Bitrate"
	if udp {
		header += "         Jitter    Lost/Total Datagrams"
	}
	b.WriteString(header + "\n")
	for _, iv := range n.Intervals {
		start, end := iv.StartNs, iv.EndNs
		if !iv.Omitted {
			start, end = max(start-p.OmitNs, 0), end-p.OmitNs
		}
		for _, f := range iv.Streams {
			line := fmt.Sprintf("[%3d] %s  %s  %s", f.ID, textSpan(start, end), textBytes(f.Bytes), textRate(f.BitsPerSecond))
			if f.Lost != nil && f.Packets != nil && f.JitterMs != nil {
				line += fmt.Sprintf("  %.3f ms  %d/%d", *f.JitterMs, *f.Lost, *f.Packets)
			}
			if iv.Omitted {
				line += "  (omitted)"
			}
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("- - - - - - - - - - - - - - - - - - - - - - - - -\n" + header + "\n")
	for _, s := range n.Streams {
		for _, side := range []struct {
			f    result.NetFigure
			name string
		}{{s.Sender, "sender"}, {s.Receiver, "receiver"}} {
			if side.f.Seconds == 0 && side.f.Bytes == 0 {
				continue
			}
			line := fmt.Sprintf("[%3d] %s  %s  %s", s.ID, textSpan(0, int64(side.f.Seconds*1e9)), textBytes(side.f.Bytes), textRate(side.f.BitsPerSecond))
			if side.f.JitterMs != nil && side.f.Lost != nil && side.f.Packets != nil {
				line += fmt.Sprintf("  %.3f ms  %d/%d", *side.f.JitterMs, *side.f.Lost, *side.f.Packets)
			}
			b.WriteString(line + "  " + side.name + "\n")
		}
	}
	out := b.String()
	if title != "" {
		out = prefixLines(out, title+":  ")
	}
	_, err := io.WriteString(w, out)
	return err
}

func prefixLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

func textSpan(startNs, endNs int64) string {
	return fmt.Sprintf("%6.2f-%-6.2f sec", secs(startNs), secs(endNs))
}

// textBytes and textRate pick iperf3's adaptive units: bytes in powers of
// 1024, bits per second in powers of 1000.
func textBytes(n int64) string {
	return textScaled(float64(n), 1024, "Bytes", "KBytes", "MBytes", "GBytes", "TBytes")
}

func textRate(bps float64) string {
	return textScaled(bps, 1000, "bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec", "Tbits/sec")
}

func textScaled(v, step float64, units ...string) string {
	i := 0
	for ; i < len(units)-1 && v >= step; i++ {
		v /= step
	}
	return textNumber(v) + " " + units[i]
}

// textNumber keeps three significant digits, as iperf3's unit_snprintf.
func textNumber(v float64) string {
	switch {
	case v < 9.995:
		return fmt.Sprintf("%4.2f", v)
	case v < 99.95:
		return fmt.Sprintf("%4.1f", v)
	}
	return fmt.Sprintf("%4.0f", v)
}

// CompatStream writes iperf3's --json-stream: one JSON object a line,
// {"event": "start" | "interval" | "end" | "error" | "server_output_*",
// "data": ...}, each as soon as it is known. Its methods may be called
// from the test's goroutines.
type CompatStream struct {
	w       io.Writer
	mu      sync.Mutex
	doc     *result.Document
	started bool
	err     error
}

// NewCompatStream writes the events of doc's test to w; doc.Net is the
// section Run fills (its parameters first), and the streams are added by
// Connected.
func NewCompatStream(w io.Writer, doc *result.Document) *CompatStream {
	if doc.Net == nil {
		doc.Net = &result.Net{}
	}
	return &CompatStream{w: w, doc: doc}
}

// Connected notes a data connection for the start event.
func (c *CompatStream) Connected(id int64, local, remote string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.doc.Net.Streams = append(c.doc.Net.Streams, result.NetStream{ID: id, LocalAddr: local, RemoteAddr: remote})
}

// Interval writes the start event if not yet written, then the interval.
func (c *CompatStream) Interval(iv result.NetInterval) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start()
	c.event("interval", compatInterval(iv, c.doc.Net.Parameters.OmitNs))
}

// End writes what is left of the finished test: the start if no interval
// came, its error, the server's output, and the end.
func (c *CompatStream) End(doc *result.Document) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.doc = doc
		c.start()
	}
	n := compatNet(doc)
	if doc.Error != "" {
		c.event("error", doc.Error)
	}
	if n.ServerOutputJSON != nil {
		c.event("server_output_json", n.ServerOutputJSON)
	}
	if n.ServerOutputText != "" {
		c.event("server_output_text", n.ServerOutputText)
	}
	c.event("end", compatEnd(n))
	return c.err
}

func (c *CompatStream) start() {
	if c.started {
		return
	}
	c.started = true
	c.event("start", compatStart(c.doc))
}

func (c *CompatStream) event(name string, data any) {
	b, err := json.Marshal(obj{{"event", name}, {"data", data}})
	if err == nil {
		_, err = c.w.Write(append(b, '\n'))
	}
	if c.err == nil {
		c.err = err
	}
}

// DefaultTimestampFormat is iperf3's --timestamps format.
const DefaultTimestampFormat = "%c "

// TimestampWriter prefixes every line written through it with the time
// in a strftime format, as iperf3's --timestamps does.
type TimestampWriter struct {
	W      io.Writer
	Format string
	mu     sync.Mutex
	mid    bool // within a line
}

func (t *TimestampWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	var out []byte
	for len(b) > 0 {
		if !t.mid {
			out = append(out, Strftime(t.Format, time.Now())...)
			t.mid = true
		}
		i := strings.IndexByte(string(b), '\n')
		if i < 0 {
			out = append(out, b...)
			break
		}
		out = append(out, b[:i+1]...)
		b = b[i+1:]
		t.mid = false
	}
	if _, err := t.W.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Strftime formats t with the C library's conversions that iperf3's
// --timestamps users write; others are kept as written.
func Strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'Y':
			b.WriteString(t.Format("2006"))
		case 'm':
			b.WriteString(t.Format("01"))
		case 'd':
			b.WriteString(t.Format("02"))
		case 'e':
			b.WriteString(t.Format("_2"))
		case 'H':
			b.WriteString(t.Format("15"))
		case 'M':
			b.WriteString(t.Format("04"))
		case 'S':
			b.WriteString(t.Format("05"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'y':
			b.WriteString(t.Format("06"))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
