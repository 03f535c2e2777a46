package report

import (
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
