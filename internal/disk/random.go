package disk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/stats"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// Random file I/O modes, named as sysbench fileio names them.
var RandomModes = []string{"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"}

// RandomConfig holds the parameters of a random file I/O run: those the
// result records, and how to run it. TotalSize is as asked; the result
// keeps what whole blocks made of it, and the engine sets FileSize and
// CacheDropped, which a caller leaves alone.
type RandomConfig struct {
	result.RandomParameters
	// Stable is --until-stable and --sustained: the run may end before
	// its time once its rate is known, and carries its interval.
	Stable stable.Options
}

func (c RandomConfig) timeBound() time.Duration { return time.Duration(c.TimeNs) }

// Validate checks the parameters that do not depend on a target.
func (c RandomConfig) Validate() error {
	switch {
	case c.Files < 1:
		return usage.Invalidf("{Files} must be at least 1")
	case c.TotalSize < int64(c.Files)*c.BlockSize:
		return usage.Invalidf("{TotalSize} %s is too small for %d files of at least one %s block", units.IEC(c.TotalSize), c.Files, units.IEC(c.BlockSize))
	case !contains(RandomModes, c.Mode):
		return usage.Invalidf("{Mode} %q: use one of seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw", c.Mode)
	case c.RWRatio <= 0:
		return usage.Invalidf("{RWRatio} must be positive (reads per write)")
	case c.BlockSize <= 0 || c.BlockSize > maxBlock:
		return usage.Invalidf("{BlockSize} must be between 1 B and %s", units.IEC(maxBlock))
	case c.FsyncEvery < 0:
		return usage.Invalidf("{FsyncEvery} must be 0 (never) or more")
	case c.FsyncMode != "fsync" && c.FsyncMode != "fdatasync":
		return usage.Invalidf("{FsyncMode} %q: use fsync or fdatasync", c.FsyncMode)
	case c.Threads < 1 || c.Threads > 1024:
		return usage.Invalidf("{Threads} must be between 1 and 1024")
	case c.TimeNs < 0 || c.Requests < 0:
		return usage.Invalidf("{TimeNs} and {Requests} must not be negative")
	case c.TimeNs == 0 && c.Requests == 0:
		return usage.Invalidf("give {TimeNs} or {Requests} (or both): the run needs a bound")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c RandomConfig) fileSize() int64 {
	// Whole blocks only, so every offset is block aligned.
	return c.TotalSize / int64(c.Files) / c.BlockSize * c.BlockSize
}

func (c RandomConfig) writes() bool { return c.Mode != "seqrd" && c.Mode != "rndrd" }

// Random prepares the file set in a scratch directory, named for runID,
// inside target, evicts it from the page cache, then runs the timed phase.
// out is filled in place on every return path with what was measured.
func Random(ctx context.Context, c RandomConfig, t result.Target, runID string, out *result.Random, h progress.Hooks) error {
	if err := c.Validate(); err != nil {
		return err
	}
	fileSize := c.fileSize()
	*out = result.Random{Parameters: c.RandomParameters, Threads: []result.ThreadStats{}}
	out.Parameters.TotalSize, out.Parameters.FileSize, out.Parameters.CacheDropped = fileSize*int64(c.Files), fileSize, false
	var direct *directCheck
	if c.Direct {
		direct = &directCheck{"{BlockSize}", []int64{c.BlockSize}}
	}
	return inScratch(t, runID, fileSize*int64(c.Files), "{TotalSize}", h, direct, func(s *Scratch) error {
		return random(ctx, c, t, s, out, h)
	})
}

func random(ctx context.Context, c RandomConfig, t result.Target, s *Scratch, out *result.Random, h progress.Hooks) error {
	start := time.Now()
	fds, err := prepareFiles(ctx, s, c, h)
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if err != nil {
		return fmt.Errorf("%s: preparing %d files: %w", t.Path, c.Files, err)
	}
	out.PrepareNs = int64(time.Since(start))
	if !c.Direct {
		for _, fd := range fds {
			if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
				return fmt.Errorf("%s: evict the file set: %w", t.Path, err)
			}
		}
		out.Parameters.CacheDropped = true
	}
	dev := startDeviceReads(t)
	err = runRandom(ctx, c, fds, out, h, t.Label())
	out.ReadDevice = dev.share(out.ReadBytes, !c.Direct)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", t.Path, c.Mode, err)
	}
	return nil
}

