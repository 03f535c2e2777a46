// Package probe finds where a block device's real memory ends, the way
// f3probe does: it writes stamped blocks (each carries its own offset and
// a tag drawn for the run) at chosen offsets, writes enough after them to
// push them out of the device's write cache, reads them back, and narrows
// down the first block that did not keep its stamp. A few hundred blocks a
// pass and a few passes find the end of a counterfeit card's memory to the
// block in seconds, where filling it would take hours; where no cache
// stands in front of the memory, one pass and a bisection of single
// blocks do.
//
// By default every block it overwrites is read first into a backup file,
// synced before the writes, and written back at the end, also when the
// probe is interrupted; a probe killed outright leaves the file for
// Restore.
package probe

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// samplesPerPass is how many blocks a pass stamps: each pass narrows the
// range where the memory ends by about this factor, so a 2^21-block card
// (1 GiB in 512-byte blocks) needs three passes. f3probe samples up to
// 1024. 253 = 4 x 63 + 1: spread evenly over the device, they hold the
// firstSamples (64) a first pass without a cache stamps, so that
// seeCache's backup can hold the first pass's blocks before it knows
// which pass comes.
const samplesPerPass = 253

// Without a cache flush a pass costs only its own blocks, so the fewer
// blocks a bit of the end's address costs, the better: the first pass
// stamps firstSamples, spread over the whole device to find bad blocks
// below the end as well (f3probe samples 64 blocks for that), then a
// bisection writes and reads back one block a step, as f3probe's last
// phase does (1 GiB in 512-byte blocks, 128 MiB real: 64 + 15 blocks
// written instead of 64 + 4 x 16 and the reference block each pass).
const firstSamples = 64

// bisectDepth is how many steps of the bisection have their blocks saved
// into the backup together, with one fsync: the 2^3-1 blocks the next
// three steps may write are read, three of them written. On a Pi the
// backup's fsync goes to the SD card holding the system: the two fsyncs
// saved cost more than the four blocks read ahead in vain.
const bisectDepth = 3

// reserved is the start of the device the probe never writes: where the
// partition table and boot code live, as f3probe leaves it. The block just
// after it is the reference every wraparound is found by.
const reserved = 1 << 20

// chunk is the largest write of the cache flush.
const chunk = 1 << 20

// DefaultCacheFlush is how much the probe writes after each pass's stamps
// (--cache): four times the 4 MiB sequential cache f3's authors measured on
// a fake drive (f3 issue #50), and beyond the few MiB the kernel's MMC
// developers name for cards' caches.
const DefaultCacheFlush = 16 << 20

// blockDevice is what the probe reads and writes: the device opened with
// O_DIRECT, or a model of a card in the tests.
type blockDevice interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
}

// state is what a block read back holds.
type state int

const (
	good    state = iota // its own stamp
	aliased              // another block's stamp of this run
	lost                 // anything else: zeros, old data, a stamp changed
)

// prober is one run of the probe on one device.
type prober struct {
	dev    blockDevice
	bs     int64 // block size
	n      int64 // blocks on the device
	tag    uint64
	ref    int64 // the reference block, just after the reserved start
	zone   int64 // blocks of the cache flush, from ref
	backup *backup
	buf    []byte // aligned, chunk bytes
	h      progress.Hooks
	label  string
	out    *result.Probe
	start  time.Time
	// aliasOf names, for each block of the last pass that read back
	// another block's stamp, that block; aliasSeen is whether any sample
	// below the memory's end so far did.
	aliasOf   map[int64]int64
	aliasSeen bool
}

