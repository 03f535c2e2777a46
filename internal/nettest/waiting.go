package nettest

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// waitPoll is how often Waiting reads the threads' counts. A process's
// wait after its last read is not seen, nor one while the poller itself
// waits for a CPU past its exit: this assumes the process read its clock
// for the last time more than a poll before it exited, as a thruput
// client does by 20 ms or more (it still writes its document) and an
// iperf3 client by its end-of-test exchange.
const waitPoll = 5 * time.Millisecond

// Waiting follows how long the threads of some processes were held back
// at once while ready to run, waiting for a CPU, from each thread's
// /proc/PID/task/TID/schedstat: its second field counts the nanoseconds
// the thread spent on a run queue, and a wait is added whole when the
// thread gets the CPU, so the most it grew between two reads bounds the
// thread's longest single wait.
//
// A rate is bytes over the time between two reads of the clock, and a
// reader held back d after its last byte read the clock up to d late: on a
// machine busy with other tests, that wait, not the link, can set one
// figure apart from references that happened to run while the machine
// was quiet (a thruput reader 1.8 % under four curl references that
// agreed within 0.02 %). What limits the figure is a single wait on the
// path from the last byte to the clock, not the sum of the thousands of
// short ones a thread pays for its wake-ups (Go's sysmon thread alone
// adds up 15 ms of those in a second and a half), so Stop sums each
// thread's longest wait: a path through several threads, each held back
// once. Rate.Waited widens a figure's resolution by it.
type Waiting struct {
	mu      sync.Mutex
	procs   map[int]struct{}
	last    map[[2]int]int64 // (pid, tid): the count when last read
	longest map[[2]int]int64 // (pid, tid): the most it grew between two reads
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// WatchWaiting starts following processes already running: only what
// their threads wait from now on counts.
func WatchWaiting(pids ...int) *Waiting {
	w := &Waiting{procs: map[int]struct{}{}, last: map[[2]int]int64{}, longest: map[[2]int]int64{},
		stop: make(chan struct{}), done: make(chan struct{})}
	for _, pid := range pids {
		w.procs[pid] = struct{}{}
	}
	w.read(true)
	go func() {
		defer close(w.done)
		tick := time.NewTicker(waitPoll)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				w.read(false)
				return
			case <-tick.C:
				w.read(false)
			}
		}
	}()
	return w
}

// Add follows a process started in the window (just started with
// exec.Cmd.Start): all that its threads waited counts, from their start.
func (w *Waiting) Add(pid int) {
	w.mu.Lock()
	w.procs[pid] = struct{}{}
	w.mu.Unlock()
	w.read(false)
}

// Stop ends the watch and returns the sum over the processes' threads of
// the longest each waited at once for a CPU while it ran (at most the
// most its count grew between two reads). It may be called again.
func (w *Waiting) Stop() time.Duration {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	var ns int64
	for _, v := range w.longest {
		ns += v
	}
	return time.Duration(ns)
}

// read takes every followed thread's count; initial is WatchWaiting's
// first read, whose counts are the baseline of the processes it was
// given.
func (w *Waiting) read(initial bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid := range w.procs {
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		tasks, _ := os.ReadDir(dir) // none once it ended: what it waited was read before
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(dir + task.Name() + "/schedstat")
			fs := strings.Fields(string(b))
			if err != nil || len(fs) < 2 {
				continue
			}
			n, err := strconv.ParseInt(fs[1], 10, 64)
			if err != nil {
				continue
			}
			k := [2]int{pid, tid}
			prev, seen := w.last[k]
			if !seen && initial {
				// A process followed from before: waited before the
				// window.
				prev = n
			}
			// Otherwise a thread first seen now started in the window
			// (the kernel starts its count at zero) and waited all of
			// it in the window.
			w.longest[k] = max(w.longest[k], n-prev)
			w.last[k] = n
		}
	}
}

// Waited widens r's resolution by what its processes waited for a CPU
// (from Waiting) while it was timed over secs: the time it counts can be
// that much off, so the rate by BPS·wait/(secs-wait), kept in r.Stall
// too. A wait as long as the run leaves nothing resolved; SameWindow
// judges no figure whose waits took a tenth of it.
func (r Rate) Waited(wait time.Duration, secs float64) Rate {
	if w := wait.Seconds(); w < secs {
		r.Stall = r.BPS * w / (secs - w)
		r.Res += r.Stall
	} else {
		r.Res, r.Stall = math.Inf(1), math.Inf(1)
	}
	return r
}

// OutputWaited runs cmd and returns its standard output, as cmd.Output
// does (but without an ExitError's Stderr; cmd.Stdout must be unset), and
// what its threads and those of the processes others (a server it talks
// to) waited for a CPU while it ran.
func OutputWaited(cmd *exec.Cmd, others ...int) ([]byte, time.Duration, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	w := WatchWaiting(others...)
	if err := cmd.Start(); err != nil {
		w.Stop()
		return nil, 0, err
	}
	w.Add(cmd.Process.Pid)
	err := cmd.Wait()
	return out.Bytes(), w.Stop(), err
}
