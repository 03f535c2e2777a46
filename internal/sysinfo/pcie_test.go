package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLinkSpeed: current_link_speed as kernels print it: "8.0 GT/s PCIe"
// since 4.19 (PCIE_SPEED2STR), "8 GT/s" and "2.5 GT/s" before, and
// "Unknown" (or "Unknown speed") for a link that is down.
func TestLinkSpeed(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]float64{
		"8 GT/s": 8, "8.0 GT/s PCIe": 8, "2.5 GT/s": 2.5, "16.0 GT/s PCIe": 16,
		"Unknown": 0, "Unknown speed": 0, "": 0, "-1 GT/s": 0,
	} {
		p := filepath.Join(dir, "current_link_speed")
		if err := os.WriteFile(p, []byte(in+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := linkSpeed(p); got != want {
			t.Errorf("linkSpeed(%q) = %g, want %g", in, got, want)
		}
	}
	if got := linkSpeed(filepath.Join(dir, "absent")); got != 0 {
		t.Errorf("linkSpeed of a missing file = %g", got)
	}
}

// TestPCIeBothEnds: a link is called downgraded only against what both
// of its ends allow; with one end's maximum unread it is not.
func TestPCIeBothEnds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		portMax    string // "" leaves the root port's max_link_* out
		wantMax    float64
		downgraded bool
	}{
		{"port allows Gen 3 x1", "8.0 GT/s PCIe", 8, true},
		{"port allows Gen 2 x1", "5.0 GT/s PCIe", 5, false},
		{"port unread", "", 0, false},
	} {
		root := t.TempDir()
		port := filepath.Join(root, "devices/platform/axi/1000110000.pcie/pci0001:00/0001:00:00.0")
		dev := filepath.Join(port, "0001:01:00.0")
		files := map[string]string{
			dev + "/current_link_speed": "5.0 GT/s PCIe", dev + "/current_link_width": "1",
			dev + "/max_link_speed": "16.0 GT/s PCIe", dev + "/max_link_width": "4",
		}
		if tc.portMax != "" {
			files[port+"/max_link_speed"] = tc.portMax
			files[port+"/max_link_width"] = "1"
		}
		for p, v := range files {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fs := FS{Sys: root}
		links := pcieLinks(fs.ancestry(dev))
		if len(links) != 1 {
			t.Fatalf("%s: links %+v", tc.name, links)
		}
		l := links[0]
		if l.MaxGTs != tc.wantMax || l.Downgraded != tc.downgraded || l.Hint == "" {
			t.Errorf("%s: %+v, want max %g GT/s, downgraded %v, and the pciex1_gen hint", tc.name, l, tc.wantMax, tc.downgraded)
		}
	}
}
