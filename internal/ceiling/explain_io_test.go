package ceiling

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestIORepeatQuotesMean: disk io --repeat's verdict quotes the mean of
// the runs, the figure its table headlines, not the best run.
func TestIORepeatQuotesMean(t *testing.T) {
	doc := &result.Document{System: &result.System{BlockDevices: []result.BlockDevice{{Name: "mmcblk0", Bus: "mmc", MMCTiming: "sd high-speed", MMCClockHz: 50e6, MMCBusWidth: 4}}},
		Targets: []result.Target{{Path: "/", Device: "mmcblk0"}},
		IO: &result.IO{Runs: []result.IORun{
			{Read: &result.IODirection{MiBPerSec: 10}}, {Read: &result.IODirection{MiBPerSec: 20}}}}}
	Explain(doc)
	if len(doc.Bottlenecks) != 1 {
		t.Fatalf("bottlenecks %+v", doc.Bottlenecks)
	}
	if b := doc.Bottlenecks[0]; !strings.Contains(b.Verdict, "15.0 MiB/s") || strings.Contains(b.Verdict, "20.0 MiB/s") {
		t.Errorf("verdict %q, want the mean 15.0 MiB/s", b.Verdict)
	}
}
