package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// storageUnit is the unit a page prints storage rates in: MiB/s (2^20
// bytes per second), MB/s (10^6) with --units mb, as CrystalDiskMark
// prints them, or Mbit/s (10^6 bit/s) with --units mbit, as links are
// sold. With --units both the tables stay in MiB/s and each rate in a
// sentence (a verdict, a note) carries its Mbit/s beside it. CSV and
// JSON keep their named fields (mib_per_s ...) whatever the page's
// units: programs read them by name.
type storageUnit struct {
	name   string
	perMiB float64
	// mbit adds a sentence's rates in Mbit/s after them (--units both).
	mbit bool
	// network: the page's sentences (verdicts) were written in Mbit/s,
	// as a network test's and a download's are, not in MiB/s.
	network bool
}

// mbitPerMiB is one MiB/s in Mbit/s: 2^20 * 8 / 10^6.
const mbitPerMiB = 8.388608

func storageOf(units string) storageUnit {
	switch units {
	case UnitsMB:
		return storageUnit{name: "MB/s", perMiB: 1.048576}
	case UnitsMbit:
		return storageUnit{name: "Mbit/s", perMiB: mbitPerMiB}
	case UnitsBoth:
		return storageUnit{name: "MiB/s", perMiB: 1, mbit: true}
	}
	return storageUnit{name: "MiB/s", perMiB: 1}
}

// netUnitOf is the unit a network page (a network test, a download)
// prints its rates in: Mbit/s, the unit links are sold in, unless
// --units names mib or mb. With both, its tables add a column of MiB/s
// beside the Mbit/s (netMiB) and its sentences stay in Mbit/s.
func netUnitOf(units string) storageUnit {
	u := storageOf(UnitsMbit)
	if units == UnitsMiB || units == UnitsMB {
		u = storageOf(units)
	}
	u.network = true
	return u
}

// netMiB says whether a network page adds a column of MiB/s beside its
// Mbit/s: with --units both.
func netMiB(units string) bool { return units == UnitsBoth }

// pageUnit is the unit doc's page prints rates, verdicts and ceilings in.
func pageUnit(doc *result.Document, units string) storageUnit {
	if doc.SectionMethod().Link() {
		return netUnitOf(units)
	}
	return storageOf(units)
}

// of converts a figure in MiB/s.
func (u storageUnit) of(mib float64) float64 { return mib * u.perMiB }

// figure prints a figure in MiB/s in the unit, with its Mbit/s beside it
// under --units both.
func (u storageUnit) figure(mib float64) string {
	s := strconv.FormatFloat(u.of(mib), 'f', 1, 64) + " " + u.name
	if u.mbit {
		s += " (" + strconv.FormatFloat(mib*mbitPerMiB, 'f', 1, 64) + " Mbit/s)"
	}
	return s
}

// rate prints a rate in bytes per second.
func (u storageUnit) rate(bps float64) string { return u.figure(bps / (1 << 20)) }

// mibFigure is a rate in MiB/s in a sentence, and the Mbit/s a sentence
// may already give beside it.
var mibFigure = pattern.Lazy(`(\d+(?:\.\d+)?) MiB/s( \(\d+(?:\.\d+)? Mbit/s\))?`)

// text rewrites the MiB/s figures of a sentence written elsewhere (a
// bottleneck's verdict) into the page's unit; the document keeps the
// sentence as it was written.
func (u storageUnit) text(s string) string {
	if u.perMiB == 1 && !u.mbit {
		return s
	}
	return mibFigure().ReplaceAllStringFunc(s, func(m string) string {
		sub := mibFigure().FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[1], 64)
		switch {
		case err != nil || (u.mbit && sub[2] != ""):
			return m
		case u.name == "Mbit/s":
			return u.figure(v) // the Mbit/s beside it, said again
		}
		return u.figure(v) + sub[2]
	})
}

// mbitFigure is a rate in Mbit/s in a sentence.
var mbitFigure = pattern.Lazy(`(\d+(?:\.\d+)?) Mbit/s`)

