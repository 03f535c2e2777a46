package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/nettest"
)

// TestPacedReceiverBatches receives a paced test over a veth pair shaped
// to 100 Mbit/s, where the segments come one by one as from a NIC, both
// ways: the thruput client reading -R from thruput's server, and the
// server reading from the client. A reader woken for each segment (as
// iperf3's is, and thruput's was) switches threads about once a segment;
// batched by its low-water mark it must switch at most a quarter as often,
// and still count every byte the sender sent.
func TestPacedReceiverBatches(t *testing.T) {
	l := nettest.NewLink(t, 100)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const mss = 1448 // the segment's payload on a 1500-byte MTU
	for _, reverse := range []bool{true, false} {
		srv := startBackground(t, l.Command(ctx, l.B, thruputBin, "net", "server", "--once", "-q", "--no-save", "-p", "5201"))
		srv.listens(t, 5201)
		args := []string{"net", "client", l.AddrB, "-p", "5201", "-b", "40M", "-t", "3", "-J", "--no-save", "--no-latency", "--no-health"}
		if reverse {
			args = append(args, "-R")
		}
		client := l.Command(ctx, l.A, thruputBin, args...)
		out, err := client.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if code := srv.wait(t); code != 0 {
			t.Fatalf("server exit %d: %s", code, srv.stderr.String())
		}
		j := parseIperf3(t, "thruput", out)
		sent, got := j.End.SumSent.Bytes, j.End.SumReceived.Bytes
		if sent <= 0 || got != sent {
			t.Errorf("-R %v: received %d bytes of the %d sent", reverse, got, sent)
		}
		// ip netns exec runs the command in its own process, so the
		// rusage is thruput's.
		reader := client.ProcessState
		if !reverse {
			reader = srv.cmd.ProcessState
		}
		ru, ok := reader.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no rusage")
		}
		segments := got / mss
		t.Logf("-R %v: %d bytes, about %d segments; the reader switched threads %d times voluntarily", reverse, got, segments, ru.Nvcsw)
		if int64(ru.Nvcsw) > segments/4 {
			t.Errorf("-R %v: the reader switched threads %d times for about %d segments; batched, it should be under %d", reverse, ru.Nvcsw, segments, segments/4)
		}
	}
}
