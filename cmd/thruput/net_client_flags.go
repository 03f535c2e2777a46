package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// netClientOpts are `net client`'s iperf3 options beyond the test's
// parameters: where to send from, how long to wait, where the output goes.
type netClientOpts struct {
	bind, bindDev  string
	v4, v6         bool
	cport          int
	timestamps     string
	jsonStream     bool
	logfile        string
	connectTimeout millis
	affinity       string
	// unpin lets the process go of -A's CPU.
	unpin func()
}

func (o *netClientOpts) add(fl *pflag.FlagSet, f *testFlags) {
	fl.StringVarP(&o.bind, "bind", "B", "", "send from this local `address`; address%dev also binds to the device dev")
	fl.StringVar(&o.bindDev, "bind-dev", "", "send through this network `device` (SO_BINDTODEVICE), e.g. eth0 with wlan0 also up")
	fl.BoolVarP(&o.v4, "version4", "4", false, "use IPv4 only")
	fl.BoolVarP(&o.v6, "version6", "6", false, "use IPv6 only")
	fl.IntVar(&o.cport, "cport", 0, "local `port` of the first data stream (the next streams take the ports after it)")
	fl.StringVarP(&f.TOS, "tos", "S", "", "IP TOS byte of the data packets, 0-255 (0x.. hex, 0.. octal); the server's streams take it too")
	fl.StringVar(&f.DSCP, "dscp", "", "DSCP of the data packets: 0-63 or a name (af11..af43, cs0..cs7, ef)")
	fl.StringVarP(&f.FlowLabel, "flowlabel", "L", "", "IPv6 flow label of the TCP data streams, 1-0xfffff")
	fl.StringVar(&f.FQRate, "fq-rate", "", "pace each stream in the kernel (fair queueing, SO_MAX_PACING_RATE) at this rate, bits/s (100M)")
	fl.BoolVar(&f.DontFragment, "dont-fragment", false, "set IPv4 Don't Fragment on UDP datagrams")
	fl.StringVarP(&f.Title, "title", "T", "", "prefix every output line with this `string`")
	fl.StringVar(&f.ExtraData, "extra-data", "", "a `string` carried into the JSON output as it is")
	fl.BoolVar(&f.GetServerOutput, "get-server-output", false, "print the server's own report of the test too")
	fl.BoolVar(&f.SkipRxCopy, "skip-rx-copy", false, "receive with MSG_TRUNC: the kernel drops the data without copying it out")
	fl.BoolVar(&f.RepeatingPayload, "repeating-payload", false, "send 0123456789 repeated instead of random bytes")
	fl.BoolVar(&f.GSRO, "gsro", false, "UDP through the kernel's segmentation and receive offloads (UDP_SEGMENT, UDP_GRO)")
	fl.BoolVar(&f.MPTCP, "mptcp", false, "multipath TCP streams")
	fl.StringVar(&o.timestamps, "timestamps", "", "prefix every output line with the time, in a strftime `format` (default \"%c \")")
	fl.Lookup("timestamps").NoOptDefVal = iperf3.DefaultTimestampFormat
	fl.BoolVar(&o.jsonStream, "json-stream", false, "print iperf3's JSON as it goes, one event a line (start, interval, end)")
	fl.StringVar(&o.logfile, "logfile", "", "append the output to `FILE` instead of standard output")
	o.connectTimeout = millis(10 * time.Second)
	fl.StringVarP(&o.affinity, "affinity", "A", "", "run on CPU `n`; n,m also runs the server on its CPU m for this test")
	fl.Var(&o.connectTimeout, "connect-timeout", "give up connecting after this long: milliseconds as iperf3 (5000), or with a unit (5s)")
}

