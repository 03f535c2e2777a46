package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestHostIdentity: the report names the core where cpuinfo has no model
// (64-bit Raspberry Pi kernels) or a model that hides it, and a 32-bit
// userland on a 64-bit kernel.
func TestHostIdentity(t *testing.T) {
	for _, c := range []struct {
		h    result.Host
		want string
	}{
		{result.Host{CPUCore: "Cortex-A72"}, "Cortex-A72"},
		{result.Host{CPUModel: "ARMv7 Processor rev 4 (v7l)", CPUCore: "Cortex-A53"}, "ARMv7 Processor rev 4 (v7l) (Cortex-A53)"},
		{result.Host{CPUModel: "Intel(R) Core(TM) i5"}, "Intel(R) Core(TM) i5"},
	} {
		if got := cpuName(c.h); got != c.want {
			t.Errorf("cpuName(%+v) = %q, want %q", c.h, got, c.want)
		}
	}
	doc := &result.Document{Host: result.Host{Arch: "aarch64", UserlandArch: "arm", UserlandBits: 32, CPUCore: "Cortex-A72", CPUCores: 4}}
	facts := map[string]string{}
	for _, f := range hostFacts(doc) {
		facts[f.Name] = f.Value
	}
	if facts["Userland"] != "arm, 32-bit" || facts["CPU"] != "Cortex-A72, 4 cores" {
		t.Errorf("host facts of a 32-bit userland on a 64-bit kernel: %v", facts)
	}
	doc.Host.UserlandArch, doc.Host.UserlandBits = "aarch64", 64
	for _, f := range hostFacts(doc) {
		if f.Name == "Userland" {
			t.Errorf("a userland like its kernel is listed: %v", f)
		}
	}
}

// TestSystemIdentity: the report's system section names the card, the
// bridge chip, a USB 3 device held at 480M and a downgraded PCIe link,
// as sysinfo does.
func TestSystemIdentity(t *testing.T) {
	sys := &result.System{
		BlockDevices: []result.BlockDevice{
			{Name: "mmcblk0", Card: &result.CardIdentity{Maker: "SanDisk", Name: "SC64G", ManufacturerID: "0x03", OEMID: "0x5344", UHSClass: "U3"}},
			{Name: "nvme0n1", PCIePath: []result.PCIeLink{{Slot: "0000:01:00.0", GTs: 5, Width: 1, MaxGTs: 8, MaxWidth: 1, Downgraded: true}}},
		},
		USB: []result.USBDevice{{Path: "2-1", Parent: "usb2", SpeedMbps: 480, USBVersion: "3.20", VendorID: "152d", ProductID: "0578", Bridge: "JMicron JMS578", UASIgnored: true}},
	}
	hs := systemOf(sys, storageOf(""))
	var all strings.Builder
	for _, tb := range hs.Tables {
		for _, r := range tb.Rows {
			for _, c := range r {
				all.WriteString(fmt.Sprint(c) + "|")
			}
		}
		for _, n := range tb.Notes {
			all.WriteString(fmt.Sprint(n) + "|")
		}
	}
	for _, want := range []string{"SanDisk SC64G", "claims U3", "downgraded from 8 GT/s x1", "USB 3.20", "JMicron JMS578", "UAS off by quirk", "480M"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("system section lacks %q:\n%s", want, all.String())
		}
	}
}
