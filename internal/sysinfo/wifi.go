package sysinfo

import (
	"github.com/mdlayher/wifi"

	"github.com/thruput/thruput/internal/result"
)

// liveWiFi asks the kernel over nl80211 (what iw uses) for each wireless
// interface's PHY rate, frequency and signal, keyed by interface name:
// /proc/net/wireless has no rate and no frequency, and the rate is what a
// WiFi figure must be set against. It is empty where nl80211 is missing
// (a container, a kernel without cfg80211) or the interface is not
// associated.
func liveWiFi() map[string]result.WiFiLink {
	out := map[string]result.WiFiLink{}
	c, err := wifi.New()
	if err != nil {
		return out
	}
	defer c.Close()
	ifis, err := c.Interfaces()
	if err != nil {
		return out
	}
	for _, ifi := range ifis {
		if ifi.Name == "" {
			continue
		}
		var w result.WiFiLink
		w.FreqMHz = ifi.Frequency
		if bss, err := c.BSS(ifi); err == nil && bss.Frequency > 0 {
			w.FreqMHz = bss.Frequency
		}
		// A station interface has one peer, its access point.
		if stations, err := c.StationInfo(ifi); err == nil && len(stations) > 0 {
			st := stations[0]
			w.TxBitrateMbps = float64(st.TransmitBitrate) / 1e6
			w.SignalDBm = st.Signal
		}
		out[ifi.Name] = w
	}
	return out
}
