package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

var (
	// wget's last line of a download: "2009-09-25 11:15:30 (68.7 KB/s) -
	// `name' saved [3852374/3852374]", the name quoted `' or ‘’ or '', the
	// total left out when the server sent no length. A terminal 80
	// columns wide may have wrapped it before "saved".
	wgetSaved = pattern.Lazy(`(?:(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) )?\(([0-9.]+) ([KMGT]?B)/s\) - (?:.|\n){0,400}?\ssaved \[(\d+)(?:/(\d+))?\]`)
	wgetURL   = pattern.Lazy(`(?m)^--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d--\s+(\S+)`)
	wgetCmd   = pattern.Lazy(`(?m)\bwget\s.*?((?:https?|ftp)://\S+)`)
	wgetReply = pattern.Lazy(`(?m)^HTTP request sent, awaiting response\.\.\. (\d{3})`)
	wgetLen   = pattern.Lazy(`(?m)^Length: (\d+)`)
	// curl's progress meter, the last line of a finished transfer:
	// "100  100M  100  100M    0     0  11.2M      0  0:00:08  0:00:08 --:--:-- 11.5M".
	// The lines start with "\r" as curl wrote them, or a line each when
	// copied from a terminal. When the server sent no length (chunked),
	// curl counts the total as what arrived and leaves the received
	// percentage at 0: "100 27329    0 27329 ...".
	curlMeter = pattern.Lazy(`% Total +% Received % Xferd +Average Speed`)
	// curl's message when a transfer broke off ("curl: (18) transfer closed
	// with outstanding read data remaining"): a transfer of unknown length
	// shows 100 % whatever arrived, so only this line tells it failed.
	curlErr  = pattern.Lazy(`(?m)^curl: \((\d+)\) (.+?)\r?$`)
	curlLine = pattern.Lazy(`(?m)(?:^|\r)\s*100\s+(\S+)\s+(100|0)\s+(\S+)\s+\S+\s+\S+\s+(\S+)\s+\S+\s+(\d+:\d\d:\d\d|--:--:--)\s+(\d+:\d\d:\d\d|--:--:--)\s`)
)

const (
	wgetNote = "read from a wget transcript: bytes are wget's count, the rate is its rounded average (its KB/s and MB/s are KiB/s and MiB/s) and the transfer time is worked back from the two; its times are local and taken as UTC"
	curlNote = "read from a curl progress meter: its sizes and rates are rounded to four characters (its k and M are 1024 and 1024²), so bytes and rate are close, not exact"
)

// importDownload converts a transcript of wget or curl downloads: a
// net.http run per finished download, with the figures the text shows.
func importDownload(data []byte, file, tool string) ([]*result.Document, error) {
	if tool == Curl {
		return importCurl(data, file)
	}
	text := string(data)
	var docs []*result.Document
	last := 0
	for _, m := range wgetSaved().FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		before := text[last:m[0]]
		last = m[1]
		rate, err := strconv.ParseFloat(g(2), 64)
		if err != nil || !finite(rate) || rate <= 0 {
			return nil, fmt.Errorf("wget transcript: %q is not a rate", short(g(2)))
		}
		mibps := rate * math.Pow(1024, float64(strings.Index("BKMGT", g(3)[:1])-2))
		if g(3) == "B" {
			mibps = rate / (1 << 20)
		}
		n, err := strconv.ParseInt(g(4), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("wget transcript: %q is not a byte count", short(g(4)))
		}
		run := result.HTTPRun{Bytes: n, MiBPerSec: mibps, BitsPerSecond: mibps * (1 << 20) * 8}
		run.PeakMiBPerSec, run.PeakBitsPerSecond = run.MiBPerSec, run.BitsPerSecond
		run.TransferNs = int64(math.Round(float64(n) / (mibps * (1 << 20)) * 1e9))
		run.TotalNs = run.TransferNs
		run.Windows = []result.HTTPWindow{}
		if total := g(5); total != "" {
			if t, err := strconv.ParseInt(total, 10, 64); err == nil {
				run.ContentLength = &t
				if t != n {
					run.Error = fmt.Sprintf("wget saved %d of %d bytes", n, t)
				}
			}
		}
		if s := wgetReply().FindAllStringSubmatch(before, -1); len(s) > 0 {
			run.StatusCode, _ = strconv.Atoi(s[len(s)-1][1])
		}
		if s := wgetLen().FindAllStringSubmatch(before, -1); len(s) > 0 && run.ContentLength == nil {
			if t, err := strconv.ParseInt(s[len(s)-1][1], 10, 64); err == nil {
				run.ContentLength = &t
			}
		}
		url := ""
		if s := wgetURL().FindAllStringSubmatch(before, -1); len(s) > 0 {
			url = s[len(s)-1][1]
		} else if s := wgetCmd().FindAllStringSubmatch(before, -1); len(s) > 0 {
			url = s[len(s)-1][1]
		}
		var ended time.Time
		if t, err := time.Parse("2006-01-02 15:04:05", g(1)); err == nil && plausible(t) {
			ended = t
		}
		d := downloadDoc(Wget, wgetNote, file, url, ended, run)
		identify([]*result.Document{d}, []byte(text[m[0]:m[1]]))
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("wget transcript: no finished download (\"(R MB/s) - 'file' saved [N/N]\")")
	}
	return docs, nil
}

