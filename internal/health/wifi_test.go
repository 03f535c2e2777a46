package health

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/wifi"
)

// TestNL80211Numbers holds x/sys/unix's numbers to the kernel's
// include/uapi/linux/nl80211.h (uoaerg/wavemon 0bfc3e4c605a, nl80211.h),
// counted by hand: the 62nd command after NL80211_CMD_UNSPEC (0) is
// GET_POWER_SAVE, SET_POWER_SAVE is 61; PS_STATE is attribute 93.
func TestNL80211Numbers(t *testing.T) {
	if cmdGetPowerSave != 62 || attrIfindex != 3 || attrPSState != 93 || psDisabled != 0 || psEnabled != 1 {
		t.Errorf("GET_POWER_SAVE %d IFINDEX %d PS_STATE %d PS_DISABLED %d PS_ENABLED %d, want 62 3 93 0 1",
			cmdGetPowerSave, attrIfindex, attrPSState, psDisabled, psEnabled)
	}
}

// psAnswer builds the attributes of an answer to GET_POWER_SAVE as the
// kernel's nl80211_get_power_save puts them: the interface, then the
// state. Made here: it tests the decoding only.
func psAnswer(t *testing.T, fn func(ae *netlink.AttributeEncoder)) []genetlink.Message {
	t.Helper()
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(attrIfindex, 4)
	fn(ae)
	b, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return []genetlink.Message{{Header: genetlink.Header{Command: cmdGetPowerSave}, Data: b}}
}

func TestParsePowerSave(t *testing.T) {
	for _, c := range []struct {
		name   string
		fn     func(ae *netlink.AttributeEncoder)
		on, ok bool
	}{
		{"enabled", func(ae *netlink.AttributeEncoder) { ae.Uint32(attrPSState, psEnabled) }, true, true},
		{"disabled", func(ae *netlink.AttributeEncoder) { ae.Uint32(attrPSState, psDisabled) }, false, true},
		{"no state", func(*netlink.AttributeEncoder) {}, false, false},
		{"undefined state", func(ae *netlink.AttributeEncoder) { ae.Uint32(attrPSState, 7) }, false, false},
		{"state of one byte", func(ae *netlink.AttributeEncoder) { ae.Uint8(attrPSState, 1) }, false, false},
	} {
		on, ok := parsePowerSave(psAnswer(t, c.fn))
		if on != c.on || ok != c.ok {
			t.Errorf("%s: on %v ok %v, want %v %v", c.name, on, ok, c.on, c.ok)
		}
	}
	good := psAnswer(t, func(ae *netlink.AttributeEncoder) { ae.Uint32(attrPSState, psEnabled) })
	cut := []genetlink.Message{{Data: good[0].Data[:len(good[0].Data)-2]}}
	if _, ok := parsePowerSave(cut); ok {
		t.Error("a cut attribute was read")
	}
	if _, ok := parsePowerSave(nil); ok {
		t.Error("no answer was read")
	}
}

func FuzzParsePowerSave(f *testing.F) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(attrIfindex, 4)
	ae.Uint32(attrPSState, psEnabled)
	b, _ := ae.Encode()
	f.Add(b)
	f.Add([]byte{8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		on, ok := parsePowerSave([]genetlink.Message{{Data: b}})
		if on && !ok {
			t.Error("on but not read")
		}
	})
}

