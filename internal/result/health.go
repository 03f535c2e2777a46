package result

import (
	"fmt"
	"strings"
)

// Health is what the machine did while a run measured, sampled every
// second and at the start and end (internal/health): how busy each CPU
// was and with what, which interrupt lines fired where, the clocks, the
// temperatures, the Raspberry Pi firmware's throttling, the CPU other
// processes took, thruput's own cgroup throttling and the kernel's
// complaints. A fact that could not be read is named in Unknown and its
// field left out: unknown is never written as zero.
type Health struct {
	// Seconds is the time sampled; Samples how many readings it took
	// (the start, one a second, the end).
	Seconds float64 `json:"seconds"`
	Samples int     `json:"samples"`
	// LoadS is the span the CPU times, interrupts, softirqs and own CPU
	// cover when the load began after the run (a network test's idle
	// latency probes come first); absent when they cover Seconds.
	LoadS float64 `json:"load_s,omitempty"`
	// CPUs is each CPU's time over the load, in percent of that CPU.
	CPUs []CPUTime `json:"cpus,omitempty"`
	// BusyAtS are the times of the per-second readings of /proc/stat
	// over the load, in seconds from the start: each CPU's BusySeries[i]
	// covers BusyAtS[i] to BusyAtS[i+1].
	BusyAtS []float64 `json:"busy_at_s,omitempty"`
	// Interrupts are the lines that fired most during the run, most
	// first, with their count on each CPU.
	Interrupts []IRQCount `json:"interrupts,omitempty"`
	// Softirqs are NET_RX, NET_TX and BLOCK, counted per CPU over the run.
	Softirqs []SoftirqCount `json:"softirqs,omitempty"`
	// Clocks are the cpufreq policies' clocks over the run.
	Clocks []Clock `json:"clocks,omitempty"`
	// FirmwareClock is the ARM clock the Raspberry Pi firmware measured
	// (the mailbox's GET_CLOCK_RATE_MEASURED), sampled with the rest;
	// absent where /dev/vcio cannot be read.
	FirmwareClock *FirmwareClock `json:"firmware_clock,omitempty"`
	// Temperatures are the thermal zones, in degrees Celsius.
	Temperatures []Temperature `json:"temperatures,omitempty"`
	// Throttled is the Raspberry Pi firmware's get_throttled over the run.
	Throttled *Throttled `json:"throttled,omitempty"`
	// OthersCPUs is the CPU time other processes took during the run,
	// in CPUs (1.2 is one core and a fifth); OwnCPUs thruput's own.
	OthersCPUs *float64 `json:"others_cpus,omitempty"`
	OwnCPUs    *float64 `json:"own_cpus,omitempty"`
	// Cgroup is the CPU throttling of thruput's own cgroup.
	Cgroup *CgroupCPU `json:"cgroup,omitempty"`
	// Kernel is what the kernel logged during the run.
	Kernel *KernelLog `json:"kernel,omitempty"`
	// WiFi is the station of the WiFi interface a network run crossed.
	WiFi *WiFiStation `json:"wifi,omitempty"`
	// Unknown names the facts that could not be read: "cpus",
	// "interrupts", "softirqs", "clocks", "firmware_clock",
	// "temperatures", "throttled",
	// "own_cpu", "cgroup", "kernel", and "wifi" for a WiFi interface
	// crossed whose station could not be read.
	Unknown []string `json:"unknown,omitempty"`
	// Suspect are the reasons the run's figures may not be the
	// machine's own, each with the time it began; empty when none.
	Suspect []Suspect `json:"suspect,omitempty"`
}

// CPUTime is one CPU's time over the run, each in percent of its time.
type CPUTime struct {
	CPU     int     `json:"cpu"`
	User    float64 `json:"user"`
	System  float64 `json:"system"`
	IRQ     float64 `json:"irq"`
	Softirq float64 `json:"softirq"`
	IOWait  float64 `json:"iowait"`
	Steal   float64 `json:"steal"`
	// Busy is everything but idle and iowait.
	Busy float64 `json:"busy"`
	// BusySeries is Busy for each interval between two readings
	// (Health's BusyAtS), so a core busy for part of the run shows.
	BusySeries []float64 `json:"busy_series,omitempty"`
}

