package report

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

var legendOf = regexp.MustCompile(`data-chart="([^"]*)" data-series="\d+" data-legend="([^"]*)"`)

// TestTrendSplitsProtocols: a UDP test capped with -b 50M and uncapped TCP
// tests to the same server are drawn on separate trend lines, each named
// by its protocol and cap; on one line the cap read as a collapse of the
// link. The legend, which shortens long names, must still show which is
// which. The TCP run is the frozen net.client document; the UDP run is it
// again, a day later, as UDP at 50 Mbit/s.
func TestTrendSplitsProtocols(t *testing.T) {
	tcp := frozenDocs(t)["net.client.json"]
	udp := *tcp
	n := *tcp.Net
	udp.Net = &n
	udp.ID = "20261126T171308Z-udp050"
	udp.StartedAt = tcp.StartedAt.Add(24 * time.Hour)
	udp.Net.Parameters.Protocol = "udp"
	udp.Net.Parameters.BitrateBps = 50e6
	tcp2 := *tcp
	tcp2.ID = "20261127T171308Z-tcp002"
	tcp2.StartedAt = tcp.StartedAt.Add(48 * time.Hour)

	var legend []string
	for _, c := range Trend([]*result.Document{tcp, &udp, &tcp2}, "", nil) {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		m := legendOf.FindStringSubmatch(string(svg))
		if m != nil && m[1] == "trend-net_bytes_per_second" {
			legend = strings.Split(html.UnescapeString(m[2]), "|")
		}
	}
	if legend == nil {
		t.Fatal("no trend chart of the network's rate")
	}
	var tcpLines, udpLines int
	for _, l := range legend {
		switch {
		case strings.Contains(l, "UDP -b 50M") && !strings.Contains(l, "TCP"):
			udpLines++
		case strings.Contains(l, "TCP") && !strings.Contains(l, "UDP"):
			tcpLines++
		default:
			t.Errorf("line %q names neither TCP nor UDP -b 50M alone", l)
		}
	}
	if tcpLines == 0 || udpLines == 0 {
		t.Errorf("lines %q: want TCP and UDP -b 50M on lines of their own", legend)
	}
}

// TestTrendSplitsSwappedCard: the frozen sweep three times into one mount
// path, card A twice, then card B in its place: each of its figures is
// two lines, one per card, their legends led by the serial (a legend
// shortens names from the end), so the new card's figures never continue
// the old card's line.
func TestTrendSplitsSwappedCard(t *testing.T) {
	frozen := frozenDocs(t)["disk.sweep.json"]
	var docs []*result.Document
	for i, card := range []string{"sd:03-5344-sr64g-1a2b3c4d-2018-08", "sd:03-5344-sr64g-1a2b3c4d-2018-08", "sd:03-5344-sr64g-5e6f7a8b-2019-01"} {
		d := *frozen
		d.Targets = append(d.Targets[:0:0], d.Targets...)
		d.Targets[0].Path, d.Targets[0].DeviceID = "/media/card", card
		d.ID = fmt.Sprintf("%s-%d", frozen.ID, i)
		d.StartedAt = frozen.StartedAt.Add(time.Duration(i) * 24 * time.Hour)
		docs = append(docs, &d)
	}
	var legend []string
	for _, c := range Trend(docs, "", nil) {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if m := legendOf.FindStringSubmatch(string(svg)); m != nil && m[1] == "trend-disk_sweep_bytes_per_second" {
			legend = strings.Split(html.UnescapeString(m[2]), "|")
		}
	}
	a, b := 0, 0
	for _, l := range legend {
		switch {
		case strings.HasPrefix(l, "sd …1a2b3c4d "):
			a++
		case strings.HasPrefix(l, "sd …5e6f7a8b "):
			b++
		default:
			t.Errorf("line %q names neither card", l)
		}
	}
	if a == 0 || a != b {
		t.Errorf("lines %q: want each figure once per card", legend)
	}
}
