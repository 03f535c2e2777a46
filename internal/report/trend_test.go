package report

import (
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
	for _, c := range Trend([]*result.Document{tcp, &udp, &tcp2}, "") {
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
