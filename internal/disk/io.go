package disk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"sync"
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
	"github.com/thruput/thruput/internal/uring"
	"github.com/thruput/thruput/internal/usage"
)

// IO patterns, named as fio names them.
var IOPatterns = []string{"read", "write", "randread", "randwrite", "randrw"}

// Engines: "io_uring" keeps iodepth requests in flight from one thread;
// "sync" issues one pread/pwrite at a time, like fio's psync.
const (
	EngineUring = "io_uring"
	EngineSync  = "sync"
)

// IOConfig holds the parameters of a queue-depth job: those the result
// records (Engine as asked; the result says which ran), and how to run it.
type IOConfig struct {
	result.IOParameters
	// Stable is --until-stable and --sustained: the run may end before
	// its time once its rate is known, and carries its interval.
	Stable stable.Options
	// Corrupt, when not negative, flips a byte at that offset of job 0's
	// file between writing and verifying: the check of the checker.
	Corrupt int64
	// EndFsync ends a run that wrote with an fsync of each file, inside
	// its time, as fio's end_fsync=1 (Raspberry Pi's SD test sets it).
	EndFsync bool
}

func (c IOConfig) runtime() time.Duration { return time.Duration(c.RuntimeNs) }
func (c IOConfig) ramp() time.Duration    { return time.Duration(c.RampNs) }

// Validate checks the parameters that do not depend on a target.
func (c IOConfig) Validate() error {
	switch {
	case !contains(IOPatterns, c.RW):
		return usage.Invalidf("{RW} %q: use read, write, randread, randwrite or randrw", c.RW)
	case c.MixRead < 0 || c.MixRead > 100:
		return usage.Invalidf("{MixRead} %d: the read percentage must be 0 to 100", c.MixRead)
	case c.BlockSize <= 0 || c.BlockSize > maxBlock:
		return usage.Invalidf("{BlockSize} must be between 1 B and %s", units.IEC(maxBlock))
	case c.IODepth < 1 || c.IODepth > 1024:
		return usage.Invalidf("{IODepth} %d: must be 1 to 1024", c.IODepth)
	case int64(c.IODepth)*c.BlockSize > 1<<30:
		return usage.Invalidf("{IODepth} %d x {BlockSize} %s needs %s of buffers per job; keep it within 1 GiB", c.IODepth, units.IEC(c.BlockSize), units.IEC(int64(c.IODepth)*c.BlockSize))
	case c.Jobs < 1 || c.Jobs > 64:
		return usage.Invalidf("{Jobs} %d: must be 1 to 64", c.Jobs)
	case c.Size < c.BlockSize:
		return usage.Invalidf("{Size} %s is smaller than {BlockSize} %s", units.IEC(c.Size), units.IEC(c.BlockSize))
	case c.RuntimeNs < 0 || c.RampNs < 0:
		return usage.Invalidf("{RuntimeNs} and {RampNs} must not be negative")
	case c.TimeBased && c.RuntimeNs == 0:
		return usage.Invalidf("{TimeBased} needs {RuntimeNs}")
	case c.Engine != EngineUring && c.Engine != EngineSync:
		return usage.Invalidf("{Engine} %q: use io_uring or sync", c.Engine)
	case c.Repeat < 1 || c.Repeat > 1000:
		return usage.Invalidf("{Repeat} %d: must be 1 to 1000", c.Repeat)
	case c.Verify && c.RW != "write" && c.RW != "randwrite":
		return usage.Invalidf("{Verify} checks what a write job wrote: use {RW} write or randwrite")
	case c.Verify && (c.RuntimeNs > 0 || c.RampNs > 0):
		return usage.Invalidf("{Verify} needs every block written: drop {RuntimeNs} and {RampNs}")
	case c.Verify && c.BlockSize < verifyHeader:
		return usage.Invalidf("{Verify} needs blocks of at least %d B", verifyHeader)
	case c.Corrupt >= 0 && !c.Verify:
		return usage.Invalidf("{Corrupt} only makes sense with {Verify}")
	case c.Corrupt >= c.Size/c.BlockSize*c.BlockSize:
		return usage.Invalidf("{Corrupt} %d is past the %d bytes {Verify} checks", c.Corrupt, c.Size/c.BlockSize*c.BlockSize)
	}
	return nil
}

