package sysinfo

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// pi5Connector is the Raspberry Pi 5's PCIe controller for its FPC
// connector (pcie1; RP1 hangs off pcie2 at 1000120000.pcie), which the
// firmware trains at Gen 2 unless config.txt has dtparam=pciex1_gen=3.
const pi5Connector = "1000110000.pcie"

// pcieLinks lists the PCIe links between a device and its root port,
// nearest first. The PCI functions on the way alternate between the
// downstream end of a link (an endpoint, or a switch's upstream port) and
// the port above it (a root port, or a switch's downstream port), so every
// second function, from the device up, reads one link; the function above
// it is the other end, whose maximum bounds what the link can train to.
func pcieLinks(a ancestry) []result.PCIeLink {
	var fns []string
	for _, d := range a.dirs {
		if pciAddr().MatchString(filepath.Base(d)) {
			fns = append(fns, d)
		}
	}
	var out []result.PCIeLink
	for i := 0; i+1 < len(fns); i += 2 {
		dev, port := fns[i], fns[i+1]
		l := result.PCIeLink{
			Slot:     filepath.Base(dev),
			Driver:   linkBase(filepath.Join(dev, "driver")),
			GTs:      linkSpeed(filepath.Join(dev, "current_link_speed")),
			Width:    int(readPositive(filepath.Join(dev, "current_link_width"))),
			MaxGTs:   bothAllow(linkSpeed(filepath.Join(dev, "max_link_speed")), linkSpeed(filepath.Join(port, "max_link_speed"))),
			MaxWidth: int(bothAllow(float64(readPositive(filepath.Join(dev, "max_link_width"))), float64(readPositive(filepath.Join(port, "max_link_width"))))),
		}
		if l.GTs == 0 && l.Width == 0 {
			continue
		}
		l.Downgraded = (l.MaxGTs > 0 && l.GTs > 0 && l.GTs < l.MaxGTs) || (l.MaxWidth > 0 && l.Width > 0 && l.Width < l.MaxWidth)
		devMax := linkSpeed(filepath.Join(dev, "max_link_speed"))
		if strings.Contains(port, "/"+pi5Connector+"/") && l.GTs == 5 && devMax >= 8 {
			l.Hint = "the Raspberry Pi 5 runs this connector at Gen 2: dtparam=pciex1_gen=3 in config.txt allows Gen 3"
		}
		out = append(out, l)
	}
	return out
}

// linkSpeed reads "8.0 GT/s PCIe" (older kernels: "8 GT/s"); 0 for
// "Unknown" or a missing file.
func linkSpeed(path string) float64 {
	if f := strings.Fields(readValue(path)); len(f) > 0 {
		if v, err := strconv.ParseFloat(f[0], 64); err == nil && v > 0 {
			return v
		}
	}
	return 0
}

// bothAllow is the smaller of the two ends' maxima, or 0 (unknown) when
// either is unknown: a device's own maximum alone cannot say the link
// trained below what it could, since the port above may allow no more
// (a Raspberry Pi 5's x1 connector under an x4 drive).
func bothAllow(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return min(a, b)
}
