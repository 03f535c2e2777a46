package serve

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/thruput/thruput/internal/browsertest"
)

// TestInChromium uses the dashboard as a person would, in Debian's
// Chromium: the list shows the saved runs, a filter narrows it, a run's
// page draws its charts, two runs ticked and compared show their ratio,
// and no page logs an error (a refused load under the CSP among them).
func TestInChromium(t *testing.T) {
	ctx := browsertest.New(t, 1280, 900)
	c := newClient(t, Options{Store: fixture(t), Version: "test"})
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console: "+string(e.Type))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, enable := range []cdp.Command[cdp.Empty, cdp.Empty]{log.Enable, runtime.Enable} {
		if _, err := chromedp.Call(ctx, enable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() []string {
		t.Helper()
		ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#runs tbody tr[data-id]')].map(r => r.dataset.id)`))
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		defer func() { t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond)) }()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	run("the list", chromedp.Navigate(c.url+"/"), chromedp.WaitVisible("#runs"))
	if ids := rows(); len(ids) != 6 || ids[0] != "20261105T060010Z-dddd06" {
		t.Errorf("the list shows %v, want the 6 runs newest first", ids)
	}
	run("a filter", chromedp.SetValue(`input[name=host]`, "pi4"), chromedp.Submit(`input[name=host]`), chromedp.WaitVisible("#runs"))
	if ids := rows(); len(ids) != 3 || strings.Join(ids, " ") != "20261103T060000Z-bbbb03 20261102T060000Z-aaaa02 20261101T060000Z-aaaa01" {
		t.Errorf("host=pi4 shows %v", ids)
	}
	run("tick and compare", chromedp.Click(`input[value="20261101T060000Z-aaaa01"]`), chromedp.Click(`input[value="20261103T060000Z-bbbb03"]`),
		chromedp.Click(`form[action="/compare"] button[type=submit]`), chromedp.WaitReady("svg.chart"))
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`0\.5[23]x|1\.9[05]x`).MatchString(text) {
		t.Errorf("the comparison of 40 and 21 MiB/s shows no ratio of 0.52x:\n%.1500s", text)
	}
	run("a run's page", chromedp.Navigate(c.url+"/runs/20261104T060000Z-cccc04"), chromedp.WaitReady("svg.chart"))
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart').length`))
	if err != nil || charts < 2 {
		t.Errorf("the run's page draws %d charts (%v), want the write and read sweeps", charts, err)
	}
	run("a trend", chromedp.Navigate(c.url+"/trend?host=pi4&method=disk.sweep"), chromedp.WaitReady("svg"))
	// Each chart of the trend has a point for each of pi4's three runs.
	points, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('svg')].map(s => s.querySelectorAll('path.point').length)`))
	if err != nil || len(points) == 0 {
		t.Errorf("the trend draws no chart: %v %v", points, err)
	}
	for i, n := range points {
		if n < 3 {
			t.Errorf("the trend's chart %d has %d points, want one for each of the 3 runs at least", i, n)
		}
	}
	run("the fleet matrix", chromedp.Navigate(c.url+"/fleet/f1"), chromedp.WaitReady("table.matrix"))
	// h1 to h2 94.1 Mbit/s, h2 to h1 93.8: a row per client, a column per
	// server.
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll('table.matrix tbody tr')].map(r => [...r.cells].map(c => c.innerText.trim()))`))
	if err != nil || len(cells) != 2 || len(cells[0]) != 3 || cells[0][0] != "h1" || cells[0][2] != "94.1" || cells[1][0] != "h2" || cells[1][1] != "93.8" {
		t.Errorf("the fleet matrix's cells: %q %v, want h1 -> h2 94.1 and h2 -> h1 93.8", cells, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the browser reported %s", p)
	}
}

// TestLabelsInChromium: with a token, a person logs in, opens a run and
// sets a label with the form on its page; the page then shows it, and
// the store holds it.
func TestLabelsInChromium(t *testing.T) {
	ctx := browsertest.New(t, 1280, 900)
	s := fixture(t)
	const token = "0123456789abcdef-token"
	c := newClient(t, Options{Store: s, Token: token, Version: "test"})
	const run = "20261104T060000Z-cccc04"
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.url+"/runs/"+run), chromedp.WaitVisible(`input[name=token]`),
		chromedp.SetValue(`input[name=token]`, token), chromedp.Submit(`input[name=token]`), chromedp.WaitVisible("#runs"),
		chromedp.Navigate(c.url+"/runs/"+run), chromedp.WaitVisible(`input[name=label]`),
		chromedp.SetValue(`input[name=label]`, "card=z"), chromedp.Submit(`input[name=label]`),
	); err != nil {
		t.Fatalf("setting a label in the browser: %v", err)
	}
	// The form's page goes away under an evaluation made while it is
	// replaced: ask again until the run's page is back.
	var shown string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && shown != "card=z"; time.Sleep(100 * time.Millisecond) {
		shown, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#labels') || {}).innerText || ""`))
	}
	if shown != "card=z" {
		txt, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText.slice(0, 300)`))
		t.Errorf("the run's page shows the labels %q, want card=z:\n%s", shown, txt)
	}
	if d, err := s.Get(run); err != nil || d.Labels["card"] != "z" {
		t.Errorf("the store holds %v %v after the form set card=z", d.Labels, err)
	}
}