// IRQCount is one interrupt line's count during the run.
type IRQCount struct {
	IRQ  string `json:"irq"`
	Name string `json:"name"`
	// Count is the sum of PerCPU.
	Count  int64   `json:"count"`
	PerCPU []int64 `json:"per_cpu"`
	// TopCPU is the CPU that took most of them, TopShare its part (0-1).
	TopCPU   int     `json:"top_cpu"`
	TopShare float64 `json:"top_share"`
}

// SoftirqCount is one softirq's count per CPU during the run.
type SoftirqCount struct {
	Name   string  `json:"name"`
	PerCPU []int64 `json:"per_cpu"`
}

// Clock is one cpufreq policy over the run.
type Clock struct {
	// Policy is "policy0"; CPUs the CPUs it clocks ("0-3").
	Policy string `json:"policy"`
	CPUs   string `json:"cpus,omitempty"`
	// Governor at the end of the run.
	Governor string `json:"governor,omitempty"`
	// MaxMHz is the policy's scaling maximum.
	MaxMHz float64 `json:"max_mhz,omitempty"`
	// MeanMHz is the mean clock from time_in_state's deltas, where the
	// kernel keeps them; MinSeenMHz and MaxSeenMHz bound scaling_cur_freq
	// as sampled (the clock the kernel asked for).
	MeanMHz    float64 `json:"mean_mhz,omitempty"`
	MinSeenMHz float64 `json:"min_seen_mhz,omitempty"`
	MaxSeenMHz float64 `json:"max_seen_mhz,omitempty"`
}

// FirmwareClock is the ARM clock the firmware measured over the run, in
// MHz: what the cores ran at, where cpufreq says what was asked for.
type FirmwareClock struct {
	MinMHz  float64 `json:"min_mhz"`
	MeanMHz float64 `json:"mean_mhz"`
	MaxMHz  float64 `json:"max_mhz"`
	// Samples is how many readings the figures come from.
	Samples int `json:"samples"`
}

// Temperature is one thermal zone over the run.
type Temperature struct {
	Zone   string  `json:"zone"`
	Type   string  `json:"type,omitempty"`
	StartC float64 `json:"start_c"`
	MaxC   float64 `json:"max_c"`
	EndC   float64 `json:"end_c"`
	// MaxAtS is when MaxC was first read, in seconds from the start.
	MaxAtS float64 `json:"max_at_s"`
}

// Throttled is get_throttled over the run.
type Throttled struct {
	// Source is the file read.
	Source string `json:"source"`
	// Start and End are the bit field at the start and end ("0x50005").
	Start string `json:"start"`
	End   string `json:"end"`
	// Events are the bits seen set during the run, in bit order.
	Events []ThrottleEvent `json:"events,omitempty"`
}

// ThrottleEvent is one get_throttled bit seen set during the run.
type ThrottleEvent struct {
	Bit     int    `json:"bit"`
	Meaning string `json:"meaning"`
	// AtStart is set when the bit was already set as the run began.
	AtStart bool `json:"at_start,omitempty"`
	// FirstSeenS is when it was first seen, in seconds from the start.
	FirstSeenS float64 `json:"first_seen_s"`
}

// CgroupCPU is the CPU controller of thruput's own cgroup over the run.
type CgroupCPU struct {
	// Version is 1 or 2; Path the cgroup ("/user.slice/...").
	Version int    `json:"version"`
	Path    string `json:"path"`
	// QuotaCPUs is the quota in CPUs (0.2 for 20 ms a 100 ms period);
	// absent when there is none.
	QuotaCPUs float64 `json:"quota_cpus,omitempty"`
	// Periods in which the group was throttled, and for how long, during
	// the run.
	NrThrottled     int64 `json:"nr_throttled"`
	ThrottledMicros int64 `json:"throttled_us"`
}

// KernelLog is what the kernel logged during the run (/dev/kmsg).
type KernelLog struct {
	// New is how many lines it logged.
	New int `json:"new_lines"`
	// Matched are the lines that match a known error pattern.
	Matched []KernelLine `json:"matched,omitempty"`
	// Lost is set when lines were overwritten before they were read.
	Lost bool `json:"lost,omitempty"`
}

