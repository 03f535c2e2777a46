package serve

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/thruput/thruput/internal/browsertest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// everyMethod is a run of each method and kind: a sweep over two targets
// and eight block sizes, disk mark, disk io with repeats, disk random,
// TCP and capped UDP network tests, the server's side of a TCP test and
// an HTTP download, on pi4, a day apart, and a second sweep so each trend
// has two points.
func everyMethod() []*result.Document {
	at := func(day int) time.Time { return t0.AddDate(0, 0, day) }
	doc := func(id string, method result.Method, day int) *result.Document {
		d := &result.Document{ID: id, Method: method, Status: result.StatusOK, StartedAt: at(day), EndedAt: at(day).Add(time.Minute)}
		d.Host.Hostname = "pi4"
		d.Targets = []result.Target{{Path: "/mnt/usb", FSType: "ext4"}}
		return d
	}
	var docs []*result.Document
	for k, id := range []string{"20261101T060000Z-sweep1", "20261102T060000Z-sweep2"} {
		d := doc(id, "disk.sweep", k)
		d.Targets = append(d.Targets, result.Target{Path: "/tmp", FSType: "tmpfs"})
		var bs []int64
		for i := range 8 {
			bs = append(bs, 512<<(2*i))
		}
		d.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: bs, Write: true, Read: true}}
		for ti := range 2 {
			for i, b := range bs {
				for _, ph := range []string{result.PhaseWrite, result.PhaseRead} {
					d.Sweep.Steps = append(d.Sweep.Steps, result.SweepStep{Target: ti, Phase: ph, BlockSize: b,
						Bytes: 64 << 20, ElapsedNs: 1e9, MiBPerSec: float64((ti*50 + 5) * (i + 1))})
				}
			}
		}
		docs = append(docs, d)
	}
	m := doc("20261103T060000Z-mark01", "disk.mark", 2)
	m.Mark = &result.Mark{MarkParameters: result.MarkParameters{Size: 1 << 30, DurationNs: 5e9}}
	for i, p := range []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"} {
		for _, ph := range []string{"read", "write"} {
			mb := 400 / float64(i+1)
			m.Mark.Results = append(m.Mark.Results, result.MarkResult{Preset: p, Phase: ph, MBPerSec: mb, MiBPerSec: mb / 1.048576, IOPS: mb * 244})
		}
	}
	io := doc("20261104T060000Z-io0001", "disk.io", 3)
	io.IO = &result.IO{Parameters: result.IOParameters{RW: "randread", BlockSize: 4096, IODepth: 32, Jobs: 1, Repeat: 2}, Engine: "io_uring"}
	for _, iops := range []float64{10100, 9900} {
		io.IO.Runs = append(io.IO.Runs, result.IORun{ElapsedNs: 5e9, Read: &result.IODirection{IOPS: iops, MiBPerSec: iops / 256}})
	}
	rnd := doc("20261105T060000Z-rand01", "disk.random", 4)
	rnd.Random = &result.Random{Parameters: result.RandomParameters{Mode: "rndrw", BlockSize: 16384}, ElapsedNs: 1e10,
		Reads: 3000, Writes: 2000, ReadsPerSec: 300, WritesPerSec: 200, ReadMiBPerSec: 4.7, WriteMiBPerSec: 3.1}
	var nets []*result.Document
	for i, p := range []result.NetParameters{{Role: "client", Protocol: "tcp", Server: "nas"}, {Role: "client", Protocol: "udp", Server: "nas", BitrateBps: 50e6}} {
		n := doc(fmt.Sprintf("20261106T06000%dZ-net%03d", i, i), "net.client", 5)
		n.Targets = nil
		mbit := []float64{940, 50}[i]
		n.Net = &result.Net{Parameters: p, Sums: []result.NetSum{{Direction: result.DirUp,
			Receiver: result.NetFigure{Bytes: int64(mbit * 1e6 / 8 * 10), Seconds: 10, BitsPerSecond: mbit * 1e6}}}}
		for k := range 10 {
			n.Net.Intervals = append(n.Net.Intervals, result.NetInterval{StartNs: int64(k) * 1e9, EndNs: int64(k+1) * 1e9,
				Sums: []result.NetIntervalFlow{{Direction: result.DirUp, BitsPerSecond: mbit * 1e6}}})
		}
		nets = append(nets, n)
	}
	srv := doc("20261106T070000Z-netsrv", "net.server", 5)
	srv.Targets = nil
	srv.Net = &result.Net{Parameters: result.NetParameters{Role: "server", Protocol: "tcp", Server: ":5201", Client: "192.168.1.20:40112"},
		Sums: []result.NetSum{{Direction: result.DirUp, Receiver: result.NetFigure{Bytes: 1175e6, Seconds: 10, BitsPerSecond: 940e6}}}}
	for k := range 10 {
		srv.Net.Intervals = append(srv.Net.Intervals, result.NetInterval{StartNs: int64(k) * 1e9, EndNs: int64(k+1) * 1e9,
			Sums: []result.NetIntervalFlow{{Direction: result.DirUp, BitsPerSecond: 940e6}}})
	}
	nets = append(nets, srv)
	h := doc("20261107T060000Z-http01", "net.http", 6)
	h.Targets = nil
	h.HTTP = &result.HTTP{Parameters: result.HTTPParameters{URL: "http://nas:8080/big", WindowNs: 1e9}}
	for r := range 2 {
		run := result.HTTPRun{StatusCode: 200, Bytes: 40 << 20, MiBPerSec: 10 + float64(r)}
		for w := range 4 {
			run.Windows = append(run.Windows, result.HTTPWindow{StartNs: int64(w) * 1e9, EndNs: int64(w+1) * 1e9, MiBPerSec: 10 + float64(w)/4})
		}
		h.HTTP.Runs = append(h.HTTP.Runs, run)
	}
	return append(append(docs, m, io, rnd), append(nets, h)...)
}

