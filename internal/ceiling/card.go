package ceiling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// classRule is one criterion of an SD Association class: a step's
// figure in a metric, and its floor.
type classRule struct {
	step, what, metric string
	limit              float64
}

// seqWrite is a speed, UHS or video class's one criterion: sustained
// sequential write in MB/s (10^6 bytes).
func seqWrite(mbps float64) []classRule {
	return []classRule{{result.StepSeqWrite, "sustained sequential write", "MB/s", mbps}}
}

// appClass is A1's and A2's: 4 KiB random read and write IOPS, and
// sustained sequential write of 10 MB/s.
func appClass(read, write float64) []classRule {
	return []classRule{
		{result.StepRandRead, "4 KiB random read", "IOPS", read},
		{result.StepRandWrite, "4 KiB random write", "IOPS", write},
		{result.StepSeqWrite, "sustained sequential write", "MB/s", 10},
	}
}

// Classes are the SD Association's classes a card may claim, in the
// order a verdict lists them, and what each promises (SD Physical Layer
// Simplified Specification: speed class, UHS speed grade, video speed
// class, application performance class).
var Classes = []string{"C2", "C4", "C6", "C10", "U1", "U3", "V6", "V10", "V30", "V60", "V90", "A1", "A2"}

var classRules = map[string][]classRule{
	"C2": seqWrite(2), "C4": seqWrite(4), "C6": seqWrite(6), "C10": seqWrite(10),
	"U1": seqWrite(10), "U3": seqWrite(30),
	"V6": seqWrite(6), "V10": seqWrite(10), "V30": seqWrite(30), "V60": seqWrite(60), "V90": seqWrite(90),
	"A1": appClass(1500, 500), "A2": appClass(4000, 2000),
}

// metricBytes is what a criterion's limit asks of the link, in bytes per
// second: a 4 KiB request per IO.
var metricBytes = map[string]float64{"MB/s": 1e6, "KB/s": 1024, "IOPS": 4096}

// checkCeilings judge disk check's figures: the sequential steps against
// the links under the target, as every disk method's; then the card
// against the classes it claims (or --claim names), or rpi-sd's criteria
// as they are, each marked where the reader, not the card, set its
// figure. A disk with no class (a USB stick, an SSD) is judged against
// its link and bridge alone.
func checkCeilings(e *explainer) {
	c := e.doc.Check
	if len(c.Runs) == 0 || len(e.doc.Targets) == 0 {
		return
	}
	last := c.Runs[len(c.Runs)-1]
	for _, n := range []string{result.StepSeqWrite, result.StepSeqRead} {
		if s := last.Step(n); s != nil {
			e.storage(0, n, s.MiBPerSec*mib)
		}
	}
	t := e.doc.Targets[0]
	hops, _ := Storage(e.sys, t)
	var dev *result.BlockDevice
	if i := slices.IndexFunc(e.sys.BlockDevices, func(d result.BlockDevice) bool { return d.Name == t.Device }); i >= 0 {
		dev = &e.sys.BlockDevices[i]
	}
	if c.Preset == result.CheckRPiSD {
		for i := range c.Criteria {
			capBy(&c.Criteria[i], hops)
		}
		c.Verdict = c.RPiVerdict()
		return
	}
	claimed, source := claim(c, dev)
	c.Claimed, c.ClaimSource = claimed, source
	if source == "none" {
		c.Criteria, c.Pass = nil, nil
		c.Verdict = noClass(t, hops)
		return
	}
	judged := claimed
	if source == "unknown" {
		judged = Classes
	}
	c.Criteria = nil
	for _, cl := range judged {
		for _, r := range classRules[cl] {
			if s := last.Step(r.step); s != nil {
				cr := s.Judge(cl, r.what, r.metric, r.limit)
				capBy(&cr, hops)
				c.Criteria = append(c.Criteria, cr)
			}
		}
	}
	c.Pass, c.Verdict = classVerdict(c.Criteria, judged, source)
}

// claim is the classes to judge and where they came from: --claim, the
// card's registers, "unknown" for an SD card whose registers could not
// be read or claim nothing, "none" for a disk that is no SD card.
func claim(c *result.Check, dev *result.BlockDevice) ([]string, string) {
	if len(c.Claim) > 0 {
		return c.Claim, "--claim"
	}
	if dev == nil || dev.Bus != "mmc" || dev.MMCCardType == "MMC" {
		return nil, "none"
	}
	if dev.Card == nil {
		return nil, "unknown"
	}
	var out []string
	for _, cl := range []string{dev.Card.SpeedClass, dev.Card.UHSClass, dev.Card.VideoClass, dev.Card.AppClass} {
		if cl != "" {
			out = append(out, cl)
		}
	}
	if len(out) == 0 {
		return nil, "unknown"
	}
	return out, "registers"
}

