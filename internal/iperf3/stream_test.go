package iperf3

import (
	"context"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
)

// TestSenderWholeBlocks: a TCP sender with nothing counting its blocks
// writes many per call (sendChunk), yet stops only at a block's end, as
// iperf3's clients need; and receivers that read in batches still count
// every byte by the time the results are exchanged.
func TestSenderWholeBlocks(t *testing.T) {
	fstest.Long(t, "transfers for seconds")
	ts := startServer(t, ServerConfig{})
	for _, c := range []struct {
		name string
		p    Params
	}{
		// 1000 does not divide sendChunk: a chunk ends mid-block.
		{"up", Params{Time: time.Second, Parallel: 2, Len: 1000}},
		{"reverse", Params{Time: time.Second, Parallel: 2, Len: 1000, Reverse: true}},
		{"bidir", Params{Time: time.Second, Bidir: true, Len: 4096}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.idle(t)
			cfg := quickTest(ts.port)
			cfg.Params = c.p
			n, err := runTest(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range n.Streams {
				snd, rcv := st.Sender, st.Receiver
				if snd.Bytes == 0 || snd.Bytes%int64(c.p.Len) != 0 {
					t.Errorf("stream %d (%s): sent %d bytes, not whole %d-byte blocks", st.ID, st.Direction, snd.Bytes, c.p.Len)
				}
				if rcv.Bytes != snd.Bytes {
					t.Errorf("stream %d (%s): sent %d, received %d", st.ID, st.Direction, snd.Bytes, rcv.Bytes)
				}
			}
		})
	}
}
