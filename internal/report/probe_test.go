package report

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func TestProbeTable(t *testing.T) {
	p := &result.Probe{Device: "/dev/sdb", Verdict: result.ProbeFake, Kind: result.ProbeDropped, Announced: 1 << 30, Usable: 128 << 20,
		FirstBad: -1, BlockSize: 512, Passes: 6, Written: 300 << 10, Read: 310 << 10, ElapsedNs: 134e6, Restored: true,
		Fix: "parted -s /dev/sdb unit s mklabel msdos mkpart primary fat32 2048 262143", Summary: "fake: 128.0 MiB usable of 1.0 GiB announced; writes past it are lost"}
	var b strings.Builder
	if err := ProbeTable(p).Print(&b, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"probe of /dev/sdb\n",
		"usable       128.0 MiB (134217728 bytes)\n",
		"past usable  dropped\n",
		"cache flush  none: a block written past the end was lost at once",
		"work         6 passes, 300.0 KiB written, 310.0 KiB read, 134ms\n",
		"data         every overwritten block written back\n",
		"to use it    parted -s /dev/sdb unit s mklabel msdos mkpart primary fat32 2048 262143   (not run",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "wraps every") || strings.Contains(b.String(), "bad blocks") {
		t.Errorf("rows of facts the probe did not find:\n%s", b.String())
	}
}