// apply checks the options and hands them to the test's configuration;
// output is -o, which --logfile excludes.
func (o *netClientOpts) apply(cfg *iperf3.ClientConfig, output string) error {
	if o.logfile != "" && output != "" {
		return usage.Errorf("--logfile and -o: choose one")
	}
	if time.Duration(o.connectTimeout) <= 0 {
		return usage.Errorf("--connect-timeout %v: more than 0", time.Duration(o.connectTimeout))
	}
	cfg.ConnectTimeout = time.Duration(o.connectTimeout)
	if o.v4 && o.v6 {
		return usage.Errorf("-4 and -6: choose one")
	}
	switch {
	case o.v4:
		cfg.Family = "4"
	case o.v6:
		cfg.Family = "6"
	}
	host, dev, hasDev := strings.Cut(o.bind, "%")
	if hasDev && o.bindDev != "" && dev != o.bindDev {
		return usage.Errorf("-B %s and --bind-dev %s name two devices: give one", o.bind, o.bindDev)
	}
	if host != "" {
		ip := net.ParseIP(host)
		if ip == nil {
			return usage.Errorf("-B %s: a local IP address", o.bind)
		}
		if (o.v4 && ip.To4() == nil) || (o.v6 && ip.To4() != nil) {
			return usage.Errorf("-B %s: not an address of the IP version -4/-6 asks for", o.bind)
		}
	}
	if o.bindDev != "" {
		dev = o.bindDev
	}
	cfg.Bind = host
	if dev != "" {
		cfg.Bind += "%" + dev
	}
	if o.cport < 0 || o.cport > 65535 {
		return usage.Errorf("--cport %d: a port from 1 to 65535", o.cport)
	}
	cfg.CPort = o.cport
	o.unpin = func() {}
	if o.affinity == "" {
		return nil
	}
	// Pinned last, once nothing else can fail here.
	local, server, err := parseAffinity(o.affinity)
	if err != nil {
		return usage.Wrap(err)
	}
	if server >= 0 {
		cfg.ServerAffinity = &server
	}
	if o.unpin, err = iperf3.Pin(local); err != nil {
		return usage.Errorf("-A %s: %w", o.affinity, err)
	}
	return nil
}

// output is where the client's report goes: out, or appended to
// --logfile, with --timestamps in front of each line.
func (o *netClientOpts) output(out io.Writer) (io.Writer, func(), error) {
	done := func() {}
	if o.logfile != "" {
		f, err := os.OpenFile(o.logfile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, nil, usage.Errorf("--logfile %s: %w", o.logfile, errors.Unwrap(err))
		}
		out, done = f, func() { f.Close() }
	}
	if o.timestamps != "" {
		out = &iperf3.TimestampWriter{W: out, Format: o.timestamps}
	}
	return out, done, nil
}

// millis is iperf3's --connect-timeout: a bare number is milliseconds;
// with a unit it is a duration.
type millis time.Duration

func (m *millis) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*m = millis(time.Duration(n * float64(time.Millisecond)))
		return nil
	}
	d, err := units.ParseSeconds(s)
	if err != nil {
		return fmt.Errorf("milliseconds (5000) or a duration (5s): %w", err)
	}
	*m = millis(d)
	return nil
}

func (m *millis) String() string { return time.Duration(*m).String() }
func (*millis) Type() string     { return "ms" }

// stream is the --json-stream writer of the test, nil without the flag.
func (o *netClientOpts) stream(out io.Writer, doc *result.Document) *iperf3.CompatStream {
	if !o.jsonStream {
		return nil
	}
	return iperf3.NewCompatStream(out, doc)
}

// titled prefixes each line of the table with -T's title, as iperf3 does.
func titled(w io.Writer, title string) io.Writer {
	return &iperf3.TimestampWriter{W: w, Format: strings.ReplaceAll(title, "%", "%%") + ":  "}
}

// serverOutput prints what the server said of the test when asked with
// --get-server-output, under iperf3's heading.
func serverOutput(w io.Writer, n *result.Net) error {
	var text string
	switch {
	case n.ServerOutputText != "":
		text = n.ServerOutputText
	case n.ServerOutputJSON != nil:
		text = string(n.ServerOutputJSON) + "\n"
	default:
		return nil
	}
	_, err := fmt.Fprintf(w, "\nServer output:\n%s", text)
	return err
}
