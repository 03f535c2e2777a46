package report

import (
	"fmt"
	"regexp"
	"strconv"
)

// storageUnit is the unit a page prints storage rates in: MiB/s (2^20
// bytes per second), or MB/s (10^6) with --units mb, as CrystalDiskMark
// prints them. CSV and JSON keep their named fields (mib_per_s ...)
// whatever the page's units: programs read them by name.
type storageUnit struct {
	name   string
	perMiB float64
}

func storageOf(units string) storageUnit {
	if units == UnitsMB {
		return storageUnit{"MB/s", 1.048576}
	}
	return storageUnit{"MiB/s", 1}
}

// of converts a figure in MiB/s.
func (u storageUnit) of(mib float64) float64 { return mib * u.perMiB }

// rate prints a rate in bytes per second.
func (u storageUnit) rate(bps float64) string {
	return fmt.Sprintf("%.1f %s", u.of(bps/(1<<20)), u.name)
}

var mibFigure = regexp.MustCompile(`(\d+(?:\.\d+)?) MiB/s`)

// text rewrites the MiB/s figures of a sentence written elsewhere (a
// bottleneck's verdict) into the page's unit.
func (u storageUnit) text(s string) string {
	if u.perMiB == 1 {
		return s
	}
	return mibFigure.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseFloat(mibFigure.FindStringSubmatch(m)[1], 64)
		if err != nil {
			return m
		}
		return strconv.FormatFloat(u.of(v), 'f', 1, 64) + " " + u.name
	})
}
