package progress

import (
	"fmt"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// Report is where a running phase stands, as every engine tells it: the
// disk engines after each chunk of blocks, the HTTP download a few times
// a second, the network test once its data connections are up and at the
// end of each of its intervals.
type Report struct {
	// Target is what is measured: a target's label, a scratch directory.
	Target string
	// Phase is what it does: write, fsync, read, prepare, a mode or a
	// pattern.
	Phase string
	// BlockSize of the phase's system calls; 0 where there is none.
	BlockSize int64
	// Run counts repeats from 1, of Runs; both 0 for a method that does
	// not repeat.
	Run, Runs int
	// Bytes moved so far, of Total; Total is -1 when unknown (a body of no
	// declared length).
	Bytes, Total int64
	// Elapsed since the phase began; Bound is its time bound, 0 for none.
	Elapsed, Bound time.Duration
	// Streams are a network test's data connections, in the one report
	// it makes once they are all up: its load begins then.
	Streams []Stream
	// NetInterval is a network test's interval that just closed, the
	// figures of iperf3's live lines; nil in every other report.
	NetInterval *result.NetInterval
}

// Stream is one data connection of a network test: its number from 1
// and the addresses of its two ends, this one first.
type Stream struct {
	ID            int64
	Local, Remote string
}

// Hooks let a caller see a run as it goes; nil fields are skipped, so the
// zero Hooks is silent.
type Hooks struct {
	// Progress is called often (every chunk, every few hundred ms), maybe
	// from another goroutine, and must be quick.
	Progress func(Report)
	// Note carries remarks that are not results, such as a stale scratch
	// directory removed.
	Note func(string)
}

// Report passes r on, if anyone listens.
func (h Hooks) Report(r Report) {
	if h.Progress != nil {
		h.Progress(r)
	}
}

// Notef formats a note and passes it on, if anyone listens.
func (h Hooks) Notef(format string, a ...any) {
	if h.Note != nil {
		h.Note(fmt.Sprintf(format, a...))
	}
}

// String is a storage phase's line: where, what, how fast so far, how long
// left.
func (r Report) String() string {
	rate := result.MiBPerSec(r.Bytes, int64(r.Elapsed))
	s := fmt.Sprintf("%s  %s bs=%s  %s/%s  %.1f MiB/s", r.Target, r.Phase, units.BlockLabel(r.BlockSize), units.IEC(r.Bytes), units.IEC(r.Total), rate)
	if r.Bytes > 0 && r.Bytes < r.Total {
		eta := time.Duration(float64(r.Elapsed) * float64(r.Total-r.Bytes) / float64(r.Bytes))
		if r.Bound > 0 {
			eta = min(eta, r.Bound-r.Elapsed)
		}
		s += fmt.Sprintf("  ETA %s", eta.Round(time.Second))
	}
	return s
}