// verdict is a sentence written for bottleneck b (its figure or verdict)
// in the page's unit: storage's are written in MiB/s (text), a network
// page's in Mbit/s. The names of b's links ("Ethernet 1000 Mbit/s") are
// what the link is called, and keep their Mbit/s.
func (u storageUnit) verdict(s string, b result.Bottleneck) string {
	if !u.network {
		return u.text(s)
	}
	if u.name == "Mbit/s" {
		return s
	}
	var links []string
	for _, h := range b.Hops {
		if strings.Contains(h.Link, "Mbit/s") && !slices.Contains(links, h.Link) {
			links = append(links, h.Link)
		}
	}
	parts := []string{s}
	for _, l := range links {
		var next []string
		for i, p := range parts {
			if i%2 == 1 {
				next = append(next, p)
				continue
			}
			for j, q := range strings.Split(p, l) {
				if j > 0 {
					next = append(next, l)
				}
				next = append(next, q)
			}
		}
		parts = next
	}
	for i := 0; i < len(parts); i += 2 {
		parts[i] = mbitFigure().ReplaceAllStringFunc(parts[i], func(m string) string {
			v, err := strconv.ParseFloat(mbitFigure().FindStringSubmatch(m)[1], 64)
			if err != nil {
				return m
			}
			return u.figure(v / mbitPerMiB)
		})
	}
	return strings.Join(parts, "")
}

// ceiling prints a hop's ceiling in bytes per second: in the page's unit
// and in Mbit/s, the unit links are sold in, once when they are one.
func (u storageUnit) ceiling(bps float64) string {
	if u.name == "Mbit/s" || u.mbit {
		return u.rate(bps)
	}
	return fmt.Sprintf("%s, %.0f Mbit/s", u.rate(bps), bps*8/1e6)
}

// comparisonIn is c with its rows of rates in the page's units, c itself
// when those are the rows' own: storage rows (MiB/s) in the storage unit,
// network rows (Mbit/s) in the network unit, as each kind's own page
// prints them. The comparison's JSON and CSV keep MiB/s and Mbit/s, as a
// run's do.
func comparisonIn(c *compare.Comparison, units string) *compare.Comparison {
	st, nt := storageOf(units), netUnitOf(units)
	if st.perMiB == 1 && nt.name == "Mbit/s" {
		return c
	}
	out := *c
	out.Rows = make([]compare.Row, len(c.Rows))
	for i, r := range c.Rows {
		var name string
		var by float64 // the row's unit to the page's
		if m, ok := strings.CutSuffix(r.Metric, "MiB/s"); ok && st.perMiB != 1 {
			name, by = m+st.name, st.perMiB
		} else if m, ok := strings.CutSuffix(r.Metric, "Mbit/s"); ok && nt.name != "Mbit/s" {
			name, by = m+nt.name, nt.perMiB/mbitPerMiB
		}
		if name != "" {
			r.Metric = name
			r.Cells = slices.Clone(r.Cells)
			for j := range r.Cells {
				x := &r.Cells[j]
				x.Value, x.HalfWidth, x.Needed = x.Value*by, x.HalfWidth*by, x.Needed*by
				x.Samples = slices.Clone(x.Samples)
				for k := range x.Samples {
					x.Samples[k] *= by
				}
				if s := x.Spread; s != nil {
					x.Spread = &result.Spread{N: s.N, Mean: s.Mean * by, Stddev: s.Stddev * by, Min: s.Min * by, Max: s.Max * by}
				}
			}
		}
		out.Rows[i] = r
	}
	return &out
}

// Rates is a sentence written in MiB/s (a run's headline figures, a
// verdict) with its storage rates in the unit --units names, as every
// page of that unit prints them.
func Rates(s, units string) string { return storageOf(units).text(s) }

// Summary is the headline figures of a stored run of method m
// (Document.Summary, as the store keeps them) in the unit --units names,
// as the run's own page prints them: a network test's are written in
// Mbit/s and stay so unless mib or mb is named; the others are written in
// MiB/s and follow Rates.
func Summary(m result.Method, s, units string) string {
	if m.BriefInBits() {
		return netUnitOf(units).verdict(s, result.Bottleneck{})
	}
	return Rates(s, units)
}