// search runs the passes and fills p.out's verdict. ctx ends it between
// two writes.
func (p *prober) search(ctx context.Context) error {
	if err := p.seeCache(); err != nil {
		return err
	}
	hi := p.n // the first block known not to keep data
	first := evenly(p.ref+1, p.n, samplesPerPass)
	if p.zone <= 1 {
		first = evenly(p.ref+1, p.n, firstSamples)
	}
	// f3probe's wraparound test: the reference block's stamp read back at
	// ref + 2^k means the card ignores address bit k.
	var wraps []int64
	for k := bits.Len64(uint64(p.ref)); p.ref+1<<k < p.n; k++ {
		wraps = append(wraps, p.ref+1<<k)
	}
	// The reference is read back in the first pass only: it is what the
	// wraparound test compares with, and bad it makes the device damaged.
	got, err := p.pass(ctx, first, append(wraps, p.ref))
	if err != nil {
		return err
	}
	if got[p.ref] != good {
		p.out.Verdict, p.out.FirstBad, p.out.BadBlocks = result.ProbeDamaged, p.ref*p.bs, 1
		return nil
	}
	for _, w := range wraps {
		if got[w] == aliased && p.aliasOf[w] == p.ref {
			hi, p.out.Wrap = w-p.ref, (w-p.ref)*p.bs
			break
		}
	}
	lo := p.ref
	samples := first
	for {
		newLo, newHi, bad := p.judge(samples, got, lo, hi)
		p.out.BadBlocks += bad
		lo, hi = newLo, newHi
		if hi-lo <= 1 {
			break
		}
		if p.zone <= 1 {
			if hi, err = p.bisect(ctx, lo, hi); err != nil {
				return err
			}
			break
		}
		samples = evenly(lo+1, hi, samplesPerPass)
		if got, err = p.pass(ctx, samples, nil); err != nil {
			return err
		}
	}
	p.conclude(hi)
	return nil
}

// seeCache writes the last block and reads it straight back, as f3probe
// begins: lost at once, it shows that no write cache stands in front of
// the memory's end, and the passes write no cache flush. A block read back
// as written may come from a cache, or from memory: the flush stays.
//
// Its backup holds, with the last block, the blocks the first pass
// stamps with or without a cache: the reference and the firstSamples,
// which are among the samplesPerPass. One fsync serves both where there
// is no cache.
func (p *prober) seeCache() error {
	if p.zone <= 1 {
		return nil
	}
	last := run{p.n - 1, 1}
	if p.backup != nil {
		runs := []run{last, {p.ref, 1}}
		for _, s := range evenly(p.ref+1, p.n, firstSamples) {
			runs = append(runs, run{s, 1})
		}
		if err := p.backup.save(p, runs); err != nil {
			return err
		}
	}
	if err := p.writeStamps(last); err != nil {
		return err
	}
	blk := p.buf[:p.bs]
	if _, err := p.dev.ReadAt(blk, last.first*p.bs); err != nil {
		return fmt.Errorf("reading back the last block: %w", err)
	}
	p.out.Read += p.bs
	if st, _ := p.check(blk, last.first); st != good {
		p.zone = 1
		p.out.CacheFlush = 0
	}
	return nil
}

// bisect narrows [lo, hi) to one block where no cache stands in front of
// the memory: lo keeps its data, hi does not. Each step writes the block
// halfway and reads it straight back; the backup saves the blocks of
// bisectDepth steps at once, of which the steps write one per level. It
// returns the first block that does not keep data.
func (p *prober) bisect(ctx context.Context, lo, hi int64) (int64, error) {
	for hi-lo > 1 {
		// 2^d <= span: the points lo + span*j/2^d are distinct.
		span := hi - lo
		d := min(bisectDepth, bits.Len64(uint64(span))-1)
		at := func(j int64) int64 { return lo + span*j>>d }
		if p.backup != nil {
			var runs []run
			for j := int64(1); j < 1<<d; j++ {
				runs = append(runs, run{at(j), 1})
			}
			if err := p.backup.save(p, runs); err != nil {
				return 0, err
			}
		}
		jl, jh := int64(0), int64(1)<<d
		for jh-jl > 1 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			jm := (jl + jh) / 2
			st, err := p.step(at(jm))
			if err != nil {
				return 0, err
			}
			if st == aliased {
				p.aliasSeen = true
			}
			if st == good {
				jl = jm
			} else {
				jh = jm
			}
		}
		lo, hi = at(jl), at(jh)
	}
	return hi, nil
}

