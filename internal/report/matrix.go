package report

import (
	"fmt"
	"html/template"
	"slices"
	"strconv"

	"github.com/thruput/thruput/internal/result"
)

// htmlMatrix is the host x host heat map of fleet net's runs: a row per
// client, a column per server, each cell the receiver's Mbit/s shaded by
// its share of the best pair and linked to its run.
type htmlMatrix struct {
	Hosts []string
	Rows  []htmlMatrixRow
	// Ceilings name each pair's lowest known link ceiling, where known.
	Ceilings []string
}

type htmlMatrixRow struct {
	From  string
	Cells []htmlMatrixCell
}

type htmlMatrixCell struct {
	Text, Title, Link string
	// Style is the cell's shade, built here from a number, never from
	// input.
	Style template.CSS
}

// matrixOf builds the heat map when at least two of docs are network
// runs between hosts (labelled from= and to=, as fleet net saves them).
func matrixOf(docs []*result.Document, hds []htmlDoc) *htmlMatrix {
	type pair struct{ from, to string }
	rate := map[pair]float64{}
	link := map[pair]string{}
	ceiling := map[pair]string{}
	var hosts []string
	best := 0.0
	for i, d := range docs {
		from, to := d.Labels["from"], d.Labels["to"]
		if d.Net == nil || from == "" || to == "" {
			continue
		}
		var bps float64
		for _, s := range d.Net.Sums {
			bps += s.Receiver.BitsPerSecond
		}
		p := pair{from, to}
		rate[p], link[p] = bps/1e6, hds[i].Anchor
		best = max(best, bps/1e6)
		for _, h := range []string{from, to} {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
		for _, b := range d.Bottlenecks {
			if b.Limit >= 0 && b.Limit < len(b.Hops) && b.Hops[b.Limit].CeilingBytesPerSec > 0 {
				h := b.Hops[b.Limit]
				ceiling[p] = fmt.Sprintf("%s -> %s: %s at %s, %.0f Mbit/s", from, to, orUnknown(h.Link), h.Name, h.CeilingBytesPerSec*8/1e6)
			}
		}
	}
	if len(rate) < 2 {
		return nil
	}
	slices.Sort(hosts)
	m := &htmlMatrix{Hosts: hosts}
	for _, from := range hosts {
		row := htmlMatrixRow{From: from}
		for _, to := range hosts {
			p := pair{from, to}
			v, ok := rate[p]
			if !ok {
				row.Cells = append(row.Cells, htmlMatrixCell{Text: "-"})
				continue
			}
			// Lighter is slower: a weak link shows at a glance.
			share := v / best
			row.Cells = append(row.Cells, htmlMatrixCell{
				Text:  strconv.FormatFloat(v, 'f', 1, 64),
				Title: fmt.Sprintf("%s -> %s: %.1f Mbit/s, %.0f %% of the best pair", from, to, v, share*100),
				Link:  link[p],
				Style: template.CSS(fmt.Sprintf("background:rgba(0,114,178,%.2f)", 0.15+0.65*share)),
			})
			if c, ok := ceiling[p]; ok {
				m.Ceilings = append(m.Ceilings, c)
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}
