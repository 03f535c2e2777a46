package result

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/units"
)

// Check is disk check: a card judged against the classes it claims (the
// class verdict), or Raspberry Pi OS's SD Card Speed Test run as that
// test runs it (preset rpi-sd).
type Check struct {
	CheckParameters
	// Engine is the engine that ran; EngineNote says why it differs from
	// the one asked for.
	Engine     string `json:"engine"`
	EngineNote string `json:"engine_note,omitempty"`
	// Runs are the passes of the workload: one for the class verdict, up
	// to three for rpi-sd, which stops at the first that passes.
	Runs []CheckRun `json:"runs"`
	// Claimed are the classes judged ("C10", "U1", "V30", "A1"), and
	// ClaimSource where they came from: "registers" (the card's SSR),
	// "--claim", or "unknown" when neither named one and every class was
	// tried; "rpi-sd" for that preset.
	Claimed     []string `json:"claimed,omitempty"`
	ClaimSource string   `json:"claim_source,omitempty"`
	// Criteria are what the verdict rests on: for the class verdict each
	// claimed class's criteria against the run's figures, for rpi-sd
	// the deciding run's three.
	Criteria []Criterion `json:"criteria,omitempty"`
	// Pass is the verdict: every criterion of the claim met, or for
	// rpi-sd one run that met all three; nil when nothing was judged (a
	// disk with no class, judged against its link in Bottlenecks).
	Pass *bool `json:"pass,omitempty"`
	// Verdict words it, with who set the figures where a reader or link
	// did.
	Verdict string `json:"verdict,omitempty"`
}

// The presets of disk check.
const (
	CheckClass = "class"
	CheckRPiSD = "rpi-sd"
)

// CheckParameters are the workload's effective parameters.
type CheckParameters struct {
	// Preset is "class" or "rpi-sd".
	Preset string `json:"preset"`
	// Size is the test file; RandomNs bounds each random step (and in
	// the class verdict the sustained sequential write).
	Size     int64 `json:"size"`
	RandomNs int64 `json:"random_ns"`
	// Claim are the classes --claim named, judged instead of the card's.
	Claim []string `json:"claim,omitempty"`
}

// CheckRun is one pass of the workload.
type CheckRun struct {
	Steps []CheckStep `json:"steps"`
	// Criteria and Pass are rpi-sd's judgement of this run.
	Criteria []Criterion `json:"criteria,omitempty"`
	Pass     *bool       `json:"pass,omitempty"`
}

// Step names, as Raspberry Pi's job file names its jobs.
const (
	StepPrepare   = "prepare-file"
	StepSeqWrite  = "seq-write"
	StepSeqRead   = "seq-read"
	StepRandWrite = "rand-4k-write"
	StepRandRead  = "rand-4k-read"
)

var checkSteps = []string{StepPrepare, StepSeqWrite, StepSeqRead, StepRandWrite, StepRandRead}

// CheckStep is one step of a run: its pattern and what it measured.
type CheckStep struct {
	Name      string `json:"name"`
	RW        string `json:"rw"`
	BlockSize int64  `json:"block_size"`
	IODepth   int    `json:"iodepth"`
	// TimeBased says the step looped over the file for RandomNs (the
	// class verdict's; its sequential write's figure is the rate after
	// any drop); otherwise it ended after one pass or RandomNs, whichever
	// came first.
	TimeBased bool  `json:"time_based,omitempty"`
	ElapsedNs int64 `json:"elapsed_ns"`
	IOs       int64 `json:"ios"`
	Bytes     int64 `json:"bytes"`
	// KiBPerSec is fio's "KB/s" (1024 bytes), the unit Raspberry Pi's
	// thresholds are in; MiBPerSec thruput's.
	KiBPerSec float64  `json:"kib_per_s"`
	MiBPerSec float64  `json:"mib_per_s"`
	IOPS      float64  `json:"iops"`
	Latency   *Latency `json:"latency,omitempty"`
	// Device is what the storage device served of a read step.
	Device   *DeviceShare `json:"device,omitempty"`
	Interval *Interval    `json:"interval,omitempty"`
}

// Criterion is one limit a figure is held to.
type Criterion struct {
	// Class is the class or test the limit belongs to ("C10", "A1",
	// "rpi-sd"); What names the figure ("sequential write").
	Class string `json:"class"`
	What  string `json:"what"`
	// Step is the step whose figure is judged, Metric its unit: "MB/s"
	// (10^6 bytes, the SD Association's), "KB/s" (fio's, 1024 bytes) or
	// "IOPS".
	Step   string  `json:"step"`
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	// HalfWidth is the figure's 95 % interval in Metric (0 when unknown).
	HalfWidth float64 `json:"half_width"`
	Limit     float64 `json:"limit"`
	Pass      bool    `json:"pass"`
	// Conditions say how the figure was measured.
	Conditions string `json:"conditions"`
	// CappedBy names the reader or link that set the figure, when it
	// carries less than the limit or the figure reaches its ceiling: a
	// fail there is the reader's, not the card's.
	CappedBy string `json:"capped_by,omitempty"`
}

// Step is the run's step of that name, nil when it did not run.
func (r CheckRun) Step(name string) *CheckStep {
	i := slices.IndexFunc(r.Steps, func(s CheckStep) bool { return s.Name == name })
	if i < 0 {
		return nil
	}
	return &r.Steps[i]
}