// step is one pass of the bisection: block b written, then read back.
func (p *prober) step(b int64) (state, error) {
	p.out.Passes++
	if err := p.writeStamps(run{b, 1}); err != nil {
		return lost, err
	}
	blk := p.buf[:p.bs]
	if _, err := p.dev.ReadAt(blk, b*p.bs); err != nil {
		// Unreadable keeps nothing, as in a pass.
		return lost, nil
	}
	p.out.Read += p.bs
	st, _ := p.check(blk, b)
	p.report("bisect")
	return st, nil
}

// judge narrows [lo, hi) by the samples read back: lo becomes the last
// good sample below the first one that is not, hi that one. It returns the
// number of samples in the range that lost data but have good samples
// above them: bad blocks within the memory, not its end.
func (p *prober) judge(samples []int64, got map[int64]state, lo, hi int64) (int64, int64, int) {
	firstBad := int64(-1)
	bad := 0
	for _, s := range samples {
		if s <= lo || s >= hi {
			continue
		}
		if got[s] == aliased {
			p.aliasSeen = true
		}
		if got[s] != good {
			if firstBad < 0 {
				firstBad = s
			}
			continue
		}
		if firstBad < 0 {
			lo = s
			continue
		}
		// Good above a bad one: the bad ones so far are holes.
		if p.out.FirstBad < 0 {
			p.out.FirstBad = firstBad * p.bs
		}
		bad += p.countBad(samples, firstBad, s, got)
		firstBad = -1
		lo = s
	}
	if firstBad >= 0 {
		hi = firstBad
	}
	return lo, hi, bad
}

func (p *prober) countBad(samples []int64, from, to int64, got map[int64]state) int {
	n := 0
	for _, s := range samples {
		if s >= from && s < to && got[s] != good {
			n++
		}
	}
	return n
}

// conclude words the verdict once the memory is known to end at block end.
func (p *prober) conclude(end int64) {
	o := p.out
	o.Usable = end * p.bs
	switch {
	case o.BadBlocks > 0:
		o.Verdict = result.ProbeDamaged
	case end == p.n:
		o.Verdict = result.ProbeGenuine
	default:
		o.Verdict = result.ProbeFake
	}
	if end < p.n {
		o.Kind = result.ProbeDropped
		if o.Wrap > 0 || p.aliasSeen {
			o.Kind = result.ProbeWraparound
		}
	}
}

// pass stamps the samples and the cache flush zone, every block in
// descending order, and reads back the samples and the extra blocks, in
// random order. Descending, a block past the end of a wraparound card is
// written before the lower block it lands on, which then keeps its own
// stamp: a block that really keeps data never reads back another's. Reads
// in random order defeat a card that serves a sequential read from a
// cache of its own (f3 issue #50).
func (p *prober) pass(ctx context.Context, samples, extra []int64) (map[int64]state, error) {
	p.out.Passes++
	zoneEnd := p.ref + p.zone
	var runs []run
	for _, s := range samples {
		if s >= zoneEnd {
			runs = append(runs, run{s, 1})
		}
	}
	for at := p.ref; at < zoneEnd; at += chunk / p.bs {
		runs = append(runs, run{at, min(chunk/p.bs, zoneEnd-at)})
	}
	slices.SortFunc(runs, func(a, b run) int { return int(b.first - a.first) })
	if p.backup != nil {
		if err := p.backup.save(p, runs); err != nil {
			return nil, err
		}
	}
	for i, r := range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := p.writeStamps(r); err != nil {
			return nil, err
		}
		if i%16 == 0 {
			p.report("write")
		}
	}
	toRead := slices.Concat(samples, extra)
	rand.Shuffle(len(toRead), func(i, j int) { toRead[i], toRead[j] = toRead[j], toRead[i] })
	got := make(map[int64]state, len(toRead))
	p.aliasOf = map[int64]int64{}
	blk := p.buf[:p.bs]
	for _, b := range toRead {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := p.dev.ReadAt(blk, b*p.bs); err != nil {
			// A block that cannot be read keeps nothing: f3probe counts it
			// bad too.
			got[b] = lost
			continue
		}
		p.out.Read += p.bs
		st, other := p.check(blk, b)
		got[b] = st
		if st == aliased {
			p.aliasOf[b] = other
		}
	}
	p.report("read")
	return got, nil
}

// run is a stretch of blocks written in one call.
type run struct{ first, count int64 }

