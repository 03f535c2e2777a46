package sysinfo

import (
	"fmt"
	"strconv"
	"strings"
)

// armCores names ARM Ltd's cores (CPU implementer 0x41) by cpuinfo's "CPU
// part", as util-linux's lscpu does (sys-utils/lscpu-arm.c). Other
// implementers (Qualcomm, Apple, Nvidia) number their own parts and are
// left unnamed rather than guessed.
var armCores = map[uint64]string{
	0xb02: "ARM11 MPCore", 0xb36: "ARM1136", 0xb56: "ARM1156", 0xb76: "ARM1176",
	0xc05: "Cortex-A5", 0xc07: "Cortex-A7", 0xc08: "Cortex-A8", 0xc09: "Cortex-A9",
	0xc0d: "Cortex-A17", 0xc0e: "Cortex-A17", 0xc0f: "Cortex-A15",
	0xd01: "Cortex-A32", 0xd02: "Cortex-A34", 0xd03: "Cortex-A53", 0xd04: "Cortex-A35",
	0xd05: "Cortex-A55", 0xd06: "Cortex-A65", 0xd07: "Cortex-A57", 0xd08: "Cortex-A72",
	0xd09: "Cortex-A73", 0xd0a: "Cortex-A75", 0xd0b: "Cortex-A76", 0xd0c: "Neoverse-N1",
	0xd0d: "Cortex-A77", 0xd0e: "Cortex-A76AE", 0xd40: "Neoverse-V1", 0xd41: "Cortex-A78",
	0xd44: "Cortex-X1", 0xd46: "Cortex-A510", 0xd47: "Cortex-A710", 0xd48: "Cortex-X2",
	0xd49: "Neoverse-N2", 0xd4b: "Cortex-A78C", 0xd4d: "Cortex-A715", 0xd4e: "Cortex-X3",
	0xd80: "Cortex-A520", 0xd81: "Cortex-A720", 0xd82: "Cortex-X4", 0xd87: "Cortex-A725",
}

// coreName names the cores of cpuinfo's processor entries: "Cortex-A53",
// or "4x Cortex-A55 + 4x Cortex-A76" on a big.LITTLE chip, in the order the
// kernel lists them. parts pairs each entry's implementer and part.
func coreName(parts [][2]string) string {
	var order []string
	count := map[string]int{}
	for _, p := range parts {
		impl, err1 := strconv.ParseUint(strings.TrimPrefix(p[0], "0x"), 16, 16)
		part, err2 := strconv.ParseUint(strings.TrimPrefix(p[1], "0x"), 16, 16)
		name, ok := armCores[part]
		// A 3.x kernel prints no implementer on ARM11; its parts are ARM's.
		if err2 != nil || !ok || (err1 == nil && impl != 0x41) {
			return ""
		}
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
	}
	if len(order) == 1 {
		return order[0]
	}
	out := make([]string, len(order))
	for i, n := range order {
		out[i] = fmt.Sprintf("%dx %s", count[n], n)
	}
	return strings.Join(out, " + ")
}

// PiRevision is what a Raspberry Pi's cpuinfo Revision code says: the
// model, the SoC and the memory. The layout and tables are Raspberry Pi's
// own (raspberrypi/documentation, computers/raspberry-pi/revision-codes.adoc):
// a new-style code has bit 23 set and packs NOQuuuWuFMMMCCCCPPPPTTTTTTTTRRRR
// (revision 0-3, type 4-11, processor 12-15, maker 16-19, memory 20-22);
// the older codes before it are a plain table.
type PiRevision struct {
	Model       string
	SoC         string
	MemoryBytes int64
	// Rev is the board revision as the device tree writes it ("1.4").
	Rev string
}

