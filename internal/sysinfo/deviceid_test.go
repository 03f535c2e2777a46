package sysinfo

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/realdata"
	"github.com/thruput/thruput/internal/result"
)

// corpusDeviceIDs are the ids of every disk of testdata/corpus and
// ../shared/data/real-boards that has one, read by hand from the
// captures: an SD card's or eMMC's manfid, oemid, name and date files
// (no capture keeps a serial), a USB disk's bridge's idVendor and
// idProduct (no capture keeps its serial either), and the LUN of the
// SCSI device a dual bridge's second disk hangs off (0:0:0:1).
var corpusDeviceIDs = map[string]map[string]string{
	"cm5-nvme":                    {"mmcblk0": "emmc:15-0100-bjtd4r--2024-07"},
	"h28k-usb-hdd":                {"mmcblk1": "emmc:15-0100-8gsd4r--2021-09"},
	"hwprobe-pi3bplus-5.10.63-v7": {"sda": "usb:0bc2:ab24:"},
	"hwprobe-pi4-5.10.92-v7l":     {"sda": "usb:0781:558c:"},
	"nanopi-r5s":                  {"mmcblk0": "sd:03-5344-sn64g--2022-03", "mmcblk2": "emmc:15-0100-8gtf4r--2022-03", "sda": "usb:174c:55aa:"},
	"pi3bplus-lan7515-disk":       {"sda": "usb:152d:2509:"},
	"pi4-gl827l-reader":           {"mmcblk0": "sd:03-5344-sr64g--2018-08"},
	"pi4-jms567-bot":              {"sda": "usb:152d:0567:"},
	"pi4-jms579-bot":              {"sda": "usb:152d:0578:"},
	"pi4-uas-asm1051e":            {"sda": "usb:174c:55aa:"},
	"pi4-usb-storage-quirk":       {"sda": "usb:152d:1561:"},
	"pi4-vl805-sd":                {"mmcblk0": "sd:03-5344-sr64g--2018-08"},
	"pi5-rp1-sd":                  {"mmcblk0": "sd:03-5344-sr128--2019-10"},
	"rock64-jms578-480m":          {"mmcblk0": "sd:03-5344-sp16g--2015-07", "sda": "usb:152d:0578:"},
	"rockpi4b-wd-duo":             {"mmcblk2": "emmc:45-0100-dg4008--2018-04", "sda": "usb:1058:0a10:", "sdb": "usb:1058:0a10::1"},
	// ../shared/data/real-boards
	"rpi3bplus-raspbian10-v7-usb-ssd":       {"sda": "usb:0bc2:ab24:"},
	"rpi4-raspbian11-v7l-uas-ssd-boot":      {"sda": "usb:0781:558c:"},
	"rpi4b-ubuntu2004-usb3-hdd-usb-storage": {"sda": "usb:0480:0820:"},
}

// TestCorpusDeviceIDs reads every real capture's disks: the ones above
// have exactly those ids, every other disk none, and each id is one
// ParseDeviceID takes back unchanged.
func TestCorpusDeviceIDs(t *testing.T) {
	paths, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for i, p := range paths {
		paths[i] = strings.TrimPrefix(p, "testdata/")
	}
	paths = append(paths, realdata.Files(t, realdata.Dir(t, "real-boards"))...)
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		want := corpusDeviceIDs[name]
		got := map[string]string{}
		for _, d := range unpacked(t, p).System().BlockDevices {
			if d.DeviceID == "" {
				continue
			}
			got[d.Name] = d.DeviceID
			if back, err := result.ParseDeviceID(d.DeviceID); err != nil || back != d.DeviceID {
				t.Errorf("%s %s: ParseDeviceID(%q) = %q, %v", name, d.Name, d.DeviceID, back, err)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: ids %v; want %v", name, got, want)
			continue
		}
		for disk, id := range want {
			if got[disk] != id {
				t.Errorf("%s %s: id %q; want %q", name, disk, got[disk], id)
			}
		}
	}
}

// TestLiveDeviceIDs reads this machine's own sysfs: every physical
// interface with a permanent address has "mac:" and the address ip
// reports, virtual ones have none, and neither has a loop device.
func TestLiveDeviceIDs(t *testing.T) {
	out, err := exec.Command("ip", "-j", "link", "show").Output()
	if err != nil {
		t.Skipf("ip -j link: %v", err)
	}
	var links []struct {
		Name    string `json:"ifname"`
		Address string `json:"address"`
	}
	if err := json.Unmarshal(out, &links); err != nil {
		t.Fatal(err)
	}
	addr := map[string]string{}
	for _, l := range links {
		addr[l.Name] = l.Address
	}
	s := Default().SystemWith([]string{"loop0"})
	for _, n := range s.NetInterfaces {
		assign, _ := os.ReadFile("/sys/class/net/" + n.Name + "/addr_assign_type")
		switch {
		case n.Bus == "virtual" || strings.TrimSpace(string(assign)) == "1":
			if n.DeviceID != "" {
				t.Errorf("%s (bus %s, addr_assign_type %s): id %q; want none", n.Name, n.Bus, strings.TrimSpace(string(assign)), n.DeviceID)
			}
		case n.DeviceID != "mac:"+addr[n.Name]:
			t.Errorf("%s: id %q; want mac:%s as ip says", n.Name, n.DeviceID, addr[n.Name])
		}
	}
	for _, d := range s.BlockDevices {
		if d.Bus == "loop" && d.DeviceID != "" {
			t.Errorf("%s: a loop device has id %q", d.Name, d.DeviceID)
		}
	}
	if !slices.ContainsFunc(s.NetInterfaces, func(n result.NetInterface) bool { return n.DeviceID != "" }) {
		t.Log("no interface with a permanent address here")
	}
	if !slices.ContainsFunc(s.BlockDevices, func(d result.BlockDevice) bool { return d.Bus == "loop" }) {
		t.Log("no loop device here")
	}
	// The disk under this test's directory, as a run's target records
	// it: a virtio disk's id is its serial file's, as the disk lists it.
	tg, err := Default().Target(t.TempDir())
	if err != nil || tg.Device == "" {
		t.Skipf("no block device under the temporary directory: %v", err)
	}
	serial, _ := os.ReadFile("/sys/block/" + tg.Device + "/serial")
	for _, d := range Default().SystemWith([]string{tg.Device}).BlockDevices {
		if d.Name == tg.Device && d.DeviceID != tg.DeviceID {
			t.Errorf("target on %s: id %q, the disk's %q", tg.Device, tg.DeviceID, d.DeviceID)
		}
	}
	if d := strings.TrimSpace(string(serial)); d != "" && strings.HasPrefix(tg.Device, "vd") && tg.DeviceID != result.SerialDeviceID("", d) {
		t.Errorf("virtio disk %s with serial %q: id %q", tg.Device, d, tg.DeviceID)
	}
}