// capBy names the hop that set a criterion's figure: the lowest ceiling
// on the way, when it carries less than the limit asks, or when a
// failing figure reached three quarters of it (Judge's "likely
// bottleneck").
func capBy(c *result.Criterion, hops []result.Hop) {
	low := Lowest(hops)
	if low < 0 {
		return
	}
	h := hops[low]
	need, got := c.Limit*metricBytes[c.Metric], c.Value*metricBytes[c.Metric]
	switch {
	case h.CeilingBytesPerSec < need:
		c.CappedBy = fmt.Sprintf("%s at %s carries %.1f MB/s, less than the limit asks (%.1f MB/s): the reader, not the card, sets this figure", h.Link, h.Name, h.CeilingBytesPerSec/1e6, need/1e6)
	case !c.Pass && got >= 0.75*h.CeilingBytesPerSec:
		c.CappedBy = fmt.Sprintf("the figure is %.0f %% of %s at %s (%.1f MB/s): the reader, not the card, set it", got/h.CeilingBytesPerSec*100, h.Link, h.Name, h.CeilingBytesPerSec/1e6)
	}
}

// classVerdict is PASS when every criterion of the claim passed, FAIL
// when one failed on the card's account; a failure the reader caused
// judges nothing. With the claim unknown it says which classes the
// figures reach instead, and passes nothing.
func classVerdict(cs []result.Criterion, judged []string, source string) (*bool, string) {
	met := map[string]bool{}
	capped := map[string]bool{}
	for _, cl := range judged {
		met[cl] = true
	}
	var fails []string
	for _, c := range cs {
		if c.Pass {
			continue
		}
		met[c.Class] = false
		if c.CappedBy != "" {
			capped[c.Class] = true
			continue
		}
		if source != "unknown" {
			fails = append(fails, fmt.Sprintf("%s %s %s %s < %s", c.Class, c.What, number(c.Value), c.Metric, number(c.Limit)))
		}
	}
	var reach, miss, byReader []string
	for _, cl := range judged {
		switch {
		case met[cl]:
			reach = append(reach, cl)
		case capped[cl]:
			byReader = append(byReader, cl)
		default:
			miss = append(miss, cl)
		}
	}
	readerNote := ""
	if len(byReader) > 0 {
		readerNote = " The reader, not the card, set the figures of " + strings.Join(byReader, " ") + ": not judged."
	}
	if source == "unknown" {
		v := "The card's claim is unknown (no class could be read from its registers): its figures reach " + orUnknown(strings.Join(reach, " "), "no class")
		if len(miss) > 0 {
			v += ", not " + strings.Join(miss, " ")
		}
		return nil, v + "." + readerNote
	}
	pass := len(fails) == 0
	var v string
	switch {
	case !pass:
		v = "FAIL: " + strings.Join(fails, "; ") + "."
	case len(byReader) > 0:
		return nil, "No verdict on " + strings.Join(byReader, " ") + "; the card meets " + orUnknown(strings.Join(reach, " "), "nothing else") + " of its claim (" + source + ")." + readerNote
	default:
		v = "PASS: the card meets " + strings.Join(reach, " ") + " as claimed (" + source + ")."
	}
	return &pass, v + readerNote
}

// noClass is the verdict on a disk that claims no SD class: its link and
// bridge, in the words of the lowest hop on the way.
func noClass(t result.Target, hops []result.Hop) string {
	v := orUnknown(t.Device, t.Path) + " is no SD card and has no class to judge"
	low := Lowest(hops)
	if low < 0 {
		return v + "; " + hops[0].Basis + "."
	}
	h := hops[low]
	v = fmt.Sprintf("%s; judged against its link instead: %s at %s, %.1f MB/s (%s)", v, h.Link, h.Name, h.CeilingBytesPerSec/1e6, h.Basis)
	// The disk's own hop says how it is attached (usb-storage where UAS
	// is possible, a 5 Gbit/s device on a 480M port) when another hop is
	// the lowest.
	if low > 0 && hops[0].Basis != "" {
		v += "; " + hops[0].Name + ": " + hops[0].Basis
	}
	return v + "."
}

// number prints a criterion's figure: whole above 100, else one decimal.
func number(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
