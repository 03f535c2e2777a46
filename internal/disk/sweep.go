// Package disk holds the storage engines: the scratch directory every run
// writes into and removes, the timed system-call loops, page-cache eviction
// and its check, and the methods built on them (the block-size sweep).
package disk

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// SweepConfig holds the parameters of a block-size sweep: those the
// result records, and how to run it.
type SweepConfig struct {
	result.SweepParameters
	// SkipSpaceCheck is for filesystems whose free-space figure cannot be
	// trusted; a full filesystem then ends the run with ENOSPC.
	SkipSpaceCheck bool
	// Stable is --until-stable and --sustained: each step may end before
	// its bound, and carries its interval either way.
	Stable stable.Options
}

func (c SweepConfig) maxTime() time.Duration { return time.Duration(c.MaxTimeNs) }

// Validate checks the parameters that do not depend on a target.
func (c SweepConfig) Validate() error {
	switch {
	case len(c.BlockSizes) == 0:
		return usage.Invalidf("{BlockSizes}: no block size given")
	case c.FileSize <= 0:
		return usage.Invalidf("{FileSize} must be positive")
	case c.MaxTimeNs <= 0:
		return usage.Invalidf("{MaxTimeNs} must be positive")
	case !c.Write && !c.Read:
		return usage.Invalidf("{Write} and {Read} are both off: nothing to measure")
	case c.Data != "random" && c.Data != "zero":
		return usage.Invalidf("{Data} %q: use random or zero", c.Data)
	case c.DropCaches && !c.Read:
		// Read is off where the command's reads were left out.
		return usage.Invalidf("{DropCaches} only matters for reads; drop it with {Read}")
	case c.DropCaches && os.Geteuid() != 0:
		return usage.Invalidf("{DropCaches} needs root (it writes /proc/sys/vm/drop_caches)")
	}
	for _, bs := range c.BlockSizes {
		if bs > c.FileSize {
			return usage.Invalidf("{BlockSizes}: block size %s is larger than {FileSize} %s", units.IEC(bs), units.IEC(c.FileSize))
		}
		if bs > maxBlock {
			return usage.Invalidf("{BlockSizes}: block size %s is larger than the %s thruput supports", units.IEC(bs), units.IEC(maxBlock))
		}
	}
	return nil
}

const (
	maxBlock = 256 << 20
	// poolSize is the span of distinct data the writes walk through.
	poolSize = 4 << 20
	// chunkTarget is how long the timed loop runs between looks at the clock,
	// the deadline and cancellation.
	chunkTarget = 50 * time.Millisecond
)

// Sweep runs the block-size sweep on targets, filling out in place: a step
// is appended to out.Steps as each completes, so that on error or
// cancellation out holds everything measured before it. The scratch
// directories, named for runID, are removed on every return path.
func Sweep(ctx context.Context, c SweepConfig, targets []result.Target, runID string, out *result.Sweep, h progress.Hooks) (err error) {
	if err := c.Validate(); err != nil {
		return err
	}
	out.Parameters, out.Steps = c.SweepParameters, []result.SweepStep{}

	if !c.SkipSpaceCheck {
		for _, t := range targets {
			if err := checkSpace(t, c.FileSize, "{FileSize}"); err != nil {
				return err
			}
		}
	}
	scratches := make([]*Scratch, len(targets))
	defer func() {
		for _, s := range scratches {
			if s == nil {
				continue
			}
			if rerr := s.Remove(); rerr != nil && err == nil {
				err = fmt.Errorf("remove %s: %w", s.Dir, rerr)
			}
		}
	}()
	for i, t := range targets {
		if scratches[i], err = prepareScratch(t, runID, h); err != nil {
			return err
		}
		if c.Direct {
			if err := checkDirect(scratches[i], t, "{BlockSizes}: block size", c.BlockSizes...); err != nil {
				return err
			}
		}
	}

	maxBS := slices.Max(c.BlockSizes)
	// A step writes at most FileSize bytes: a pool larger than that would
	// be filled (random data costs a pass of ChaCha8) and never read.
	pool, err := newBuffer(int(max(min(poolSize, c.FileSize), maxBS)))
	if err != nil {
		return err
	}
	defer pool.free()
	if c.Data == "random" {
		pool.fillRandom()
	}
	var rbuf buffer
	if c.Read {
		if rbuf, err = newBuffer(int(maxBS)); err != nil {
			return err
		}
		defer rbuf.free()
	}

	r := runner{ctx: ctx, c: c, targets: targets, out: out, h: h, pool: pool, rbuf: rbuf}
	for i := range targets {
		if err := r.target(i, scratches[i]); err != nil {
			return err
		}
	}
	return nil
}

type runner struct {
	ctx     context.Context
	c       SweepConfig
	targets []result.Target
	out     *result.Sweep
	h       progress.Hooks
	pool    buffer
	rbuf    buffer
}