func (c IOConfig) reads() bool  { return c.RW == "read" || c.RW == "randread" || c.RW == "randrw" }
func (c IOConfig) random() bool { return c.RW == "randread" || c.RW == "randwrite" || c.RW == "randrw" }

// IO runs the job c.Repeat times in a scratch directory, named for runID,
// inside target, filling out in place: a run is appended to out.Runs as
// each ends.
func IO(ctx context.Context, c IOConfig, t result.Target, runID string, out *result.IO, h progress.Hooks) error {
	if err := c.Validate(); err != nil {
		return err
	}
	*out = result.IO{Parameters: c.IOParameters, Runs: []result.IORun{}}
	var direct *directCheck
	if c.Direct {
		direct = &directCheck{"{BlockSize}", []int64{c.BlockSize}}
	}
	return inScratch(t, runID, c.Size*int64(c.Jobs), "{Size}", h, direct, func(s *Scratch) error {
		return runJob(ctx, c, t, s, out, h)
	})
}

func runJob(ctx context.Context, c IOConfig, t result.Target, s *Scratch, out *result.IO, h progress.Hooks) error {
	out.Engine, out.EngineNote = pickEngine(c.Engine, c.IODepth)
	c.Engine = out.Engine

	fds, err := layOut(ctx, s, c, h)
	defer closeAll(fds)
	if err != nil {
		return fmt.Errorf("%s: laying out %d files: %w", t.Path, c.Jobs, err)
	}
	for i := range c.Repeat {
		if !c.Direct {
			evictFDs(fds)
		}
		dev := startDeviceReads(t)
		run, err := runIO(ctx, c, fds, h, fmt.Sprintf("%s run %d/%d", t.Label(), i+1, c.Repeat))
		if run.Read != nil {
			// The ramp's reads count on the device but not in Bytes: the
			// share errs high, never towards a false warning.
			run.Read.Device = dev.share(run.Read.Bytes, !c.Direct)
		}
		if run.ElapsedNs > 0 {
			out.Runs = append(out.Runs, run)
		}
		if err != nil {
			return fmt.Errorf("%s: %s run %d: %w", t.Path, c.RW, i+1, err)
		}
	}
	out.Summary = summarize(out.Runs)
	if c.Verify {
		if out.Verify, err = verify(s, c, fds); err != nil {
			return fmt.Errorf("%s: verify: %w", t.Path, err)
		}
		if out.Verify.Errors > 0 {
			v := out.Verify
			return fmt.Errorf("%s: verify: %d of %d blocks came back wrong; first at offset %d of job %d: %s",
				t.Path, v.Errors, v.Blocks, *v.FirstBadOffset, v.FirstBadJob, v.Detail)
		}
	}
	return nil
}

// pickEngine falls back to the sync engine when the kernel refuses
// io_uring, and says so.
func pickEngine(want string, depth int) (string, string) {
	if want != EngineUring {
		return want, ""
	}
	r, err := uring.New(uint32(depth))
	if err != nil {
		return EngineSync, fmt.Sprintf("io_uring not available (%v): ran the sync engine, one request at a time", err)
	}
	r.Close()
	return EngineUring, ""
}

// evictFDs drops the files from the page cache before a buffered run, so
// its reads come from the device.
func evictFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Fdatasync(fd)
		_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// layOut creates one file per job: filled with incompressible data when the
