package health

import (
	"os"
	"path/filepath"
	"time"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/wifi"
	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
)

// The nl80211 numbers the power save query uses, as x/sys/unix spells
// them. Checked against the kernel's include/uapi/linux/nl80211.h as
// vendored by uoaerg/wavemon (commit 0bfc3e4c605a, nl80211.h), counting
// the enums: NL80211_CMD_GET_POWER_SAVE is 62 (61 is SET_POWER_SAVE),
// NL80211_ATTR_IFINDEX 3, NL80211_ATTR_PS_STATE 93, and enum
// nl80211_ps_state has NL80211_PS_DISABLED 0, NL80211_PS_ENABLED 1.
// mdlayher/wifi has no getter for it; wavemon and iw ask the same way.
const (
	cmdGetPowerSave = unix.NL80211_CMD_GET_POWER_SAVE
	attrIfindex     = unix.NL80211_ATTR_IFINDEX
	attrPSState     = unix.NL80211_ATTR_PS_STATE
	psEnabled       = unix.NL80211_PS_ENABLED
	psDisabled      = unix.NL80211_PS_DISABLED
)

// wifiTimeout bounds each nl80211 exchange: a sample must not hang on
// a driver that is slow to answer.
const wifiTimeout = 500 * time.Millisecond

// wifiSource reads the WiFi stations over nl80211: the station through
// mdlayher/wifi (what iw's "station dump" reads), power save through
// its own generic netlink socket.
type wifiSource struct {
	c      *wifi.Client
	ps     *genetlink.Conn
	family genetlink.Family
	ifis   []*wifi.Interface
}

// wifiReading is one reading of one interface.
type wifiReading struct {
	at float64
	st *wifi.StationInfo
	ps *bool
}

// openWiFi opens nl80211 and lists the station interfaces; nil where
// there is none (no cfg80211, a container, no WiFi).
func openWiFi() *wifiSource {
	c, err := wifi.New()
	if err != nil {
		return nil
	}
	ifis, _ := c.Interfaces()
	w := &wifiSource{c: c}
	for _, ifi := range ifis {
		if ifi.Name != "" && ifi.Type == wifi.InterfaceTypeStation {
			w.ifis = append(w.ifis, ifi)
		}
	}
	if len(w.ifis) == 0 {
		c.Close()
		return nil
	}
	if g, err := genetlink.Dial(nil); err == nil {
		if f, err := g.GetFamily(unix.NL80211_GENL_NAME); err == nil {
			w.ps, w.family = g, f
		} else {
			g.Close()
		}
	}
	return w
}

// read reads every station interface at.
func (w *wifiSource) read(at float64, into map[string][]wifiReading) {
	for _, ifi := range w.ifis {
		r := wifiReading{at: at}
		_ = w.c.SetDeadline(time.Now().Add(wifiTimeout))
		// A station interface has one peer, its access point.
		if sts, err := w.c.StationInfo(ifi); err == nil && len(sts) > 0 {
			r.st = sts[0]
		}
		if w.ps != nil {
			if on, ok := w.powerSave(ifi.Index); ok {
				r.ps = &on
			}
		}
		into[ifi.Name] = append(into[ifi.Name], r)
	}
}

// powerSave asks nl80211 whether power save is on for the interface.
func (w *wifiSource) powerSave(index int) (on, ok bool) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(attrIfindex, uint32(index))
	b, err := ae.Encode()
	if err != nil {
		return false, false
	}
	_ = w.ps.SetDeadline(time.Now().Add(wifiTimeout))
	msgs, err := w.ps.Execute(genetlink.Message{
		Header: genetlink.Header{Command: cmdGetPowerSave, Version: w.family.Version},
		Data:   b,
	}, w.family.ID, netlink.Request)
	if err != nil {
		return false, false
	}
	return parsePowerSave(msgs)
}

