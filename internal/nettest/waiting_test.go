package nettest

import (
	"math"
	"os/exec"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
)

// A counter on CPU 0 is held back while a real-time task takes that CPU:
// its longest wait is the real-time task's run, all at once. A watch that
// starts after that leaves it out.
func TestWaitingHeldBack(t *testing.T) {
	fstest.RequireRoot(t)
	counter := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
	if err := counter.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = counter.Process.Kill(); _ = counter.Wait() })
	w := WatchWaiting()
	t.Cleanup(func() { w.Stop() })
	w.Add(counter.Process.Pid)
	time.Sleep(50 * time.Millisecond)
	hog := exec.Command("chrt", "-f", "10", "taskset", "-c", "0", "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
	if err := hog.Run(); err != nil {
		t.Fatal(err)
	}
	held := hog.ProcessState.UserTime() + hog.ProcessState.SystemTime()
	time.Sleep(50 * time.Millisecond)
	waited := w.Stop()
	t.Logf("a real-time task ran %v on CPU 0; the counter there waited %v at once", held, waited)
	if held < 20*time.Millisecond {
		t.Fatalf("the real-time task ran %v, too short to tell from a time slice", held)
	}
	if waited < held*9/10 {
		t.Errorf("waited %v at once, want at least nine tenths of the %v it was held back", waited, held)
	}
	after := WatchWaiting(counter.Process.Pid)
	time.Sleep(100 * time.Millisecond)
	if rest := after.Stop(); rest >= held/2 {
		t.Errorf("a watch begun after the real-time task saw a wait of %v, more than half of its %v", rest, held)
	}
}

// A process followed from its start but asleep throughout waits only for
// its wake-ups, far less than the time it lived, and the watch still
// reads it once it has ended. Its waits may be none at all: a wake-up
// onto an idle CPU does not wait (ci56 read 0).
func TestWaitingSleeper(t *testing.T) {
	w := WatchWaiting()
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Add(cmd.Process.Pid)
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	lived := time.Since(start)
	waited := w.Stop()
	t.Logf("sleep 0.3 lived %v and waited %v at once", lived, waited)
	if waited < 0 || waited >= lived/2 {
		t.Errorf("waited %v at once, want less than half of the %v it lived", waited, lived)
	}
}

func TestRateWaited(t *testing.T) {
	r := Rate{BPS: 100e6, Res: 1e6}
	// 10 ms of 1 s: the 100 Mbit/s could be 100·1/0.99.
	if got := r.Waited(10*time.Millisecond, 1).Res; math.Abs(got-(1e6+100e6*0.01/0.99)) > 1 {
		t.Errorf("Res %v", got)
	}
	if got := r.Waited(0, 1); got != r {
		t.Errorf("no wait changed %v to %v", r, got)
	}
	if got := r.Waited(2*time.Second, 1).Res; !math.IsInf(got, 1) {
		t.Errorf("a wait longer than the run left Res %v", got)
	}
}
