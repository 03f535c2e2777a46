package result

import (
	"strings"
	"testing"
)

// TestSeriesKey: a client's series is the server it dialled, each
// direction and interface apart; a server's is the client it saw, without
// the port that changes every test; a disk run's is its targets.
func TestSeriesKey(t *testing.T) {
	client := &Document{Method: MethodNetClient, Net: &Net{Parameters: NetParameters{Role: "client", Server: "10.0.0.9:5201", Direction: "bidir", Interface: "eth0"}}}
	client.Host.Hostname = "pi4"
	server := &Document{Method: MethodNetServer, Net: &Net{Parameters: NetParameters{Role: "server", Server: ":5201", Client: "[fe80::1]:40004", Direction: DirDown}}}
	server.Host.Hostname = "srv"
	sweep := &Document{Method: MethodSweep, Targets: []Target{{Path: "/mnt/a"}, {Path: "/mnt/b"}}}
	sweep.Host.Hostname = "pi4"
	for _, c := range []struct {
		d    *Document
		want SeriesKey
	}{
		{client, SeriesKey{Method: MethodNetClient, Host: "pi4", Target: "10.0.0.9:5201", Direction: "bidir", Interface: "eth0"}},
		{server, SeriesKey{Method: MethodNetServer, Host: "srv", Target: "fe80::1", Direction: DirDown}},
		{sweep, SeriesKey{Method: MethodSweep, Host: "pi4", Target: "/mnt/a, /mnt/b"}},
	} {
		if got := c.d.SeriesKey(); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.d.Method, got, c.want)
		}
	}
}

// TestPoint: a point keeps every headline, operation rate and median of
// the run's section, the loaded phases that have a round trip, and the
// suspect reasons without the facts behind them.
func TestPoint(t *testing.T) {
	eachFrozen(t, func(f string, _ []byte, d *Document) {
		p := d.Point()
		var want []string
		if sec := d.Section(); sec != nil {
			for _, x := range sec.Figures() {
				if x.Headline != "" || x.Metric == MetricIOPS || x.Metric == MetricRequests || x.Metric == MetricP50 {
					want = append(want, x.Group+" "+x.Step+" "+x.Metric)
				}
			}
		}
		var got []string
		for _, x := range p.Figures {
			got = append(got, x.Group+" "+x.Step+" "+x.Metric)
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") || len(got) == 0 {
			t.Errorf("%s: the point's figures %q, want %q", f, got, want)
		}
		if p.ID != d.ID || !p.StartedAt.Equal(d.StartedAt) || p.Series != d.SeriesKey() {
			t.Errorf("%s: point %s at %v of %+v", f, p.ID, p.StartedAt, p.Series)
		}
	})
	d := &Document{Method: MethodNetClient, Health: &Health{Suspect: []Suspect{{Reason: "under-voltage", AtS: 2, Detail: "bit 0"}}},
		LoadLatency: &LoadLatency{Loaded: []LatencyPhase{{Phase: DirUp}, {Phase: DirDown, RTT: &Delays{P50Ns: 9e6, P50LowNs: 8e6, P50HighNs: 11e6}}}}}
	p := d.Point()
	if len(p.Suspect) != 1 || p.Suspect[0].Detail != "" || p.SuspectReasons() != d.SuspectReasons() || p.SuspectReasons() != "under-voltage from 2.0 s" {
		t.Errorf("suspect %+v, %q", p.Suspect, p.SuspectReasons())
	}
	if len(p.Loaded) != 1 || p.Loaded[0] != (PointRTT{Phase: DirDown, P50Ns: 9e6, P50LowNs: 8e6, P50HighNs: 11e6}) {
		t.Errorf("loaded %+v", p.Loaded)
	}
}
