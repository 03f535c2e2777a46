package ceiling

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func float(v float64) *float64 { return &v }

// pi4Health is a Pi 4 sending through a USB 3 Ethernet adapter: CPU 0 near 100 % in interrupt
// handling, all of xhci_hcd's interrupts on it.
func pi4Health() *result.Health {
	return &result.Health{
		CPUs: []result.CPUTime{
			{CPU: 0, Busy: 97, IRQ: 30, Softirq: 41, System: 20, User: 6},
			{CPU: 1, Busy: 12}, {CPU: 2, Busy: 8}, {CPU: 3, Busy: 5},
		},
		Interrupts: []result.IRQCount{
			{IRQ: "3", Name: "arch_timer", Count: 9000, TopCPU: 1, TopShare: 0.3},
			{IRQ: "46", Name: "xhci_hcd", Count: 400000, TopCPU: 0, TopShare: 0.99},
		},
		OthersCPUs: float(0.1),
	}
}

func TestCPUVerdictBelowLink(t *testing.T) {
	doc := &result.Document{Net: &result.Net{}, Health: pi4Health(), Bottlenecks: []result.Bottleneck{{
		Figure: "net up via eth1", BytesPerSec: 60e6, Limit: 0, Share: 0.5,
		Hops:    []result.Hop{{Name: "eth1", Link: "1 Gbit/s Ethernet", CeilingBytesPerSec: 118e6}},
		Verdict: "old",
	}}}
	CPU(doc)
	b := doc.Bottlenecks[0]
	want := "CPU 0 was 97 % busy (irq+softirq 71 %) for the whole test; interrupt 46 (xhci_hcd) fired 99 % on CPU 0: the receive path is bound to one core; below the link (50 % of the 1 Gbit/s Ethernet ceiling at eth1), the CPU is the bottleneck."
	if b.Verdict != want {
		t.Errorf("verdict\n%s\nwant\n%s", b.Verdict, want)
	}
	if len(b.Hops) != 2 || b.Hops[1].Name != "CPU 0" {
		t.Errorf("hops %+v", b.Hops)
	}
}

// TestCPUVerdictLineOnPath: an interrupt line is named only when it
// belongs to a device the data crossed. On loopback a virtio disk's queue
// firing on the busy core (seen on this project's CI VM) is not named;
// with the machine read, the adapter's xHCI controller is, and a disk
// controller's line is not.
func TestCPUVerdictLineOnPath(t *testing.T) {
	loop := &result.Document{Net: &result.Net{Parameters: result.NetParameters{Interface: "lo"},
		Sums: []result.NetSum{{Direction: "up", Receiver: result.NetFigure{BitsPerSecond: 56e9}}}},
		Health: &result.Health{CPUs: []result.CPUTime{{CPU: 0, Busy: 52}, {CPU: 1, Busy: 98, System: 72, Softirq: 25}},
			Interrupts: []result.IRQCount{{IRQ: "36", Name: "virtio1-req.0", Count: 900, TopCPU: 1, TopShare: 1}}}}
	CPU(loop)
	if len(loop.Bottlenecks) != 1 || strings.Contains(loop.Bottlenecks[0].Verdict, "virtio1-req.0") {
		t.Errorf("loopback: %+v", loop.Bottlenecks)
	}
	sys := &result.System{
		NetInterfaces: []result.NetInterface{{Name: "eth1", Driver: "r8152", Bus: "usb"}},
		BlockDevices:  []result.BlockDevice{{Name: "mmcblk0", Bus: "mmc"}},
	}
	for name, c := range map[string]struct {
		line string
		want bool
	}{"xhci": {"xhci_hcd", true}, "sd card": {"mmc1", false}, "eth1 itself": {"eth1", true}} {
		h := pi4Health()
		h.Interrupts[1].Name = c.line
		doc := &result.Document{Net: &result.Net{Parameters: result.NetParameters{Interface: "eth1"}}, System: sys, Health: h,
			Bottlenecks: []result.Bottleneck{{Figure: "net up via eth1", Limit: 0, Share: 0.5, Hops: []result.Hop{{Name: "eth1"}}}}}
		CPU(doc)
		if got := strings.Contains(doc.Bottlenecks[0].Verdict, "("+c.line+")"); got != c.want {
			t.Errorf("%s: line named %v, want %v: %s", name, got, c.want, doc.Bottlenecks[0].Verdict)
		}
	}
}

func TestCPUVerdictAtLinkLeavesIt(t *testing.T) {
	doc := &result.Document{Net: &result.Net{}, Health: pi4Health(), Bottlenecks: []result.Bottleneck{{
		Figure: "net up via eth0", Limit: 0, Share: 0.95, Hops: []result.Hop{{Name: "eth0"}}, Verdict: "the link",
	}}}
	CPU(doc)
	if doc.Bottlenecks[0].Verdict != "the link" {
		t.Errorf("a figure at its link's ceiling got %q", doc.Bottlenecks[0].Verdict)
	}
}

func TestCPUVerdictLoopback(t *testing.T) {
	doc := &result.Document{Net: &result.Net{Parameters: result.NetParameters{Interface: "lo"},
		Sums: []result.NetSum{{Direction: "up", Receiver: result.NetFigure{BitsPerSecond: 8e9}}}},
		Health: &result.Health{CPUs: []result.CPUTime{{CPU: 0, Busy: 40}, {CPU: 1, Busy: 99, System: 80, User: 19}}}}
	CPU(doc)
	if len(doc.Bottlenecks) != 1 {
		t.Fatalf("bottlenecks %+v", doc.Bottlenecks)
	}
	b := doc.Bottlenecks[0]
	if b.Figure != "net up via lo" || b.Verdict != "8000.0 Mbit/s: CPU 1 was 99 % busy (irq+softirq 0 %) for the whole test: the work is bound to one core." {
		t.Errorf("%+v", b)
	}
}