// KernelLine is a kernel log line that matches an error pattern.
type KernelLine struct {
	// AtS is when it was read, in seconds from the start.
	AtS float64 `json:"at_s"`
	// Pattern names the pattern ("usb reset"); Kind is storage, usb,
	// network or power.
	Pattern string `json:"pattern"`
	Kind    string `json:"kind"`
	Line    string `json:"line"`
	// Scope is "device under test" (the line names a device the run's
	// data crossed), "machine" (power, or the USB host controller dying)
	// or "other device"; only the first two make the run suspect, the
	// last is a note.
	Scope string `json:"scope,omitempty"`
}

// WiFiStation is the WiFi station (the link to its access point) that a
// network run crossed, read over nl80211 at the start, every sample and
// the end.
type WiFiStation struct {
	Interface string `json:"interface"`
	// PowerSave is set when power save was on at any reading; absent
	// when it could not be read at all.
	PowerSave *bool `json:"power_save,omitempty"`
	// TxRetries and TxFailed are the station's transmit retries and
	// failures during the run (its counters at the end less the start);
	// absent when either end could not be read.
	TxRetries *int64 `json:"tx_retries,omitempty"`
	TxFailed  *int64 `json:"tx_failed,omitempty"`
	// Samples are the readings, in order.
	Samples []WiFiSample `json:"samples"`
}

// WiFiSample is one reading of a WiFi station; a fact the driver did
// not give, or that could not be read, is left out.
type WiFiSample struct {
	// AtS is when it was read, in seconds from the start.
	AtS float64 `json:"at_s"`
	// TxMbps and RxMbps are the PHY bitrates of the last frames sent and
	// received.
	TxMbps float64 `json:"tx_mbps,omitempty"`
	RxMbps float64 `json:"rx_mbps,omitempty"`
	// TxMCS, RxMCS are the MCS index per spatial stream (HT's 0-31
	// index is split into MCS 0-7 and the streams), TxNSS, RxNSS the
	// spatial streams; absent for legacy rates.
	TxMCS *int `json:"tx_mcs,omitempty"`
	TxNSS int  `json:"tx_nss,omitempty"`
	RxMCS *int `json:"rx_mcs,omitempty"`
	RxNSS int  `json:"rx_nss,omitempty"`
	// SignalDBm is the signal of the last frame received.
	SignalDBm int `json:"signal_dbm,omitempty"`
	// TxRetries and TxFailed are the station's counters since it
	// associated.
	TxRetries *int64 `json:"tx_retries,omitempty"`
	TxFailed  *int64 `json:"tx_failed,omitempty"`
	// PowerSave is whether power save was on.
	PowerSave *bool `json:"power_save,omitempty"`
}

// Suspect is one reason a run's figures may not be the machine's own.
type Suspect struct {
	// Reason is "under-voltage", "throttled", "frequency capped", "soft
	// temperature limit", "clock below maximum", "firmware clock below
	// cpufreq", "kernel error", "WiFi power save".
	Reason string `json:"reason"`
	// AtS is when it began, in seconds from the start of sampling.
	AtS float64 `json:"at_s"`
	// Detail is the fact behind it: the bit, the clock, the log line.
	Detail string `json:"detail"`
}

// Suspect reports whether the run's figures are suspect: measured under
// under-voltage, throttling, a temperature limit, a lowered clock, a
// kernel error or WiFi power save.
func (d *Document) Suspect() bool {
	return d.Health != nil && len(d.Health.Suspect) > 0
}

// SuspectNote is the one line that says why a run is suspect ("suspect:
// under-voltage at 3.0 s (bit 0); kernel error at 7.2 s (...)"), or "".
func (d *Document) SuspectNote() string {
	if !d.Suspect() {
		return ""
	}
	var parts []string
	for _, s := range d.Health.Suspect {
		parts = append(parts, fmt.Sprintf("%s from %.1f s (%s)", s.Reason, s.AtS, s.Detail))
	}
	return "suspect: " + strings.Join(parts, "; ")
}

// SuspectReasons are the reasons with the time each began, without the
// facts behind them: "under-voltage from 2.0 s; kernel error from 7.5 s".
func (d *Document) SuspectReasons() string {
	if d.Health == nil {
		return ""
	}
	return suspectReasons(d.Health.Suspect)
}

func suspectReasons(ss []Suspect) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%s from %.1f s", s.Reason, s.AtS))
	}
	return strings.Join(parts, "; ")
}

// SuspectMark is the symbol the tables put beside a suspect figure, with
// the footnote that SuspectNote spells out.
const SuspectMark = "!"
