package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/browsertest"
	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

func bptr(b bool) *bool { return &b }

// hostileDoc is a sweep whose every free-text field tries to break out of
// the page, with the hardware context and a bottleneck filled in.
func hostileDoc() *result.Document {
	d := sweepDoc()
	d.ID = "20261121T053000Z-hostile"
	d.Host.Hostname = `pi<script>alert(1)</script>`
	d.Labels = map[string]string{"site": `attic"><img src=x onerror=alert(2)>`, "device": "usb-stick"}
	d.Targets[0].Path = `/media/<b>ext4</b>`
	d.Argv = []string{"thruput", "disk", "sweep", `/media/<b>ext4</b>`}
	d.Bottlenecks = methodDocs()["random"].Bottlenecks
	d.System = &result.System{
		CPU: result.CPU{CurKHz: 700000, MinKHz: 700000, MaxKHz: 1000000, Governor: "ondemand", Throttled: "0x50005", ThrottledNow: bptr(true)},
		BlockDevices: []result.BlockDevice{
			{Name: "sda", Vendor: "Seagate", Model: "Expansion", SizeBytes: 2 << 40, Rotational: bptr(true), Bus: "usb", Driver: "usb-storage", USBPath: "1-1.3", Scheduler: "mq-deadline"},
			{Name: "mmcblk0", SizeBytes: 32 << 30, Bus: "mmc", MMCCardType: "SD", MMCTiming: "sd high-speed", MMCClockHz: 50e6, MMCBusWidth: 4},
		},
		USB: []result.USBDevice{
			{Path: "usb1", Bus: 1, DevNum: 1, Ports: 1, SpeedMbps: 480, Class: "Hub", Drivers: []string{"dwc_otg", "hub"}},
			{Path: "1-1", Parent: "usb1", Bus: 1, Port: 1, DevNum: 2, Ports: 3, SpeedMbps: 480, Class: "Hub", Drivers: []string{"hub"}},
			{Path: "1-1.3", Parent: "1-1", Bus: 1, Port: 3, DevNum: 4, SpeedMbps: 480, VendorID: "0bc2", ProductID: "2322", Product: "Expansion <Desk>", Class: "Mass Storage", Drivers: []string{"usb-storage"}},
		},
		NetInterfaces: []result.NetInterface{{Name: "eth0", Driver: "smsc95xx", SpeedMbps: 100, Duplex: "full", MTU: 1500, Carrier: bptr(true), Bus: "usb", USBPath: "1-1.1"},
			{Name: "wlan0", Driver: "brcmfmac", Bus: "sdio", WiFi: &result.WiFiLink{TxBitrateMbps: 72.2, FreqMHz: 2437, Channel: 6, SignalDBm: -61}}},
		Activity: []result.DeviceActivity{{Device: "sda", BytesPerSec: 21.5e6}},
	}
	return d
}

// tagAttrs finds the tags of a page and their loading attributes.
var (
	tagRe     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	loadAttrs = regexp.MustCompile(`(?i)\s(src|srcset|href|xlink:href|action|formaction|poster|data|background|ping)\s*=\s*"([^"]*)"`)
)

