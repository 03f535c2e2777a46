package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/suite"
)

const mib = 1 << 20

// throttled runs thruput in the throttle's cgroup and returns its result.
func throttled(t *testing.T, th *fstest.Throttle, args ...string) (*result.Document, time.Duration, *exec.Cmd) {
	t.Helper()
	cmd := th.Command(thruputBin, append(args, "--json", "-q", "--no-save")...)
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	// disk check exits 3 on a FAIL verdict; checkExit judges that code.
	if err != nil && cmd.ProcessState.ExitCode() != exitVerdict {
		t.Fatalf("%v: %v", args, err)
	}
	doc, err := result.Read(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() == exitVerdict {
		checkExit(t, doc, exitVerdict)
	}
	return doc, took, cmd
}

// servedSample is the throttle's counters at a moment of a run: bytes and
// requests read and written.
type servedSample struct {
	at                time.Time
	read, write       int64
	readIOs, writeIOs int64
}

// sampleServed reads the throttle's served bytes and requests every 20 ms
// until the returned function is called, which gives the samples. With
// drop set, it lowers the throttle's write rate as drop says, timed from
// the first written byte it saw.
func sampleServed(t *testing.T, th *fstest.Throttle, drop *lowering) func() []servedSample {
	t.Helper()
	var out []servedSample
	var wrote time.Time
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			r, w, err := th.Served()
			if err != nil {
				done <- err
				return
			}
			ri, wi, err := th.ServedIOs()
			if err != nil {
				done <- err
				return
			}
			now := time.Now()
			out = append(out, servedSample{now, r, w, ri, wi})
			if wrote.IsZero() && w > 0 {
				wrote = now
			}
			if drop != nil && !wrote.IsZero() && now.Sub(wrote) >= drop.after && len(drop.at) == 0 {
				th.Set(t, 0, drop.rate)
				drop.at <- time.Now()
			}
			select {
			case <-stop:
				done <- nil
				return
			case <-tick.C:
			}
		}
	}()
	return func() []servedSample {
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// lowering is a drop of the throttle's write rate to rate, after bytes
// written for after. It is timed from the write's first byte, not from
// the start of thruput: on a loaded machine thruput took more than a
// second to start writing, which left the drop too early in the write to
// be found as a cliff, or none at all.
type lowering struct {
	after time.Duration
	rate  int64
	at    chan time.Time
}

// lowerWrites is a lowering of the write rate to rate after d.
func lowerWrites(d time.Duration, rate int64) *lowering {
	return &lowering{after: d, rate: rate, at: make(chan time.Time, 1)}
}

// when is the moment the throttle was lowered.
func (l *lowering) when(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-l.at:
		return at
	default:
		t.Fatalf("the throttle was never lowered: the write did not last %v past its first byte", l.after)
		return time.Time{}
	}
}

