// Package result defines the result document every thruput run produces: one
// envelope (tool, run, host, targets) with a section per measurement method.
// It is the single contract between the engines that measure, the store that
// keeps runs and the reporters that print them; docs/result-json.md documents
// every field, and a field once published is never renamed.
//
// A fact that could not be read is left out of the JSON (omitempty), never
// written as zero: absent means unknown.
package result

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is bumped when a field changes meaning or is removed. Adding a
// field does not bump it.
const FormatVersion = 1

// Status values of a run.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// StatusPartial is a run that failed part-way: it keeps what it
	// measured before the failure, which Error names.
	StatusPartial = "partial"
)

// Document is one run of one method.
type Document struct {
	// FormatVersion of this document; see FormatVersion.
	FormatVersion int `json:"format_version"`
	// Tool that produced the document.
	Tool Tool `json:"tool"`
	// ID identifies the run; the scratch directory of a disk run is named
	// .thruput-<ID>.
	ID string `json:"id"`
	// Method is the measurement method, e.g. MethodSweep.
	Method Method `json:"method"`
	// Argv is the command line as typed, program name first.
	Argv []string `json:"argv"`
	// StartedAt and EndedAt bound the whole run, in UTC.
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// Status is "ok", "partial" (failed part-way), "failed" or
	// "interrupted"; with anything but "ok" the measurements hold what was
	// gathered before the failure, and Error says what it was.
	Status string `json:"status"`
	// Error says what went wrong when Status is not "ok".
	Error string `json:"error,omitempty"`
	// Host is the machine the run measured from.
	Host Host `json:"host"`
	// Targets are the directories (or later, network peers) measured; steps
	// refer to them by index.
	Targets []Target `json:"targets"`
	// Sweep holds the block-size sweep of MethodSweep.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Random holds the random file I/O of MethodRandom.
	Random *Random `json:"random,omitempty"`
	// IO holds the queue-depth job of MethodIO.
	IO *IO `json:"io,omitempty"`
	// Mark holds the four presets of MethodMark.
	Mark *Mark `json:"mark,omitempty"`
	// Check holds the card check of MethodCheck.
	Check *Check `json:"check,omitempty"`
	// Net holds the network test of MethodNetClient and MethodNetServer.
	Net *Net `json:"net,omitempty"`
	// HTTP holds the download of MethodHTTP.
	HTTP *HTTP `json:"http,omitempty"`
	// LoadLatency is the latency under load a network test measured
	// beside its throughput.
	LoadLatency *LoadLatency `json:"latency_under_load,omitempty"`
	// System is the hardware the data crossed: buses, hubs, disks,
	// interfaces, as thruput sysinfo reads them.
	System *System `json:"system,omitempty"`
	// Bottlenecks explain the run's main figures against the ceilings of
	// the links they crossed.
	Bottlenecks []Bottleneck `json:"bottlenecks,omitempty"`
	// Health is what the CPUs, clocks, power supply and kernel did while
	// the run measured, and why its figures may be suspect.
	Health *Health `json:"health,omitempty"`
	// Labels are the user's key=value tags (device, fs, channel, site ...)
	// from --label, which the store filters on and compare groups by.
	Labels map[string]string `json:"labels,omitempty"`
	// Imported is set on a document converted from another tool's output
	// (fio, iperf3, sysbench) by thruput results import; absent on
	// thruput's own runs.
	Imported *Imported `json:"imported,omitempty"`
	// Previous sets the run against the last comparable one in the store
	// when it was made (same method, host, target, hardware and
	// parameters); absent with --no-compare or when there was none.
	Previous *Previous `json:"previous,omitempty"`
}

// Previous is how a run compares with the last comparable run.
type Previous struct {
	ID        string    `json:"id"`
	StartedAt time.Time `json:"started_at"`
	// Ratio is the geometric mean of this run's headline rates over the
	// previous run's, over the Figures both measured.
	Ratio   float64 `json:"ratio"`
	Figures int     `json:"figures"`
	// Judged of the Figures had a 95 % interval (or repeats) on both
	// sides; Faster and Slower of those moved beyond it, up and down.
	Judged int `json:"judged"`
	Faster int `json:"faster"`
	Slower int `json:"slower"`
	// Verdict is "within noise" (every figure judged and within its
	// intervals), "within noise where judged" (the others had no
	// interval), "faster beyond noise", "slower beyond noise", "faster
	// and slower beyond noise" (some judged figures moved, in those
	// directions), or "no interval to judge by" (none could be judged).
	Verdict string `json:"verdict"`
	// Suspect is "this run", "the previous run" or "both runs" when
	// either was measured under suspect conditions (Document.Suspect):
	// then faster or slower may be the machine's health, not the change.
	Suspect string `json:"suspect,omitempty"`
}

