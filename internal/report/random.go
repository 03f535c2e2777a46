package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	views[result.MethodRandom] = &view{tables: func(d *result.Document, units string) []Table { return randomTables(d, storageOf(units)) }, csv: randomCSV}
}

// randomTables is the sysbench-style summary: rates, then latency.
func randomTables(doc *result.Document, u storageUnit) []Table {
	r := doc.Random
	p := r.Parameters
	// Only thruput's own runs evict the file set; a run imported from
	// sysbench says nothing of the page cache.
	io := "buffered"
	switch {
	case p.Direct:
		io = "O_DIRECT"
	case p.CacheDropped:
		io += ", file set evicted after preparing"
	}
	fsync := "no periodic fsync"
	if p.FsyncEvery > 0 {
		fsync = fmt.Sprintf("%s every %d writes", p.FsyncMode, p.FsyncEvery)
		if p.FsyncAll {
			fsync += " (all files)"
		}
	}
	title := fmt.Sprintf("%s: %s blocks, %d files, %s, %d thread(s), %s, %s over %s",
		p.Mode, units.BlockLabel(p.BlockSize), p.Files, units.IEC(p.TotalSize), p.Threads, fsync, io,
		time.Duration(r.ElapsedNs).Round(time.Millisecond))
	rates := Table{Title: title, Header: []string{"", "requests", "per s", u.name}, Rows: [][]string{
		{"reads", itoa(r.Reads), f1(r.ReadsPerSec), f1(u.of(r.ReadMiBPerSec))},
		{"writes", itoa(r.Writes), f1(r.WritesPerSec), f1(u.of(r.WriteMiBPerSec))},
		{"fsyncs", itoa(r.Fsyncs), f1(r.FsyncsPerSec), ""},
		{"reads+writes", itoa(r.Reads + r.Writes), f1(r.RequestsPerSec) + pm(r.RequestsPerSec, r.Interval),
			f1(u.of(r.ReadMiBPerSec+r.WriteMiBPerSec)) + pm(u.of(r.ReadMiBPerSec+r.WriteMiBPerSec), r.Interval)},
	}}
	rates.Notes = append(rates.Notes, deviceNote("reads", r.ReadDevice)...)
	rates.Notes = append(rates.Notes, intervalNotes(figureNote{"reads+writes", r.Interval, u.rate, (r.ReadMiBPerSec + r.WriteMiBPerSec) * (1 << 20), time.Duration(r.ElapsedNs)})...)
	lat := Table{Title: "Latency per request, ms", Header: latencyHeader}
	for _, l := range []struct {
		name string
		l    *result.Latency
	}{{"all", r.Latency}, {"read", r.ReadLatency}, {"write", r.WriteLatency}, {"fsync", r.FsyncLatency}} {
		if l.l != nil {
			lat.Rows = append(lat.Rows, latencyRow(l.name, l.l))
		}
	}
	f := r.Fairness
	if f == nil {
		return []Table{rates, lat}
	}
	fair := Table{Title: "Threads fairness", Header: []string{"", "avg", "stddev", "min", "max"}, Rows: [][]string{
		{"requests", f1(f.Requests.Mean), f1(f.Requests.Stddev), extreme(f.Requests.Min, 1, f1), extreme(f.Requests.Max, 1, f1)},
		{"time, s", f3(f.ElapsedNs.Mean / 1e9), f3(f.ElapsedNs.Stddev / 1e9), extreme(f.ElapsedNs.Min, 1e-9, f3), extreme(f.ElapsedNs.Max, 1e-9, f3)},
	}}
	return []Table{rates, lat, fair}
}

var latencyHeader = []string{"", "count", "min", "avg", "p50", "p95", "p99", "p99.9", "max"}

func latencyRow(name string, l *result.Latency) []string {
	if l == nil {
		// A run imported from a tool that printed no latency (fio
		// before 3.0 without clat, a direction with no I/O) has none.
		l = &result.Latency{}
	}
	// A percentile the source did not give (an imported sysbench run has
	// only its p95) is 0, which no measured latency is.
	ms := func(ns float64) string {
		if ns == 0 {
			return "-"
		}
		return strconv.FormatFloat(ns/1e6, 'f', 3, 64)
	}
	return []string{name, itoa(l.Count), ms(float64(l.MinNs)), ms(l.MeanNs), ms(float64(l.P50Ns)), ms(float64(l.P95Ns)),
		ms(float64(l.P99Ns)), ms(float64(l.P999Ns)), ms(float64(l.MaxNs))}
}

// extreme prints a thread spread's minimum or maximum, scaled, or
// markMissing when the source did not give it (sysbench prints only the
// mean and deviation of several threads).
func extreme(v *float64, scale float64, format func(float64) string) string {
	if v == nil {
		return markMissing
	}
	return format(*v * scale)
}

func itoa(n int64) string  { return strconv.FormatInt(n, 10) }
func f1(x float64) string  { return strconv.FormatFloat(x, 'f', 1, 64) }
func f3(x float64) string  { return strconv.FormatFloat(x, 'f', 3, 64) }
func nsStr(n int64) string { return strconv.FormatInt(n, 10) }
func latNs(l *result.Latency) []string {
	if l == nil {
		return []string{"", "", "", "", "", "", ""}
	}
	return []string{nsStr(l.MinNs), strconv.FormatFloat(l.MeanNs, 'f', 0, 64), nsStr(l.P50Ns), nsStr(l.P95Ns), nsStr(l.P99Ns), nsStr(l.P999Ns), nsStr(l.MaxNs)}
}

// randomCSV prints one row: the run's counts, rates and overall latency.
func randomCSV(w io.Writer, doc *result.Document) error {
	r := doc.Random
	p := r.Parameters
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"path", "fs_type", "mode", "block_size", "threads", "elapsed_ns", "reads", "writes", "fsyncs",
		"reads_per_s", "writes_per_s", "fsyncs_per_s", "read_mib_per_s", "write_mib_per_s",
		"latency_min_ns", "latency_mean_ns", "latency_p50_ns", "latency_p95_ns", "latency_p99_ns", "latency_p99_9_ns", "latency_max_ns",
		ciHeader[0], ciHeader[1], ciHeader[2], ciHeader[3]})
	// An imported sysbench run names no directory.
	var t result.Target
	if len(doc.Targets) > 0 {
		t = doc.Targets[0]
	}
	_ = cw.Write(append([]string{t.Path, t.FSType, p.Mode, itoa(p.BlockSize), strconv.Itoa(p.Threads), itoa(r.ElapsedNs),
		itoa(r.Reads), itoa(r.Writes), itoa(r.Fsyncs), f3(r.ReadsPerSec), f3(r.WritesPerSec), f3(r.FsyncsPerSec),
		f3(r.ReadMiBPerSec), f3(r.WriteMiBPerSec)}, append(latNs(r.Latency), ciCells(r.Interval)...)...))
	cw.Flush()
	return cw.Error()
}