// servedRate is the limit's own measure of one direction's rate, bytes
// per second: the bytes the throttle let through from its first byte
// after samples[from] to its last, over the time between, bounded by what
// the counters resolve. The counter moves a request at a time (the
// largest step seen), so the first request may be counted without the
// time it took, and either end is known to the gap between two samples.
// It also gives the indices of the samples that saw the first byte and
// the last.
func servedRate(samples []servedSample, from int, bytes func(servedSample) int64) (lo, hi float64, first, last int) {
	first, last = -1, -1
	for i := from + 1; i < len(samples); i++ {
		if bytes(samples[i]) > bytes(samples[i-1]) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 1 || last <= first {
		return 0, 0, first, last
	}
	n := float64(bytes(samples[last]) - bytes(samples[first-1]))
	// The first byte came between samples first-1 and first, the last
	// between last-1 and last.
	longest := samples[last].at.Sub(samples[first-1].at).Seconds()
	shortest := samples[last-1].at.Sub(samples[first].at).Seconds()
	return (n - float64(burst(samples[from:], bytes))) / longest, n / max(shortest, 1e-3), first, last
}

// skipWarmup is the index from which servedRate measures a phase that
// starts after samples[from] without its first warmup ns: the last sample
// taken no later than that after the sample before its first byte (so
// that no steady time is left out).
func skipWarmup(samples []servedSample, from int, bytes func(servedSample) int64, warmup int64) int {
	_, _, first, _ := servedRate(samples, from, bytes)
	if warmup <= 0 || first < 1 {
		return from
	}
	end := samples[first-1].at.Add(time.Duration(warmup))
	skip := from
	for i := first - 1; i < len(samples) && !samples[i].at.After(end); i++ {
		skip = i
	}
	return skip
}

// burst is the most the throttle let through between two samples: it
// lets bytes through a request or a slice at a time.
func burst(samples []servedSample, bytes func(servedSample) int64) int64 {
	var most int64
	for i := 1; i < len(samples); i++ {
		most = max(most, bytes(samples[i])-bytes(samples[i-1]))
	}
	return most
}

// TestUntilStable: on a loop-backed ext4 throttled to 20 MiB/s reads and
// 10 MiB/s writes, --until-stable ends each step once its rate is known,
// before its bound, with a figure its interval holds and that agrees with
// what the throttle itself let through in the same window. The throttle's own counters are
// the reference, sampled through the run: thruput's interval must meet
// the rate they resolve (a fixed 3 % of the set rate was no measure of
// it: the throttle enforces its rate in slices, a little over or under
// it, and a process it holds back on a loaded machine gets less).
//
// A loaded machine can keep a step's rate from settling (the write at
// ±4.7 % after its whole 25.6 s beside six spinning shells, a read at
// ±23 % after 30 s): such a run must say so (not converged, wider than
// asked, run to its bound), and one more is taken, judged the same. A
// phase that settled in neither run leaves the stopping rule unjudged:
// the test fails under CI and skips elsewhere, saying so.
func TestUntilStable(t *testing.T) {
	t.Parallel()
	mnt := fstest.Mount(t, "ext4", 512*mib)
	th := fstest.NewThrottle(t, mnt)
	th.Set(t, 20*mib, 10*mib)
	const runs = 2
	settled := map[string]bool{}
	var unsettled []string
	for run := 1; run <= runs; run++ {
		served := sampleServed(t, th, nil)
		doc, took, _ := throttled(t, th, "disk", "sweep", mnt, "--direct", "--bs", "1M", "--file-size", "256M", "--max-time", "30s", "--until-stable")
		samples := served()
		// The sweep writes its file, then reads it: the read phase is
		// the reads after the last write (ext4 reads a little of its own
		// before).
		written := func(s servedSample) int64 { return s.write }
		read := func(s servedSample) int64 { return s.read }
		_, _, _, wrote := servedRate(samples, 0, written)
		from := map[string]int{result.PhaseWrite: 0, result.PhaseRead: max(wrote, 0)}
		count := map[string]func(servedSample) int64{result.PhaseWrite: written, result.PhaseRead: read}
		unsettled = nil
		for _, st := range doc.Sweep.Steps {
			set := map[string]float64{result.PhaseWrite: 10, result.PhaseRead: 20}[st.Phase]
			iv := st.Interval
			// The throttle's measure over the span thruput's interval
			// covers: its warm-up left out, as thruput leaves it out (a
			// read whose start the throttle held back gave 19.02..19.88
			// MiB/s over the whole phase against thruput's steady
			// 19.88..20.12).
			var ref [2]float64
			if iv != nil {
				ref[0], ref[1], _, _ = servedRate(samples, skipWarmup(samples, from[st.Phase], count[st.Phase], iv.WarmupNs), count[st.Phase])
			}
			elapsed := time.Duration(st.ElapsedNs)
			t.Logf("run %d, %s: %.3f MiB/s in %v, interval %+v; the throttle (set to %v MiB/s) let through %.3f..%.3f MiB/s",
				run, st.Phase, st.MiBPerSec, elapsed, iv, set, ref[0]/mib, ref[1]/mib)
			if iv == nil || iv.Target != 0.02 || iv.Windows < 8 {
				t.Fatalf("%s: interval %+v", st.Phase, iv)
			}
			if ref[0] <= 0 {
				t.Fatalf("%s: the throttle's counters saw no such phase", st.Phase)
			}
			if iv.Low > ref[1] || iv.High < ref[0] {
				t.Errorf("run %d, %s: interval %.3f..%.3f MiB/s does not meet the throttle's own %.3f..%.3f", run, st.Phase, iv.Low/mib, iv.High/mib, ref[0]/mib, ref[1]/mib)
			}
			if math.Abs(st.MiBPerSec*mib/iv.Mean-1) > 1e-9 {
				t.Errorf("run %d, %s: the figure %.3f MiB/s is not the interval's mean %.0f B/s", run, st.Phase, st.MiBPerSec, iv.Mean)
			}
			// A settled step stops before its bound (--max-time, and for
			// the write its file: 25.6 s), at once on a quiet machine
			// (3.4 to 10 s here), later where the load scatters its
			// windows (27.5 s for a read beside six spinning shells); an
			// unsettled one runs to its bound and says so.
			switch {
			case iv.Converged && (iv.Relative > iv.Target || elapsed > 25*time.Second && st.Phase == result.PhaseWrite || elapsed >= 30*time.Second):
				t.Errorf("run %d, %s: settled, yet ran %v of its 30 s (25.6 s for the write's file), interval %+v", run, st.Phase, elapsed, iv)
			case !iv.Converged && (iv.Relative <= iv.Target || elapsed < 25*time.Second):
				t.Errorf("run %d, %s: stopped after %v unsettled, interval %+v", run, st.Phase, elapsed, iv)
			case !iv.Converged:
				unsettled = append(unsettled, fmt.Sprintf("run %d's %s ±%.1f %% after %v", run, st.Phase, iv.Relative*100, elapsed.Round(time.Millisecond)))
			default:
				settled[st.Phase] = true
			}
		}
		t.Logf("run %d took %v", run, took)
		if settled[result.PhaseWrite] && settled[result.PhaseRead] {
			return
		}
		if run < runs {
			t.Logf("the load kept the rate from settling (%s): once more, judged the same", strings.Join(unsettled, ", "))
		}
	}
	unquiet(t, runs, "a phase never settled: %s", strings.Join(unsettled, ", "))
}

// dropAfter is how long into a write TestCliff and TestCliffIO lower the
// throttle: thruput places a cliff no earlier than the end of its
// stable.MinWindows-th window (8), and a loaded machine stretched its
// windows of 100 ms to 250 ms on average, which put a drop 1.25 s into
// the write 0.8 s late. Either run is bounded by its time (10 s, 8 s), so
// a later drop does not make it longer.
const dropAfter = 3 * time.Second

// TestCliff: a throttle lowered from 40 to 10 MiB/s three seconds into a
// write is reported as a cliff at that moment with both rates, and
// --sustained makes the figure the rate after it. The reference is the
// throttle's own count of the bytes it let through, sampled through each
// run (judgeCliff), not 10 % of the rates it was set to: the throttle runs
// a little over its new rate for a while after the change, and a process
// it holds back on a loaded machine gets less. Without --sustained the
// figure is the whole write's, and must be what the throttle let through
// over it. A run whose drop the load buried, in thruput's windows and in
// the counters' alike, is taken once more (cliffRun).
func TestCliff(t *testing.T) {
	t.Parallel()
	mnt := fstest.Mount(t, "ext4", 512*mib)
	for _, sustained := range []bool{false, true} {
		args := []string{"disk", "sweep", mnt, "--direct", "--write-only", "--bs", "1M", "--file-size", "300M", "--max-time", "10s"}
		if sustained {
			args = append(args, "--sustained")
		}
		doc, samples, dropped := cliffRun(t, mnt, fmt.Sprintf("sustained=%v", sustained), func(doc *result.Document) (*result.Interval, int64) {
			return doc.Sweep.Steps[0].Interval, doc.Sweep.Steps[0].ElapsedNs
		}, args...)
		st := doc.Sweep.Steps[0]
		iv := st.Interval
		write := func(s servedSample) int64 { return s.write }
		lo, hi, _, _ := servedRate(samples, 0, write)
		t.Logf("sustained=%v: %.3f MiB/s, interval %+v; the throttle let through %.3f..%.3f MiB/s over the write", sustained, st.MiBPerSec, iv, lo/mib, hi/mib)
		judgeCliff(t, iv, st.ElapsedNs, samples, dropped)
		if sustained != iv.Sustained {
			t.Errorf("sustained=%v: the interval says sustained %v", sustained, iv.Sustained)
		}
		// thruput's clock and the counters' may differ by a burst at
		// either end.
		d := float64(burst(samples, write)) / time.Duration(st.ElapsedNs).Seconds()
		if !sustained && (st.MiBPerSec*mib < lo-d || st.MiBPerSec*mib > hi+d) {
			t.Errorf("without --sustained the figure %.3f MiB/s is not the whole write's: the throttle let through %.3f..%.3f (±%.3f for a burst)", st.MiBPerSec, lo/mib, hi/mib, d/mib)
		}
		after := "; --sustained measures only the rate after the drop"
		if sustained {
			after = "; the figure is the rate after the drop (--sustained)"
		}
		cliffWords(t, doc, "ext4 1M: ", " MiB/s for the first ", " MiB, then ", after, fmt.Sprintf("%.1f ±", st.MiBPerSec))
	}
	out, err := fstest.NewThrottle(t, mnt).Command(thruputBin, "disk", "sweep", mnt, "--direct", "--write-only", "--bs", "1M", "--file-size", "8M", "--no-save", "-q").Output()
	if err != nil || !strings.Contains(string(out), "1M") {
		t.Errorf("a table: %v\n%s", err, out)
	}
}

// cliffWords checks a run's table, markdown and CSV say what its
// interval holds.
func cliffWords(t *testing.T, doc *result.Document, table ...string) {
	t.Helper()
	for _, format := range []string{"table", "markdown"} {
		var buf bytes.Buffer
		if err := report.Write(&buf, doc, report.Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		for _, w := range table {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("the %s lacks %q:\n%s", format, w, buf.String())
			}
		}
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, doc, report.Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(buf.String(), "\n"); !strings.HasSuffix(head, ",ci_relative,ci_windows,ci_converged,ci_warmup_s,suspect") {
		t.Errorf("CSV header %s", head)
	}
}

// TestCliffIO: disk io with --sustained past a throttle lowered from 40 to
// 10 MiB/s gives the rate after the drop as its figure, IOPS with it, as
// the sweep does. The reference is the throttle's own count of the bytes
// it let through either side of the moment the test lowered it, sampled
// through the run (judgeCliff), not 10 % of the rates it was set to: the
// throttle runs a little over its new rate for a while after the change,
// and a process it holds back on a loaded machine gets less.
func TestCliffIO(t *testing.T) {
	t.Parallel()
	mnt := fstest.Mount(t, "ext4", 512*mib)
	doc, samples, dropped := cliffRun(t, mnt, "disk io", func(doc *result.Document) (*result.Interval, int64) {
		return doc.IO.Runs[0].Write.Interval, doc.IO.Runs[0].ElapsedNs
	}, "disk", "io", mnt, "--rw", "write", "--bs", "1M", "--size", "300M", "-t", "8s", "--time-based", "--sustained")
	d := doc.IO.Runs[0].Write
	iv := d.Interval
	t.Logf("%.2f MiB/s, %.1f IOPS, interval %+v", d.MiBPerSec, d.IOPS, iv)
	if !iv.Sustained {
		t.Errorf("--sustained: the interval says sustained %v", iv.Sustained)
	}
	judgeCliff(t, iv, doc.IO.Runs[0].ElapsedNs, samples, dropped)
	if math.Abs(d.IOPS/d.MiBPerSec-1) > 1e-9 {
		t.Errorf("--sustained: %.3f MiB/s, %.3f IOPS of 1 MiB; want the same", d.MiBPerSec, d.IOPS)
	}
	cliffWords(t, doc, "run 1: ", " MiB, then ", "; the figure is the rate after the drop (--sustained)", fmt.Sprintf("%.1f ±", d.MiBPerSec))
}

// cliffRun runs thruput with args under a throttle of 40 MiB/s written,
// lowered to 10 dropAfter into the write, sampling its counters, and
// gives the document, the samples and the moment of the drop. A run in
// which the load buried the drop is taken once more (buried); phase is
// the run's interval and its phase's length.
func cliffRun(t *testing.T, mnt, what string, phase func(*result.Document) (*result.Interval, int64), args ...string) (*result.Document, []servedSample, time.Time) {
	t.Helper()
	for try := 1; ; try++ {
		th := fstest.NewThrottle(t, mnt)
		th.Set(t, 0, 40*mib)
		drop := lowerWrites(dropAfter, 10*mib)
		served := sampleServed(t, th, drop)
		doc, _, _ := throttled(t, th, args...)
		samples := served()
		dropped := drop.when(t)
		if iv, elapsedNs := phase(doc); !buried(t, what, iv, elapsedNs, samples, try) {
			return doc, samples, dropped
		}
	}
}

// buried says whether a run that found no cliff is to be tried once more
// because the load buried the drop: thruput's own method (package
// stable), run on the throttle's counters in windows as long as thruput's
// were, finds none there either (beside six spinning shells the writer,
// held back, got little more than the new rate before the drop, in
// windows of 300 ms that jumped from 0 to 80 MiB/s). Where the counters
// show a cliff thruput missed, the test fails; after a second buried run,
// it cannot judge (unquiet). A run with a cliff is judged.
func buried(t *testing.T, what string, iv *result.Interval, elapsedNs int64, samples []servedSample, try int) bool {
	t.Helper()
	if iv == nil {
		t.Fatalf("%s: no interval", what)
	}
	if iv.Cliff != nil {
		return false
	}
	window := meanWindow(iv, elapsedNs)
	write := func(s servedSample) int64 { return s.write }
	_, _, first, last := servedRate(samples, 0, write)
	if first < 1 {
		t.Fatalf("%s: no cliff, and the throttle's counters saw no write: %+v", what, iv)
	}
	ref := stable.NewSeries(window)
	for _, s := range samples[first-1 : last+1] {
		ref.Feed(s.write-samples[first-1].write, s.at.Sub(samples[first-1].at))
	}
	if c := ref.Estimate(false).Cliff; c != nil {
		t.Fatalf("%s: no cliff, where the throttle's counters in windows of %v show one %v into the write: %.3f then %.3f MiB/s; interval %+v", what, window, c.At, c.Before/mib, c.After/mib, iv)
	}
	why := fmt.Sprintf("%s: no cliff, and the throttle's counters in windows of %v show none either (the load held the writer back); interval %+v", what, window, iv)
	if try == 2 {
		unquiet(t, try, "%s", why)
	}
	t.Logf("%s: once more, judged the same", why)
	return true
}

// meanWindow is how long thruput's windows were on average in a phase of
// elapsedNs: 100 ms asked, longer where a loaded machine delayed its
// looks at the clock.
func meanWindow(iv *result.Interval, elapsedNs int64) time.Duration {
	window := time.Duration(iv.WindowNs)
	if iv.Windows > 0 {
		window = max(window, time.Duration(float64(elapsedNs-iv.WarmupNs)/float64(iv.Windows)))
	}
	return window
}

// judged is what judgeCliff reports to: a test, or a unit test's
// record of what it found.
type judged interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

// judgeCliff holds the cliff thruput found in a write of elapsedNs to the
// throttle's own counters, sampled through the run: the reference cliff
// is where the counters' series changes rate (counterCliff), not the
// moment the test lowered the throttle. On a loaded machine the writer
// can be held back before the drop (a run saw thruput's cliff 0.36 s
// before it, the counters 35..38 MiB/s against the 40 set), and then the
// bytes did slow down earlier: the counters, which show that, are what
// thruput must agree with. The rates either side are what the throttle
// let through from the first byte to the span where the counters change
// rate, and from its end to the last byte (servedRate's bounds). The
// cliff's place is held in time: thruput's clock starts with its first
// write, which the counters saw between two samples, and it splits the
// phase at the end of one of its windows (of the length they had in this
// run, longer than asked on a loaded machine), so the cliff lies within
// that span, a window and one of the throttle's bursts; either side may
// hold that long of the other's rate, or lack it, so each side's rate is
// widened by its share of the drop. With --sustained the figure's
// interval must meet the rate after the drop. A cliff where the counters
// show no change of rate fails.
func judgeCliff(t judged, iv *result.Interval, elapsedNs int64, samples []servedSample, dropped time.Time) {
	t.Helper()
	write := func(s servedSample) int64 { return s.write }
	best, lo, hi, ok := counterCliff(samples, write)
	if !ok {
		t.Errorf("the throttle's counters saw too little of the write to place a cliff")
		return
	}
	var before, after [2]float64
	var first int
	before[0], before[1], first, _ = servedRate(samples[:lo], 0, write)
	after[0], after[1], _, _ = servedRate(samples, hi, write)
	c := iv.Cliff
	t0 := samples[first-1].at
	t.Logf("cliff at %.1f MiB, %v: %.3f then %.3f MiB/s; the throttle's counters changed rate %v (%v..%v; lowered %v) into the write, at %.1f MiB, and let through %.3f..%.3f MiB/s before, %.3f..%.3f after",
		float64(c.AtBytes)/mib, time.Duration(c.AtNs), c.Before/mib, c.After/mib, samples[best].at.Sub(t0), samples[lo].at.Sub(t0), samples[hi].at.Sub(t0), dropped.Sub(t0),
		float64(samples[best].write)/mib, before[0]/mib, before[1]/mib, after[0]/mib, after[1]/mib)
	// A span reaching the first or the last byte leaves a side empty: a
	// change anywhere fits the counters as well.
	if before[0] <= 0 || after[0] <= 0 || after[1] > cliffRatio*before[0] {
		t.Errorf("the throttle's counters show no drop: %.3f..%.3f MiB/s, then %.3f..%.3f", before[0]/mib, before[1]/mib, after[0]/mib, after[1]/mib)
		return
	}
	// Thruput's windows close once 100 ms have passed and it looks at
	// the clock, which a loaded machine delays: a window is as long as
	// they were on average in this run.
	window := meanWindow(iv, elapsedNs)
	// The change came between the samples either side of the span, this
	// long after the first write, to a sample's gap; the throttle lets
	// the bytes through in bursts (4 MiB every 100 ms at 40 MiB/s), so
	// the change shows to a burst's time.
	early, late := samples[lo-1].at.Sub(samples[first].at), samples[hi+1].at.Sub(t0)
	slack := window + time.Duration(float64(burst(samples[:hi+1], write))/before[0]*1e9)
	if d := time.Duration(c.AtNs); d < early-slack || d > late+slack {
		t.Errorf("the cliff %v into the write, the throttle's counters changed rate %v..%v into it (±%v for a window and a burst)", d, early, late, slack)
	}
	drop := before[1] - after[0]
	off := float64(slack + late - early)
	if d := drop * off / float64(c.AtNs); c.Before < before[0]-d || c.Before > before[1]+d {
		t.Errorf("the rate before the cliff %.3f MiB/s, the throttle's %.3f..%.3f (±%.3f for the span, a window and a burst)", c.Before/mib, before[0]/mib, before[1]/mib, d/mib)
	}
	if d := drop * off / float64(elapsedNs-c.AtNs); c.After < after[0]-d || c.After > after[1]+d {
		t.Errorf("the rate after the cliff %.3f MiB/s, the throttle's %.3f..%.3f (±%.3f for the span, a window and a burst)", c.After/mib, after[0]/mib, after[1]/mib, d/mib)
	}
	if iv.Sustained && (iv.Low > after[1] || iv.High < after[0]) {
		t.Errorf("--sustained: interval %.3f..%.3f MiB/s does not meet the throttle's own %.3f..%.3f after its drop", iv.Low/mib, iv.High/mib, after[0]/mib, after[1]/mib)
	}
}

// cliffRatio is the most the counters' rate after their change may be of
// the rate before for the change to be a drop: thruput's own bound for a
// cliff (a tenth lower).
const cliffRatio = 0.9

// counterCliff is where the throttle's counters themselves change rate:
// the sample at which a rate before and a rate after, joined there, fit
// the cumulative bytes best (least squares over the samples from the one
// before the first byte to the last byte), and the span of samples lo..hi
// at which such a fit is as good. The counters move a burst at a time, so
// a split whose worst miss of a sample exceeds the best's by less than
// half a burst is one they cannot tell from it; a writer held back before
// the drop widens the span to cover the slowdown. ok is false when too
// few samples saw the write.
func counterCliff(samples []servedSample, bytes func(servedSample) int64) (best, lo, hi int, ok bool) {
	_, _, first, last := servedRate(samples, 0, bytes)
	if first < 1 || last-first < 10 {
		return 0, 0, 0, false
	}
	xs := samples[first-1 : last+1]
	worst := make([]float64, len(xs))
	for j := 3; j < len(xs)-3; j++ {
		worst[j] = hingeMiss(xs, j, bytes)
	}
	best = 3
	for j := 3; j < len(xs)-3; j++ {
		if worst[j] < worst[best] {
			best = j
		}
	}
	tol := worst[best] + float64(burst(xs, bytes))/2
	lo, hi = best, best
	for lo > 3 && worst[lo-1] <= tol {
		lo--
	}
	for hi < len(xs)-4 && worst[hi+1] <= tol {
		hi++
	}
	return first - 1 + best, first - 1 + lo, first - 1 + hi, true
}

// hingeMiss fits bytes = a + b·min(t, tj) + c·max(t-tj, 0) to the
// samples by least squares and gives its worst miss of one, in bytes.
func hingeMiss(xs []servedSample, j int, bytes func(servedSample) int64) float64 {
	tj := xs[j].at.Sub(xs[0].at).Seconds()
	row := func(s servedSample) [3]float64 {
		t := s.at.Sub(xs[0].at).Seconds()
		return [3]float64{1, min(t, tj), max(t-tj, 0)}
	}
	// The normal equations, in MiB so that they stay well scaled.
	var m [3][4]float64
	for _, s := range xs {
		r, y := row(s), float64(bytes(s)-bytes(xs[0]))/mib
		for i := range 3 {
			for k := range 3 {
				m[i][k] += r[i] * r[k]
			}
			m[i][3] += r[i] * y
		}
	}
	for i := range 3 {
		p := m[i][i]
		for k := range m[i] {
			m[i][k] /= p
		}
		for r := range 3 {
			if r != i {
				f := m[r][i]
				for k := range m[r] {
					m[r][k] -= f * m[i][k]
				}
			}
		}
	}
	var most float64
	for _, s := range xs {
		r := row(s)
		fit := m[0][3]*r[0] + m[1][3]*r[1] + m[2][3]*r[2]
		most = max(most, math.Abs(float64(bytes(s)-bytes(xs[0]))/mib-fit))
	}
	return most * mib
}

// TestUntilStableNet: over a 100 Mbit/s link the network test ends once
// its rate is known, well before -t.
func TestUntilStableNet(t *testing.T) {
	t.Parallel()
	lan := nettest.NewLAN(t, []int{100, 100})
	port := strconv.Itoa(5400 + int(time.Now().UnixNano()%500))
	srv := lan.Command(t.Context(), 1, thruputBin, "net", "server", "-1", "--no-save", "-q", "-p", port)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	// answered runs thruput on the first host, up to tries times pause
	// apart until its peer answers and ok takes the document; and how
	// long that run took.
	answered := func(tries int, pause time.Duration, ok func(*result.Document) bool, args ...string) (*result.Document, time.Duration) {
		for range tries {
			time.Sleep(pause)
			start := time.Now()
			out, err := lan.Command(t.Context(), 0, thruputBin, args...).Output()
			if err != nil {
				continue
			}
			if doc, err := result.Read(strings.NewReader(string(out))); err == nil && ok(doc) {
				return doc, time.Since(start)
			}
		}
		t.Fatalf("thruput %s: no run", strings.Join(args, " "))
		return nil, 0
	}
	measure := func() (*result.Document, time.Duration) {
		return answered(20, 100*time.Millisecond, func(*result.Document) bool { return true },
			"net", "client", lan.Hosts[1].Addr, "-p", port, "-t", "30", "--until-stable", "--json", "-q", "--no-save")
	}
	// A busy make check can keep the shaped link's rate from settling
	// (87 Mbit/s, ±2.01 % after 30 s against the 2 % asked): such a run
	// must say so, and one more is taken, which must settle.
	for run := 1; ; run++ {
		doc, took := measure()
		s := doc.Net.Sums[0]
		t.Logf("%.1f Mbit/s in %v, interval %+v", s.Receiver.BitsPerSecond/1e6, took, s.Interval)
		// Only what the shaper makes impossible: how much of the link a
		// loaded machine gets is judged against iperf3 in the same window
		// by the net tests (82.8 Mbit/s was seen here under a make check);
		// this test is about the interval settling.
		if mbit := s.Receiver.BitsPerSecond / 1e6; mbit <= 0 || mbit > 100 {
			t.Errorf("%.1f Mbit/s on a 100 Mbit/s link", mbit)
		}
		iv := s.Interval
		if iv == nil {
			t.Fatal("no interval")
		}
		// Settled, it ends before its bound: how long before is the
		// link's noise (22 s of 30 seen on a quiet machine at ±1.84 %).
		if took < 29*time.Second && iv.Converged {
			break
		}
		if run == 2 || iv.Converged || iv.Relative <= iv.Target || took < 30*time.Second {
			t.Fatalf("took %v of -t 30, interval %+v", took, iv)
		}
	}
	// A download of 256 MiB (21 s at 100 Mbit/s) ends once its rate is
	// known.
	hport := strconv.Itoa(8400 + int(time.Now().UnixNano()%500))
	hs := lan.Command(t.Context(), 1, thruputBin, "net", "http-serve", "--bind", lan.Hosts[1].Addr, "--port", hport, "--size", "256M", "-q")
	if err := hs.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { hs.Process.Kill(); hs.Wait() }()
	download := func() (*result.HTTPRun, time.Duration) {
		d, took := answered(30, 200*time.Millisecond, func(d *result.Document) bool { return len(d.HTTP.Runs) == 1 },
			"net", "http", "http://"+lan.Hosts[1].Addr+":"+hport+"/", "--until-stable", "--json", "-q", "--no-save")
		return &d.HTTP.Runs[0], took
	}
	// As above, a download the load kept from settling (a warm-up of
	// 11.8 s under make check, then the whole file; or of 7.2 s, and the
	// rate known after 18 s) gets one more. One that stopped before the
	// end of the file without a rate it trusts is wrong at once.
	for dl := 1; ; dl++ {
		run, took := download()
		t.Logf("download: %.1f Mbit/s, %d MiB in %v, interval %+v", run.BitsPerSecond/1e6, run.Bytes>>20, took, run.Interval)
		iv := run.Interval
		if iv == nil || run.Error != "" {
			t.Fatalf("the download: interval %+v, error %q", iv, run.Error)
		}
		// Its figure is the rate the interval is of, warm-up cut, as
		// the sweep's is.
		if math.Abs(run.MiBPerSec*mib/iv.Mean-1) > 1e-9 || math.Abs(run.BitsPerSecond/8/iv.Mean-1) > 1e-9 {
			t.Errorf("the figure %.3f MiB/s (%.0f bit/s) is not the interval's mean %.0f B/s", run.MiBPerSec, run.BitsPerSecond, iv.Mean)
		}
		if took <= 15*time.Second && run.Bytes < 256<<20 && iv.Converged {
			break
		}
		if dl == 2 || (run.Bytes < 256<<20 && !iv.Converged) {
			t.Fatalf("the download took %v for %d bytes, interval %+v", took, run.Bytes, iv)
		}
	}
}

// TestUntilStableRandom: disk random --until-stable ends before its
// bound once its rate is known to ±2 %, its rates are the interval's
// mean, and the requests keep their share of it; its mean meets what the
// throttle's own counters let through in the same run. How soon a rate
// is known is the throttle's doing as much as the tool's (±3.1 % after
// the whole 20 s in a make check): a run that did not settle must say so
// (not converged, run to its bound), and one more is taken, judged the
// same; settled in neither, the stopping rule is left unjudged, which
// fails under CI and skips elsewhere (unquiet), as in TestUntilStable.
func TestUntilStableRandom(t *testing.T) {
	t.Parallel()
	mnt := fstest.Mount(t, "ext4", 256*mib)
	th := fstest.NewThrottle(t, mnt)
	th.Set(t, 20*mib, 0)
	const runs = 2
	var why string
	for run := 1; run <= runs; run++ {
		served := sampleServed(t, th, nil)
		doc, took, _ := throttled(t, th, "disk", "random", mnt, "--mode", "seqrd", "--files", "4", "--size", "64M", "--bs", "64k", "--direct", "-t", "20s", "--until-stable")
		r := doc.Random
		iv := r.Interval
		if iv == nil {
			t.Fatalf("no interval: %+v", r)
		}
		// The reads after the layout's last write (ext4 reads a little
		// of its own while the files are written), from where the
		// interval's warm-up ends: the figure is the windows' mean after
		// it (18.6..18.9 MiB/s from the first read, 20.0 after).
		samples := served()
		read := func(s servedSample) int64 { return s.read }
		_, _, _, wrote := servedRate(samples, 0, func(s servedSample) int64 { return s.write })
		_, _, first, _ := servedRate(samples, max(wrote, 0), read)
		from := max(wrote, 0)
		if first > 0 {
			warm := samples[first].at.Add(time.Duration(iv.WarmupNs))
			from = max(from, slices.IndexFunc(samples, func(s servedSample) bool { return !s.at.Before(warm) })-1)
		}
		lo, hi, _, _ := servedRate(samples, from, read)
		elapsed := time.Duration(r.ElapsedNs)
		t.Logf("run %d: %.2f MiB/s, %.1f reads/s in %v (%v in all), interval %+v; the throttle let through %.3f..%.3f MiB/s", run, r.ReadMiBPerSec, r.ReadsPerSec, elapsed, took, iv, lo/mib, hi/mib)
		if iv.Target != 0.02 || lo <= 0 {
			t.Fatalf("interval %+v, the throttle's counters %.0f..%.0f B/s", iv, lo, hi)
		}
		if math.Abs(r.ReadMiBPerSec*mib/iv.Mean-1) > 1e-9 || math.Abs(r.ReadsPerSec/16/r.ReadMiBPerSec-1) > 1e-9 || r.RequestsPerSec != r.ReadsPerSec {
			t.Errorf("%.3f MiB/s, %.3f reads/s and %.3f requests/s of 64 KiB, interval mean %.0f B/s", r.ReadMiBPerSec, r.ReadsPerSec, r.RequestsPerSec, iv.Mean)
		}
		if iv.Low > hi || iv.High < lo {
			t.Errorf("run %d: interval %.3f..%.3f MiB/s, the throttle let through %.3f..%.3f", run, iv.Low/mib, iv.High/mib, lo/mib, hi/mib)
		}
		if iv.Converged {
			if elapsed >= 20*time.Second {
				t.Errorf("run %d: settled, yet ran to its bound (%v of -t 20s)", run, elapsed)
			}
			return
		}
		// Not settled: it must say so, and have run to its bound.
		if iv.Relative <= iv.Target || elapsed < 19*time.Second {
			t.Errorf("run %d: not converged at ±%.1f %% after %v of -t 20s", run, 100*iv.Relative, elapsed)
		}
		why = fmt.Sprintf("±%.1f %% after %v", 100*iv.Relative, elapsed)
		t.Logf("run %d did not settle (%s): one more", run, why)
	}
	unquiet(t, runs, "the rate never settled: %s", why)
}

// TestPreviousRun: a second run is set against the first (a line after
// the table, previous in the JSON); --no-compare leaves it out.
func TestPreviousRun(t *testing.T) {
	db := t.TempDir() + "/r.db"
	dir := t.TempDir()
	first := quickSweep(t, db, dir)
	o := thruput(t, "disk", "sweep", "--db", db, "--sizes", "4k,64k", "--file-size", "1M", dir, "-q")
	if o.code != 0 || !strings.Contains(o.stdout, "x the last run (") || !strings.Contains(o.stdout, first.ID) {
		t.Errorf("a second run: exit %d\n%s", o.code, o.stdout)
	}
	doc := sweepJSON(t, "--db", db, "--sizes", "4k,64k", "--file-size", "1M", dir)
	if p := doc.Previous; p == nil || p.Ratio <= 0 || p.Figures != 4 || p.Verdict == "" {
		t.Errorf("previous: %+v", p)
	}
	o = thruput(t, "disk", "sweep", "--db", db, "--sizes", "4k,64k", "--file-size", "1M", dir, "-q", "--no-compare")
	if strings.Contains(o.stdout, "the last run") {
		t.Errorf("--no-compare:\n%s", o.stdout)
	}
	// Other parameters are another test: nothing to set it against.
	if doc := sweepJSON(t, "--db", db, "--sizes", "4k", "--file-size", "1M", dir); doc.Previous != nil {
		t.Errorf("a sweep of other block sizes was set against %+v", doc.Previous)
	}
}

// TestSuiteBudget: the quick suite on a tmpfs with --budget 60s ends
// within the budget and a few seconds more, and names each figure that
// did not reach ±2 %, in words that say why.
func TestSuiteBudget(t *testing.T) {
	fstest.Long(t, "runs a one-minute suite")
	t.Parallel()
	mnt := fstest.Tmpfs(t, 512*mib)
	dir := t.TempDir()
	start := time.Now()
	o := thruput(t, "suite", "--disk", mnt, "--quick", "--budget", "60s", "--db", dir+"/r.db", "-q", "-o", dir+"/s.html")
	took := time.Since(start)
	t.Logf("took %v\n%s", took, o.stderr)
	// disk mark refuses tmpfs (its presets are O_DIRECT); the others run.
	if o.code != 0 && (o.code != 1 || !strings.Contains(o.stderr, "1 of the suite's runs failed: mark ")) {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if took > 66*time.Second {
		t.Errorf("a 60 s budget took %v", took)
	}
	named := regexp.MustCompile(`^thruput suite: not stable: disk\.(sweep|random|mark) \S+ .+ \((too short for an interval|±[0-9.]+%, wanted ±2%|too few windows, wanted ±2%)\)$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(o.stderr), "\n") {
		if strings.Contains(l, "not stable") {
			n++
			if !named.MatchString(l) {
				t.Errorf("named as %q", l)
			}
		}
	}
	// A 1 MiB step writes its 32 MiB to tmpfs in a few milliseconds.
	if n == 0 {
		t.Errorf("no figure named as unsettled:\n%s", o.stderr)
	}
}

// TestSuiteBudgetParses: the bounds a budget gives the steps as they run
// parse as the commands' flags.
func TestSuiteBudgetParses(t *testing.T) {
	for _, full := range []bool{false, true} {
		o := suite.Options{Disks: []string{"/mnt/usb"}, Net: "pi4:5201", HTTP: "http://pi4:8080/", Full: full, Budget: 2 * time.Hour}
		if !full {
			o.Budget = 3 * time.Minute
		}
		plan, err := suite.Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		suite.Run(context.Background(), plan, suite.Rounds{ID: "s", Repeat: 1, Budget: o.Budget / 3}, func(_ context.Context, args []string) error {
			root := newRoot(&app{argv: []string{"thruput"}})
			cmd, rest, err := root.Find(args)
			if err == nil {
				err = cmd.ParseFlags(rest)
			}
			if err != nil {
				t.Errorf("%v: %v", args, err)
			}
			return nil
		}, func(string, error) {})
	}
}

// judgeRecord keeps what judgeCliff found, for TestJudgeCliff.
type judgeRecord struct {
	*testing.T
	errs []string
}

func (r *judgeRecord) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestJudgeCliff: judgeCliff passes a cliff where the counters change
// rate, also where the writer was held back before the drop, and fails
// one where they show no change, and a cliff the counters do not show at
// all. The counters are built as the throttle moves them: a burst at a
// time, 4 MiB every 100 ms at 40 MiB/s, 2 MiB every 200 ms at 10, read
// every 20 ms.
func TestJudgeCliff(t *testing.T) {
	start := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	// served builds 6 s of samples of a writer that starts 0.3 s in,
	// its rate in MiB/s at each moment since the first byte given by rate.
	served := func(rate func(since time.Duration) int64) []servedSample {
		var out []servedSample
		var bytes, owed int64
		for at := time.Duration(0); at <= 6300*time.Millisecond; at += 20 * time.Millisecond {
			if since := at - 300*time.Millisecond; since >= 0 && since%(100*time.Millisecond) == 0 {
				// A slice's budget, let through as one burst, two at a
				// time at 10 MiB/s.
				owed += rate(since) * mib / 10
				if step := rate(since) * mib / 10 * 2; rate(since) >= 20 || owed >= step {
					bytes, owed = bytes+owed, 0
				}
			}
			out = append(out, servedSample{at: start.Add(at), write: bytes})
		}
		return out
	}
	cliffAt := func(at time.Duration, bytes int64, before, after float64) *result.Interval {
		return &result.Interval{WindowNs: 1e8, Windows: int((6*time.Second - at) / (100 * time.Millisecond)), WarmupNs: int64(at), Sustained: true,
			Low: 9.5 * mib, High: 10.5 * mib, Cliff: &result.Cliff{AtNs: int64(at), AtBytes: bytes, Before: before * mib, After: after * mib}}
	}
	drop := func(since time.Duration) int64 { return map[bool]int64{true: 40, false: 10}[since < 3*time.Second] }
	heldBack := func(since time.Duration) int64 {
		if since >= 2600*time.Millisecond && since < 3*time.Second {
			return 20
		}
		return drop(since)
	}
	flat := func(time.Duration) int64 { return 40 }
	for _, c := range []struct {
		name string
		rate func(time.Duration) int64
		iv   *result.Interval
		want string
	}{
		{"at the drop", drop, cliffAt(3*time.Second, 120*mib, 40, 10), ""},
		{"a window early", drop, cliffAt(2900*time.Millisecond, 116*mib, 40, 10.3), ""},
		{"held back before the drop", heldBack, cliffAt(2600*time.Millisecond, 104*mib, 40, 11), ""},
		{"a second early", drop, cliffAt(2*time.Second, 80*mib, 40, 17.5), "the cliff 2s into the write, the throttle's counters changed rate"},
		{"a second late", drop, cliffAt(4*time.Second, 130*mib, 32.5, 10), "the cliff 4s into the write, the throttle's counters changed rate"},
		{"no drop", flat, cliffAt(3*time.Second, 120*mib, 40, 10), "the throttle's counters show no drop"},
	} {
		r := judgeRecord{T: t}
		judgeCliff(&r, c.iv, int64(6*time.Second), served(c.rate), start.Add(3300*time.Millisecond))
		switch {
		case c.want == "" && len(r.errs) > 0:
			t.Errorf("%s: %q", c.name, r.errs)
		case c.want != "" && (len(r.errs) == 0 || !strings.HasPrefix(r.errs[0], c.want)):
			t.Errorf("%s: %q, want %q", c.name, r.errs, c.want)
		}
	}
}