// job reads, preallocated (as fio's fallocate=native) when it only writes.
func layOut(ctx context.Context, s *Scratch, c IOConfig, h progress.Hooks) ([]int, error) {
	var fds []int
	var buf buffer
	if c.reads() {
		var err error
		if buf, err = newBuffer(1 << 20); err != nil {
			return nil, err
		}
		defer buf.free()
		buf.fillRandom()
	}
	flags := unix.O_RDWR | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if c.Direct {
		flags |= unix.O_DIRECT
	}
	for j := range c.Jobs {
		path := s.Path(fmt.Sprintf("job.%d", j))
		create := unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
		// A direct job's file is laid out direct too, as fio does: written
		// through the page cache, a gigabyte sits dirty in the layers below
		// (a VM host, a drive's cache) and their flush a few seconds later
		// halves the bandwidth of whatever run it lands in.
		if c.Direct && buf != nil && c.Size%int64(len(buf)) == 0 {
			create |= unix.O_DIRECT
		}
		fd, err := unix.Open(path, create, 0o600)
		if err != nil {
			return fds, err
		}
		if buf != nil {
			for off := int64(0); off < c.Size && err == nil; off += int64(len(buf)) {
				_, err = unix.Pwrite(fd, buf[:min(int64(len(buf)), c.Size-off)], off)
				h.Report(progress.Report{Target: s.Dir, Phase: "lay out", BlockSize: 1 << 20, Bytes: int64(j)*c.Size + off, Total: int64(c.Jobs) * c.Size})
				if ctx.Err() != nil {
					err = interrupted{context.Cause(ctx)}
				}
			}
		} else if ferr := unix.Fallocate(fd, 0, 0, c.Size); ferr != nil && !errors.Is(ferr, unix.EOPNOTSUPP) {
			err = ferr
		}
		if err == nil {
			err = unix.Fsync(fd)
		}
		// Leave no page of the file cached: a direct read of a range
		// with cached pages first walks them (to write back any dirty
		// ones), which cost a third of the bandwidth at 1 MiB blocks.
		if err == nil {
			err = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		}
		unix.Close(fd)
		if err != nil {
			return fds, err
		}
		if fd, err = unix.Open(path, flags, 0); err != nil {
			return fds, err
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

// ioJob is one job's state for one run.
type ioJob struct {
	c      IOConfig
	job    int
	fd     int
	buf    buffer
	rng    *rand.Rand
	perm   permutation
	seq    int64
	blocks int64
	rd, wr ioCount
	err    error
	first  time.Time // start of the measured span (ramp end)
	last   time.Time // last completion
	// moved counts bytes for the progress line, read from another
	// goroutine; stored once per round, not per request.
	moved atomic.Int64
}

type ioCount struct {
	ios, bytes int64
	hist       *stats.Histogram
}

func (n *ioCount) add(bytes int64, lat int64) {
	n.ios++
	n.bytes += bytes
	n.hist.Record(lat)
}

func (n *ioCount) reset() { n.ios, n.bytes = 0, 0; n.hist.Reset() }

// next picks the next offset and direction.
func (j *ioJob) next() (int64, bool) {
	var blk int64
	if j.c.random() {
		blk = j.perm.next()
	} else {
		blk = j.seq
		if j.seq++; j.seq == j.blocks {
			j.seq = 0
		}
	}
	write := false
	switch j.c.RW {
	case "write", "randwrite":
		write = true
	case "randrw":
		write = j.rng.IntN(100) >= j.c.MixRead
	}
	return blk * j.c.BlockSize, write
}

// stamp makes a block verifiable: its offset, then a checksum of every
// byte after the checksum; the offset is checked by value.
func stamp(b []byte, off int64) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(off))
	binary.LittleEndian.PutUint32(b[8:12], crc32.Checksum(b[crcEnd:], castagnoli()))
}

// A verifiable block starts with its offset (8 bytes) and a CRC32C of
// everything after the CRC (bytes crcEnd onward); blocks must hold at least
// verifyHeader bytes.
const (
	crcEnd       = 12
	verifyHeader = 16
)

// castagnoli is the CRC-32C table, made on first use: making it at start
// (the hardware check and eight 1 KiB tables) was 3 % of every start of
// the binary, verifying or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func runIO(ctx context.Context, c IOConfig, fds []int, h progress.Hooks, label string) (result.IORun, error) {
	jobs := make([]*ioJob, c.Jobs)
	for i := range jobs {
		depth := c.IODepth
		if c.Engine == EngineSync {
			depth = 1
		}
		buf, err := newIOBuffer(depth, int(c.BlockSize))
		if err != nil {
			return result.IORun{}, err
		}
		defer buf.free()
		buf.fillRandom()
		blocks := c.Size / c.BlockSize
		jobs[i] = &ioJob{c: c, job: i, fd: fds[i], buf: buf, blocks: blocks,
			rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), perm: newPermutation(uint64(blocks)),
			rd: ioCount{hist: stats.NewHistogram()}, wr: ioCount{hist: stats.NewHistogram()}}
	}
	start := time.Now()
	stop := make(chan struct{})
	m := c.Stable.Meter()
	var rampBytes int64 = -1
	moved := func() (b int64) {
		for _, j := range jobs {
			b += j.moved.Load()
		}
		return b
	}
	cancelled := runWorkers(ctx, len(jobs), fds, func(i int) {
		j := jobs[i]
		// Before anything can fail, so a job that fails at once still
		// spans no more than the run.
		j.first, j.last = start, start
		if c.Engine == EngineUring {
			j.err = j.runUring(start, stop)
		} else {
			j.err = j.runSync(start, stop)
		}
	}, func() { close(stop) }, func() {
		h.Report(progress.Report{Target: label, Phase: c.RW, BlockSize: c.BlockSize, Bytes: moved(), Total: c.Size * int64(c.Jobs),
			Elapsed: time.Since(start), Bound: c.runtime() + c.ramp()})
	}, func() bool {
		// The meter starts where the ramp ends, as the figures do.
		since := time.Since(start) - c.ramp()
		if since < 0 {
			return false
		}
		if rampBytes < 0 {
			rampBytes = moved()
		}
		return m.Feed(moved()-rampBytes, since)
	})
	var run result.IORun
	rd, wr := ioCount{hist: stats.NewHistogram()}, ioCount{hist: stats.NewHistogram()}
	var first, last time.Time
	var err error
	for _, j := range jobs {
		if j.err != nil && err == nil {
			err = j.err
		}
		rd.ios, rd.bytes = rd.ios+j.rd.ios, rd.bytes+j.rd.bytes
		wr.ios, wr.bytes = wr.ios+j.wr.ios, wr.bytes+j.wr.bytes
		rd.hist.Merge(j.rd.hist)
		wr.hist.Merge(j.wr.hist)
		if first.IsZero() || j.first.Before(first) {
			first = j.first
		}
		if j.last.After(last) {
			last = j.last
		}
	}
	// fio's end_fsync=1: the job's time runs on to the end of an fsync
	// of its file after the last write.
	if c.EndFsync && wr.ios > 0 {
		for _, fd := range fds {
			if ferr := unix.Fsync(fd); ferr != nil && err == nil {
				err = ferr
			}
		}
		last = time.Now()
	}
	run.ElapsedNs = max(0, int64(last.Sub(first)))
	dir := func(n ioCount) *result.IODirection {
		if n.ios == 0 {
			return nil
		}
		sec := float64(run.ElapsedNs) / 1e9
		return &result.IODirection{IOs: n.ios, Bytes: n.bytes, IOPS: float64(n.ios) / sec,
			MiBPerSec: result.MiBPerSec(n.bytes, run.ElapsedNs), Latency: result.LatencyOf(n.hist.Latency())}
	}
	run.Read, run.Write = dir(rd), dir(wr)
	// The figures become what the meter gives (Figure): the windows' mean
	// once warm-up is cut, or the rate after a cliff with --sustained. The
	// meter saw both directions' bytes together, so a mixed job's two
	// figures share its relative width and are scaled alike, IOPS with
	// them.
	whole := result.MiBPerSec(rd.bytes+wr.bytes, run.ElapsedNs)
	mib, meterIv := m.Figure(whole, true)
	iv := result.IntervalOf(meterIv)
	for _, d := range []*result.IODirection{run.Read, run.Write} {
		if d != nil {
			d.Interval = iv
			if mib != whole {
				d.MiBPerSec, d.IOPS = d.MiBPerSec*mib/whole, d.IOPS*mib/whole
			}
		}
	}
	if cancelled != nil {
		return run, cancelled
	}
	return run, err
}

