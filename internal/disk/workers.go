package disk

import (
	"context"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// runWorkers runs work(0) .. work(n-1) at once, each on a thread of its own
// with a private file table (see isolated; io_uring also completes requests
// on the thread that submitted them), and waits for them, calling progress
// every 250 ms, enough every 50 ms (a run's meter: when it says so, the
// run ends early) and stop once when ctx is cancelled or enough. It
// returns an interrupted error after a cancellation, nil otherwise; the
// workers keep their own errors.
//
// Workers make raw system calls that keep their P while the device works,
// so GOMAXPROCS is raised for the run to one P per worker and one for the
// rest: otherwise reads that wait on the disk hold up the other workers (on
// a one-core Pi, every one of them).
func runWorkers(ctx context.Context, n int, fds []int, work func(i int), stop func(), progress func(), enough func() bool) error {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), n+1)))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = isolated(func() error {
				work(i)
				// The thread's table holds copies of fds; closed here, not
				// at thread exit, which may come after the scratch
				// directory is removed (NFS and FUSE keep such files).
				for _, fd := range fds {
					unix.Close(fd)
				}
				return nil
			})
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var cancelled error
	stopped := false
	for ticks := 1; ; ticks++ {
		select {
		case <-done:
			return cancelled
		case <-ctx.Done():
			if cancelled == nil {
				cancelled = interrupted{context.Cause(ctx)}
				if !stopped {
					stop()
				}
				stopped = true
			}
		case <-tick.C:
			if ticks%5 == 0 {
				progress()
			}
			if !stopped && enough() {
				stop()
				stopped = true
			}
		}
	}
}

var pollerOnce sync.Once

// isolated runs f on an OS thread of its own with a private file-descriptor
// table. A Go process always has several threads, and while they share one
// table every read() and write() takes a reference on the file and its
// position lock (fdget_pos), about 60 ns: a tenth of an 8-byte write. With
// the table unshared the kernel skips that, as for a single-threaded C loop.
// Files f opens live only in its table, so f must open and close them
// itself; the thread, never unlocked, ends with the goroutine.
func isolated(f func() error) error {
	// The runtime's poller creates its epoll descriptor on first use. Were
	// that first use on the isolated thread, the descriptor would exist
	// only in its private table and every other thread would poll a
	// closed number; opening any file first sets the poller up in the
	// shared table.
	pollerOnce.Do(func() {
		if f, err := os.Open(os.DevNull); err == nil {
			f.Close()
		}
	})
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Best effort: where unshare is refused the figures are merely
		// those of a multi-threaded process.
		_ = unix.Unshare(unix.CLONE_FILES)
		errc <- f()
	}()
	return <-errc
}
