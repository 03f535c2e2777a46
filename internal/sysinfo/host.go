package sysinfo

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// Host reads the machine's facts. Each is optional: a file that cannot be
// read leaves its fact empty, so Host has no error to return.
func (fs FS) Host() result.Host {
	h := result.Host{
		Hostname:    readValue(filepath.Join(fs.Proc, "sys/kernel/hostname")),
		Kernel:      readValue(filepath.Join(fs.Proc, "sys/kernel/osrelease")),
		OS:          fs.osName(),
		MemoryBytes: fs.memTotal(),
		CPUGovernor: readValue(filepath.Join(fs.Sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor")),
		// kernel.arch (Linux 6.1 on) is uname -m, readable in a capture too.
		Arch: readValue(filepath.Join(fs.Proc, "sys/kernel/arch")),
	}
	if h.Arch == "" {
		h.Arch = fs.machine()
	}
	h.UserlandArch, h.UserlandBits = fs.userland()
	h.ProcessBits = fs.processBits()
	ci := fs.cpuinfo()
	h.CPUModel, h.CPUCore = ci.model, ci.core
	h.Revision = ci.revision
	pi, isPi := PiRevision{}, false
	if ci.revision != "" && (slices.Contains(platformNames, ci.hardware) || strings.HasPrefix(ci.boardModel, "Raspberry Pi")) {
		pi, isPi = DecodePiRevision(ci.revision)
	}
	h.Board = fs.board()
	if h.Board == "" {
		h.Board = ci.boardModel
	}
	if h.Board == "" && isPi {
		h.Board = pi.Board()
	}
	if h.Board == "" {
		h.Board = fs.dmiBoard()
	}
	h.SoC = fs.soc()
	switch {
	case h.SoC != "":
	case isPi:
		h.SoC = pi.SoC
	case !slices.Contains(platformNames, ci.hardware) && chipName().MatchString(ci.hardware):
		// Other vendors' kernels print a chip here (RK3288) or only
		// a family ("Allwinner sun8i Family", "Amlogic", "Generic DT
		// based system"), which names no chip and is left out.
		h.SoC = ci.hardware
	case ci.core == "ARM1176":
		// Only the BCM2835 has an ARM1176 among the chips that print these.
		h.SoC = "BCM2835"
	}
	fs.inferPi(&h, ci)
	if h.CPUModel == "" && !slices.Contains(h.Inferred, "cpu_core") {
		h.CPUModel = h.CPUCore
	}
	// The online list counts what the scheduler can use right now; cpuinfo
	// is only the fallback for systems without sysfs.
	h.CPUCores = countCPUs(readValue(filepath.Join(fs.Sys, "devices/system/cpu/online")))
	if h.CPUCores == 0 {
		h.CPUCores = ci.processors
	}
	return h
}

// chipName is a cpuinfo Hardware line that can name one chip: a single
// word of letters and at least three digits (BCM2711, RK3288, MSM8916).
var chipName = pattern.Lazy(`^[A-Za-z]+[0-9]{3,}[A-Za-z0-9]*$`)

// osName is PRETTY_NAME from os-release(5).
func (fs FS) osName() string {
	var name string
	_ = eachLine(filepath.Join(fs.Etc, "os-release"), func(line string) error {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			name = unquote(v)
		}
		return nil
	})
	return name
}

// shellEscapes are the escapes os-release(5) allows inside double quotes.
var shellEscapes = strings.NewReplacer(`\$`, `$`, `\"`, `"`, "\\`", "`", `\\`, `\`)

// unquote undoes os-release's shell-style quoting.
func unquote(v string) string {
	if len(v) < 2 || v[0] != v[len(v)-1] {
		return v
	}
	switch v[0] {
	case '"':
		return shellEscapes.Replace(v[1 : len(v)-1])
	case '\'':
		return v[1 : len(v)-1]
	}
	return v
}

// board names the board from the device tree (ARM boards such as the
// Raspberry Pi); "" where there is none, or where a container masks it.
func (fs FS) board() string {
	for _, p := range []string{
		filepath.Join(fs.Proc, "device-tree/model"),
		filepath.Join(fs.Sys, "firmware/devicetree/base/model"),
	} {
		if m := readValue(p); m != "" {
			return m
		}
	}
	return ""
}

// dmiBoard names a PC from DMI. Retail PC boards often leave the system
// fields as placeholders and fill only the motherboard's, so those are the
// second choice.
func (fs FS) dmiBoard() string {
	dmi := filepath.Join(fs.Sys, "class/dmi/id")
	for _, f := range [][2]string{{"sys_vendor", "product_name"}, {"board_vendor", "board_name"}} {
		if name := dmiValue(filepath.Join(dmi, f[1])); name != "" {
			return strings.TrimSpace(dmiValue(filepath.Join(dmi, f[0])) + " " + name)
		}
	}
	return ""
}

// dmiPlaceholders are values firmware vendors leave in DMI fields they did
// not fill; reporting them would pass a template off as a name.
var dmiPlaceholders = []string{
	"to be filled by o.e.m.",
	"system manufacturer",
	"system product name",
	"default string",
	"not applicable",
	"not specified",
	"o.e.m.",
	"none",
}

// dmiValue reads a DMI field, or "" when it holds a placeholder.
func dmiValue(path string) string {
	v := readValue(path)
	for _, p := range dmiPlaceholders {
		if strings.EqualFold(v, p) {
			return ""
		}
	}
	return v
}

// cpuModelKeys are the cpuinfo fields naming the processor, best first:
// x86 and 32-bit ARM kernels write "model name" (3.x ARM kernels wrote
// "Processor"), MIPS kernels "cpu model". 64-bit ARM kernels write none:
// their "Hardware" line is a platform's name, not the processor's.
var cpuModelKeys = []string{"model name", "Processor", "cpu model"}

// cpuFacts is what cpuinfo says about the processor and, on a Raspberry Pi
// kernel, the board.
type cpuFacts struct {
	model, core, hardware, revision string
	// boardModel is the "Model" line Raspberry Pi kernels copy from the
	// device tree, still there when a container masks the tree.
	boardModel string
	// processors counts the entries, 0 when the file was cut short.
	processors int
}

// cpuinfo reads /proc/cpuinfo.
func (fs FS) cpuinfo() cpuFacts {
	var c cpuFacts
	first := map[string]string{}
	var parts [][2]string
	impl := ""
	err := eachLine(filepath.Join(fs.Proc, "cpuinfo"), func(line string) error {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "processor":
			c.processors++
		case "CPU implementer":
			impl = value
		case "CPU part":
			parts = append(parts, [2]string{impl, value})
		}
		if _, seen := first[key]; !seen {
			first[key] = value
		}
		return nil
	})
	if err != nil {
		c.processors = 0
	}
	for _, k := range cpuModelKeys {
		if v := first[k]; v != "" {
			c.model = v
			break
		}
	}
	// 3.x ARM kernels wrote "Processor : ARMv6-compatible processor" and
	// counted entries by "processor" only on SMP builds.
	if c.processors == 0 && err == nil && first["Processor"] != "" {
		c.processors = 1
	}
	c.core = coreName(parts)
	c.hardware = first["Hardware"]
	c.boardModel = first["Model"]
	if r := first["Revision"]; strings.Trim(r, "0") != "" {
		c.revision = r
	}
	return c
}

// soc names the chip from the device tree's compatible list, whose last
// entry is the SoC's ("brcm,bcm2711"); "" without a device tree. The Zero
// 2 W's tree says bcm2837, the die inside its RP3A0 package.
func (fs FS) soc() string {
	for _, p := range []string{
		filepath.Join(fs.Proc, "device-tree/compatible"),
		filepath.Join(fs.Sys, "firmware/devicetree/base/compatible"),
	} {
		b := readValue(p)
		if b == "" {
			continue
		}
		entries := strings.Split(b, "\x00")
		if strings.HasPrefix(entries[0], "raspberrypi,model-zero-2") {
			return "RP3A0"
		}
		// The SoC's vendor's first entry after the board's: Amlogic
		// lists the chip before its family ("amlogic,s922x",
		// "amlogic,g12b"); the others list the chip alone.
		vendor, _, _ := strings.Cut(entries[len(entries)-1], ",")
		for _, e := range entries[min(1, len(entries)-1):] {
			if v, chip, ok := strings.Cut(e, ","); ok && v == vendor && chip != "" {
				return strings.ToUpper(chip)
			}
		}
	}
	return ""
}

// countCPUs counts the CPUs in a sysfs CPU list such as "0-3" or "0,2-5",
// giving 0 for an empty or malformed list.
func countCPUs(list string) int {
	if list == "" {
		return 0
	}
	n := 0
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		first, err1 := strconv.Atoi(lo)
		last, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || first < 0 || last < first {
			return 0
		}
		n += last - first + 1
	}
	return n
}

// memTotal is MemTotal from meminfo, in bytes.
func (fs FS) memTotal() int64 {
	var total int64
	_ = eachLine(filepath.Join(fs.Proc, "meminfo"), func(line string) error {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
				total = kb << 10
			}
		}
		return nil
	})
	return total
}