func (r *runner) target(ti int, s *Scratch) error {
	t := r.targets[ti]
	if !r.c.Write {
		// Read-only sweep: lay the file out once, untimed, in large blocks.
		path := s.Path("sweep-read.dat")
		bs := min(r.c.FileSize, 1<<20)
		if r.c.Direct {
			bs = slices.Max(r.c.BlockSizes)
		}
		if err := r.on(bs, func() error {
			_, err := r.write(ti, path, bs, "prepare", 0)
			return err
		}); err != nil {
			return fmt.Errorf("%s: preparing the read file: %w", t.Path, err)
		}
		for _, bs := range r.c.BlockSizes {
			if err := r.on(bs, func() error { return r.read(ti, path, bs) }); err != nil {
				return err
			}
		}
		return os.Remove(path)
	}
	for _, bs := range r.c.BlockSizes {
		path := s.Path(fmt.Sprintf("sweep-%d.dat", bs))
		var st result.SweepStep
		if err := r.on(bs, func() (err error) {
			st, err = r.write(ti, path, bs, result.PhaseWrite, r.c.maxTime())
			return err
		}); err != nil {
			return fmt.Errorf("%s: write at block size %s: %w", t.Path, units.BlockLabel(bs), err)
		}
		r.out.Steps = append(r.out.Steps, st)
		if r.c.Read {
			if err := r.on(bs, func() error { return r.read(ti, path, bs) }); err != nil {
				return err
			}
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}

// on runs a step of bs-byte blocks, which opens and closes its file. Raw
// calls run on a thread of their own (isolated), where the kernel skips a
// shared file table's locks; asynchronous blocks wait in the netpoller,
// which on a locked thread would hand the P between two threads at every
// block, so they run where they are.
func (r *runner) on(bs int64, step func() error) error {
	if r.async(bs) {
		return step()
	}
	return isolated(step)
}

// async says whether bs-byte blocks go through native AIO: large blocks
// of an O_DIRECT sweep, which may each wait on the device (see file).
func (r *runner) async(bs int64) bool { return r.c.Direct && bs > rawLimit }

func (r *runner) openFlags() int {
	if r.c.Direct {
		return unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_DIRECT
	}
	return unix.O_CLOEXEC | unix.O_NOFOLLOW
}

// write creates path (it must not exist) and fills it with bs-byte writes
// until FileSize or the time bound, then fsyncs inside the timed span. A
// maxTime of 0 means no bound (untimed preparation).
func (r *runner) write(ti int, path string, bs int64, phase string, maxTime time.Duration) (result.SweepStep, error) {
	st := result.SweepStep{Target: ti, Phase: result.PhaseWrite, BlockSize: bs}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|r.openFlags(), 0o600)
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	blocks := max(1, r.c.FileSize/bs)
	// Random data walks the pool so no two nearby blocks repeat; zeros are
	// all alike, so they come from one block, as dd's do, and stay in cache.
	window := len(r.pool) / int(bs) * int(bs)
	if r.c.Data == "zero" {
		window = int(bs)
	}
	off := 0
	p := progress.Report{Target: r.targets[ti].Label(), Phase: phase, BlockSize: bs, Total: blocks * bs, Bound: maxTime}
	var m *stable.Meter
	if phase == result.PhaseWrite {
		m = r.c.Stable.Meter()
	}
	f := &file{fd: fd}
	defer f.stopAsync()
	first := true
	res, start, err := r.timed(blocks, maxTime, &p, m, func(n int) (ioResult, error) {
		if first && r.async(bs) {
			// In the timed span: dd allocates as it writes.
			f.startAsync(blocks * bs)
		}
		first = false
		res, err := writeBlocks(f, r.pool, window, int(bs), n, &off)
		if err == nil {
			err = f.checkAsync()
		}
		return res, err
	})
	if err != nil {
		return st, err
	}
	if f.reserved && res.bytes < blocks*bs {
		// Stopped before the end: the file ends where its data does, as a
		// plain write's would, for the read that follows.
		if err := unix.Ftruncate(fd, res.bytes); err != nil {
			return st, err
		}
	}
	p.Phase = "fsync"
	r.h.Report(p)
	syncStart := time.Now()
	if err := unix.Fsync(fd); err != nil {
		return st, fmt.Errorf("fsync: %w", err)
	}
	end := time.Now()
	st.Bytes, st.Ops = res.bytes, res.ops
	st.ElapsedNs = int64(end.Sub(start))
	st.FsyncNs = int64(end.Sub(syncStart))
	st.MiBPerSec = result.MiBPerSec(st.Bytes, st.ElapsedNs)
	if m != nil {
		// A buffered write's figure keeps its final fsync: the windows
		// saw the page cache take the data, the fsync the device.
		var iv *stable.Interval
		st.MiBPerSec, iv = m.Figure(st.MiBPerSec, r.c.Direct)
		st.Interval = result.IntervalOf(iv)
	}
	st.Truncated = res.bytes < blocks*bs && !stopped(st.Interval)
	return st, nil
}

// stopped says a phase ended because its figure was known, not at its
// bound.
func stopped(iv *result.Interval) bool { return iv != nil && iv.Target > 0 && iv.Converged }

// read evicts path from the page cache, records how much of it is still
// cached, then reads it with bs-byte reads until end of file or the bound.
func (r *runner) read(ti int, path string, bs int64) error {
	t := r.targets[ti]
	fail := func(err error) error {
		return fmt.Errorf("%s: read at block size %s: %w", t.Path, units.BlockLabel(bs), err)
	}
	st := result.SweepStep{Target: ti, Phase: result.PhaseRead, BlockSize: bs}
	var err error
	if st.Eviction, err = evict(path, r.c.DropCaches); err != nil {
		return fail(err)
	}
	st.Cache, st.CachedFraction = residency(path)
	if st.Cache == result.CacheCold && t.Stacked() && !r.c.DropCaches {
		st.Cache = result.CacheUncertain
	}
	fd, err := unix.Open(path, unix.O_RDONLY|r.openFlags(), 0)
	if err != nil {
		return fail(err)
	}
	defer unix.Close(fd)
	var sx unix.Stat_t
	if err := unix.Fstat(fd, &sx); err != nil {
		return fail(err)
	}
	blocks := (sx.Size + bs - 1) / bs
	p := progress.Report{Target: t.Label(), Phase: result.PhaseRead, BlockSize: bs, Total: sx.Size, Bound: r.c.maxTime()}
	dev := startDeviceReads(t)
	m := r.c.Stable.Meter()
	limit := blocks
	if m.Adaptive() {
		// Until its figure is known, the read starts over at the end of
		// the file, evicted again (an early-stopped write left a short
		// file); the time bound still holds.
		limit = math.MaxInt64 / 2
	}
	f := &file{fd: fd}
	defer f.stopAsync()
	if r.async(bs) {
		f.startAsync(0)
	}
	res, start, err := r.timed(limit, r.c.maxTime(), &p, m, func(n int) (ioResult, error) {
		res, err := readBlocks(f, r.rbuf, int(bs), n)
		if err == nil {
			err = f.checkAsync()
		}
		if res.eof && m.Adaptive() && err == nil {
			if err := f.rewind(); err != nil {
				return res, err
			}
			if _, err := evict(path, false); err != nil {
				return res, err
			}
			res.eof = false
		}
		return res, err
	})
	if err != nil {
		return fail(err)
	}
	st.Bytes, st.Ops = res.bytes, res.ops
	st.ElapsedNs = int64(time.Since(start))
	st.MiBPerSec = result.MiBPerSec(st.Bytes, st.ElapsedNs)
	var iv *stable.Interval
	st.MiBPerSec, iv = m.Figure(st.MiBPerSec, true)
	st.Interval = result.IntervalOf(iv)
	st.Truncated = res.bytes < sx.Size && !stopped(st.Interval) && !m.Adaptive()
	st.Device = dev.share(st.Bytes, !r.c.Direct)
	r.out.Steps = append(r.out.Steps, st)
	return nil
}

// timed runs do over blocks in chunks sized to take about chunkTarget each,
// so that the clock, the deadline and cancellation are looked at a few times
// a second whatever the block size, and never inside the system-call loop.
// m, when set, is fed the bytes after every chunk and may end the phase.
func (r *runner) timed(blocks int64, maxTime time.Duration, p *progress.Report, m *stable.Meter, do func(n int) (ioResult, error)) (ioResult, time.Time, error) {
	var total ioResult
	// From one block, doubling while a chunk is quick: a slow device with
	// large blocks gets windows of 100 ms, not one of seconds.
	chunk := int64(1)
	start := time.Now()
	last := start
	for total.ops < blocks && !total.eof {
		n := min(chunk, blocks-total.ops)
		res, err := do(int(n))
		total.bytes += res.bytes
		total.ops += res.ops
		total.eof = res.eof
		if err != nil {
			return total, start, err
		}
		now := time.Now()
		p.Bytes, p.Elapsed = total.bytes, now.Sub(start)
		r.h.Report(*p)
		if maxTime > 0 && now.Sub(start) >= maxTime {
			break
		}
		if m != nil && m.Feed(total.bytes, now.Sub(start)) {
			break
		}
		select {
		case <-r.ctx.Done():
			return total, start, interrupted{context.Cause(r.ctx)}
		default:
		}
		// Raw system calls hold the scheduler; let the signal handler and
		// the progress printer run on a single-core board. Larger blocks
		// take the ordinary path, which lets the P go while the kernel
		// works: yielding there too only wakes the runtime's idle threads
		// (a 1 MiB write at 20 MiB/s: 1042 to 685 context switches in 5 s).
		if p.BlockSize <= rawLimit {
			runtime.Gosched()
		}
		switch dt := now.Sub(last); {
		case dt < chunkTarget/2 && chunk < 1<<30:
			chunk *= 2
		case dt > chunkTarget*2 && chunk > 1:
			chunk /= 2
		}
		last = now
	}
	return total, start, nil
}

// interrupted reads "interrupted" in messages and still matches
// context.Canceled for callers that decide on it.
type interrupted struct{ cause error }

func (interrupted) Error() string   { return "interrupted" }
func (i interrupted) Unwrap() error { return i.cause }
