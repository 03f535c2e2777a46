package chart

import (
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

var eventPath = regexp.MustCompile(`<path class="event" [^>]*data-at="([^"]*)"><title>([^<]*)</title>`)

// suspectHealth is a run that sagged under-voltage 1.5 s in and logged a
// USB reset at 2.5 s, on a Pi whose CPU 0 took the interrupts.
func suspectHealth() *result.Health {
	return &result.Health{Seconds: 3, Samples: 4,
		CPUs: []result.CPUTime{{CPU: 0, User: 10, System: 16, IRQ: 40, Softirq: 31, Busy: 97}, {CPU: 1, User: 5, System: 3, Busy: 8},
			{CPU: 2, User: 2, Busy: 2}, {CPU: 3, User: 1, Busy: 1}},
		Suspect: []result.Suspect{{Reason: "under-voltage", AtS: 1.5, Detail: "bit 0"}, {Reason: "kernel error", AtS: 2.5, Detail: "usb 2-1: reset SuperSpeed USB device"}}}
}

// TestHealthEvents: the throughput-over-time chart of a network test and
// of a download carries each suspect mark as a line at its start time,
// titled with its reason and the fact behind it and labelled with its
// reason on the plot; a network test adds a bar per CPU of its busy
// share and its interrupts' share.
func TestHealthEvents(t *testing.T) {
	net := netDoc()
	net.Health = suspectHealth()
	http := httpDoc()
	http.HTTP.Runs = http.HTTP.Runs[:1]
	http.Health = suspectHealth()
	for _, d := range []*result.Document{net, http} {
		charts, err := For([]*result.Document{d}, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]string{}
		for _, c := range charts {
			b, err := c.SVG()
			if err != nil {
				t.Fatal(err)
			}
			byName[c.Name] = string(b)
		}
		timeName := map[bool]string{true: "net", false: "http"}[d.Net != nil]
		svg := byName[timeName]
		evs := eventPath.FindAllStringSubmatch(svg, -1)
		if len(evs) != 2 || evs[0][1] != "1.5" || evs[1][1] != "2.5" ||
			evs[0][2] != "under-voltage from 1.5 s (bit 0)" || !strings.Contains(evs[1][2], "kernel error from 2.5 s (usb 2-1: reset") {
			t.Errorf("%s: events %q", timeName, evs)
		}
		for _, label := range []string{">under-voltage from 1.5 s<", ">kernel error from 2.5 s<"} {
			if !strings.Contains(svg, label) {
				t.Errorf("%s: no label %s on the plot", timeName, label)
			}
		}
		cpu, ok := byName["net-cpu"]
		if ok != (d.Net != nil) {
			t.Fatalf("%s: a CPU chart %v, want it for network tests alone", d.Method, ok)
		}
		if !ok {
			continue
		}
		titles := svgCheck(t, "net-cpu", []byte(cpu))
		if len(titles) != 8 || titles[0] != "busy, CPU 0: 97.0 % busy: user 10.0 %, system 16.0 %, irq 40.0 %, softirq 31.0 %, steal 0.0 %" ||
			titles[1] != "busy, CPU 1: 8.0 % busy: user 5.0 %, system 3.0 %, irq 0.0 %, softirq 0.0 %, steal 0.0 %" ||
			titles[4] != "irq+softirq, CPU 0: 71.0 % in irq and softirq" {
			t.Errorf("net-cpu: bars %q", titles)
		}
	}
	// A healthy run draws neither.
	charts, err := For([]*result.Document{netDoc()}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		b, _ := c.SVG()
		if c.Name == "net-cpu" || strings.Contains(string(b), `class="event"`) {
			t.Errorf("a healthy run drew %s with events or CPUs", c.Name)
		}
	}
}

// TestCPUChartOverTime: a network test whose health kept per-second
// readings draws each CPU's busy share over the test's seconds, a point
// per reading titled with its span, instead of a bar of the mean.
func TestCPUChartOverTime(t *testing.T) {
	d := netDoc()
	d.Health = &result.Health{Seconds: 3, Samples: 4, BusyAtS: []float64{0, 1, 2, 3},
		CPUs: []result.CPUTime{{CPU: 0, Busy: 70, BusySeries: []float64{100, 100, 10}}, {CPU: 1, Busy: 10, BusySeries: []float64{10, 10, 10}}}}
	charts, err := For([]*result.Document{d}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if c.Name != "net-cpu" {
			continue
		}
		b, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		titles := svgCheck(t, c.Name, b)
		want := []string{"CPU 0 0-1 s: 100.0 % busy", "CPU 0 1-2 s: 100.0 % busy", "CPU 0 2-3 s: 10.0 % busy",
			"CPU 1 0-1 s: 10.0 % busy", "CPU 1 1-2 s: 10.0 % busy", "CPU 1 2-3 s: 10.0 % busy"}
		if strings.Join(titles, "\n") != strings.Join(want, "\n") || !strings.Contains(string(b), ">seconds<") {
			t.Errorf("points %q, want %q over seconds", titles, want)
		}
		return
	}
	t.Error("no net-cpu chart")
}