// TestWiFiUnknownHere: a run on this machine, which has no WiFi board
// (nor mac80211_hwsim), that crossed an interface sysfs calls wireless
// reports the WiFi facts unknown, with no station, no zeros and no
// suspect; one that crossed loopback says nothing of WiFi.
func TestWiFiUnknownHere(t *testing.T) {
	tr := newTree(t)
	if err := os.MkdirAll(filepath.Join(tr.sys, "class/net/thruputwifi0/phy80211"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := tr.config()
	cfg.WiFi = true
	cfg.Interval = 10 * time.Millisecond
	s := Start(context.Background(), cfg)
	time.Sleep(30 * time.Millisecond)
	s.Crossed("thruputwifi0")
	h := s.Stop()
	if !slices.Contains(h.Unknown, "wifi") || h.WiFi != nil || len(h.Suspect) != 0 {
		t.Errorf("unread WiFi: unknown %v, wifi %+v, suspect %+v", h.Unknown, h.WiFi, h.Suspect)
	}

	cfg = Default()
	cfg.Kmsg = ""
	s = Start(context.Background(), cfg)
	s.Crossed("lo")
	h = s.Stop()
	if slices.Contains(h.Unknown, "wifi") || h.WiFi != nil {
		t.Errorf("loopback: unknown %v, wifi %+v", h.Unknown, h.WiFi)
	}
}

// TestWiFiSummary: the readings of a station (as mdlayher/wifi decodes
// them) become samples, the retries during the run, and power save on
// from its first reading makes the run suspect from then; readings of
// an interface the run did not cross are left out.
func TestWiFiSummary(t *testing.T) {
	on, off := true, false
	st := func(retries, failed int, mcs int) *wifi.StationInfo {
		return &wifi.StationInfo{TransmitBitrate: 144_400_000, ReceiveBitrate: 65_000_000, Signal: -58,
			TransmitRetries: retries, TransmitFailed: failed,
			TransmitRateInfo: wifi.RateInfo{ModulationType: wifi.RateModulationInfoTypeHT,
				Modulation: wifi.HTModulationInfo{BaseModulationInfo: wifi.BaseModulationInfo{MCS: mcs, NSS: 2}, HTMCS: 8 + mcs}},
			ReceiveRateInfo: wifi.RateInfo{ModulationType: wifi.RateModulationInfoTypeLegacy}}
	}
	s := newSampler(Config{})
	s.wifiReads["wlan0"] = []wifiReading{{at: 0, st: st(100, 2, 7), ps: &off}, {at: 1, st: nil, ps: nil}, {at: 2, st: st(130, 3, 5), ps: &on}}
	s.wifiReads["wlan1"] = []wifiReading{{at: 0, ps: &on}}
	s.Crossed("wlan0")
	h := s.summary()
	w := h.WiFi
	if w == nil || w.Interface != "wlan0" || len(w.Samples) != 3 {
		t.Fatalf("wifi %+v", w)
	}
	if w.PowerSave == nil || !*w.PowerSave || *w.TxRetries != 30 || *w.TxFailed != 1 {
		t.Errorf("power save %v retries %v failed %v, want on, 30, 1", w.PowerSave, *w.TxRetries, *w.TxFailed)
	}
	a, gap := w.Samples[0], w.Samples[1]
	if a.TxMbps != 144.4 || a.RxMbps != 65 || a.TxMCS == nil || *a.TxMCS != 7 || a.TxNSS != 2 || a.RxMCS != nil || a.SignalDBm != -58 || *a.TxRetries != 100 {
		t.Errorf("first sample %+v", a)
	}
	if gap.TxMbps != 0 || gap.TxMCS != nil || gap.TxRetries != nil || gap.PowerSave != nil {
		t.Errorf("an unread sample holds facts: %+v", gap)
	}
	if len(h.Suspect) != 1 || h.Suspect[0].Reason != "WiFi power save" || h.Suspect[0].AtS != 2 {
		t.Errorf("suspect %+v, want WiFi power save from 2 s", h.Suspect)
	}

	// Crossing loopback, the WiFi readings are not the run's.
	s = newSampler(Config{})
	s.wifiReads["wlan1"] = []wifiReading{{at: 0, ps: &on}}
	s.Crossed("lo")
	if h := s.summary(); h.WiFi != nil || len(h.Suspect) != 0 {
		t.Errorf("loopback run: wifi %+v suspect %+v", h.WiFi, h.Suspect)
	}
}