var hrefs = regexp.MustCompile(`href="(/[^"#]*)"`)

// everyMethodStore is a store holding everyMethod's runs, and the runs.
func everyMethodStore(t *testing.T) (*store.DB, []*result.Document) {
	t.Helper()
	s := emptyStore(t)
	docs := everyMethod()
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
	return s, docs
}

// TestEveryLinkDraws walks every link the dashboard renders, from the
// list through each run and trend page, over a store holding every
// method, and compares each pair of runs of a method: every page answers
// 200, and every run, trend and compare page draws a chart with its
// points. A trend of a sweep once answered 500.
func TestEveryLinkDraws(t *testing.T) {
	t.Parallel()
	s, docs := everyMethodStore(t)
	c := newClient(t, Options{Store: s, Version: "test"})
	seen := map[string]bool{}
	queue := []string{"/"}
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			if docs[i].Method == docs[j].Method {
				queue = append(queue, "/compare?run="+docs[i].ID+"&run="+docs[j].ID)
			}
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || strings.HasPrefix(p, "/metrics") {
			continue
		}
		seen[p] = true
		code, body := c.do("GET", p, nil, "")
		if code != 200 {
			t.Errorf("%s: %d\n%.300s", p, code, body)
			continue
		}
		if strings.HasPrefix(p, "/runs/") || strings.HasPrefix(p, "/trend") || strings.HasPrefix(p, "/compare") {
			if !strings.Contains(body, `class="chart"`) || !strings.Contains(body, `class="point"`) {
				t.Errorf("%s: no chart drawn", p)
			}
			if strings.Contains(body, "could not be drawn") {
				t.Errorf("%s: a chart could not be drawn", p)
			}
		}
		for _, m := range hrefs.FindAllStringSubmatch(body, -1) {
			queue = append(queue, html.UnescapeString(m[1]))
		}
	}
	for _, d := range docs {
		if !seen["/runs/"+d.ID] {
			t.Errorf("no link to %s", d.ID)
		}
	}
	var trends int
	for p := range seen {
		if strings.HasPrefix(p, "/trend") {
			trends++
		}
	}
	if trends < 6 {
		t.Errorf("%d trend pages linked, want one per method", trends)
	}
}