// Imported says where a converted document came from.
type Imported struct {
	// Tool is "fio", "iperf3", "sysbench", "dd", "wget", "curl", "iozone",
	// "hdparm", "kdiskmark", "crystaldiskmark" or "pibenchmarks";
	// Version is the version its output names, when it names one.
	Tool    string `json:"tool"`
	Version string `json:"version,omitempty"`
	// File is the path given to import, as given.
	File string `json:"file,omitempty"`
	// Note says how a run read from a transcript (dd, wget, curl) differs
	// from one measured: what the text gave and what it could not.
	Note string `json:"note,omitempty"`
	// Unstated names the parameters the output did not state whose type
	// has no absent value: `direct` (a bool, left false), `rw` (which
	// then holds only the directions that moved data, read, write or rw),
	// `time_ns` and a disk mark's `size` and `duration_ns` (left 0, which
	// would otherwise read as unbounded).
	// Renderers print them as unknown; no reader should take them for facts.
	Unstated []string `json:"unstated,omitempty"`
}

// States is false when an imported run's output did not state the
// parameter named as its JSON field (Unstated); thruput's own runs state
// all of theirs.
func (i *Imported) States(field string) bool {
	return i == nil || !slices.Contains(i.Unstated, field)
}

// Tool names the program and build that produced a document.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	// Platform is GOOS/GOARCH, with the ARM level for 32-bit ARM (linux/arm/v6).
	Platform string `json:"platform"`
	// Commit and BuildDate (RFC 3339, the commit's own date, so that a
	// build is reproducible) are set on a release build.
	Commit    string `json:"commit,omitempty"`
	BuildDate string `json:"build_date,omitempty"`
}

// Host describes the machine a run was made on.
type Host struct {
	Hostname string `json:"hostname,omitempty"`
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel,omitempty"`
	// OS is the distribution's PRETTY_NAME from os-release.
	OS string `json:"os,omitempty"`
	// Arch is the kernel's machine name (uname -m), e.g. armv6l, aarch64.
	Arch string `json:"arch,omitempty"`
	// UserlandArch is the architecture of the programs (the ELF machine of
	// /bin/sh): "arm" under a 64-bit kernel is a 32-bit userland.
	UserlandArch string `json:"userland_arch,omitempty"`
	// UserlandBits is /bin/sh's ELF class, 32 or 64.
	UserlandBits int `json:"userland_bits,omitempty"`
	// ProcessBits is the width of the thruput build that read the machine
	// (32 for GOARCH arm or 386; a capture keeps it): 32 beside a 64-bit
	// Arch is a 32-bit process on a 64-bit kernel, whose system calls
	// (io_uring's too) go through the kernel's compat layer, whatever
	// /bin/sh is.
	ProcessBits int `json:"process_bits,omitempty"`
	// Board is the device-tree model ("Raspberry Pi Model B Rev 2"), else
	// a Raspberry Pi kernel's cpuinfo Model line, else the model its
	// Revision code names, else on PCs the DMI vendor and product name.
	Board string `json:"board,omitempty"`
	// SoC is the system on a chip: the device tree's last compatible
	// entry (BCM2711, JH7110; RP3A0 for the Zero 2 W), else the one a
	// Raspberry Pi's Revision code names, else cpuinfo's Hardware line
	// unless that is a Raspberry Pi platform name (BCM2708, BCM2709,
	// BCM2835 on every model), which names no chip.
	SoC string `json:"soc,omitempty"`
	// Revision is a Raspberry Pi's cpuinfo Revision code as printed
	// ("a02082"): it encodes the model, SoC, memory and maker.
	Revision string `json:"revision,omitempty"`
	// CPUModel is the processor's model name (cpuinfo "model name"), or
	// the core where the kernel prints none (64-bit ARM).
	CPUModel string `json:"cpu_model,omitempty"`
	// CPUCore names the ARM core from cpuinfo's CPU part: "Cortex-A53",
	// "ARM1176", "4x Cortex-A55 + 4x Cortex-A76" on big.LITTLE chips.
	CPUCore string `json:"cpu_core,omitempty"`
	// CPUCores counts online logical CPUs.
	CPUCores int `json:"cpu_cores,omitempty"`
	// MemoryBytes is MemTotal from /proc/meminfo.
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// CPUGovernor is CPU 0's frequency governor (ondemand, powersave ...):
	// a governor that keeps the clock low slows every small-block figure.
	CPUGovernor string `json:"cpu_governor,omitempty"`
	// Inferred names the facts above, by their JSON names ("soc",
	// "cpu_core", "arch", "userland_arch", "userland_bits"), that the
	// machine did not state but were worked out from others, as on a
	// capture without cpuinfo or device tree; InferredFrom says from what
	// ("kernel release suffix -v7+", "peripheral address 3f980000",
	// "cpuinfo model name (v8l)"). Both absent when every fact was read.
	Inferred     []string `json:"inferred,omitempty"`
	InferredFrom []string `json:"inferred_from,omitempty"`
}

