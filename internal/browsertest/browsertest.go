// Package browsertest gives tests Debian's Chromium, headless, driven
// over the DevTools protocol by chromedp, with every name resolution
// refused but loopback's, so a page reaches nothing but what the test
// serves.
package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/thruput/thruput/internal/fstest"
)

// Bin is the browser the tests use.
const Bin = "/usr/bin/chromium"

// Need skips t without Chromium, or fails it under CI.
func Need(t testing.TB) string {
	t.Helper()
	fstest.Long(t, "starts Chromium")
	if _, err := os.Stat(Bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v; CI must check the HTML pages in a browser (install the chromium package)", Bin, err)
		}
		t.Skipf("%s not found: skipping the browser check (install chromium to run it)", Bin)
	}
	return Bin
}

// New starts a browser of a window width x height for t, closed when t
// ends, and returns its context (bounded to 90 s).
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	bin := Need(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"), chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(width, height))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() { bcancel(); acancel(); cancel() })
	return bctx
}

// brokenWords is a script that lists the words of the page's table
// headers a line break splits ("statu/s", "filesyste/m"): a word is
// broken when its characters lie on more than one line.
const brokenWords = `(() => {
	const broken = [];
	for (const cell of document.querySelectorAll('thead th')) {
		const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
		for (let n = texts.nextNode(); n; n = texts.nextNode()) {
			for (const m of n.data.matchAll(/\S+/g)) {
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + m[0].length);
				const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
				if (tops.size > 1) broken.push(m[0]);
			}
		}
	}
	return broken;
})()`

// Screenshot saves the whole page as $THRUPUT_SCREENSHOTS/name.png, for
// a person to look at; without the variable it does nothing.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("THRUPUT_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Widths are the screens a page must read well on: a lab's wide screen
// and a laptop.
var Widths = []int64{1400, 800}

// HeaderWords opens url at each of Widths and fails t where a line break
// splits a word of a table header; it leaves a screenshot of each as
// Screenshot does, named name-WIDTH.
func HeaderWords(t testing.TB, ctx context.Context, url, name string) {
	t.Helper()
	for _, w := range Widths {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](brokenWords))
		if err != nil {
			t.Fatal(err)
		}
		if len(broken) > 0 {
			t.Errorf("%s at %d px: header words broken across lines: %q", name, w, broken)
		}
		Screenshot(t, ctx, name+"-"+strconv.FormatInt(w, 10))
	}
}
