package lifecycle

import (
	"context"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/health"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// Begun is what a run reads as it starts measuring: sysinfo's counters,
// and the health sampler running until the run concludes.
type Begun struct {
	counters map[string]int64
	health   *health.Sampler
}

// Begin starts a run's context; sample is whether the health sampler
// runs. ctx ending stops the sampler of a run that never concludes
// (refused after it began).
func Begin(ctx context.Context, sample bool) *Begun {
	b := &Begun{counters: sysinfo.Default().Counters()}
	if sample {
		b.health = health.Start(ctx, health.Default())
	}
	return b
}

// LoadBegins tells the health sampler the load began (after a network
// test's idle latency probes), so its CPU figures cover the load.
func (b *Begun) LoadBegins() { b.health.LoadBegins() }

// Abandon stops the sampler of a run that ends without concluding (it
// failed before it measured anything).
func (b *Begun) Abandon() { b.health.Stop() }

// Attach records the run's health, the hardware its data crossed, what
// the other disks and interfaces moved meanwhile, and explains the
// figures against the ceilings of the links and the CPU.
func Attach(doc *result.Document, b *Begun) {
	b.health.Crossed(doc.Crossed())
	b.health.UnderTest(underTest(doc)...)
	doc.Health = b.health.Stop()
	paths := make([]string, len(doc.Targets))
	for i, t := range doc.Targets {
		paths[i] = t.Path
	}
	fs := sysinfo.Default()
	sys := fs.System(paths...)
	sys.Activity = sysinfo.Activity(b.counters, fs.Counters(), doc.EndedAt.Sub(doc.StartedAt).Seconds())
	doc.System = &sys
	ceiling.Explain(doc)
}

// underTest are the devices a run's data crossed, as the kernel's lines
// name them: the targets' block devices and partitions, the interface a
// network run crossed.
func underTest(doc *result.Document) []string {
	out := []string{doc.Crossed()}
	for _, t := range doc.Targets {
		out = append(out, t.Device, t.Partition)
	}
	return out
}
