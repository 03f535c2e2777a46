package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

var compareBlocks = []int64{4 << 10, 64 << 10, 1 << 20}

// sweepRun is a sweep on a Pi 4: mib[t] holds, per block size of
// compareBlocks, target t's write then read MiB/s; a negative figure is a
// step that never ran.
func sweepRun(id string, targets []result.Target, mib [][]float64) *result.Document {
	d := baseDoc("disk.sweep")
	d.ID, d.Targets = id, targets
	d.Sweep = &result.Sweep{Parameters: result.SweepParameters{BlockSizes: compareBlocks, FileSize: 256 << 20,
		MaxTimeNs: int64(30 * time.Second), Write: true, Read: true, Data: "random"}}
	for ti := range targets {
		for i, bs := range compareBlocks {
			for j, phase := range []string{result.PhaseWrite, result.PhaseRead} {
				if v := mib[ti][2*i+j]; v >= 0 {
					d.Sweep.Steps = append(d.Sweep.Steps, result.SweepStep{Target: ti, Phase: phase, BlockSize: bs,
						Bytes: 256 << 20, ElapsedNs: int64(256 / v * 1e9), MiBPerSec: v})
				}
			}
		}
	}
	return d
}

var (
	usbFAT32 = result.Target{Path: "/media/pi/FAT32", FSType: "vfat", Device: "sda", Partition: "sda1", DeviceModel: "SanDisk Ultra"}
	usbNTFS  = result.Target{Path: "/media/pi/NTFS", FSType: "fuseblk", Device: "sda", Partition: "sda2", DeviceModel: "SanDisk Ultra"}
	sdEXT4   = result.Target{Path: "/home/pi", FSType: "ext4", Device: "mmcblk0", Partition: "mmcblk0p2"}
	fat32MiB = []float64{9.8, 30.1, 27.5, 36.2, 28.4, 36.5}
)

// channelRun is a WiFi client's bidirectional test (netDoc's) on a
// channel, each direction's figures scaled by up and down.
func channelRun(id, channel string, up, down float64, upRetr, downRetr int64) *result.Document {
	d := netDoc()
	d.ID, d.Labels = id, map[string]string{"channel": channel, "band": "2.4GHz", "site": "attic"}
	scale := func(dir string, figs ...*result.NetFigure) {
		k := up
		if dir == result.DirDown {
			k = down
		}
		for _, f := range figs {
			f.Bytes, f.BitsPerSecond = int64(float64(f.Bytes)*k), f.BitsPerSecond*k
		}
	}
	for i := range d.Net.Sums {
		s := &d.Net.Sums[i]
		scale(s.Direction, &s.Sender, &s.Receiver)
	}
	for i := range d.Net.Streams {
		s := &d.Net.Streams[i]
		scale(s.Direction, &s.Sender, &s.Receiver)
	}
	d.Net.Sums[0].Sender.Retransmits, d.Net.Sums[1].Sender.Retransmits = i64(upRetr), i64(downRetr)
	return d
}

// comparisons are the golden cases (testdata/docs/compare-*.json): a run
// over a stick's FAT32 and NTFS partitions, its two targets against each
// other; an interrupted run on an SD card against the stick's FAT32; and
// two WiFi channels of three runs each (net.json scaled, as channelRun
// does), where the upload differs and the download is within the noise.
func comparisons(t *testing.T) map[string]*compare.Comparison {
	usb, sd, fat := readDoc("compare-usb"), readDoc("compare-sd"), readDoc("compare-fat")
	channel := func(name string) compare.Group {
		g := compare.Group{Name: "channel=" + name}
		for i := range 3 {
			g.Docs = append(g.Docs, readDoc(fmt.Sprintf("compare-channel%s-%d", name, i+1)))
		}
		return g
	}
	ch6, ch11 := channel("6"), channel("11")
	out := map[string]*compare.Comparison{}
	for name, x := range map[string]struct {
		groups   []compare.Group
		baseline int
	}{
		"sweep-targets": {[]compare.Group{{Name: usb.ID, Docs: []*result.Document{usb}}}, 1},
		"sweep-runs":    {[]compare.Group{{Name: sd.ID, Docs: []*result.Document{sd}}, {Name: fat.ID, Docs: []*result.Document{fat}}}, 0},
		"net":           {[]compare.Group{ch6, ch11}, 0},
	} {
		c, err := compare.New(x.groups, x.baseline)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = c
	}
	return out
}

func TestComparisonGolden(t *testing.T) {
	for name, c := range comparisons(t) {
		for _, format := range Formats {
			var buf bytes.Buffer
			if err := WriteComparison(&buf, c, Options{Format: format}); err != nil {
				t.Fatalf("%s %s: %v", name, format, err)
			}
			matchGolden(t, "compare-"+name+"."+format, buf.Bytes())
		}
	}
}

func TestComparisonRejectsFormat(t *testing.T) {
	if err := WriteComparison(&bytes.Buffer{}, comparisons(t)["net"], Options{Format: "yaml"}); err == nil {
		t.Error("WriteComparison accepted format yaml")
	}
}
