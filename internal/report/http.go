package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
)

func httpF2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func httpMs(ns float64) string { return strconv.FormatFloat(ns/1e6, 'f', 1, 64) }

func init() {
	views[result.MethodHTTP] = &view{tables: httpTables, text: httpText, csv: httpCSV}
}

// httpUnits are the units a download's rates are printed in: MiB/s, as
// wget prints them, beside Mbit/s, as links are sold, unless --units
// names one (mib, mb or mbit).
func httpUnits(units string) []storageUnit {
	switch units {
	case UnitsMiB, UnitsMB, UnitsMbit:
		return []storageUnit{storageOf(units)}
	}
	return []storageUnit{storageOf(UnitsMiB), storageOf(UnitsMbit)}
}

// httpTables: one row per download, then the spread over them, in the
// page's units.
func httpTables(doc *result.Document, units string) []Table {
	us := httpUnits(units)
	h := doc.HTTP
	p := h.Parameters
	title := fmt.Sprintf("GET %s, peak over %s windows", p.URL, time.Duration(p.WindowNs))
	if p.Insecure {
		title += ", certificate not checked"
	}
	header := []string{"run", "status", "MiB", "TTFB ms", "total s"}
	for _, what := range []string{"avg ", "peak "} {
		for _, u := range us {
			header = append(header, what+u.name)
		}
	}
	t := Table{Title: title, Header: header}
	lengths, finals := map[string]bool{}, map[string]bool{}
	for i, r := range h.Runs {
		status := "-"
		if r.StatusCode != 0 {
			status = strconv.Itoa(r.StatusCode)
		}
		if r.Error != "" {
			status += " failed"
		}
		row := []string{strconv.Itoa(i + 1), status, mibs(r.Bytes), httpMs(float64(r.TTFBNs)), httpF2(time.Duration(r.TotalNs).Seconds())}
		for j, u := range us {
			avg := httpF2(u.of(r.MiBPerSec))
			if j == 0 {
				avg += pm(u.of(r.MiBPerSec), r.Interval)
			}
			row = append(row, avg)
		}
		for _, u := range us {
			row = append(row, httpF2(u.of(r.PeakMiBPerSec)))
		}
		t.Rows = append(t.Rows, row)
		if r.StatusCode == 0 {
			continue
		}
		l := "no length declared (chunked or until close)"
		if r.ContentLength != nil {
			l = fmt.Sprintf("declared length %s bytes", itoa(*r.ContentLength))
		}
		if !lengths[l] {
			lengths[l] = true
			t.Notes = append(t.Notes, note{Mark: "", Text: fmt.Sprintf("%s, %s from %s", l, r.Protocol, r.RemoteAddr)})
		}
		if r.FinalURL != p.URL && !finals[r.FinalURL] {
			finals[r.FinalURL] = true
			t.Notes = append(t.Notes, note{Mark: "", Text: fmt.Sprintf("after %d redirect(s): %s", r.Redirects, r.FinalURL)})
		}
	}
	for i, r := range h.Runs {
		t.Notes = append(t.Notes, intervalNotes(figureNote{fmt.Sprintf("run %d", i+1), r.Interval, us[0].rate, r.MiBPerSec * (1 << 20), time.Duration(r.TransferNs)})...)
	}
	t.Notes = append(t.Notes, note{Mark: "", Text: "avg: the body's bytes over the time from the first byte of the response to the last"})
	out := []Table{t}
	if s := h.Summary; s != nil {
		sp := Table{Title: fmt.Sprintf("Over %d runs", s.MiBPerSec.N), Header: []string{"", "mean", "stddev", "min", "max"}}
		row := func(name string, x result.Spread, conv func(float64) string) {
			sp.Rows = append(sp.Rows, []string{name, conv(x.Mean), conv(x.Stddev), conv(x.Min), conv(x.Max)})
		}
		for _, what := range []struct {
			name string
			x    result.Spread
		}{{"avg ", s.MiBPerSec}, {"peak ", s.PeakMiBPerSec}} {
			for _, u := range us {
				row(what.name+u.name, what.x, func(x float64) string { return httpF2(u.of(x)) })
			}
		}
		row("TTFB ms", s.TTFBNs, httpMs)
		row("total s", s.TotalNs, func(ns float64) string { return httpF2(ns / 1e9) })
		out = append(out, sp)
	}
	return out
}

// httpText prints the heading, the tables and the run's status.
func httpText(w io.Writer, doc *result.Document, o Options, md bool) error {
	ew := &errWriter{w: w}
	ew.printf("%s\n\n", heading(doc))
	body(ew, doc, httpTables(doc, o.Units), md, o.Units)
	return ew.err
}

// httpCSV is one row per download.
func httpCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run_id", "run", "url", "final_url", "status_code", "protocol", "content_length", "bytes",
		"ttfb_ns", "transfer_ns", "total_ns", "mib_per_s", "bits_per_second", "peak_mib_per_s", "peak_bits_per_second", "error",
		ciHeader[0], ciHeader[1], ciHeader[2], ciHeader[3]})
	for i, r := range doc.HTTP.Runs {
		cl := ""
		if r.ContentLength != nil {
			cl = itoa(*r.ContentLength)
		}
		code := ""
		if r.StatusCode != 0 {
			code = strconv.Itoa(r.StatusCode)
		}
		_ = cw.Write(append([]string{doc.ID, strconv.Itoa(i + 1), doc.HTTP.Parameters.URL, r.FinalURL, code, r.Protocol, cl, itoa(r.Bytes),
			itoa(r.TTFBNs), itoa(r.TransferNs), itoa(r.TotalNs), f3(r.MiBPerSec), strconv.FormatFloat(r.BitsPerSecond, 'f', 0, 64),
			f3(r.PeakMiBPerSec), strconv.FormatFloat(r.PeakBitsPerSecond, 'f', 0, 64), r.Error}, ciCells(r.Interval)...))
	}
	cw.Flush()
	return cw.Error()
}
