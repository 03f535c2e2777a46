package chart

import (
	"slices"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// context is the line under a chart's title that says what was measured
// where and when, so a PNG pasted alone into a post still says it: the
// host, each target's path, filesystem and device (or the server of a
// network test, the address of a download), and the date; for runs from
// several hosts or days, each host and the span of dates.
func context(runs []run) string {
	var hosts, what []string
	var first, last time.Time
	for _, r := range runs {
		d := r.doc
		if h := d.Host.Hostname; h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		for _, w := range measured(d) {
			if !slices.Contains(what, w) {
				what = append(what, w)
			}
		}
		if t := d.StartedAt; !t.IsZero() {
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
	}
	var parts []string
	if len(hosts) > 0 {
		parts = append(parts, strings.Join(hosts, ", "))
	}
	if len(what) > 0 && len(what) <= 3 {
		parts = append(parts, strings.Join(what, "; "))
	}
	if !first.IsZero() {
		day := first.UTC().Format(time.DateOnly)
		if l := last.UTC().Format(time.DateOnly); l != day {
			day += " to " + l
		}
		parts = append(parts, day)
	}
	return strings.Join(parts, ", ")
}

// measured names what a run measured: its targets (path, filesystem,
// device), the server of a network test or the URL of a download.
func measured(d *result.Document) []string {
	var out []string
	for _, t := range d.Targets {
		s := t.Path
		if t.FSType != "" {
			s += " " + t.FSType
		}
		if dev := t.Device; dev != "" {
			if t.DeviceModel != "" {
				dev += " " + t.DeviceModel
			}
			s += " on " + dev
		}
		out = append(out, s)
	}
	if dr := drawerOf(d); dr != nil && dr.subject != nil {
		if s := dr.subject(d); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Context is the line context writes under a chart's title, for charts
// drawn elsewhere of docs (a trend).
func Context(docs []*result.Document) string {
	runs := make([]run, len(docs))
	for i, d := range docs {
		runs[i] = run{doc: d}
	}
	return context(runs)
}

// titled adds the context line under each chart's title.
func titled(charts []*Chart, runs []run) []*Chart {
	ctx := context(runs)
	if ctx == "" {
		return charts
	}
	for _, c := range charts {
		c.Title += "\n" + ctx
		c.plot.Title.Text = strings.Join(wrap(c.Title, titleWidth), "\n")
	}
	return charts
}

// titleWidth is how many characters of the bold title fit over the plot
// beside a legend.
const titleWidth = 58

// wrap breaks each line of s after a comma or semicolon, or at a space,
// into lines of at most width characters where it can.
func wrap(s string, width int) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for len([]rune(line)) > width {
			r := []rune(line)
			cut := -1
			for i := width; i > width/3; i-- {
				if r[i] == ' ' && (r[i-1] == ',' || r[i-1] == ';') {
					cut = i
					break
				}
			}
			if cut < 0 {
				for i := width; i > 0; i-- {
					if r[i] == ' ' {
						cut = i
						break
					}
				}
			}
			if cut <= 0 {
				break
			}
			out = append(out, string(r[:cut]))
			line = string(r[cut+1:])
		}
		out = append(out, line)
	}
	return out
}
