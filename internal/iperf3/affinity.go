package iperf3

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// iperf3's -A pins the process to one CPU with sched_setaffinity. A Go
// process runs on threads the runtime starts and parks as it likes, and
// sched_setaffinity binds one thread: so every thread of the process is
// bound, and threads started later inherit the binding from the thread
// that starts them.

// MaxCPU is the highest CPU number iperf3 pins a test to.
const MaxCPU = 1024

// pinning is the process's binding shared by everything that asked for
// one (a server's own -A, the tests it serves, a client's -A): the process
// runs on the CPU of the latest holder still holding, and on the CPUs it
// had before the first when none is left. So a server started with -A n
// goes back to CPU n after a test a client moved to another, and tests
// served at once (--max-clients) that name different CPUs leave the
// process on the last one named, as iperf3's one process would be.
var pinning struct {
	sync.Mutex
	holders []*int
	before  unix.CPUSet
}

// Pin binds every thread of the process to cpu until unpin is called.
// The error is iperf3's "unable to set CPU affinity" (i_errno 132) with
// the reason.
func Pin(cpu int) (unpin func(), err error) {
	if cpu < 0 || cpu > MaxCPU {
		return nil, refuse(ieAffinity, "CPU %d: from 0 to %d", cpu, MaxCPU)
	}
	pinning.Lock()
	defer pinning.Unlock()
	if len(pinning.holders) == 0 {
		if err := unix.SchedGetaffinity(0, &pinning.before); err != nil {
			return nil, refuse(ieAffinity, "sched_getaffinity: %v", err)
		}
	}
	if !pinning.before.IsSet(cpu) {
		return nil, refuse(ieAffinity, "CPU %d is not one this process may use (%s)", cpu, cpuList(&pinning.before))
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := bindThreads(&set); err != nil {
		_ = bindLatest()
		return nil, refuse(ieAffinity, "CPU %d: %v", cpu, err)
	}
	holder := &cpu
	pinning.holders = append(pinning.holders, holder)
	var once sync.Once
	return func() {
		once.Do(func() {
			pinning.Lock()
			defer pinning.Unlock()
			pinning.holders = slices.DeleteFunc(pinning.holders, func(h *int) bool { return h == holder })
			_ = bindLatest()
		})
	}, nil
}

// bindLatest binds the process to the latest holder's CPU, or to the CPUs
// it had before any when none is left.
func bindLatest() error {
	if n := len(pinning.holders); n > 0 {
		var set unix.CPUSet
		set.Set(*pinning.holders[n-1])
		return bindThreads(&set)
	}
	return bindThreads(&pinning.before)
}

// bindThreads sets the affinity of every thread in /proc/self/task,
// listing them again until no new one appeared while it went.
func bindThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh++
			// A thread that ended since the listing is no matter.
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("sched_setaffinity thread %d: %w", tid, err)
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
}

// cpuList writes a CPU set as the kernel's lists do ("0-3,6").
func cpuList(set *unix.CPUSet) string {
	out := ""
	for c := 0; c < len(set)*64; c++ {
		if !set.IsSet(c) || (c > 0 && set.IsSet(c-1)) {
			continue
		}
		end := c
		for set.IsSet(end + 1) {
			end++
		}
		if out != "" {
			out += ","
		}
		out += strconv.Itoa(c)
		if end > c {
			out += "-" + strconv.Itoa(end)
		}
	}
	return out
}