// TestDashboardPagesRead opens each kind of dashboard page (the list, a
// run, a trend, a comparison) over a store of every method in Chromium
// at 1400 and 800 px: no header word is split across lines. With
// THRUPUT_SCREENSHOTS=DIR it leaves a screenshot of each there.
func TestDashboardPagesRead(t *testing.T) {
	s, _ := everyMethodStore(t)
	c := newClient(t, Options{Store: s, Version: "test"})
	bctx := browsertest.New(t, 1400, 900)
	for name, p := range map[string]string{
		"list": "/", "run-sweep": "/runs/20261101T060000Z-sweep1", "run-mark": "/runs/20261103T060000Z-mark01",
		"run-net": "/runs/20261106T060000Z-net000", "trend-sweep": "/trend?host=pi4&method=disk.sweep",
		"trend-net": "/trend?host=pi4&method=net.client",
		"compare":   "/compare?run=20261101T060000Z-sweep1&run=20261102T060000Z-sweep2",
	} {
		browsertest.HeaderWords(t, bctx, c.url+p, "dashboard-"+name)
	}
	// Every page fills a wide window: its main column, table or charts
	// span it but for the margins. The report's column was once 770 px
	// wide whatever the window.
	for _, p := range []string{"/", "/runs/20261101T060000Z-sweep1", "/runs/20261106T070000Z-netsrv", "/trend?host=pi4&method=disk.sweep",
		"/compare?run=20261101T060000Z-sweep1&run=20261102T060000Z-sweep2"} {
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(c.url+p)); err != nil {
			t.Fatal(err)
		}
		fill, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`Math.max(...[...document.querySelectorAll('main, table, .charts')].map(e => e.getBoundingClientRect().width)) / document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if fill < 0.9 {
			t.Errorf("%s at 1400 px: its widest column is %.0f %% of the window, want it full width", p, 100*fill)
		}
	}
	// Every chart of the dashboard is as wide as every other at a given
	// window width: a trend's charts as a run's, not each at its own.
	for _, w := range browsertest.Widths {
		var widths []int
		for _, p := range []string{"/runs/20261101T060000Z-sweep1", "/trend?host=pi4&method=disk.sweep", "/trend?host=pi4&method=net.client",
			"/runs/20261106T060000Z-net000", "/compare?run=20261101T060000Z-sweep1&run=20261102T060000Z-sweep2"} {
			if err := chromedp.Do(bctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(c.url+p)); err != nil {
				t.Fatal(err)
			}
			ws, err := chromedp.Run(bctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('svg.chart')].map(s => Math.round(s.getBoundingClientRect().width))`))
			if err != nil || len(ws) == 0 {
				t.Fatalf("%s at %d px: charts %v, %v", p, w, ws, err)
			}
			widths = append(widths, ws...)
		}
		for _, x := range widths {
			if x != widths[0] || x < 400 {
				t.Errorf("at %d px the charts are %v px wide, want one width", w, widths)
				break
			}
		}
	}
}

// TestUnitsOnEveryPage: a dashboard served with --units mb shows no
// storage figure in MiB/s on the list, on a disk run's page, in its
// charts, on a comparison of two sweeps or on a disk trend; and the
// list's network summaries, written in Mbit/s, in MB/s too.
func TestUnitsOnEveryPage(t *testing.T) {
	t.Parallel()
	s, docs := everyMethodStore(t)
	c := newClient(t, Options{Store: s, Version: "test", Units: "mb"})
	pages := []string{"/", "/compare?run=20261101T060000Z-sweep1&run=20261102T060000Z-sweep2"}
	for _, d := range docs {
		if strings.HasPrefix(string(d.Method), "disk.") {
			pages = append(pages, "/runs/"+d.ID, "/trend?"+url.Values{"host": {d.Host.Hostname}, "method": {string(d.Method)}}.Encode())
		}
	}
	mib := regexp.MustCompile(`\d MiB/s|>MiB/s<`)
	for _, p := range pages {
		code, body := c.do("GET", p, nil, "")
		if code != 200 || !strings.Contains(body, "MB/s") {
			t.Errorf("%s: %d, no MB/s", p, code)
		}
		if m := mib.FindStringIndex(body); m != nil {
			t.Errorf("%s: a figure in MiB/s: %q", p, body[max(0, m[0]-80):m[1]])
		}
	}
	var net bool
	for _, d := range docs {
		net = net || d.Method == result.MethodNetClient || d.Method == result.MethodNetServer
	}
	_, body := c.do("GET", "/", nil, "")
	if !net {
		t.Fatal("the store holds no network test")
	}
	if m := regexp.MustCompile(`\d Mbit/s`).FindStringIndex(body); m != nil {
		t.Errorf("/: a network summary in Mbit/s: %q", body[max(0, m[0]-80):m[1]])
	}
}
