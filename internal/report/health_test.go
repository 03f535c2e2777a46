package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// sagged is a Pi run that went under-voltage 2 s in and logged a USB
// reset at 7.5 s.
func sagged(d *result.Document) *result.Document {
	others := 0.3
	d.Health = &result.Health{Seconds: 10, Samples: 12,
		CPUs:       []result.CPUTime{{CPU: 0, Busy: 97, IRQ: 30, Softirq: 41}, {CPU: 1, Busy: 10}},
		OthersCPUs: &others,
		Throttled: &result.Throttled{Source: "get_throttled", Start: "0x0", End: "0x50000", Events: []result.ThrottleEvent{
			{Bit: 0, Meaning: "under-voltage detected", FirstSeenS: 2}, {Bit: 16, Meaning: "under-voltage has occurred", FirstSeenS: 2}}},
		Unknown: []string{"clocks"},
		Suspect: []result.Suspect{
			{Reason: "under-voltage", AtS: 2, Detail: "get_throttled 0x50005 bit 0: under-voltage detected"},
			{Reason: "kernel error", AtS: 7.5, Detail: "usb reset: usb 2-1: reset SuperSpeed USB device number 2 using xhci_hcd"},
		}}
	return d
}

func TestSuspectMarks(t *testing.T) {
	d := sagged(netDoc())
	d.Bottlenecks = []result.Bottleneck{{Figure: "net up via eth0", Limit: -1, Hops: []result.Hop{{Name: "eth0"}}, Verdict: "v"}}
	for _, format := range []string{"table", "markdown"} {
		var b bytes.Buffer
		if err := Write(&b, d, Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"net up via eth0 !",
			"! The figures are suspect: under-voltage from 2.0 s (get_throttled 0x50005 bit 0: under-voltage detected); kernel error from 7.5 s (usb reset: ",
			"CPU 0 97 % (irq+softirq 71 %), CPU 1 10 %",
			"get_throttled: 0x0 at the start, 0x50000 at the end; under-voltage detected from 2.0 s; under-voltage has occurred from 2.0 s",
			"unknown: clocks",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, out)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, d, Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ",suspect") || !strings.HasSuffix(lines[1], ",under-voltage from 2.0 s; kernel error from 7.5 s") {
		t.Errorf("csv:\n%s", b.String())
	}
	// A healthy run has the column, empty; a run never sampled has none.
	d.Health.Suspect = nil
	b.Reset()
	_ = Write(&b, d, Options{Format: "csv"})
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); !strings.HasSuffix(lines[0], ",suspect") || !strings.HasSuffix(lines[1], ",") {
		t.Errorf("healthy csv:\n%s", b.String())
	}
	b.Reset()
	_ = Write(&b, netDoc(), Options{Format: "table"})
	if strings.Contains(b.String(), "Health") || strings.Contains(b.String(), "suspect") {
		t.Errorf("a run without health printed some:\n%s", b.String())
	}
}

func TestSuspectCompare(t *testing.T) {
	p := &result.Previous{ID: "x", Ratio: 0.8, Figures: 2, Judged: 2, Slower: 2, Verdict: compare.Slower, Suspect: "this run"}
	if l := PreviousLine(p); !strings.HasSuffix(l, "(2 slower); ! this run suspect: faster or slower may be the machine's health, not the change") {
		t.Errorf("previous line %q", l)
	}
	a, b := channelRun("20261120T100000Z-aaaaaa", "1", 1, 1, 0, 0), sagged(channelRun("20261120T110000Z-bbbbbb", "6", 0.5, 1, 0, 0))
	c, err := compare.New([]compare.Group{{Name: a.ID, Docs: []*result.Document{a}}, {Name: b.ID, Docs: []*result.Document{b}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"; ! suspect: 20261120T110000Z-bbbbbb: suspect: under-voltage from 2.0 s", "! 20261120T110000Z-bbbbbb measured under suspect conditions"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
	if got := compare.Against(b, a); got == nil || got.Suspect != "this run" {
		t.Errorf("Against %+v", got)
	}
}

func TestSuspectHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, []*result.Document{sagged(netDoc())}, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<p class="warn">! The figures are suspect: under-voltage from 2.0 s`, "<h3>Health during the run</h3>", "<li>busy: CPU 0 97 % (irq"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWiFiLine: the WiFi station's readings in one health line, the
// ranges over the run; a reading without a fact leaves it out, and power
// save never read is unknown, not off.
func TestWiFiLine(t *testing.T) {
	seven, five, retries, failed, on := 7, 5, int64(30), int64(1), true
	w := &result.WiFiStation{Interface: "wlan0", PowerSave: &on, TxRetries: &retries, TxFailed: &failed, Samples: []result.WiFiSample{
		{AtS: 0, TxMbps: 144.4, RxMbps: 65, TxMCS: &seven, SignalDBm: -58},
		{AtS: 1},
		{AtS: 2, TxMbps: 115.6, RxMbps: 65, TxMCS: &five, SignalDBm: -61},
	}}
	lines := HealthLines(&result.Health{WiFi: w})
	want := "WiFi wlan0: tx 115.6 to 144.4 Mbit/s (MCS 5 to 7), rx 65.0 Mbit/s, signal -61 to -58 dBm, 30 tx retries, 1 failed, power save on"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("got %q\nwant %q", lines, want)
	}
	w = &result.WiFiStation{Interface: "wlan0", Samples: []result.WiFiSample{{AtS: 0, SignalDBm: -70}}}
	if got := HealthLines(&result.Health{WiFi: w}); len(got) != 1 || got[0] != "WiFi wlan0: signal -70 dBm, power save unknown" {
		t.Errorf("got %q", got)
	}
}

// TestHealthLinesClockAndNotes: the firmware's measured clock has its
// line, and a kernel error of a device the run did not use is told as a
// note beside the count.
func TestHealthLinesClockAndNotes(t *testing.T) {
	h := &result.Health{FirmwareClock: &result.FirmwareClock{MinMHz: 600, MeanMHz: 1320, MaxMHz: 1500, Samples: 5},
		Kernel: &result.KernelLog{New: 3, Matched: []result.KernelLine{
			{Pattern: "i/o error", Kind: "storage", Line: "I/O error, dev sda, sector 0", Scope: "device under test"},
			{Pattern: "i/o error", Kind: "storage", Line: "I/O error, dev sdb, sector 0", Scope: "other device"}}}}
	got := strings.Join(HealthLines(h), "\n")
	for _, want := range []string{"ARM clock the firmware measured: 600-1500 MHz, mean 1320 MHz",
		"kernel log: 3 new line(s), 2 matching an error pattern (1 of another device, not the one tested: I/O error, dev sdb, sector 0)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
