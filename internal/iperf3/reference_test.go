package iperf3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// referenceArgs are stock iperf3's client options for the nearest test to
// p it can run. Debian's iperf3 3.12 has no --gsro nor --skip-rx-copy
// (3.17 and later), which change how the bytes cross the kernel, not the
// pace, so they are left out; and its server's sender (in -R, and
// --bidir's reverse) ignores the client's --fq-rate (9.5 Gbit/s seen), so a
// fair-queue cap is measured with iperf3's client sending, the same cap on
// the same loopback.
func referenceArgs(p result.NetParameters) []string {
	args := []string{"-t", strconv.FormatInt(max(p.DurationNs/second, 1), 10), "-P", strconv.Itoa(max(p.Streams, 1))}
	if p.Protocol == "udp" {
		args = append(args, "-u")
	}
	switch {
	case p.FQRateBps > 0:
		// Up, whatever p's direction: iperf3's client sends.
	case p.Direction == result.DirDown:
		args = append(args, "-R")
	case p.Direction == "bidir":
		args = append(args, "--bidir")
	}
	if p.BitrateBps > 0 {
		b := strconv.FormatInt(p.BitrateBps, 10)
		if p.Burst > 0 {
			b += "/" + strconv.Itoa(p.Burst)
		}
		args = append(args, "-b", b)
	}
	if p.FQRateBps > 0 {
		args = append(args, "--fq-rate", strconv.FormatInt(p.FQRateBps, 10))
	}
	if p.BlockSize > 0 {
		args = append(args, "-l", strconv.Itoa(p.BlockSize))
	}
	if p.TOS > 0 {
		args = append(args, "-S", strconv.Itoa(p.TOS))
	}
	if p.RepeatingPayload {
		args = append(args, "--repeating-payload")
	}
	if p.DontFragment {
		args = append(args, "--dont-fragment")
	}
	return args
}

// iperf3Sum is one of iperf3 -J's end sums.
type iperf3Sum struct {
	Seconds       float64 `json:"seconds"`
	BitsPerSecond float64 `json:"bits_per_second"`
}

// refRun is what one iperf3 reference run measured.
type refRun struct {
	// burst is how many blocks the pacing releases at once (-b R/N).
	burst int
	j     struct {
		Start struct {
			TestStart struct {
				Blksize    int `json:"blksize"`
				NumStreams int `json:"num_streams"`
			} `json:"test_start"`
		} `json:"start"`
		End struct {
			SumSent     iperf3Sum `json:"sum_sent"`
			SumReceived iperf3Sum `json:"sum_received"`
		} `json:"end"`
	}
}

// rate is what the reference's sender (or receiver) measured, with what
// its count resolves of it. It stands for every direction: the pace of a
// stream is the same each way, and iperf3 3.12's --bidir reverse sums are
// no figure of their own (sum_sent_bidir_reverse was seen equal to
// sum_sent to the bit, and sum_received_bidir_reverse empty).
func (r *refRun) rate(sender bool) nettest.Rate {
	s := r.j.End.SumReceived
	if sender {
		s = r.j.End.SumSent
	}
	ts := r.j.Start.TestStart
	return nettest.Rate{BPS: s.BitsPerSecond, Res: float64(ts.Blksize*max(ts.NumStreams, 1)*r.burst) * 8 / s.Seconds}
}

// thruputRate is what thruput's end measured of sum s, with what one
// release of its pacing resolves of it: a block of each stream, -b R/N's
// burst of them, or with GSO a batch (65507 bytes of whole datagrams by
// default: 46 datagrams of 1400 bytes, 0.26 Mbit/s over 2 s, where
// thruput's sender was seen 0.18 Mbit/s above iperf3's at 100 Mbit/s).
func thruputRate(n *result.Net, s result.NetSum, sender bool) nettest.Rate {
	f := s.Receiver
	if sender {
		f = s.Sender
	}
	np := n.Parameters
	release := np.BlockSize * max(np.Burst, 1)
	if np.GSO {
		_, release = (&dataPath{p: &Params{Len: np.BlockSize}}).gsoSizes()
	}
	res := float64(release*max(np.Streams, 1)) * 8
	if f.Seconds <= 0 {
		return nettest.Rate{BPS: f.BitsPerSecond}
	}
	// And its own 95 % interval, where the windows know it less well than
	// a block does: a Go sender kept off the CPU near the end of a short
	// run loses that time (19.914 Mbit/s of UDP at 20M for 1 s, where
	// iperf3's four gave 19.990-20.001, in a make check on a cold cache).
	half := 0.0
	if s.Interval != nil {
		half = s.Interval.HalfWidth * 8
	}
	return nettest.Rate{BPS: f.BitsPerSecond, Res: max(res/f.Seconds, half)}
}

// withReferences runs test while four stock iperf3 pairs (peer's client
// against its own server on loopback) measure the nearest test to p they
// can (referenceArgs) at the same time: the same window, under the same
// load from the machine's other jobs.
func withReferences(ctx context.Context, t *testing.T, peer string, p result.NetParameters, test func()) []*refRun {
	t.Helper()
	args := referenceArgs(p)
	refs := make([]*refRun, 4)
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i := range refs {
		port, wait := serveIperf3(ctx, t, peer)
		wg.Go(func() {
			defer wait()
			full := append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-J"}, args...)
			out, err := exec.CommandContext(ctx, peer, full...).Output()
			r := &refRun{burst: max(p.Burst, 1)}
			if err == nil {
				err = json.Unmarshal(out, &r.j)
			}
			if e := r.j.End; err == nil && (e.SumSent.Seconds <= 0 || e.SumReceived.Seconds <= 0) {
				err = errors.New("no sum_sent or sum_received")
			}
			if err != nil {
				errs[i] = fmt.Errorf("reference %s %v: %v\n%s", peer, args, err, out)
				return
			}
			refs[i] = r
		})
	}
	test()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return refs
}

// judgeRates holds each direction of n to the references run in the same
// window (nettest.SameWindow): the senders' rates, or the receivers'.
func judgeRates(t *testing.T, n *result.Net, refs []*refRun, sender bool) {
	t.Helper()
	for _, s := range n.Sums {
		rs := make([]nettest.Rate, len(refs))
		for i, r := range refs {
			rs[i] = r.rate(sender)
		}
		nettest.SameWindow(t, s.Direction, thruputRate(n, s, sender), rs...)
	}
}
