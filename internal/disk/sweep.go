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

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/steady"
	"github.com/thruput/thruput/internal/units"
	"github.com/thruput/thruput/internal/usage"
)

// SweepConfig holds the parameters of a block-size sweep.
type SweepConfig struct {
	BlockSizes []int64
	FileSize   int64
	MaxTime    time.Duration
	Write      bool
	Read       bool
	// Data is "random" or "zero".
	Data       string
	Direct     bool
	DropCaches bool
	// SkipSpaceCheck is for filesystems whose free-space figure cannot be
	// trusted; a full filesystem then ends the run with ENOSPC.
	SkipSpaceCheck bool
	// Steady is --until-stable and --sustained: each step may end before
	// its bound, and carries its interval either way.
	Steady steady.Options
}

// Progress is reported after every chunk of blocks, about every 50 ms.
type Progress struct {
	Target    string
	Phase     string // write, fsync, read, prepare
	BlockSize int64
	Bytes     int64
	Total     int64
	Elapsed   time.Duration
	MaxTime   time.Duration
}

// Hooks let the caller see a run as it goes; nil fields are skipped.
type Hooks struct {
	Progress func(Progress)
	// Note carries remarks that are not results, such as a stale scratch
	// directory removed.
	Note func(string)
}

func (h Hooks) progress(p Progress) {
	if h.Progress != nil {
		h.Progress(p)
	}
}

func (h Hooks) note(format string, a ...any) {
	if h.Note != nil {
		h.Note(fmt.Sprintf(format, a...))
	}
}