// Measured is whether any step completed an I/O.
func (c *Check) Measured() bool {
	for _, r := range c.Runs {
		if slices.ContainsFunc(r.Steps, func(s CheckStep) bool { return s.IOs > 0 }) {
			return true
		}
	}
	return false
}

var (
	checkRate = Gauge{Name: "thruput_disk_check_bytes_per_second", Help: "disk check's steps (class verdict or Raspberry Pi's SD Card Speed Test), the latest run's.", Trend: Trend{Title: "Card check steps"}}
	checkOps  = Gauge{Name: "thruput_disk_check_operations_per_second", Help: "disk check's steps in operations per second, the latest run's.", Trend: Trend{Title: "Card check operations", Count: "IOPS"}}
)

// Figures are each step's rate and IOPS, per run.
func (c *Check) Figures() []Figure {
	var out []Figure
	for ri, r := range c.Runs {
		repeat := 0
		if c.Preset == CheckRPiSD {
			repeat = ri + 1
		}
		for _, s := range r.Steps {
			rank := float64(slices.Index(checkSteps, s.Name))
			out = append(out,
				Figure{Group: "check", Step: s.Name, Rank: rank, Metric: "MiB/s", HigherIsBetter: true, Headline: s.Name, Repeat: repeat,
					Value: s.MiBPerSec, Interval: s.Interval, Device: s.Device, Series: checkRate.Sample(s.MiBPerSec*bytesPerMiB, "step", s.Name)},
				Figure{Group: "check", Step: s.Name, Rank: rank, Metric: "IOPS", HigherIsBetter: true, Repeat: repeat,
					Value: s.IOPS, Series: checkOps.Sample(s.IOPS, "step", s.Name)})
		}
	}
	return out
}

// Params are the preset, its file, its time and the claim.
func (c *Check) Params() any {
	return c.CheckParameters
}

// Brief is the verdict with the figures it rests on.
func (c *Check) Brief(targets []Target) string {
	if len(c.Runs) == 0 {
		return ""
	}
	var parts []string
	if c.Pass != nil {
		parts = append(parts, map[bool]string{true: "PASS", false: "FAIL"}[*c.Pass])
	}
	r := c.Runs[len(c.Runs)-1]
	if s := r.Step(StepSeqWrite); s != nil {
		parts = append(parts, fmt.Sprintf("write %.1f MiB/s", s.MiBPerSec))
	}
	for _, n := range []string{StepRandWrite, StepRandRead} {
		if s := r.Step(n); s != nil {
			parts = append(parts, fmt.Sprintf("%s %s IOPS", strings.TrimPrefix(n, "rand-4k-"), count(s.IOPS)))
		}
	}
	return strings.Join(parts, ", ")
}

// Judge holds the step's figure in metric ("MB/s", "KB/s" or "IOPS") to
// limit: passed when the figure reaches it, as the SD Association's and
// Raspberry Pi's tests judge, with the figure's ± beside it.
func (s CheckStep) Judge(class, what, metric string, limit float64) Criterion {
	v := s.IOPS
	switch metric {
	case "MB/s":
		v = s.MiBPerSec * bytesPerMiB / 1e6
	case "KB/s":
		v = s.KiBPerSec
	}
	c := Criterion{Class: class, What: what, Step: s.Name, Metric: metric, Value: v, Limit: limit, Pass: v >= limit, Conditions: s.Conditions()}
	if s.Interval != nil {
		c.HalfWidth = v * s.Interval.Relative
	}
	return c
}

// Conditions word how a step measured: block size, pattern, queue depth,
// O_DIRECT and its span.
func (s CheckStep) Conditions() string {
	span := "one pass over the file"
	switch {
	case s.TimeBased && s.RW == "write":
		span = fmt.Sprintf("looping over the file for %v, the rate after any drop", time.Duration(s.ElapsedNs).Round(100*time.Millisecond))
	case s.TimeBased:
		span = fmt.Sprintf("looping over the file for %v", time.Duration(s.ElapsedNs).Round(100*time.Millisecond))
	case s.RW == "randread" || s.RW == "randwrite":
		span = time.Duration(s.ElapsedNs).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%s %s, QD%d, O_DIRECT, %s", units.IEC(s.BlockSize), s.RW, s.IODepth, span)
}

// RPiVerdict words rpi-sd's outcome under its best-of-three rule, and
// whether the reader set a failing figure (CappedBy).
func (c *Check) RPiVerdict() string {
	if c.Pass == nil {
		return ""
	}
	n := len(c.Runs)
	rule := "Raspberry Pi's rule: up to three runs, passing on the first that passes"
	if *c.Pass {
		return fmt.Sprintf("PASS on run %d of up to 3 (%s).", n, rule)
	}
	var why []string
	capped := false
	for _, cr := range c.Criteria {
		if !cr.Pass {
			why = append(why, fmt.Sprintf("%s %s %s < %s", cr.What, count(cr.Value), cr.Metric, count(cr.Limit)))
			capped = capped || cr.CappedBy != ""
		}
	}
	v := fmt.Sprintf("FAIL in each of the %d runs (%s); the last: %s.", n, rule, strings.Join(why, "; "))
	if capped {
		v += " The reader, not the card, set some of these figures."
	}
	return v
}
