package main

import (
	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/iperf3"
)

func newNetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "net",
		Short: "Measure the network: an iperf3-compatible client and server",
		Example: `  thruput net server
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5
  thruput net client 192.168.1.10 -R
  thruput net client iperf.example.net -u -b 40M`,
	}
	c.AddCommand(newNetClientCmd(a), newNetServerCmd(a), newNetHTTPCmd(a), newNetHTTPServeCmd(a))
	return c
}

type clientFlags struct {
	testFlags
	port                 int
	interval, secretFile string
	compat, zero         bool
	opts                 netClientOpts
	clients              int
	stable               stableFlags
	latency              latencyFlags
}

func newNetClientCmd(a *app) *cobra.Command {
	var f clientFlags
	c := &cobra.Command{
		Use:   "client HOST[:PORT]",
		Short: "Run a throughput test against an iperf3 or thruput server",
		Long: `Run a TCP or UDP throughput test against HOST, which runs 'iperf3 -s' (any 3.x)
or 'thruput net server'. The flags are iperf3's: -P parallel streams, -t time,
-O omitted start, -R reverse (server sends), --bidir both ways at once, -b a
bitrate cap per stream (for TCP too), -u UDP with -l datagram size.

Figures are Mbit/s (10^6 bit/s, the unit links are sold in) for the sender and
the receiver of every stream, with TCP retransmits or UDP jitter and loss, and
the CPU load of both ends. -J prints iperf3's own JSON so tools made for iperf3
read it; --json prints thruput's result document. Each direction's figure
carries its 95 % interval; --until-stable ends the test before -t once
every direction's rate is known to ±2 %. Latency under load is measured
beside it (--no-latency: off): a probe every 10 ms through an idle phase
and the load gives the idle and loaded round trips, the latency the load
added and RPM.`,
		Example: `  # a long iperf3 test: 10 streams for 65 s, the first 5 s left out, each way and both
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5 -R
  thruput net client 192.168.1.10 -P 10 -t 65 -O 5 --bidir

  # a capped sender, to tell send limits from receive limits
  thruput net client 192.168.1.10 -b 40M

  # UDP at 90 Mbit/s in 1400-byte datagrams; 100 MiB then stop
  thruput net client 192.168.1.10 -u -b 90M -l 1400
  thruput net client 192.168.1.10 -n 100M`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNetClient(cmd, a, f, args[0])
		},
	}
	fl := c.Flags()
	a.addSaveFlags(fl)
	fl.IntVarP(&f.port, "port", "p", iperf3.DefaultPort, "server port")
	fl.StringVarP(&f.Time, "time", "t", "10", "seconds to measure, after the omitted start (0 with -n or -k)")
	fl.StringVarP(&f.Bytes, "bytes", "n", "", "end after this many bytes (1024-based: 100M, 1G) instead of -t")
	fl.VarP(blockCount{&f.Blocks}, "blockcount", "k", "end after this many blocks (writes or datagrams; 1K = 1024, as iperf3 reads it) instead of -t")
	fl.StringVarP(&f.Omit, "omit", "O", "0", "seconds left out of the figures at the start (TCP slow start)")
	fl.StringVarP(&f.interval, "interval", "i", "1", "seconds between live figures (0 = none)")
	fl.IntVarP(&f.Parallel, "parallel", "P", 1, "parallel streams (per direction with --bidir)")
	fl.BoolVarP(&f.Reverse, "reverse", "R", false, "the server sends, the client receives")
	fl.BoolVar(&f.Bidir, "bidir", false, "both directions at once")
	fl.StringVarP(&f.Bitrate, "bitrate", "b", "", "cap each stream at this rate, bits/s, 1000-based (40M, 100mbit); UDP default 1M")
	fl.BoolVarP(&f.UDP, "udp", "u", false, "UDP instead of TCP")
	fl.StringVarP(&f.Length, "length", "l", "", "block size: one write (TCP, default 128K) or one datagram (UDP, default the path MSS)")
	fl.StringVarP(&f.Window, "window", "w", "", "socket buffer size (SO_SNDBUF and SO_RCVBUF), e.g. 4M")
	fl.IntVarP(&f.MSS, "set-mss", "M", 0, "TCP maximum segment size (TCP_MAXSEG)")
	fl.BoolVarP(&f.NoDelay, "no-delay", "N", false, "disable Nagle's algorithm (TCP_NODELAY)")
	fl.StringVarP(&f.Congestion, "congestion", "C", "", "TCP congestion control algorithm (cubic, bbr ...)")
	fl.BoolVarP(&f.zero, "zerocopy", "Z", false, "send TCP with sendfile(2) from memory: no copy into the kernel")
	fl.BoolVarP(&f.compat, "iperf3-json", "J", false, "print iperf3's JSON (as iperf3 -J) instead of a table")
	f.stable.add(fl)
	f.latency.add(fl)
	fl.StringVar(&f.secretFile, "secret-file", "", "file holding the shared secret a thruput server was started with")
	f.opts.add(fl, &f.testFlags)
	fl.IntVar(&f.clients, "clients", 1, "run this many independent tests at once (a server taking them: net server --max-clients); prints each client's figure, the sum and Jain's fairness index")
	return c
}
