package result

import (
	"fmt"
	"strings"
)

// Capacity is disk check --capacity: the free space of a filesystem
// filled with f3write's N.h2w files and every sector read back, to find
// a card that keeps less than it announces.
type Capacity struct {
	CapacityParameters
	// FreeBytes is the filesystem's free space before the fill (f3write's
	// "Free space"); 0 with VerifyOnly.
	FreeBytes int64 `json:"free_bytes"`
	// Files are the files filled or verified, in order.
	Files []CapacityFile `json:"files"`
	// Write is the fill, nil with VerifyOnly; Read the read back, nil
	// when the run stopped before it.
	Write *CapacityPhase `json:"write,omitempty"`
	Read  *CapacityPhase `json:"read,omitempty"`
	// Sectors add up every file's.
	Sectors SectorCounts `json:"sectors"`
	// UsableBytes are the sectors read back intact, 512 bytes each: what
	// the card really holds of what was written (f3read's "Data OK").
	UsableBytes int64 `json:"usable_bytes"`
	// Aliases are the first runs of overwritten sectors, each with the
	// offset its data was written at; MoreAliases counts the runs left
	// out.
	Aliases     []CapacityAlias `json:"aliases,omitempty"`
	MoreAliases int64           `json:"more_aliases,omitempty"`
	// Pass is true when every sector read back intact and every file was
	// read to its end; nil when nothing was read back.
	Pass *bool `json:"pass,omitempty"`
	// Verdict words it: genuine, or fake (sectors aliased) or damaged
	// (sectors lost without aliasing, read errors) with the usable size.
	Verdict string `json:"verdict,omitempty"`
	// Kept says the files were left in Dir (--keep, or a run stopped
	// with them kept for --start-at).
	Kept bool `json:"kept"`
}

// CapacityParameters are what was asked.
type CapacityParameters struct {
	// StartAt and EndAt are the first and last file numbers (f3's
	// --start-at and --end-at); EndAt 0 means until the filesystem is
	// full (or, verifying, the last file there).
	StartAt int `json:"start_at"`
	EndAt   int `json:"end_at"`
	// VerifyOnly reads files another run or f3write left, writing none.
	VerifyOnly bool `json:"verify_only"`
	// DropCaches is true when every clean cache was dropped before the
	// read back (root): what reaches a cache fadvise cannot, such as a
	// FUSE filesystem's reads of the device under it.
	DropCaches bool `json:"drop_caches"`
}

// CapacityFile is one N.h2w file.
type CapacityFile struct {
	// Number is N; Bytes its size (1 GiB but for the last).
	Number int   `json:"number"`
	Bytes  int64 `json:"bytes"`
	// WriteMiBPerSec and ReadMiBPerSec are this file's rates (0 when it
	// was not written, or not read).
	WriteMiBPerSec float64      `json:"write_mib_per_s"`
	ReadMiBPerSec  float64      `json:"read_mib_per_s"`
	Sectors        SectorCounts `json:"sectors"`
	// ReadError is why the file could not be read to its end.
	ReadError string `json:"read_error,omitempty"`
}

// SectorCounts are 512-byte sectors by the class f3read gives them.
type SectorCounts struct {
	// OK sectors read back as written.
	OK int64 `json:"ok"`
	// Corrupted sectors are not any sector thruput or f3 wrote (more than
	// two of their 63 words off).
	Corrupted int64 `json:"corrupted"`
	// Changed sectors are the ones written with one or two words off.
	Changed int64 `json:"changed"`
	// Overwritten sectors hold another sector's data, written elsewhere.
	Overwritten int64 `json:"overwritten"`
}

// Lost is every sector not read back intact.
func (s SectorCounts) Lost() int64 { return s.Corrupted + s.Changed + s.Overwritten }

// CapacityAlias is a run of Sectors overwritten sectors from byte At of
// the fill (file N starts at (N-1) GiB) holding the data written at
// Holds onward.
type CapacityAlias struct {
	At      int64 `json:"at"`
	Holds   int64 `json:"holds"`
	Sectors int64 `json:"sectors"`
}

// CapacityPhase is the fill or the read back as a whole.
type CapacityPhase struct {
	Bytes     int64   `json:"bytes"`
	ElapsedNs int64   `json:"elapsed_ns"`
	MiBPerSec float64 `json:"mib_per_s"`
	// OverTime is the rate second by second, as f3 shows it while it
	// runs: each sample the bytes moved since the one before.
	OverTime []RateSample `json:"over_time,omitempty"`
}

// RateSample is the rate over the span that ended at AtNs from the
// phase's start.
type RateSample struct {
	AtNs      int64   `json:"at_ns"`
	Bytes     int64   `json:"bytes"`
	MiBPerSec float64 `json:"mib_per_s"`
}

// Measured is whether any byte was written or read back.
func (c *Capacity) Measured() bool {
	return c.Write != nil && c.Write.Bytes > 0 || c.Read != nil && c.Read.Bytes > 0
}

var capacityRate = Gauge{Name: "thruput_disk_capacity_bytes_per_second", Help: "disk check --capacity's fill and read back, the latest run's.", Trend: Trend{Title: "Capacity check rates"}}
var capacityUsable = Gauge{Name: "thruput_disk_capacity_usable_bytes", Help: "disk check --capacity: the bytes read back intact, the latest run's.", Trend: Trend{Title: "Usable capacity", Count: "bytes"}}

// Figures are the write and read rates and the usable size.
func (c *Capacity) Figures() []Figure {
	var out []Figure
	for i, p := range []*CapacityPhase{c.Write, c.Read} {
		if p == nil {
			continue
		}
		phase := []string{PhaseWrite, PhaseRead}[i]
		out = append(out, Figure{Group: "capacity", Step: phase, Rank: float64(i), Metric: "MiB/s", HigherIsBetter: true, Headline: "capacity " + phase,
			Value: p.MiBPerSec, Series: capacityRate.Sample(p.MiBPerSec*bytesPerMiB, "phase", phase)})
	}
	if c.Read != nil {
		out = append(out, Figure{Group: "capacity", Step: "usable", Rank: 2, Metric: "bytes", HigherIsBetter: true,
			Value: float64(c.UsableBytes), Series: capacityUsable.Sample(float64(c.UsableBytes))})
	}
	return out
}

// Params are the file range and mode.
func (c *Capacity) Params() any { return c.CapacityParameters }

// Brief is the verdict with the rates.
func (c *Capacity) Brief([]Target) string {
	var parts []string
	if c.Pass != nil {
		parts = append(parts, map[bool]string{true: "genuine", false: "FAIL"}[*c.Pass]+fmt.Sprintf(", usable %.1f MiB", float64(c.UsableBytes)/bytesPerMiB))
	}
	for i, p := range []*CapacityPhase{c.Write, c.Read} {
		if p != nil {
			parts = append(parts, fmt.Sprintf("%s %.1f MiB/s", []string{PhaseWrite, PhaseRead}[i], p.MiBPerSec))
		}
	}
	return strings.Join(parts, ", ")
}
