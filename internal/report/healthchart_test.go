package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestHTMLHealthCharts: the HTML page of a network test measured while
// the board sagged under-voltage draws the event on its throughput chart,
// and a chart of each CPU's busy share beside it.
func TestHTMLHealthCharts(t *testing.T) {
	d := readDoc("net")
	d.Health = &result.Health{Seconds: 10, Samples: 11,
		CPUs:    []result.CPUTime{{CPU: 0, IRQ: 50, Softirq: 40, Busy: 96}, {CPU: 1, User: 12, Busy: 12}},
		Suspect: []result.Suspect{{Reason: "under-voltage", AtS: 4, Detail: "bit 0"}}}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*result.Document{d}, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<path class="event"`, `data-at="4"`, "<title>under-voltage from 4.0 s (bit 0)</title>", ">under-voltage from 4.0 s<",
		`data-chart="net-cpu"`, "CPU 0: 96.0 % busy"} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q on the page", want)
		}
	}
}