// piTypes are the new-style type codes.
var piTypes = map[uint64]string{
	0x00: "Raspberry Pi Model A", 0x01: "Raspberry Pi Model B", 0x02: "Raspberry Pi Model A Plus",
	0x03: "Raspberry Pi Model B Plus", 0x04: "Raspberry Pi 2 Model B", 0x06: "Raspberry Pi Compute Module",
	0x08: "Raspberry Pi 3 Model B", 0x09: "Raspberry Pi Zero", 0x0a: "Raspberry Pi Compute Module 3",
	0x0c: "Raspberry Pi Zero W", 0x0d: "Raspberry Pi 3 Model B Plus", 0x0e: "Raspberry Pi 3 Model A Plus",
	0x10: "Raspberry Pi Compute Module 3 Plus", 0x11: "Raspberry Pi 4 Model B", 0x12: "Raspberry Pi Zero 2 W",
	0x13: "Raspberry Pi 400", 0x14: "Raspberry Pi Compute Module 4", 0x15: "Raspberry Pi Compute Module 4S",
	0x17: "Raspberry Pi 5", 0x18: "Raspberry Pi Compute Module 5", 0x19: "Raspberry Pi 500",
	0x1a: "Raspberry Pi Compute Module 5 Lite",
}

// piSoCs are the new-style processor codes. The Zero 2 W's code says
// BCM2837; its package is the RP3A0, which holds that die and the RAM.
var piSoCs = []string{"BCM2835", "BCM2836", "BCM2837", "BCM2711", "BCM2712"}

// piOld are the codes from before the new style (all BCM2835 boards):
// model, revision and megabytes of RAM.
var piOld = map[uint64]struct {
	model, rev string
	mb         int64
}{
	0x2: {"Raspberry Pi Model B", "1", 256}, 0x3: {"Raspberry Pi Model B", "1", 256},
	0x4: {"Raspberry Pi Model B", "2", 256}, 0x5: {"Raspberry Pi Model B", "2", 256},
	0x6: {"Raspberry Pi Model B", "2", 256}, 0x7: {"Raspberry Pi Model A", "2", 256},
	0x8: {"Raspberry Pi Model A", "2", 256}, 0x9: {"Raspberry Pi Model A", "2", 256},
	0xd: {"Raspberry Pi Model B", "2", 512}, 0xe: {"Raspberry Pi Model B", "2", 512},
	0xf: {"Raspberry Pi Model B", "2", 512}, 0x10: {"Raspberry Pi Model B Plus", "1.2", 512},
	0x11: {"Raspberry Pi Compute Module", "1.0", 512}, 0x12: {"Raspberry Pi Model A Plus", "1.1", 256},
	0x13: {"Raspberry Pi Model B Plus", "1.2", 512}, 0x14: {"Raspberry Pi Compute Module", "1.0", 512},
	0x15: {"Raspberry Pi Model A Plus", "1.1", 256},
}

// DecodePiRevision decodes a Revision code as cpuinfo prints it ("a02082",
// "000e", "1a01040" with the warranty bit); ok is false for a code that
// names no known board (other SoCs print 0000).
func DecodePiRevision(code string) (PiRevision, bool) {
	v, err := strconv.ParseUint(code, 16, 32)
	if err != nil || code == "" {
		return PiRevision{}, false
	}
	if v&(1<<23) == 0 {
		// Bit 24 marks a voided warranty (over-volting) on old codes too.
		o, ok := piOld[v&0xffffff]
		if !ok {
			return PiRevision{}, false
		}
		return PiRevision{Model: o.model, SoC: "BCM2835", MemoryBytes: o.mb << 20, Rev: o.rev}, true
	}
	model, ok := piTypes[v>>4&0xff]
	proc := v >> 12 & 0xf
	// Memory codes run 0 (256 MB) to 6 (16 GB).
	if !ok || int(proc) >= len(piSoCs) || v>>20&7 > 6 {
		return PiRevision{}, false
	}
	r := PiRevision{Model: model, SoC: piSoCs[proc], MemoryBytes: 256 << 20 << (v >> 20 & 7), Rev: fmt.Sprintf("1.%d", v&0xf)}
	if v>>4&0xff == 0x12 {
		r.SoC = "RP3A0"
	}
	return r, true
}

// Board is the model as the device tree names it ("Raspberry Pi 4 Model B
// Rev 1.4", "Raspberry Pi 3 Model B Plus Rev 1.3").
func (r PiRevision) Board() string { return r.Model + " Rev " + r.Rev }

// platformNames are what Raspberry Pi kernels print as cpuinfo's Hardware:
// the kernel's platform (BCM2708 for ARMv6, BCM2709 for ARMv7, BCM2710)
// on 3.x and 4.x kernels, and "BCM2835" on every model since 4.9. None of
// them names the chip of a Pi 2 or later.
var platformNames = []string{"BCM2708", "BCM2709", "BCM2710", "BCM2835"}
