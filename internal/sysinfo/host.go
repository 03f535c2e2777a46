package sysinfo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
)

// Host reads the machine's facts. Each is optional: a file that cannot be
// read leaves its fact empty, so Host has no error to return.
func (fs FS) Host() result.Host {
	h := result.Host{
		Hostname:    readValue(filepath.Join(fs.Proc, "sys/kernel/hostname")),
		Kernel:      readValue(filepath.Join(fs.Proc, "sys/kernel/osrelease")),
		OS:          fs.osName(),
		Board:       fs.board(),
		MemoryBytes: fs.memTotal(),
		CPUGovernor: readValue(filepath.Join(fs.Sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor")),
	}
	if fs.Live {
		var u unix.Utsname
		if unix.Uname(&u) == nil {
			h.Arch = unix.ByteSliceToString(u.Machine[:])
		}
	}
	var processors int
	var hardware string
	h.CPUModel, hardware, processors = fs.cpuinfo()
	h.SoC = fs.soc(hardware)
	// The online list counts what the scheduler can use right now; cpuinfo
	// is only the fallback for systems without sysfs.
	h.CPUCores = countCPUs(readValue(filepath.Join(fs.Sys, "devices/system/cpu/online")))
	if h.CPUCores == 0 {
		h.CPUCores = processors
	}
	return h
}

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
// Raspberry Pi) or else from DMI (PCs). Retail PC boards often leave the
// system fields as placeholders and fill only the motherboard's, so those
// are the second choice.
func (fs FS) board() string {
	for _, p := range []string{
		filepath.Join(fs.Proc, "device-tree/model"),
		filepath.Join(fs.Sys, "firmware/devicetree/base/model"),
	} {
		if m := readValue(p); m != "" {
			return m
		}
	}
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
// x86 and 32-bit ARM kernels write "model name"; arm64 kernels write none,
// but Raspberry Pi kernels add the SoC as "Hardware" and the board as
// "Model"; MIPS kernels write "cpu model".
var cpuModelKeys = []string{"model name", "Hardware", "Model", "cpu model"}

// cpuinfo returns the processor's name and the number of "processor"
// entries, 0 when the file could not be read to its end.
func (fs FS) cpuinfo() (model, hardware string, processors int) {
	first := map[string]string{}
	err := eachLine(filepath.Join(fs.Proc, "cpuinfo"), func(line string) error {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil
		}
		key = strings.TrimSpace(key)
		if key == "processor" {
			processors++
		}
		if _, seen := first[key]; !seen {
			first[key] = strings.TrimSpace(value)
		}
		return nil
	})
	if err != nil {
		processors = 0
	}
	for _, k := range cpuModelKeys {
		if v := first[k]; v != "" {
			return v, first["Hardware"], processors
		}
	}
	return "", first["Hardware"], processors
}

// soc names the chip from the device tree's compatible list, whose last
// entry is the SoC's ("brcm,bcm2711"); else the kernel's Hardware line.
func (fs FS) soc(hardware string) string {
	for _, p := range []string{
		filepath.Join(fs.Proc, "device-tree/compatible"),
		filepath.Join(fs.Sys, "firmware/devicetree/base/compatible"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		entries := strings.Split(strings.TrimRight(string(b), "\x00\n"), "\x00")
		if _, chip, ok := strings.Cut(entries[len(entries)-1], ","); ok && chip != "" {
			return strings.ToUpper(chip)
		}
	}
	return hardware
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
