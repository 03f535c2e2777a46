package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
)

func TestSysinfoCommand(t *testing.T) {
	dir := t.TempDir()
	o := thruput(t, "sysinfo", "--json", dir)
	if o.code != 0 {
		t.Fatalf("sysinfo --json: exit %d\n%s", o.code, o.stderr)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("sysinfo --json: %v\n%s", err, o.stdout)
	}
	for _, key := range []string{"host", "system", "targets"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("sysinfo --json has no %q:\n%s", key, o.stdout)
		}
	}
	var host result.Host
	var system result.System
	var targets []result.Target
	if json.Unmarshal(doc["host"], &host) != nil || host.Hostname == "" {
		t.Errorf("host = %s", doc["host"])
	}
	if err := json.Unmarshal(doc["system"], &system); err != nil {
		t.Errorf("system: %v", err)
	}
	if json.Unmarshal(doc["targets"], &targets) != nil || len(targets) != 1 || targets[0].Path != dir || targets[0].MountPoint == "" {
		t.Errorf("targets = %s", doc["targets"])
	}

	o = thruput(t, "sysinfo")
	if o.code != 0 || !strings.Contains(o.stdout, "Block devices") || !strings.Contains(o.stdout, "CPU") {
		t.Errorf("sysinfo: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := thruput(t, "sysinfo", dir+"/missing"); o.code != 2 {
		t.Errorf("sysinfo on a missing path: exit %d, want 2\n%s", o.code, o.stderr)
	}
	if o := thruput(t, "sysinfo", "--format", "csv"); o.code != 2 {
		t.Errorf("sysinfo --format csv: exit %d, want 2\n%s", o.code, o.stderr)
	}
}

// The table draws a Raspberry Pi 1 B's tree (disk and Ethernet chip on one
// hub) as lsusb -t does.
func TestSysinfoTable(t *testing.T) {
	yes, no := true, false
	doc := result.Sysinfo{
		Host: result.Host{Hostname: "raspberrypi", Board: "Raspberry Pi Model B Rev 2"},
		System: result.System{
			CPU: result.CPU{CurKHz: 700000, Governor: "ondemand", Throttled: "0x50005", ThrottledNow: &yes},
			USB: []result.USBDevice{
				{Path: "usb1", Bus: 1, DevNum: 1, Ports: 1, SpeedMbps: 480, Class: "Hub", Drivers: []string{"dwc_otg", "hub"}},
				{Path: "1-1", Parent: "usb1", Bus: 1, Port: 1, DevNum: 2, Ports: 3, SpeedMbps: 480, Class: "Hub", Drivers: []string{"hub"}},
				{Path: "1-1.1", Parent: "1-1", Bus: 1, Port: 1, DevNum: 3, SpeedMbps: 480, Class: "Vendor Specific Class", Drivers: []string{"smsc95xx"}},
				{Path: "1-1.2", Parent: "1-1", Bus: 1, Port: 2, DevNum: 4, SpeedMbps: 480, Class: "Mass Storage", Drivers: []string{"usb-storage"}},
			},
			BlockDevices: []result.BlockDevice{
				{Name: "mmcblk0", Model: "SC32G", Bus: "mmc", Driver: "mmcblk", MMCCardType: "SD", Rotational: &no},
				{Name: "sda", Vendor: "Seagate", Model: "Expansion", Bus: "usb", Driver: "usb-storage", USBPath: "1-1.2"},
			},
			NetInterfaces: []result.NetInterface{{Name: "eth0", Driver: "smsc95xx", SpeedMbps: 100, Duplex: "full", Bus: "usb", USBPath: "1-1.1", Carrier: &yes}},
			Interrupts:    []result.Interrupt{{IRQ: "56", Name: "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1", PerCPU: []int64{73916512}}},
		},
	}
	var b strings.Builder
	if err := report.WriteSysinfo(&b, doc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"/:  Bus 01.Port 1: Dev 1, Class=root_hub, Driver=dwc_otg/1p, 480M\n",
		"    |__ Port 1: Dev 2, Class=Hub, Driver=hub/3p, 480M\n",
		"        |__ Port 1: Dev 3, Class=Vendor Specific Class, Driver=smsc95xx, 480M\n",
		"        |__ Port 2: Dev 4, Class=Mass Storage, Driver=usb-storage, 480M\n",
		"USB 1-1.2 480M",
		"SD unknown",
		"100 Mbit/s full",
		"1-1.1 (480M)",
		"throttled 0x50005 (capped or under-voltage now: the firmware runs below that clock)",
		"73916512",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if testing.Verbose() {
		os.Stdout.WriteString(out)
	}
}

// TestSysinfoWithoutRoot runs sysinfo as an unprivileged user, as most
// people will: it must work, with every fact either read or absent.
func TestSysinfoWithoutRoot(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		o := thruput(t, "sysinfo", "--json")
		if o.code != 0 {
			t.Fatalf("sysinfo as %d: exit %d\n%s", os.Geteuid(), o.code, o.stderr)
		}
		return
	}
	// Root drops to nobody; the binary must be where nobody can run it.
	dir, err := os.MkdirTemp("", "thruput-nobody-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(nobodyBinary(t, dir), "sysinfo", "--json")
	cmd.SysProcAttr = asNobody
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sysinfo as nobody: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Host   result.Host   `json:"host"`
		System result.System `json:"system"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || doc.Host.Kernel == "" || len(doc.System.BlockDevices) == 0 {
		t.Errorf("sysinfo as nobody: %v\n%s", err, stdout.String())
	}
}
