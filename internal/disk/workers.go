package disk

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// runWorkers runs work(0) .. work(n-1) at once, each locked to a thread of
// its own (io_uring completes requests on the thread that submitted them),
// and waits for them, calling progress every 250 ms and stop
// once when ctx is cancelled. It returns an interrupted error after a
// cancellation, nil otherwise; the workers keep their own errors.
//
// Workers make raw system calls that keep their P while the device works,
// so GOMAXPROCS is raised for the run to one P per worker and one for the
// rest: otherwise reads that wait on the disk hold up the other workers (on
// a one-core Pi, every one of them).
func runWorkers(ctx context.Context, n int, work func(i int), stop func(), progress func()) error {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), n+1)))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Locked but not isolated: the files were opened on the shared
			// table, and a private copy would keep them open until the
			// thread exits, after the scratch directory is removed.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			work(i)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var cancelled error
	for {
		select {
		case <-done:
			return cancelled
		case <-ctx.Done():
			if cancelled == nil {
				cancelled = interrupted{context.Cause(ctx)}
				stop()
			}
		case <-tick.C:
			progress()
		}
	}
}