// newIOBuffer maps depth buffers of bs bytes, on transparent huge pages when
// they are large enough to gain from them. An O_DIRECT request reaches the
// device as a list of physically contiguous segments, one per 4 KiB page of
// an ordinary buffer: 256 for a 1 MiB request, more than one virtio request
// takes (max_segments 254 here, so some were split in two), and each a
// descriptor the host maps and copies into on its own. On a 2 MiB page the
// whole request is one segment. Measured on a 2-core virtio VM, 1 MiB reads:
// QD8 1120 -> 3050-3250 MiB/s, medians of 5 (fio, on 4 KiB pages, 1070-1600),
// and in single runs QD3 1100 -> 2970, QD1 870 -> 2780.
//
// MADV_HUGEPAGE is what THP's usual "madvise" mode waits for, given before
// the first touch. A huge page needs an aligned 2 MiB of the mapping, so a
// buffer of large blocks is rounded up to whole huge pages (at most 2 MiB
// more, and the kernel aligns such a mapping); blocks under 64 KiB span few
// pages anyway, and stay on small pages rather than grow the resident set.
// Where the kernel has no huge page to give, the advice is ignored: nothing
// fails, the buffer is as before.
func newIOBuffer(depth, bs int) (buffer, error) {
	const huge = 2 << 20
	size := depth * bs
	if bs < 64<<10 {
		return newBuffer(size)
	}
	b, err := newBuffer((size + huge - 1) / huge * huge)
	if err != nil {
		return nil, err
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, nil
}

// phase tracks the ramp and the deadline of a job.
type phase struct {
	rampEnd, deadline time.Time
	ramping           bool
}

func newPhase(c IOConfig, start time.Time) phase {
	p := phase{rampEnd: start.Add(c.ramp()), ramping: c.RampNs > 0}
	if c.RuntimeNs > 0 {
		p.deadline = p.rampEnd.Add(c.runtime())
	}
	return p
}

// tick resets the counters when the ramp ends and says whether the job
// should stop issuing.
func (j *ioJob) tick(p *phase, now time.Time, stop <-chan struct{}) bool {
	if p.ramping && !now.Before(p.rampEnd) {
		p.ramping = false
		j.rd.reset()
		j.wr.reset()
		j.first = now
	}
	select {
	case <-stop:
		return true
	default:
	}
	return !p.deadline.IsZero() && !now.Before(p.deadline)
}

// maxCanceled is how many times in a row a request the kernel canceled is
// issued again before its error ends the run.
const maxCanceled = 3

// runUring keeps iodepth requests in flight: each request is submitted as
// soon as it is prepared, and the job sleeps only when nothing is ready.
func (j *ioJob) runUring(start time.Time, stop <-chan struct{}) error {
	c := j.c
	r, err := uring.New(uint32(c.IODepth))
	if err != nil {
		return err
	}
	defer r.Close()
	r.HoldP() // locked thread, a P per job: see runIO
	bs := int(c.BlockSize)
	depth := c.IODepth
	free := make([]int, depth)
	for i := range free {
		free[i] = i
	}
	submitted := make([]time.Time, depth)
	isWrite := make([]bool, depth)
	offs := make([]int64, depth)
	canceled := make([]int, depth)
	var again []int
	total := j.blocks
	if c.TimeBased {
		total = -1
	}
	var issued int64
	inflight := 0
	p := newPhase(c, start)
	j.first = start
	stopping := false
	var ioErr error
	// issue hands slot's request to the kernel as soon as it is ready, so
	// the device is busy while the rest of the round is prepared: fio's
	// default (iodepth_batch_submit=1), worth a fifth of the IOPS at QD32
	// against one enter per round.
	issue := func(slot int, write bool, off int64) error {
		b := j.buf[slot*bs : (slot+1)*bs]
		if write {
			r.PrepWrite(j.fd, b, off, uint64(slot))
		} else {
			r.PrepRead(j.fd, b, off, uint64(slot))
		}
		_, err := r.Submit(0)
		return err
	}
	for {
		now := time.Now()
		queued := false
		for !stopping && len(free) > 0 && (total < 0 || issued < total) {
			slot := free[len(free)-1]
			free = free[:len(free)-1]
			off, write := j.next()
			if write && c.Verify {
				stamp(j.buf[slot*bs:(slot+1)*bs], off)
			}
			if err := issue(slot, write, off); err != nil {
				return err
			}
			submitted[slot], isWrite[slot], offs[slot], canceled[slot] = now, write, off, 0
			inflight++
			issued++
			queued = true
		}
		if inflight == 0 {
			break
		}
		// Sleep only when nothing was handed over this round and nothing
		// has completed: while requests keep completing, the loop runs on.
		if !queued && r.Ready() == 0 {
			if _, err := r.Submit(1); err != nil {
				return err
			}
		}
		now = time.Now()
		r.Reap(func(ud uint64, res int32) {
			slot := int(ud)
			// The kernel cancels a request it handed to an io-wq worker
			// it then failed to start, as when the thread has a signal
			// pending, which the Go runtime's preemption sends often: a
			// buffered write on a compressing btrfs came back ECANCELED
			// in a make check. A read or write at its own offset can be
			// issued again (as tokio-epoll-uring does); its latency
			// keeps the first submission's time.
			if res == -int32(unix.ECANCELED) && canceled[slot] < maxCanceled {
				canceled[slot]++
				again = append(again, slot)
				return
			}
			inflight--
			free = append(free, slot)
			if res < 0 {
				if ioErr == nil {
					ioErr = fmt.Errorf("%s: %w", map[bool]string{true: "write", false: "read"}[isWrite[slot]], syscall.Errno(-res))
				}
				return
			}
			lat := int64(now.Sub(submitted[slot]))
			if isWrite[slot] {
				j.wr.add(int64(res), lat)
			} else {
				j.rd.add(int64(res), lat)
			}
		})
		for _, slot := range again {
			if err := issue(slot, isWrite[slot], offs[slot]); err != nil {
				return err
			}
		}
		again = again[:0]
		j.last = now
		j.moved.Store(j.rd.bytes + j.wr.bytes)
		if ioErr != nil {
			stopping = true
		}
		if j.tick(&p, now, stop) {
			stopping = true
		}
	}
	return ioErr
}

// runSync issues one pread or pwrite at a time, timing each: fio's psync.
func (j *ioJob) runSync(start time.Time, stop <-chan struct{}) error {
	c := j.c
	bs := int(c.BlockSize)
	p := newPhase(c, start)
	j.first = start
	addr := uintptr(unsafe.Pointer(&j.buf[0]))
	for issued := int64(0); c.TimeBased || issued < j.blocks; issued++ {
		off, write := j.next()
		if write && c.Verify {
			stamp(j.buf, off)
		}
		// Raw, so that the time measured is the kernel's: the ordinary path
		// hands the P off during a call that waits on the device and takes
		// it back (a futex wake-up) inside the timed span.
		t0 := time.Now()
		n, e := pio(write, true, j.fd, addr, bs, off)
		t1 := time.Now()
		if e != 0 {
			return fmt.Errorf("%s at offset %d: %w", map[bool]string{true: "write", false: "read"}[write], off, e)
		}
		if write {
			j.wr.add(int64(n), int64(t1.Sub(t0)))
		} else {
			j.rd.add(int64(n), int64(t1.Sub(t0)))
		}
		j.last = t1
		j.moved.Store(j.rd.bytes + j.wr.bytes)
		if j.tick(&p, t1, stop) {
			break
		}
	}
	return nil
}

// permutation visits every block of a file once per pass in a scattered
// order without a bitmap (fio keeps one, a bit per block): a four-round
// Feistel network over the next even power of two at or above the block
// count, with random round keys, skipping values past the end. A linear
// congruential order, tried first, repeats patterns in its low bits that
// cost a tenth of the IOPS on a virtio disk.
type permutation struct {
	n, i, mask uint64
	half       uint
	keys       [4]uint64
}

func newPermutation(n uint64) permutation {
	half := uint(bits.Len64(max(n, 2)-1)+1) / 2
	p := permutation{n: n, half: half, mask: 1<<half - 1}
	for k := range p.keys {
		p.keys[k] = rand.Uint64()
	}
	p.i = rand.Uint64() & (1<<(2*half) - 1)
	return p
}

func (p *permutation) next() int64 {
	span := uint64(1) << (2 * p.half)
	for {
		x := p.i
		p.i = (p.i + 1) & (span - 1)
		l, r := x>>p.half, x&p.mask
		for _, k := range p.keys {
			l, r = r, l^(mix64(r^k)&p.mask)
		}
		if y := l<<p.half | r; y < p.n {
			return int64(y)
		}
	}
}

// mix64 is splitmix64's finalizer: every input bit moves every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// summarize gives the spread of each figure over several runs.
func summarize(runs []result.IORun) *result.IOSummary {
	if len(runs) < 2 {
		return nil
	}
	var s result.IOSummary
	pick := func(get func(result.IORun) *result.IODirection, val func(*result.IODirection) float64) *result.Spread {
		var xs []float64
		for _, r := range runs {
			if d := get(r); d != nil {
				xs = append(xs, val(d))
			}
		}
		if len(xs) == 0 {
			return nil
		}
		sp := result.SpreadOf(stats.Summarize(xs))
		return &sp
	}
	rd := func(r result.IORun) *result.IODirection { return r.Read }
	wr := func(r result.IORun) *result.IODirection { return r.Write }
	iops := func(d *result.IODirection) float64 { return d.IOPS }
	mib := func(d *result.IODirection) float64 { return d.MiBPerSec }
	s.ReadIOPS, s.ReadMiBPerSec = pick(rd, iops), pick(rd, mib)
	s.WriteIOPS, s.WriteMiBPerSec = pick(wr, iops), pick(wr, mib)
	return &s
}

// verify reads every block of every job's file back and checks the offset
// and checksum each carries. With Corrupt set it first damages one byte on
// disk, to show the check catches it.
func verify(s *Scratch, c IOConfig, fds []int) (*result.Verify, error) {
	v := &result.Verify{}
	if c.Corrupt >= 0 {
		if err := corrupt(s.Path("job.0"), c.Corrupt); err != nil {
			return v, fmt.Errorf("--corrupt-at: %w", err)
		}
	}
	buf, err := newBuffer(int(c.BlockSize))
	if err != nil {
		return v, err
	}
	defer buf.free()
	for jn, fd := range fds {
		if !c.Direct {
			_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		}
		for off := int64(0); off+c.BlockSize <= c.Size; off += c.BlockSize {
			if _, err := unix.Pread(fd, buf, off); err != nil {
				return v, err
			}
			v.Blocks++
			got := int64(binary.LittleEndian.Uint64(buf[0:8]))
			sum := binary.LittleEndian.Uint32(buf[8:12])
			var why string
			switch {
			case got != off:
				why = fmt.Sprintf("block says it belongs at offset %d", got)
			case sum != crc32.Checksum(buf[crcEnd:], castagnoli()):
				why = "checksum mismatch"
			default:
				continue
			}
			if v.Errors == 0 {
				o := off
				v.FirstBadOffset, v.FirstBadJob, v.Detail = &o, jn, why
			}
			v.Errors++
		}
	}
	return v, nil
}

// corrupt flips one byte of path on disk, behind the page cache's back.
func corrupt(path string, off int64) error {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	b := make([]byte, 1)
	if n, err := unix.Pread(fd, b, off); err != nil || n != 1 {
		return fmt.Errorf("read byte %d: %d bytes, %v", off, n, err)
	}
	b[0] ^= 0xff
	if _, err := unix.Pwrite(fd, b, off); err != nil {
		return err
	}
	if err := unix.Fsync(fd); err != nil {
		return err
	}
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}
