package ceiling

import (
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// controllers are the words /proc/interrupts names a bus's host
// controller by: the line that keeps a core busy for a USB disk or
// adapter is the xHCI (or the Pi's DWC OTG) controller's, not the
// device's own.
var controllers = map[string][]string{
	"usb":  {"xhci", "ehci", "ohci", "dwc_otg", "dwc2", "usb"},
	"mmc":  {"mmc", "sdhci", "sdhost", "dw_mmc"},
	"sdio": {"mmc", "sdhci", "sdhost", "dw_mmc"},
	"nvme": {"nvme"},
	"sata": {"ahci", "sata"},
	"scsi": {"ahci", "sata", "scsi"},
	// A virtio device's queues: a disk's "virtio1-req.0", a network
	// card's "virtio0-input.0" and "-output.0".
	"virtio": {"virtio"},
}

// pathWords are what an interrupt line's name must contain to belong to
// a device the run's data crossed: the interface, its driver, the host
// controller of its bus. Empty when the data crossed no device
// (loopback): then no line can be what kept a core busy. known is false
// when the document does not say which devices the data crossed: then
// any line may be.
func pathWords(doc *result.Document) (words []string, known bool) {
	sys := doc.System
	if doc.Net != nil || doc.HTTP != nil {
		iface := ""
		if doc.Net != nil {
			iface = doc.Net.Parameters.Interface
		}
		if iface == "lo" {
			return nil, true
		}
		if iface == "" || sys == nil {
			return nil, false
		}
		words = append(words, iface)
		for _, n := range sys.NetInterfaces {
			if n.Name != iface && !contains(n.Lower, iface) && n.Master != iface {
				continue
			}
			if n.Driver != "" {
				words = append(words, n.Driver)
			}
			if n.Bus == "virtio" || n.Driver == "virtio_net" {
				words = append(words, "-input", "-output")
				continue
			}
			words = append(words, controllers[n.Bus]...)
		}
		return words, true
	}
	if sys == nil {
		return nil, false
	}
	for _, t := range doc.Targets {
		for _, d := range sys.BlockDevices {
			if d.Name != t.Device || d.Name == "" {
				continue
			}
			words = append(words, d.Name)
			if d.Bus == "virtio" {
				words = append(words, "-req")
				continue
			}
			words = append(words, controllers[d.Bus]...)
		}
	}
	return words, len(words) > 0
}

// onPath is whether an interrupt line's name carries one of words, or
// may (the path is not known).
func onPath(name string, words []string, known bool) bool {
	if !known {
		return true
	}
	for _, w := range words {
		if w != "" && strings.Contains(name, w) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
