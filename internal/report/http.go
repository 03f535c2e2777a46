package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// httpMbit converts MiB/s to Mbit/s (10^6 bit/s), the unit links are
// sold in.
func httpMbit(mib float64) float64 { return mib * (1 << 20) * 8 / 1e6 }

func httpF2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func httpMs(ns float64) string { return strconv.FormatFloat(ns/1e6, 'f', 1, 64) }

func init() {
	views[result.MethodHTTP] = &view{tables: func(d *result.Document, _ string) []Table { return httpTables(d) },
		text: httpText, csv: httpCSV, samples: httpSamples}
}

// httpTables: one row per download, then the spread over them.
func httpTables(doc *result.Document) []Table {
	h := doc.HTTP
	p := h.Parameters
	title := fmt.Sprintf("GET %s, peak over %s windows", p.URL, time.Duration(p.WindowNs))
	if p.Insecure {
		title += ", certificate not checked"
	}
	t := Table{Title: title, Header: []string{"run", "status", "MiB", "TTFB ms", "total s", "avg MiB/s", "avg Mbit/s", "peak MiB/s", "peak Mbit/s"}}
	lengths, finals := map[string]bool{}, map[string]bool{}
	for i, r := range h.Runs {
		status := "-"
		if r.StatusCode != 0 {
			status = strconv.Itoa(r.StatusCode)
		}
		if r.Error != "" {
			status += " failed"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), status, mibs(r.Bytes), httpMs(float64(r.TTFBNs)),
			httpF2(time.Duration(r.TotalNs).Seconds()), httpF2(r.MiBPerSec) + pm(r.MiBPerSec, r.Interval), httpF2(httpMbit(r.MiBPerSec)),
			httpF2(r.PeakMiBPerSec), httpF2(httpMbit(r.PeakMiBPerSec))})
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
		t.Notes = append(t.Notes, intervalNotes(figureNote{fmt.Sprintf("run %d", i+1), r.Interval, mibRate, r.MiBPerSec * (1 << 20), time.Duration(r.TransferNs)})...)
	}
	t.Notes = append(t.Notes, note{Mark: "", Text: "avg: the body's bytes over the time from the first byte of the response to the last"})
	out := []Table{t}
	if s := h.Summary; s != nil {
		sp := Table{Title: fmt.Sprintf("Over %d runs", s.MiBPerSec.N), Header: []string{"", "mean", "stddev", "min", "max"}}
		row := func(name string, x result.Spread, conv func(float64) string) {
			sp.Rows = append(sp.Rows, []string{name, conv(x.Mean), conv(x.Stddev), conv(x.Min), conv(x.Max)})
		}
		mbit := func(x float64) string { return httpF2(httpMbit(x)) }
		row("avg MiB/s", s.MiBPerSec, httpF2)
		row("avg Mbit/s", s.MiBPerSec, mbit)
		row("peak MiB/s", s.PeakMiBPerSec, httpF2)
		row("peak Mbit/s", s.PeakMiBPerSec, mbit)
		row("TTFB ms", s.TTFBNs, httpMs)
		row("total s", s.TotalNs, func(ns float64) string { return httpF2(ns / 1e9) })
		out = append(out, sp)
	}
	return out
}

// httpText prints the heading, the tables and the run's status.
func httpText(w io.Writer, doc *result.Document, _ Options, md bool) error {
	ew := &errWriter{w: w}
	ew.printf("%s\n\n", heading(doc))
	body(ew, doc, httpTables(doc), md, "")
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
