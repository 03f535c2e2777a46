package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// ProbeTable is disk check --probe's outcome as a table of facts: the
// verdict, the sizes exact to the byte beside their IEC reading, how the
// probe worked, and the command that shrinks the partition.
func ProbeTable(p *result.Probe) Table {
	size := func(n int64) string { return fmt.Sprintf("%s (%d bytes)", units.IEC(n), n) }
	t := Table{Title: "probe of " + p.Device, Left: true}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("verdict", p.Summary)
	add("announced", size(p.Announced))
	add("usable", size(p.Usable))
	if p.Kind != "" {
		add("past usable", p.Kind)
	}
	if p.Wrap > 0 {
		add("wraps every", size(p.Wrap))
	}
	if p.BadBlocks > 0 {
		add("bad blocks", fmt.Sprintf("%d probed, the first at byte %d", p.BadBlocks, p.FirstBad))
	}
	add("granularity", strconv.Itoa(p.BlockSize)+" bytes (the device's logical block)")
	if p.CacheFlush > 0 {
		add("cache flush", units.IEC(p.CacheFlush)+" written after each pass's stamps")
	} else {
		add("cache flush", "none: a block written past the end was lost at once, so no cache hid it")
	}
	add("work", fmt.Sprintf("%d passes, %s written, %s read, %s", p.Passes, units.IEC(p.Written), units.IEC(p.Read),
		time.Duration(p.ElapsedNs).Round(time.Millisecond)))
	if p.Restored {
		add("data", "every overwritten block written back")
	} else {
		add("data", "not restored (--destructive): the probed blocks hold its stamps")
	}
	if p.Fix != "" {
		add("to use it", p.Fix+"   (not run: it replaces the partition table)")
	}
	return t
}