// Validate checks the parameters that do not depend on a target.
func (c SweepConfig) Validate() error {
	switch {
	case len(c.BlockSizes) == 0:
		return usage.Errorf("--bs: no block size given")
	case c.FileSize <= 0:
		return usage.Errorf("--file-size must be positive")
	case c.MaxTime <= 0:
		return usage.Errorf("--max-time must be positive")
	case !c.Write && !c.Read:
		return usage.Errorf("--write-only and --read-only exclude each other")
	case c.Data != "random" && c.Data != "zero":
		return usage.Errorf("--data %q: use random or zero", c.Data)
	case c.DropCaches && !c.Read:
		return usage.Errorf("--drop-caches only matters for reads; drop it with --write-only")
	case c.DropCaches && os.Geteuid() != 0:
		return usage.Errorf("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)")
	}
	for _, bs := range c.BlockSizes {
		if bs > c.FileSize {
			return usage.Errorf("--bs: block size %s is larger than --file-size %s", units.IEC(bs), units.IEC(c.FileSize))
		}
		if bs > maxBlock {
			return usage.Errorf("--bs: block size %s is larger than the %s thruput supports", units.IEC(bs), units.IEC(maxBlock))
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

// Sweep runs the block-size sweep on the targets in doc.Targets, appending a
// step to doc.Sweep.Steps as each completes, so that on error or cancellation
// doc holds everything measured before it. Scratch directories are removed on
// every return path.
func Sweep(ctx context.Context, c SweepConfig, doc *result.Document, h Hooks) (err error) {
	if err := c.Validate(); err != nil {
		return err
	}
	doc.Sweep = &result.Sweep{Parameters: result.SweepParameters{
		BlockSizes: c.BlockSizes, FileSize: c.FileSize, MaxTimeNs: int64(c.MaxTime),
		Write: c.Write, Read: c.Read, Data: c.Data, Direct: c.Direct, DropCaches: c.DropCaches,
	}, Steps: []result.SweepStep{}}

	if !c.SkipSpaceCheck {
		for _, t := range doc.Targets {
			if err := checkSpace(t, c.FileSize, "--file-size"); err != nil {
				return err
			}
		}
	}
	scratches := make([]*Scratch, len(doc.Targets))
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
	for i, t := range doc.Targets {
		if scratches[i], err = prepareScratch(t, doc.ID, h); err != nil {
			return err
		}
		if c.Direct {
			if err := checkDirect(scratches[i], t, "--bs: block size", c.BlockSizes...); err != nil {
				return err
			}
		}
	}

	maxBS := slices.Max(c.BlockSizes)
	pool, err := newBuffer(int(max(poolSize, maxBS)))
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

	r := runner{ctx: ctx, c: c, doc: doc, h: h, pool: pool, rbuf: rbuf}
	return isolated(func() error {
		for i := range doc.Targets {
			if err := r.target(i, scratches[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

type runner struct {
	ctx  context.Context
	c    SweepConfig
	doc  *result.Document
	h    Hooks
	pool buffer
	rbuf buffer
}

func (r *runner) target(ti int, s *Scratch) error {
	t := r.doc.Targets[ti]
	if !r.c.Write {
		// Read-only sweep: lay the file out once, untimed, in large blocks.
		path := s.Path("sweep-read.dat")
		bs := min(r.c.FileSize, 1<<20)
		if r.c.Direct {
			bs = slices.Max(r.c.BlockSizes)
		}
		if _, err := r.write(ti, path, bs, "prepare", 0); err != nil {
			return fmt.Errorf("%s: preparing the read file: %w", t.Path, err)
		}
		for _, bs := range r.c.BlockSizes {
			if err := r.read(ti, path, bs); err != nil {
				return err
			}
		}
		return os.Remove(path)
	}
	for _, bs := range r.c.BlockSizes {
		path := s.Path(fmt.Sprintf("sweep-%d.dat", bs))
		st, err := r.write(ti, path, bs, result.PhaseWrite, r.c.MaxTime)
		if err != nil {
			return fmt.Errorf("%s: write at block size %s: %w", t.Path, units.BlockLabel(bs), err)
		}
		r.doc.Sweep.Steps = append(r.doc.Sweep.Steps, st)
		if r.c.Read {
			if err := r.read(ti, path, bs); err != nil {
				return err
			}
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}

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
	p := Progress{Target: r.doc.Targets[ti].Label(), Phase: phase, BlockSize: bs, Total: blocks * bs, MaxTime: maxTime}
	var m *steady.Meter
	if phase == result.PhaseWrite {
		m = r.c.Steady.Meter()
	}
	res, start, err := r.timed(blocks, maxTime, &p, m, func(n int) (ioResult, error) {
		return writeBlocks(fd, r.pool, window, int(bs), n, &off)
	})
	if err != nil {
		return st, err
	}
	p.Phase = "fsync"
	r.h.progress(p)
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
		st.MiBPerSec, st.Interval = m.Figure(st.MiBPerSec, r.c.Direct)
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
	t := r.doc.Targets[ti]
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
	p := Progress{Target: t.Label(), Phase: result.PhaseRead, BlockSize: bs, Total: sx.Size, MaxTime: r.c.MaxTime}
	dev := startDeviceReads(t)
	m := r.c.Steady.Meter()
	limit := blocks
	if m.Adaptive() {
		// Until its figure is known, the read starts over at the end of
		// the file, evicted again (an early-stopped write left a short
		// file); the time bound still holds.
		limit = math.MaxInt64 / 2
	}
	res, start, err := r.timed(limit, r.c.MaxTime, &p, m, func(n int) (ioResult, error) {
		res, err := readBlocks(fd, r.rbuf, int(bs), n)
		if res.eof && m.Adaptive() && err == nil {
			if _, err := unix.Seek(fd, 0, 0); err != nil {
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
	st.MiBPerSec, st.Interval = m.Figure(st.MiBPerSec, true)
	st.Truncated = res.bytes < sx.Size && !stopped(st.Interval) && !m.Adaptive()
	st.Device = dev.share(st.Bytes, !r.c.Direct)
	r.doc.Sweep.Steps = append(r.doc.Sweep.Steps, st)
	return nil
}

// timed runs do over blocks in chunks sized to take about chunkTarget each,
// so that the clock, the deadline and cancellation are looked at a few times
// a second whatever the block size, and never inside the system-call loop.
// m, when set, is fed the bytes after every chunk and may end the phase.
func (r *runner) timed(blocks int64, maxTime time.Duration, p *Progress, m *steady.Meter, do func(n int) (ioResult, error)) (ioResult, time.Time, error) {
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
		r.h.progress(*p)
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
		// the progress printer run on a single-core board.
		runtime.Gosched()
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

// String is the progress line: where, what, how fast so far, how long left.
func (p Progress) String() string {
	rate := result.MiBPerSec(p.Bytes, int64(p.Elapsed))
	s := fmt.Sprintf("%s  %s bs=%s  %s/%s  %.1f MiB/s", p.Target, p.Phase, units.BlockLabel(p.BlockSize), units.IEC(p.Bytes), units.IEC(p.Total), rate)
	if p.Bytes > 0 && p.Bytes < p.Total {
		eta := time.Duration(float64(p.Elapsed) * float64(p.Total-p.Bytes) / float64(p.Bytes))
		if p.MaxTime > 0 {
			eta = min(eta, p.MaxTime-p.Elapsed)
		}
		s += fmt.Sprintf("  ETA %s", eta.Round(time.Second))
	}
	return s
}
