// Package browsertest gives tests Debian's Chromium, headless, driven
// over the DevTools protocol by chromedp, with every name resolution
// refused but loopback's, so a page reaches nothing but what the test
// serves.
package browsertest

import (
	"context"
	"os"
	"path/filepath"
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
