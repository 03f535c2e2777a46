package health

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/thruput/thruput/internal/kfile"
)

// maxLine bounds a line of a /proc table: /proc/interrupts on a machine
// with hundreds of CPUs runs to a few kilobytes a line.
const maxLine = 256 << 10

// eachLine calls fn with every line of a file; a file that cannot be
// opened is an error (unknown), one that ends early keeps what it gave.
//
// The sampler reads through kfile, raw system calls that keep the P while
// the kernel answers: on a one-core board a read during the load then
// holds the data path up for its length, where through os a read past
// 20 µs cost the hand-over of the P to another thread and back, more than
// the read (bench/README.md, bench/health).
func eachLine(path string, fn func(string)) error {
	f, err := kfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return scanLines(f, fn)
}

func scanLines(r io.Reader, fn func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		fn(sc.Text())
	}
	return sc.Err()
}

// readValue is a one-value sysfs file without surrounding space, "" when
// it cannot be read.
func readValue(path string) string {
	b, err := kfile.ReadFile(path, maxLine+1)
	if err != nil || len(b) > maxLine {
		return ""
	}
	return strings.TrimFunc(string(b), func(r rune) bool { return r == 0 || unicode.IsSpace(r) })
}

// cpuTicks is one CPU's line of /proc/stat, in USER_HZ ticks:
//
//	cpu0 4705 356 584 3699176 23060 0 277 0 0 0
//
// user nice system idle iowait irq softirq steal guest guest_nice. Guest
// time is already counted in user and nice.
type cpuTicks struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

func (c cpuTicks) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// busy is everything but idle and iowait.
func (c cpuTicks) busy() uint64 {
	return c.user + c.nice + c.system + c.irq + c.softirq + c.steal
}

// sub is c - o, field by field; a counter that went back (a CPU taken
// offline and back resets nothing, but be safe) counts as zero.
func (c cpuTicks) sub(o cpuTicks) cpuTicks {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return cpuTicks{d(c.user, o.user), d(c.nice, o.nice), d(c.system, o.system), d(c.idle, o.idle),
		d(c.iowait, o.iowait), d(c.irq, o.irq), d(c.softirq, o.softirq), d(c.steal, o.steal)}
}

// parseStat reads the per-CPU lines of /proc/stat by CPU number; the
// "cpu" line of all CPUs is left out. Kernels before 2.6.11 wrote fewer
// columns: the missing ones stay zero.
func parseStat(r io.Reader) (map[int]cpuTicks, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxStatFile))
	out := map[int]cpuTicks{}
	parseStatBytes(b, out)
	return out, err
}

// cpuColumns reads the header of /proc/interrupts or /proc/softirqs,
// "CPU0 CPU1 CPU3", into the CPU number of each column: an offline CPU
// has no column.
func cpuColumns(header string) []int {
	var cols []int
	for _, f := range strings.Fields(header) {
		n, err := strconv.Atoi(strings.TrimPrefix(f, "CPU"))
		if !strings.HasPrefix(f, "CPU") || err != nil {
			return nil
		}
		cols = append(cols, n)
	}
	return cols
}

// irqLine is one device line of /proc/interrupts.
type irqLine struct {
	name   string
	counts map[int]uint64
}

// perCPUTable reads a table of per-CPU counters, /proc/interrupts or
// /proc/softirqs: a header naming the CPU of each column, then rows of a
// label ending in ":", a count per column, and whatever follows. fn gets
// each row whose counts all parse.
func perCPUTable(r io.Reader, fn func(label string, counts map[int]uint64, rest []string)) error {
	var cols []int
	return scanLines(r, func(line string) {
		f := strings.Fields(line)
		if cols == nil {
			cols = cpuColumns(line)
			return
		}
		label, ok := strings.CutSuffix(firstField(f), ":")
		if !ok || len(f) < 1+len(cols) {
			return
		}
		counts := map[int]uint64{}
		for i, c := range cols {
			v, err := strconv.ParseUint(f[1+i], 10, 64)
			if err != nil {
				return
			}
			counts[c] = v
		}
		fn(label, counts, f[1+len(cols):])
	})
}

// parseInterrupts reads the numbered (device) lines of /proc/interrupts
// by IRQ:
//
//	           CPU0       CPU1       CPU2       CPU3
//	46:      52814          0          0          0     GICv2 189 Level     xhci_hcd
//
// The name is what follows the chip, hardware IRQ and trigger: the
// actions, joined with ", " when the line is shared. Lines of per-CPU
// counters (LOC, IPI0, NMI) name no device and are left out.
func parseInterrupts(r io.Reader) (map[string]irqLine, error) {
	out := map[string]irqLine{}
	err := perCPUTable(r, func(irq string, counts map[int]uint64, rest []string) {
		if _, err := strconv.Atoi(irq); err == nil {
			out[irq] = irqLine{name: irqName(rest), counts: counts}
		}
	})
	return out, err
}

// irqName is what follows a line's trigger ("Level", "Edge", x86's
// "2-edge", "9-fasteoi"): the actions, which may hold spaces ("DMA IRQ",
// "mmc1, mmc0"). Without a trigger word, the last action and those
// joined to it by ", ".
func irqName(rest []string) string {
	for i := len(rest) - 2; i >= 0; i-- {
		w := strings.ToLower(rest[i])
		if w == "level" || w == "edge" || strings.HasSuffix(w, "-edge") || strings.HasSuffix(w, "-level") || strings.HasSuffix(w, "-fasteoi") {
			return strings.Join(rest[i+1:], " ")
		}
	}
	start := len(rest) - 1
	for start > 0 && strings.HasSuffix(rest[start-1], ",") {
		start--
	}
	if start < 0 {
		return ""
	}
	return strings.Join(rest[start:], " ")
}

func firstField(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// softirqsKept are the softirqs that carry data: a receive or send
// bottleneck shows in NET_RX and NET_TX, a disk's completions in BLOCK.
var softirqsKept = []string{"NET_RX", "NET_TX", "BLOCK"}

// parseSoftirqs reads /proc/softirqs rows by name, per CPU.
func parseSoftirqs(r io.Reader) (map[string]map[int]uint64, error) {
	out := map[string]map[int]uint64{}
	err := perCPUTable(r, func(name string, counts map[int]uint64, _ []string) { out[name] = counts })
	return out, err
}

// parseSelfStat reads a process's user and system time, in USER_HZ
// ticks, from /proc/PID/stat. The command name in parentheses may hold
// spaces and parentheses, so the fields are counted after the last ")":
// state is field 3, utime 14, stime 15.
func parseSelfStat(s string) (uint64, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + st, true
}