func (p *prober) writeStamps(r run) error {
	if p.backup != nil {
		p.backup.wrote(r)
	}
	buf := p.buf[:r.count*p.bs]
	for i := range r.count {
		p.stamp(buf[i*p.bs:(i+1)*p.bs], r.first+i)
	}
	if _, err := p.dev.WriteAt(buf, r.first*p.bs); err != nil {
		return fmt.Errorf("writing %d blocks at byte %d: %w", r.count, r.first*p.bs, err)
	}
	p.out.Written += int64(len(buf))
	return nil
}

// magic opens every stamp.
const magic = "THRUPRB1"

// stamp fills blk with block b's stamp: magic, the run's tag, b's byte
// offset, then bytes drawn from tag and offset, so that a block changed
// anywhere, or one holding another block's or another run's stamp, is
// told apart.
func (p *prober) stamp(blk []byte, b int64) {
	copy(blk, magic)
	binary.LittleEndian.PutUint64(blk[8:], p.tag)
	binary.LittleEndian.PutUint64(blk[16:], uint64(b*p.bs))
	fillStamp(blk[24:], p.tag, uint64(b*p.bs))
}

// fillStamp draws the stamp's body with splitmix64, seeded by tag and
// offset.
func fillStamp(body []byte, tag, off uint64) {
	x := tag ^ off*0x9e3779b97f4a7c15
	for i := 0; i+8 <= len(body); i += 8 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(body[i:], z^z>>31)
	}
}

// check says what block b read back as: its own stamp, another block's
// stamp of this run (and which block), or neither.
func (p *prober) check(blk []byte, b int64) (state, int64) {
	if string(blk[:8]) != magic || binary.LittleEndian.Uint64(blk[8:]) != p.tag {
		return lost, 0
	}
	off := binary.LittleEndian.Uint64(blk[16:])
	if off%uint64(p.bs) != 0 || off >= uint64(p.n*p.bs) {
		return lost, 0
	}
	want := make([]byte, len(blk)-24)
	fillStamp(want, p.tag, off)
	if string(want) != string(blk[24:]) {
		return lost, 0
	}
	if int64(off) == b*p.bs {
		return good, 0
	}
	return aliased, int64(off) / p.bs
}

func (p *prober) report(phase string) {
	p.h.Report(progress.Report{Target: p.label, Phase: fmt.Sprintf("probe pass %d %s", p.out.Passes, phase),
		BlockSize: p.bs, Bytes: p.out.Written, Total: -1, Elapsed: time.Since(p.start)})
}

// evenly returns up to k distinct blocks spread evenly over [from, to),
// both ends included.
func evenly(from, to int64, k int64) []int64 {
	span := to - from
	if span <= 0 {
		return nil
	}
	if span <= k {
		out := make([]int64, span)
		for i := range out {
			out[i] = from + int64(i)
		}
		return out
	}
	out := make([]int64, 0, k)
	for i := range k {
		// (span-1)*i fits: span < 2^40 blocks, k < 2^10.
		out = append(out, from+(span-1)*i/(k-1))
	}
	return slices.Compact(out)
}

// words describes the outcome in a line.
func words(o *result.Probe) string {
	switch o.Verdict {
	case result.ProbeGenuine:
		return fmt.Sprintf("genuine: all %s announced keep their data", units.IEC(o.Announced))
	case result.ProbeFake:
		how := "writes past it are lost"
		if o.Kind == result.ProbeWraparound {
			how = "writes past it land on blocks near the start"
			if o.Wrap > 0 {
				how = fmt.Sprintf("writes past it land %s lower, overwriting data near the start", units.IEC(o.Wrap))
			}
		}
		return fmt.Sprintf("fake: %s usable of %s announced; %s", units.IEC(o.Usable), units.IEC(o.Announced), how)
	}
	if o.Usable == 0 && o.BadBlocks <= 1 {
		return fmt.Sprintf("damaged: the block at %s, the first the probe writes, does not keep its data", units.IEC(reserved))
	}
	return fmt.Sprintf("damaged: %d probed blocks below %s lose their data, the first at byte %d", o.BadBlocks, units.IEC(o.Usable), o.FirstBad)
}
