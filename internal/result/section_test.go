package result

import (
	"strings"
	"testing"
)

// TestSectionOf: the section is the method's, found without the method
// for a document built by hand, and an empty document has none (a true
// nil, not a typed nil pointer that would claim a section).
func TestSectionOf(t *testing.T) {
	empty := &Document{Method: MethodSweep}
	if s := empty.Section(); s != nil || len(empty.Sections()) != 0 || empty.Measured() || empty.SectionMethod() != "" {
		t.Errorf("empty document: section %v, sections %v, method %q", s, empty.Sections(), empty.SectionMethod())
	}
	n := &Net{}
	for _, c := range []struct {
		doc  *Document
		want Method
	}{
		{&Document{Method: MethodNetServer, Net: n}, MethodNetServer},
		{&Document{Method: MethodNetClient, Net: n}, MethodNetClient},
		{&Document{Net: n}, MethodNetClient},
		{&Document{IO: &IO{}}, MethodIO},
		{&Document{Method: MethodSweep, HTTP: &HTTP{}}, MethodHTTP},
	} {
		if got := c.doc.SectionMethod(); got != c.want {
			t.Errorf("%q with %v: method %q, want %q", c.doc.Method, c.doc.Section(), got, c.want)
		}
		if len(c.doc.Sections()) != 1 || c.doc.Sections()[0] != c.doc.Section() {
			t.Errorf("%q: sections %v", c.doc.Method, c.doc.Sections())
		}
	}
}

// TestRepeatsShareAKey: each repeat of disk io is a figure of its own,
// numbered, on the same group, step and metric, and a mixed job's
// directions share their run's interval in Intervals.
func TestRepeatsShareAKey(t *testing.T) {
	iv := &Interval{Mean: 1, HalfWidth: 0.01}
	dir := func(mib float64) *IODirection { return &IODirection{IOs: 1, MiBPerSec: mib, Interval: iv} }
	d := &Document{Method: MethodIO, IO: &IO{Parameters: IOParameters{RW: "randrw", BlockSize: 4096, IODepth: 1, Jobs: 1},
		Runs: []IORun{{Read: dir(1), Write: dir(2)}, {Read: dir(3), Write: dir(4)}}}}
	var got []string
	for _, f := range d.Section().Figures() {
		if f.Headline != "" {
			got = append(got, f.Group+"|"+f.Step+"|"+f.Metric)
			if f.Repeat < 1 || f.Repeat > 2 || f.Interval != iv {
				t.Errorf("%+v: repeat or interval wrong", f)
			}
		}
	}
	want := "[io read|randrw 4k Q1T1|MiB/s io write|randrw 4k Q1T1|MiB/s io read|randrw 4k Q1T1|MiB/s io write|randrw 4k Q1T1|MiB/s]"
	if s := "[" + strings.Join(got, " ") + "]"; s != want {
		t.Errorf("headlines %s, want %s", s, want)
	}
	if ivs := d.Intervals(); len(ivs) != 2 || ivs[0].Name != "run 1" || ivs[1].Name != "run 2" {
		t.Errorf("intervals %+v, want run 1 and run 2", ivs)
	}
	if !d.Measured() {
		t.Error("a job that moved data measured nothing")
	}
}

// TestSubject: a run is named by every target, else its server or URL.
func TestSubject(t *testing.T) {
	for _, tc := range []struct {
		d    Document
		want string
	}{
		{Document{Targets: []Target{{Path: "/mnt/a"}, {Path: "/mnt/b"}}, Net: &Net{}}, "/mnt/a, /mnt/b"},
		{Document{Net: &Net{Parameters: NetParameters{Server: "10.0.0.2:5201"}}}, "10.0.0.2:5201"},
		{Document{HTTP: &HTTP{Parameters: HTTPParameters{URL: "http://pi5/1G"}}}, "http://pi5/1G"},
		{Document{}, ""},
	} {
		if got := tc.d.Subject(); got != tc.want {
			t.Errorf("Subject() = %q, want %q", got, tc.want)
		}
	}
}

// TestLinkAndCrossed: the methods that measure a link are the network
// test and the download, and their sections say the interface the data
// crossed; a disk method's run crossed none.
func TestLinkAndCrossed(t *testing.T) {
	for _, m := range []Method{MethodSweep, MethodRandom, MethodIO, MethodMark, MethodCheck, MethodNetClient, MethodNetServer, MethodHTTP} {
		if want := m == MethodNetClient || m == MethodNetServer || m == MethodHTTP; m.Link() != want {
			t.Errorf("%s: Link %v, want %v", m, m.Link(), want)
		}
	}
	for _, c := range []struct {
		d    *Document
		want string
	}{
		{&Document{Method: MethodNetServer, Net: &Net{Parameters: NetParameters{Interface: "eth0"}}}, "eth0"},
		{&Document{Method: MethodHTTP, HTTP: &HTTP{Interface: "wlan0"}}, "wlan0"},
		{&Document{Method: MethodSweep, Sweep: &Sweep{}}, ""},
		{&Document{}, ""},
	} {
		if got := c.d.Crossed(); got != c.want {
			t.Errorf("%s: Crossed %q, want %q", c.d.Method, got, c.want)
		}
	}
}
