package chart

// Unit is the rate unit a chart's axis and tooltips are in: its name and
// how many bytes per second one of it is.
type Unit struct {
	Name  string
	Bytes float64
}

// The rate units a page can be in (--units): MiB/s (2^20 B/s) for
// storage and downloads, MB/s (10^6 B/s) as CrystalDiskMark prints them,
// Mbit/s (10^6 bit/s) as links are sold.
var (
	MiBps  = Unit{"MiB/s", 1 << 20}
	MBps   = Unit{"MB/s", 1e6}
	Mbitps = Unit{"Mbit/s", 1e6 / 8}
)

// UnitOf is the unit a page with --units units draws a figure in whose
// own unit is native: "mib", "mb" and "mbit" name theirs, and "" and
// "both" keep native, the primary unit the page's tables print first.
func UnitOf(units string, native Unit) Unit {
	switch units {
	case "mib":
		return MiBps
	case "mb":
		return MBps
	case "mbit":
		return Mbitps
	}
	return native
}

// of converts a rate in bytes per second.
func (u Unit) of(bps float64) float64 { return bps / u.Bytes }

// mib converts a rate in MiB/s.
func (u Unit) mib(v float64) float64 { return u.of(v * (1 << 20)) }