// parsePowerSave reads NL80211_ATTR_PS_STATE from the answer to
// NL80211_CMD_GET_POWER_SAVE; ok is false when it is missing, malformed,
// or a state the kernel does not define.
func parsePowerSave(msgs []genetlink.Message) (on, ok bool) {
	for _, m := range msgs {
		ad, err := netlink.NewAttributeDecoder(m.Data)
		if err != nil {
			return false, false
		}
		var v uint32
		found := false
		for ad.Next() {
			if ad.Type() == attrPSState {
				v, found = ad.Uint32(), true
			}
		}
		if ad.Err() != nil {
			return false, false
		}
		if found {
			switch v {
			case psEnabled:
				return true, true
			case psDisabled:
				return false, true
			}
			return false, false
		}
	}
	return false, false
}

func (w *wifiSource) close() {
	w.c.Close()
	if w.ps != nil {
		w.ps.Close()
	}
}

// wireless reports whether the interface is a WiFi one in sysfs: a
// cfg80211 device links its phy80211, a wireless extensions one has
// wireless/.
func wireless(sys, iface string) bool {
	for _, n := range []string{"phy80211", "wireless"} {
		if _, err := os.Stat(filepath.Join(sys, "class/net", iface, n)); err == nil {
			return true
		}
	}
	return false
}

// Crossed tells the sampler the network interface the run's data
// crossed, before Stop: a WiFi one has its station in the outcome, and
// power save on makes the run suspect. A run that crossed none (disk)
// passes "".
func (s *Sampler) Crossed(iface string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.crossed = iface
	s.mu.Unlock()
}

// wifiSummary adds the crossed interface's station, when it is a WiFi
// one, to h: "wifi" unknown when it could not be read, and the suspect
// reason from the first reading with power save on.
func (s *Sampler) wifiSummary(h *result.Health) {
	if s.crossed == "" {
		return
	}
	reads := s.wifiReads[s.crossed]
	if len(reads) == 0 {
		if wireless(s.cfg.Sys, s.crossed) {
			h.Unknown = append(h.Unknown, "wifi")
		}
		return
	}
	w := &result.WiFiStation{Interface: s.crossed}
	var first, last *wifi.StationInfo
	for _, r := range reads {
		ws := result.WiFiSample{AtS: r.at, PowerSave: r.ps}
		if st := r.st; st != nil {
			if first == nil {
				first = st
			}
			last = st
			ws.TxMbps = float64(st.TransmitBitrate) / 1e6
			ws.RxMbps = float64(st.ReceiveBitrate) / 1e6
			ws.TxMCS, ws.TxNSS = mcs(st.TransmitRateInfo)
			ws.RxMCS, ws.RxNSS = mcs(st.ReceiveRateInfo)
			ws.SignalDBm = st.Signal
			ws.TxRetries = ptrInt(int64(st.TransmitRetries))
			ws.TxFailed = ptrInt(int64(st.TransmitFailed))
		}
		if r.ps != nil {
			on := *r.ps || (w.PowerSave != nil && *w.PowerSave)
			w.PowerSave = &on
			if *r.ps {
				s.suspect("WiFi power save", r.at, s.crossed+" power save on (nl80211)")
			}
		}
		w.Samples = append(w.Samples, ws)
	}
	if first == nil && w.PowerSave == nil {
		h.Unknown = append(h.Unknown, "wifi")
		return
	}
	// Counters that went down were restarted by a new association.
	if first != nil && last.TransmitRetries >= first.TransmitRetries && last.TransmitFailed >= first.TransmitFailed {
		w.TxRetries = ptrInt(int64(last.TransmitRetries - first.TransmitRetries))
		w.TxFailed = ptrInt(int64(last.TransmitFailed - first.TransmitFailed))
	}
	h.WiFi = w
}

// mcs is a rate's MCS index and spatial streams; nil for a legacy rate,
// which has none.
func mcs(r wifi.RateInfo) (*int, int) {
	if r.Modulation == nil || r.ModulationType == wifi.RateModulationInfoTypeLegacy {
		return nil, 0
	}
	m := r.Modulation.GetMCS()
	return &m, r.Modulation.GetNSS()
}

func ptrInt(v int64) *int64 { return &v }