// checkLoadsNothing fails on anything in a page that makes a browser fetch:
// scripts, external references, CSS imports and urls.
func checkLoadsNothing(t *testing.T, page string) {
	t.Helper()
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:">`) &&
		!strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`) {
		t.Error("page has no Content-Security-Policy meta tag")
	}
	for _, bad := range []string{"<script", "<link", "<iframe", "<object", "<embed", "<image", "@import", "url(", "@font-face"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, tag := range tagRe.FindAllString(page, -1) {
		for _, m := range loadAttrs.FindAllStringSubmatch(tag, -1) {
			if !(strings.EqualFold(m[1], "href") && strings.HasPrefix(m[2], "#")) {
				t.Errorf("tag loads or links out: %s", tag)
			}
		}
	}
}

// svgs returns the inline SVG elements of a page.
func svgs(page string) []string {
	var out []string
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			return out
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			return append(out, rest[i:])
		}
		out = append(out, rest[i:i+j+len("</svg>")])
		rest = rest[i+j:]
	}
}

func wellFormed(s string) error {
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestHTMLPage(t *testing.T) {
	docs := []*result.Document{hostileDoc()}
	for _, name := range []string{"random", "io", "mark", "net", "net-udp"} {
		docs = append(docs, methodDocs()[name])
	}
	docs = append(docs, httpDoc(), httpFailedDoc())
	docs[3].ID = "20261121T060000Z-mark" // methodDocs share an id; anchors must not
	var buf bytes.Buffer
	if err := WriteHTML(&buf, docs, nil, HTMLOptions{Units: UnitsBoth}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Errorf("page starts %.30q", page)
	}
	checkLoadsNothing(t, page)
	for _, bad := range []string{"<script>alert", "<b>ext4", `"><img`, "<Desk>"} {
		if strings.Contains(page, bad) {
			t.Errorf("document text %q went into the page unescaped", bad)
		}
	}
	for _, want := range []string{
		"pi&lt;script&gt;alert(1)&lt;/script&gt;", // hostname, escaped
		"sweep-write", "mark-mibps", "io-iops", "random-mibps", "http", // charts
		"Write, MiB/s: fsync included", "SEQ1M Q8T1", "Threads fairness", "GET http://192.168.1.10:8080/", // the text report's tables
		"lowest ceiling", "USB 2.0 high speed", // bottleneck
		"Seagate Expansion", "USB 1-1.3 480M", "sd high-speed", "brcmfmac", "throttled 0x50005", // machine
		"Run failed", "no space left on device", // status
		`id="run-20261121T060000Z-mark"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The charts of each document: sweep 2, random 2, io 2, mark 2, net 1,
	// net-udp 1, and for the short downloads (http, http-failed) each
	// repeat's rate and time to first byte, 2 each.
	ss := svgs(page)
	if len(ss) != 14 {
		t.Errorf("%d charts in the page, want 14", len(ss))
	}
	for i, s := range ss {
		if err := wellFormed(s); err != nil {
			t.Errorf("chart %d is not well-formed XML: %v", i, err)
		}
		if !strings.Contains(s, `class="point"`) {
			t.Errorf("chart %d has no data points", i)
		}
	}
	if keep := os.Getenv("THRUPUT_HTML_KEEP"); keep != "" {
		_ = os.WriteFile(filepath.Join(keep, "page-methods.html"), buf.Bytes(), 0o644)
	}
}

// TestHTMLTableGolden pins how a table prints as HTML: figures right-aligned
// with their markers, notes below.
func TestHTMLTableGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, phase := range []string{result.PhaseWrite, result.PhaseRead} {
		if err := sweepTable(sweepDoc(), phase, storageOf("")).html(&buf); err != nil {
			t.Fatal(err)
		}
	}
	matchGolden(t, "html-sweep-tables", buf.Bytes())
}

// TestWritePNGs: --png writes every chart of the page, each the chart
// of the figure of the same id, comparison included.
func TestWritePNGs(t *testing.T) {
	dir := t.TempDir()
	page, _ := browserPage(t)
	docs, cmp := browserInput(t)
	paths, err := WritePNGs(dir, "pi", docs, cmp, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	figures := regexp.MustCompile(`<figure id="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(paths) != len(figures) || len(paths) < 5 {
		t.Errorf("%d PNGs for %d charts on the page", len(paths), len(figures))
	}
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
		if i < len(figures) && filepath.Base(p) != "pi-"+figures[i][1]+".png" {
			t.Errorf("PNG %d is %s, the page's chart %d is %s", i, filepath.Base(p), i, figures[i][1])
		}
	}
}

// browserPage is a comparison of two sweep runs (two targets each, so four
// columns) followed by both runs and a network run: the page the browser
// test opens. want maps each figure's id to its data points.
// browserInput is the runs and comparison of browserPage.
func browserInput(t *testing.T) ([]*result.Document, *compare.Comparison) {
	a, b := sweepDoc(), sweepDoc()
	a.ID, b.ID = "20261121T053000Z-aaaaaa", "20261122T053000Z-bbbbbb"
	a.Labels, b.Labels = map[string]string{"fs": "ext4", "usb": "2.0"}, map[string]string{"fs": "ext4", "usb": "3.0"}
	b.StartedAt = b.StartedAt.Add(24 * time.Hour)
	for i := range b.Sweep.Steps {
		b.Sweep.Steps[i].MiBPerSec *= 1.8
	}
	n := netDoc()
	n.ID = "20261121T060000Z-netnet"
	cmp, err := compare.New([]compare.Group{{Name: "usb2", Docs: []*result.Document{a}}, {Name: "usb3", Docs: []*result.Document{b}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return []*result.Document{a, b, n}, cmp
}

func browserPage(t *testing.T) (page []byte, want map[string]int) {
	docs, cmp := browserInput(t)
	a, b, n := docs[0], docs[1], docs[2]
	var buf bytes.Buffer
	if err := WriteHTML(&buf, docs, cmp, HTMLOptions{Title: "USB 2 against USB 3 on a Pi"}); err != nil {
		t.Fatal(err)
	}
	// sweepDoc has 3 steps a phase on ext4 and 2 on tmpfs.
	return buf.Bytes(), map[string]int{
		"comparison-sweep-write": 10, "comparison-sweep-read": 10,
		"run-" + a.ID + "-sweep-write": 5, "run-" + a.ID + "-sweep-read": 5,
		"run-" + b.ID + "-sweep-write": 5, "run-" + b.ID + "-sweep-read": 5,
		"run-" + n.ID + "-net": 18, // 4 streams and 2 sums, 3 intervals
	}
}

// TestHTMLInChromium opens the comparison page in headless Chromium, with
// name resolution disabled and a network log, and checks it renders (a
// screenshot that is not blank, a DOM with every chart and its points)
// and that the page asked the network for nothing.
func TestHTMLInChromium(t *testing.T) {
	bin := browsertest.Need(t)
	page, want := browserPage(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + path
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	type out struct {
		stdout, stderr []byte
		err            error
	}
	var shot, dom out
	var wg sync.WaitGroup
	start := time.Now()
	// Two browsers at once: the screenshot and the DOM dump, each with its
	// own profile and network log.
	for _, x := range []struct {
		name string
		o    *out
		arg  []string
	}{
		{"shot", &shot, []string{"--screenshot=" + filepath.Join(dir, "shot.png"), "--window-size=1280,4000"}},
		{"dom", &dom, []string{"--dump-dom"}},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr",
				"--user-data-dir=" + filepath.Join(dir, "profile-"+x.name),
				"--log-net-log=" + filepath.Join(dir, "netlog-"+x.name+".json")}, x.arg...)
			x.o.stdout, x.o.stderr, x.o.err = runBrowser(ctx, bin, append(args, url)...)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for name, o := range map[string]out{"screenshot": shot, "dump-dom": dom} {
		if o.err != nil {
			t.Fatalf("chromium %s: %v\n%s", name, o.err, o.stderr)
		}
		// A load the CSP refused still means the page tried one.
		for _, line := range strings.Split(string(o.stderr), "\n") {
			if strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Refused to") {
				t.Errorf("chromium %s: %s", name, line)
			}
		}
	}

	checkScreenshot(t, filepath.Join(dir, "shot.png"))
	checkDOM(t, string(dom.stdout), want)
	for _, name := range []string{"shot", "dom"} {
		checkNetLog(t, filepath.Join(dir, "netlog-"+name+".json"), url)
	}
	if keep := os.Getenv("THRUPUT_HTML_KEEP"); keep != "" {
		for _, f := range []string{"page.html", "shot.png"} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
				_ = os.WriteFile(filepath.Join(keep, f), b, 0o644)
			}
		}
	}
	t.Logf("page %d bytes; chromium took %v", len(page), took.Round(time.Millisecond))
}