// Target describes one directory a disk method wrote into.
type Target struct {
	// Path is the directory as given, made absolute.
	Path string `json:"path"`
	// FSType is the filesystem type from the mount table (ext4, xfs, tmpfs,
	// fuseblk ...), refined for FUSE mounts where the mount says more.
	FSType string `json:"fs_type,omitempty"`
	// MountPoint is the mount point containing Path.
	MountPoint string `json:"mount_point,omitempty"`
	// MountOptions are the per-mount and superblock options, comma-separated.
	MountOptions string `json:"mount_options,omitempty"`
	// MountSource is the mount's source field (a device path, an image
	// file for FUSE, "tmpfs").
	MountSource string `json:"mount_source,omitempty"`
	// Device is the whole block device backing the filesystem (sda, mmcblk0,
	// loop3), when there is one.
	Device string `json:"device,omitempty"`
	// Partition is the partition holding the filesystem (sda1), if any.
	Partition string `json:"partition,omitempty"`
	// DeviceModel is the vendor and model the device reports.
	DeviceModel string `json:"device_model,omitempty"`
	// DeviceID names the hardware itself (an SD card's CID, a disk's
	// WWN or serial, a USB bridge's ids): see ParseDeviceID for its
	// forms. Absent where the device has none (a loop device, tmpfs).
	DeviceID string `json:"device_id,omitempty"`
	// LoopBackingFile is the file behind a loop device.
	LoopBackingFile string `json:"loop_backing_file,omitempty"`
	// LogicalBlockSize of the device in bytes.
	LogicalBlockSize int `json:"logical_block_size,omitempty"`
	// Rotational is true for spinning disks, false for flash.
	Rotational *bool `json:"rotational,omitempty"`
	// FreeBytes available to the run before it started.
	FreeBytes int64 `json:"free_bytes,omitempty"`
	// Compression is the filesystem's transparent compression (btrfs
	// compress=zstd:3 ...), which makes zeros look fast; absent when none
	// is configured.
	Compression string `json:"compression,omitempty"`
	// OverlayUpperFS is the filesystem type under an overlay's upper
	// directory: "tmpfs" for raspi-config's overlay root, whose writes land
	// in RAM.
	OverlayUpperFS string `json:"overlay_upper_fs,omitempty"`
}

// Label is how progress lines name a target: filesystem type and path.
func (t Target) Label() string {
	if t.FSType == "" {
		return t.Path
	}
	return t.FSType + " " + t.Path
}

// TargetLabels names each target by its filesystem type, as dd loop
// comparison tables head their columns (a FUSE mount by its daemon: fusefat),
// numbering repeats (ext4, ext4#2).
func TargetLabels(targets []Target) []string {
	labels := make([]string, len(targets))
	count := map[string]int{}
	for i, t := range targets {
		l := strings.TrimPrefix(t.FSType, "fuse.")
		if l == "" {
			l = "target"
		}
		if count[l]++; count[l] > 1 {
			l += "#" + strconv.Itoa(count[l])
		}
		labels[i] = l
	}
	return labels
}

// Stacked is true when the filesystem reads through a second page cache
// that evicting a file does not reach: a loop device's backing file, or a
// FUSE daemon's reads of its device or image.
func (t Target) Stacked() bool {
	return t.LoopBackingFile != "" || t.FSType == "fuse" || t.FSType == "fuseblk" || strings.HasPrefix(t.FSType, "fuse.")
}

// MiBPerSec converts a byte count over a duration to MiB/s; zero time gives 0.
func MiBPerSec(bytes, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(bytes) / (1 << 20) / (float64(ns) / 1e9)
}

// Write encodes the document as indented JSON.
func (d *Document) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// Read decodes a document and checks it is one this version understands.
func Read(r io.Reader) (*Document, error) {
	var d Document
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("not a thruput result document: %w", err)
	}
	if d.FormatVersion < 1 || d.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("result format version %d is not supported (this thruput reads 1 to %d)", d.FormatVersion, FormatVersion)
	}
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("not a valid thruput result document: %w", err)
	}
	return &d, nil
}

// check refuses what a document from elsewhere (an import, a file edited
// by hand) could hold that thruput's own never do and its readers rely
// on: an id that is no file name, steps naming targets that are not there.
func (d *Document) check() error {
	if d.ID == "" || len(d.ID) > 64 {
		return fmt.Errorf("id %q: 1 to 64 characters", d.ID)
	}
	for _, r := range d.ID {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("id %q: only letters, digits, '-', '_' and '.'", d.ID)
		}
	}
	if d.Method == "" {
		return fmt.Errorf("no method")
	}
	if d.Sweep != nil {
		for i, s := range d.Sweep.Steps {
			if s.Target < 0 || s.Target >= len(d.Targets) {
				return fmt.Errorf("sweep step %d names target %d of %d", i, s.Target, len(d.Targets))
			}
		}
	}
	for k, v := range d.Labels {
		if _, _, err := ParseLabel(k + "=" + v); err != nil {
			return err
		}
	}
	return nil
}

// Latency summarises per-request latencies, in nanoseconds, from an HDR
// histogram (3 significant digits).
type Latency struct {
	Count  int64   `json:"count"`
	MinNs  int64   `json:"min_ns"`
	MeanNs float64 `json:"mean_ns"`
	MaxNs  int64   `json:"max_ns"`
	P50Ns  int64   `json:"p50_ns"`
	P95Ns  int64   `json:"p95_ns"`
	P99Ns  int64   `json:"p99_ns"`
	P999Ns int64   `json:"p99_9_ns"`
}

// Spread describes repeated values: count, mean, sample standard deviation,
// minimum and maximum.
type Spread struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}