// prepareFiles lays out the file set with incompressible data in 1 MiB
// writes and fsyncs it; the returned descriptors are opened for the timed
// phase (O_DIRECT when asked).
func prepareFiles(ctx context.Context, s *Scratch, c RandomConfig, h progress.Hooks) ([]int, error) {
	buf, err := newBuffer(1 << 20)
	if err != nil {
		return nil, err
	}
	defer buf.free()
	buf.fillRandom()
	fileSize := c.fileSize()
	mode := unix.O_RDWR
	if !c.writes() {
		mode = unix.O_RDONLY
	}
	if c.Direct {
		mode |= unix.O_DIRECT
	}
	var fds []int
	for i := range c.Files {
		path := s.Path(fmt.Sprintf("test_file.%d", i))
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return fds, err
		}
		for off := int64(0); off < fileSize; {
			n := min(int64(len(buf)), fileSize-off)
			w, err := unix.Pwrite(fd, buf[:n], off)
			if err == nil && ctx.Err() != nil {
				err = interrupted{context.Cause(ctx)}
			}
			if err != nil {
				unix.Close(fd)
				return fds, err
			}
			off += int64(w)
			h.Report(progress.Report{Target: s.Dir, Phase: "prepare", BlockSize: 1 << 20, Bytes: int64(i)*fileSize + off, Total: int64(c.Files) * fileSize})
		}
		err = unix.Fsync(fd)
		unix.Close(fd)
		if err != nil {
			return fds, err
		}
		fd, err = unix.Open(path, mode|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fds, err
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

// shared is what the worker threads of one run share.
type shared struct {
	c        RandomConfig
	fds      []int
	fileSize int64
	deadline time.Time
	stop     atomic.Bool
	issued   atomic.Int64 // requests started, against --requests
	writes   atomic.Int64 // writes done, for the periodic fsync
	seqPos   atomic.Int64 // next offset in the file set, sequential modes
}

// worker is one thread's state and counters.
type worker struct {
	sh                 *shared
	buf                buffer
	rng                *rand.Rand
	reads, writes      int64
	fsyncs             int64
	readBytes, wrBytes int64
	all, rd, wr, fs    *stats.Histogram
	elapsed            time.Duration
	err                error
}

func runRandom(ctx context.Context, c RandomConfig, fds []int, res *result.Random, h progress.Hooks, label string) error {
	sh := &shared{c: c, fds: fds, fileSize: c.fileSize()}
	workers := make([]*worker, c.Threads)
	for i := range workers {
		buf, err := newBuffer(int(c.BlockSize))
		if err != nil {
			return err
		}
		defer buf.free()
		buf.fillRandom()
		workers[i] = &worker{sh: sh, buf: buf, rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
			all: stats.NewHistogram(), rd: stats.NewHistogram(), wr: stats.NewHistogram(), fs: stats.NewHistogram()}
	}
	start := time.Now()
	if c.TimeNs > 0 {
		sh.deadline = start.Add(c.timeBound())
	}
	m := c.Stable.Meter()
	cancelled := runWorkers(ctx, len(workers), fds, func(i int) { workers[i].run() },
		func() { sh.stop.Store(true) },
		func() {
			h.Report(progress.Report{Target: label, Phase: c.Mode, BlockSize: c.BlockSize, Elapsed: time.Since(start), Bound: c.timeBound(),
				Bytes: sh.issued.Load() * c.BlockSize, Total: c.Requests * c.BlockSize})
		},
		// Requests started stand in for bytes moved: at most one a
		// thread is in flight.
		func() bool { return m.Feed(sh.issued.Load()*c.BlockSize, time.Since(start)) })
	var firstErr error
	if c.FsyncEnd && c.writes() && cancelled == nil {
		for _, fd := range fds {
			if err := fsync(fd, c.FsyncMode); err != nil && firstErr == nil {
				firstErr = fmt.Errorf("final fsync: %w", err)
			}
			res.EndFsyncs++
		}
	}
	elapsed := time.Since(start)

	all, rd, wr, fs := stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram()
	var perReq, perTime []float64
	for _, w := range workers {
		if w.err != nil && firstErr == nil {
			firstErr = w.err
		}
		res.Reads += w.reads
		res.Writes += w.writes
		res.Fsyncs += w.fsyncs
		res.ReadBytes += w.readBytes
		res.WrittenBytes += w.wrBytes
		all.Merge(w.all)
		rd.Merge(w.rd)
		wr.Merge(w.wr)
		fs.Merge(w.fs)
		n := w.reads + w.writes + w.fsyncs
		res.Threads = append(res.Threads, result.ThreadStats{Requests: n, ElapsedNs: int64(w.elapsed)})
		perReq = append(perReq, float64(n))
		perTime = append(perTime, float64(w.elapsed))
	}
	res.ElapsedNs = int64(elapsed)
	sec := elapsed.Seconds()
	res.RequestsPerSec = float64(res.Reads+res.Writes) / sec
	res.ReadsPerSec = float64(res.Reads) / sec
	res.WritesPerSec = float64(res.Writes) / sec
	res.FsyncsPerSec = float64(res.Fsyncs) / sec
	res.ReadMiBPerSec = result.MiBPerSec(res.ReadBytes, res.ElapsedNs)
	res.WriteMiBPerSec = result.MiBPerSec(res.WrittenBytes, res.ElapsedNs)
	res.Latency, res.ReadLatency = result.LatencyOf(all.Latency()), result.LatencyOf(rd.Latency())
	res.WriteLatency, res.FsyncLatency = result.LatencyOf(wr.Latency()), result.LatencyOf(fs.Latency())
	res.Fairness = &result.Fairness{Requests: result.ThreadSpreadOf(stats.Summarize(perReq)), ElapsedNs: result.ThreadSpreadOf(stats.Summarize(perTime))}
	// The figures become what the meter gives (Figure): the windows' mean
	// once warm-up is cut, or the rate after a cliff with --sustained. The
	// windows count bytes; the requests of each kind keep their share of
	// them.
	whole := result.MiBPerSec(res.ReadBytes+res.WrittenBytes, res.ElapsedNs)
	mib, iv := m.Figure(whole, true)
	res.Interval = result.IntervalOf(iv)
	if mib != whole {
		k := mib / whole
		for _, x := range []*float64{&res.RequestsPerSec, &res.ReadsPerSec, &res.WritesPerSec, &res.FsyncsPerSec, &res.ReadMiBPerSec, &res.WriteMiBPerSec} {
			*x *= k
		}
	}
	if cancelled != nil {
		return cancelled
	}
	return firstErr
}

// periodicFsync flushes the file just written, or with FsyncAll every file
// of the set as sysbench does, timing each call as a request of its own.
func (w *worker) periodicFsync(file int, t time.Time) (time.Time, error) {
	c := w.sh.c
	files := w.sh.fds[file : file+1]
	if c.FsyncAll {
		files = w.sh.fds
	}
	trap := uintptr(syscall.SYS_FSYNC)
	if c.FsyncMode == "fdatasync" {
		trap = syscall.SYS_FDATASYNC
	}
	for i, fd := range files {
		if c.FsyncAll {
			file = i
		}
		// Raw, like the reads and writes: the ordinary path wakes the
		// runtime's monitor thread after every fsync, a few microseconds
		// each, which shows at ten thousand fsyncs a second.
		if _, _, e := syscall.RawSyscall(trap, uintptr(fd), 0, 0); e != 0 {
			return t, fmt.Errorf("%s of test_file.%d: %w", c.FsyncMode, file, e)
		}
		next := time.Now()
		w.fsyncs++
		w.fs.Record(int64(next.Sub(t)))
		w.all.Record(int64(next.Sub(t)))
		t = next
	}
	return t, nil
}

func fsync(fd int, mode string) error {
	if mode == "fdatasync" {
		return unix.Fdatasync(fd)
	}
	return unix.Fsync(fd)
}

// next decides the next request: the file, the offset and whether it
// writes. rndrw keeps reads/writes at the ratio exactly rather than by
// chance, so short runs show the mix asked for.
func (w *worker) next() (file int, off int64, write bool) {
	sh := w.sh
	c := sh.c
	switch c.Mode {
	case "seqwr", "seqrewr", "seqrd":
		total := sh.fileSize * int64(len(sh.fds))
		pos := (sh.seqPos.Add(c.BlockSize) - c.BlockSize) % total
		return int(pos / sh.fileSize), pos % sh.fileSize, c.Mode != "seqrd"
	}
	file = w.rng.IntN(len(sh.fds))
	off = w.rng.Int64N(sh.fileSize/c.BlockSize) * c.BlockSize
	switch c.Mode {
	case "rndrd":
		return file, off, false
	case "rndwr":
		return file, off, true
	}
	write = float64(w.reads) >= c.RWRatio*float64(w.writes+1)
	return file, off, write
}

func (w *worker) run() {
	sh := w.sh
	c := sh.c
	bs := int(c.BlockSize)
	p := uintptr(unsafe.Pointer(&w.buf[0]))
	raw := bs <= rawLimit
	begin := time.Now()
	for !sh.stop.Load() {
		if c.Requests > 0 && sh.issued.Add(1) > c.Requests {
			break
		}
		if c.Requests == 0 {
			sh.issued.Add(1)
		}
		file, off, write := w.next()
		fd := uintptr(sh.fds[file])
		t0 := time.Now()
		n, e := pio(write, raw, int(fd), p, bs, off)
		t1 := time.Now()
		if e != 0 {
			w.err = fmt.Errorf("%s at offset %d of test_file.%d: %w", map[bool]string{true: "write", false: "read"}[write], off, file, e)
			sh.stop.Store(true)
			break
		}
		lat := int64(t1.Sub(t0))
		w.all.Record(lat)
		if write {
			w.writes++
			w.wrBytes += int64(n)
			w.wr.Record(lat)
			if c.FsyncEvery > 0 && sh.writes.Add(1)%int64(c.FsyncEvery) == 0 {
				if t1, w.err = w.periodicFsync(file, t1); w.err != nil {
					sh.stop.Store(true)
					break
				}
			}
		} else {
			w.reads++
			w.readBytes += int64(n)
			w.rd.Record(lat)
		}
		if !sh.deadline.IsZero() && t1.After(sh.deadline) {
			sh.stop.Store(true)
		}
	}
	w.elapsed = time.Since(begin)
}