// runBrowser runs chromium in a process group of its own and kills the
// whole group when it returns: the browser leaves helper processes
// (zygote, GPU, network service) that would outlive a killed parent.
func runBrowser(ctx context.Context, bin string, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Start()
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	err = cmd.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return o.Bytes(), e.Bytes(), err
}

// checkScreenshot wants a PNG of the page's size that is not one colour
// and shows the charts' blue.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 3000 {
		t.Errorf("screenshot is %v, want 1280x4000", b)
	}
	colours := map[[3]uint32]bool{}
	blue := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if len(colours) < 100 {
				colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			}
			if near(r>>8, 0x00) && near(g>>8, 0x72) && near(bl>>8, 0xB2) {
				blue++
			}
		}
	}
	if len(colours) < 2 {
		t.Error("screenshot is blank: one colour")
	}
	if blue < 500 {
		t.Errorf("screenshot shows %d pixels of the charts' blue: the charts did not render", blue)
	}
}

func near(a, b uint32) bool { return a+8 >= b && a <= b+8 }

var figureRe = regexp.MustCompile(`(?s)<figure id="([^"]+)">(.*?)</figure>`)

// checkDOM wants each expected figure once, one <svg> in it, and its data
// points.
func checkDOM(t *testing.T, dom string, want map[string]int) {
	t.Helper()
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("no DOM dumped: %.200q", dom)
	}
	got := map[string]int{}
	for _, m := range figureRe.FindAllStringSubmatch(dom, -1) {
		if n := strings.Count(m[2], "<svg"); n != 1 {
			t.Errorf("figure %s holds %d <svg>", m[1], n)
		}
		got[m[1]] = strings.Count(m[2], `class="point"`)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("figure %s: %d data points rendered, want %d", id, got[id], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d figures rendered, want %d: %v", len(got), len(want), got)
	}
}

// checkNetLog reads chromium's network log and fails on any request the
// page made. Chromium itself calls home at start (component updates,
// accounts, time) whatever the flags; those carry no initiator ("not an
// origin") and fail anyway against the resolver rules. A request from
// the page has its origin as initiator: "null" for a file.
func checkNetLog(t *testing.T, path, pageURL string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int            `json:"type"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		// A log cut off when the browser exits lacks its closing.
		if err2 := json.Unmarshal(append(bytes.TrimRight(bytes.TrimSpace(b), ","), "]}"...), &log); err2 != nil {
			t.Fatalf("net log: %v", errors.Join(err, err2))
		}
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok || len(log.Events) == 0 {
		t.Fatalf("net log has no events or no URL_REQUEST_START_JOB type: is it a net log?")
	}
	browser := 0
	for _, e := range log.Events {
		u, _ := e.Params["url"].(string)
		if e.Type != start || u == "" {
			continue
		}
		init, _ := e.Params["initiator"].(string)
		switch {
		case u == pageURL:
		case init == "not an origin" && !strings.HasPrefix(u, "file:"):
			browser++
		default:
			t.Errorf("the page made a request: %s (initiator %s)", u, init)
		}
	}
	// The documents name hosts; none may show up anywhere in the log.
	for _, host := range []string{"192.168.1.", "nas.local"} {
		if bytes.Contains(b, []byte(host)) {
			t.Errorf("net log mentions %s", host)
		}
	}
	t.Logf("%s: no request from the page; %d of chromium's own", filepath.Base(path), browser)
}