func TestCPUVerdictNone(t *testing.T) {
	for name, h := range map[string]*result.Health{
		// Every core busy: no one core is the limit.
		"all busy": {CPUs: []result.CPUTime{{CPU: 0, Busy: 98}, {CPU: 1, Busy: 95}}},
		"idle":     {CPUs: []result.CPUTime{{CPU: 0, Busy: 50}, {CPU: 1, Busy: 10}}, OthersCPUs: float(0.2)},
		"unknown":  {},
	} {
		doc := &result.Document{Net: &result.Net{Sums: []result.NetSum{{Direction: "up", Receiver: result.NetFigure{BitsPerSecond: 1e9}}}}, Health: h}
		CPU(doc)
		if len(doc.Bottlenecks) != 0 {
			t.Errorf("%s: %+v", name, doc.Bottlenecks)
		}
	}
}

func TestCPUVerdictQuotaAndOthers(t *testing.T) {
	h := &result.Health{OwnCPUs: float(0.2), OthersCPUs: float(1.2),
		Cgroup: &result.CgroupCPU{Version: 1, Path: "/t", QuotaCPUs: 0.2, NrThrottled: 40, ThrottledMicros: 3400000}}
	doc := &result.Document{Sweep: &result.Sweep{}, Health: h, Bottlenecks: []result.Bottleneck{{Figure: "write /mnt", Limit: -1, Hops: []result.Hop{{Name: "sda"}}, Verdict: "v"}}}
	CPU(doc)
	v := doc.Bottlenecks[0].Verdict
	for _, want := range []string{"thruput used 0.20 CPUs of its cgroup's quota of 0.20 (/t), throttled 40 times for 3.4 s: the quota holds it", "other processes used 1.2 CPUs during the run", "the CPU is the bottleneck"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
	// 90 % of the quota exactly, as the health section keeps it (to
	// hundredths), is held; a hundredth less is not.
	for own, held := range map[float64]bool{0.18: true, 0.17: false} {
		h.OwnCPUs = float(own)
		doc.Bottlenecks[0].Verdict, doc.Bottlenecks[0].Hops = "v", doc.Bottlenecks[0].Hops[:1]
		CPU(doc)
		if v := doc.Bottlenecks[0].Verdict; strings.Contains(v, "the quota holds it") != held {
			t.Errorf("own %.2f CPUs of a 0.20 quota: %q", own, v)
		}
	}
	h.Cgroup = nil
	doc.Bottlenecks[0].Verdict, doc.Bottlenecks[0].Hops = "v.", doc.Bottlenecks[0].Hops[:1]
	CPU(doc)
	if v := doc.Bottlenecks[0].Verdict; v != "v. Meanwhile other processes used 1.2 CPUs during the run." {
		t.Errorf("others alone: %q", v)
	}
}

// TestCPUVerdictSeries: the per-second readings say whether the busy core
// was busy for the whole test or part of it, and name a core busy for a
// stretch that its mean over the test hides; a stretch in which every
// core was busy names none.
func TestCPUVerdictSeries(t *testing.T) {
	loopDoc := func(h *result.Health) *result.Document {
		return &result.Document{Net: &result.Net{Parameters: result.NetParameters{Interface: "lo"},
			Sums: []result.NetSum{{Direction: "up", Receiver: result.NetFigure{BitsPerSecond: 8e9}}}}, Health: h}
	}
	at := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	// Busy 92 % on average, but at 90 % or more for 7 of the 10 s.
	h := &result.Health{BusyAtS: at, CPUs: []result.CPUTime{
		{CPU: 0, Busy: 92, System: 80, BusySeries: []float64{100, 100, 100, 100, 100, 100, 100, 75, 70, 75}},
		{CPU: 1, Busy: 10, BusySeries: []float64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}}}}
	doc := loopDoc(h)
	CPU(doc)
	if v := doc.Bottlenecks[0].Verdict; !strings.Contains(v, "CPU 0 was 92 % busy (irq+softirq 0 %) at least 90 % for 7 of 10 s of the test: the work is bound to one core") {
		t.Errorf("part of the test: %s", v)
	}
	// Every reading at 90 % or more: the whole test.
	h.CPUs[0].BusySeries = []float64{95, 90, 92, 91, 93, 90, 90, 95, 90, 94}
	doc = loopDoc(h)
	CPU(doc)
	if v := doc.Bottlenecks[0].Verdict; !strings.Contains(v, "for the whole test") {
		t.Errorf("whole test: %s", v)
	}
	// 55 % on average, at 100 % and far ahead of CPU 1 for 5 s: named
	// for that stretch, not as the bottleneck.
	h.CPUs[0].Busy, h.CPUs[0].BusySeries = 55, []float64{100, 100, 100, 100, 100, 10, 10, 10, 10, 10}
	doc = loopDoc(h)
	CPU(doc)
	if len(doc.Bottlenecks) != 1 || !strings.Contains(doc.Bottlenecks[0].Verdict, "CPU 0 was at least 90 % busy, ahead of the others, for 5 of 10 s of the test (55 % on average)") ||
		strings.Contains(doc.Bottlenecks[0].Verdict, "bound to one core") {
		t.Errorf("a stretch: %+v", doc.Bottlenecks)
	}
	// Both cores at 100 % for those 5 s: no one core stands out.
	h.CPUs[1].Busy, h.CPUs[1].BusySeries = 55, []float64{100, 100, 100, 100, 100, 10, 10, 10, 10, 10}
	doc = loopDoc(h)
	CPU(doc)
	if len(doc.Bottlenecks) != 0 {
		t.Errorf("every core busy named one: %+v", doc.Bottlenecks)
	}
}