func downloadDoc(tool, note, file, url string, ended time.Time, run result.HTTPRun) *result.Document {
	started := time.Time{}
	if !ended.IsZero() {
		started = ended.Add(-time.Duration(run.TotalNs))
	}
	d := newDoc(tool, "", file, result.MethodHTTP, started)
	d.EndedAt = ended
	d.Imported.Note = note
	if run.Error != "" {
		d.Status, d.Error = result.StatusFailed, run.Error
	}
	d.HTTP = &result.HTTP{Parameters: result.HTTPParameters{URL: clip(url), Repeat: 1}, Runs: []result.HTTPRun{run}}
	return d
}

// importCurl reads the last line of curl's progress meter after each
// meter header: a transfer at 100 %.
func importCurl(data []byte, file string) ([]*result.Document, error) {
	text := string(data)
	var docs []*result.Document
	heads := curlMeter().FindAllStringIndex(text, -1)
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		var lines [][]string
		for _, m := range curlLine().FindAllStringSubmatch(text[h[1]:end], -1) {
			// A received percentage of 0 is a finished transfer only when
			// no length was known, the total then being what arrived.
			if m[2] == "100" || m[1] == m[3] {
				lines = append(lines, m)
			}
		}
		if len(lines) == 0 {
			continue
		}
		m := lines[len(lines)-1]
		n, ok1 := curlSize(m[3])
		rate, ok2 := curlSize(m[4])
		// "--:--:--" spent: the transfer took less than a second.
		spent, ok3 := int64(0), true
		if m[6] != "--:--:--" {
			spent, ok3 = curlClock(m[6])
		}
		if !ok1 || !ok2 || !ok3 || rate <= 0 {
			return nil, fmt.Errorf("curl transcript: %q is not a finished transfer", short(strings.TrimSpace(m[0])))
		}
		run := result.HTTPRun{Bytes: int64(math.Round(n)), MiBPerSec: rate / (1 << 20), BitsPerSecond: rate * 8, Windows: []result.HTTPWindow{}}
		run.PeakMiBPerSec, run.PeakBitsPerSecond = run.MiBPerSec, run.BitsPerSecond
		run.TransferNs = int64(math.Round(n / rate * 1e9))
		run.TotalNs = max(run.TransferNs, spent)
		if e := curlErr().FindStringSubmatch(text[h[1]:end]); e != nil {
			run.Error = fmt.Sprintf("curl error %s: %s", e[1], clip(e[2]))
		}
		url := ""
		if s := wgetCmd().FindAllStringSubmatch(strings.ReplaceAll(text[:h[0]], "curl", "wget"), -1); len(s) > 0 {
			url = s[len(s)-1][1]
		}
		d := downloadDoc(Curl, curlNote, file, url, time.Time{}, run)
		identify([]*result.Document{d}, []byte(text[h[0]:end]))
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("curl transcript: no finished transfer (a progress meter line at 100 %%)")
	}
	return docs, nil
}

// curlSize reads curl's four-character sizes: "512", "1024k", "100M",
// "1.2G", powers of 1024.
func curlSize(s string) (float64, bool) {
	mult := 1.0
	if k := strings.IndexByte("kMGTP", s[len(s)-1]); k >= 0 {
		mult = math.Pow(1024, float64(k+1))
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !finite(f) || f < 0 || f > 1e15 {
		return 0, false
	}
	return f * mult, true
}

// curlClock reads "0:00:08" as nanoseconds.
func curlClock(s string) (int64, bool) {
	p := strings.Split(s, ":")
	if len(p) != 3 {
		return 0, false
	}
	var secs int64
	for _, x := range p {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil || v < 0 || v > 1e6 {
			return 0, false
		}
		secs = secs*60 + v
	}
	return secs * 1e9, true
}
