package pilab

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostFacts are the fields of thruput's "host" object checked against
// the guest: want is what the emulated board is, kernel what the guest's
// kernel shows for it, and kernelWant what that view must read when the
// kernel words the fact differently from thruput (empty: it reads want).
// Both views must hold: a kernel that does not show the board the test
// expects means the emulation changed, not that thruput is wrong. A host
// field thruput adds gets a row here; the guest's dump also carries the
// first bytes of /bin/sh ("od -An -tx1 -N20 /bin/sh": the ELF class at
// byte 4, the machine at bytes 18-19) for the userland's architecture.
var hostFacts = []struct {
	field      string
	want       string
	kernel     func(Guest) string
	kernelWant string
}{
	{"board", "Raspberry Pi 3 Model B", func(g Guest) string { return g.Value("/proc/device-tree/model") }, ""},
	// The SoC is the device tree's last compatible entry: brcm,bcm2837.
	{"soc", "BCM2837", func(g Guest) string {
		c := strings.Fields(g.Value("/proc/device-tree/compatible"))
		if len(c) == 0 {
			return ""
		}
		return c[len(c)-1]
	}, "brcm,bcm2837"},
	{"arch", "aarch64", func(g Guest) string { return g.Value("uname -m") }, ""},
	{"kernel", "", func(g Guest) string { return g.Value("uname -r") }, ""},
	{"cpu_cores", "4", func(g Guest) string { return strconv.Itoa(len(cpuinfo(g, "processor"))) }, ""},
	// arm64 cpuinfo names no core; its CPU part 0xd03 is the Cortex-A53.
	{"cpu_core", "Cortex-A53", func(g Guest) string { return firstOr(cpuinfo(g, "CPU part"), "") }, "0xd03"},
	// The userland (/bin/sh, busybox) and the thruput that ran are the
	// guest's choice, arm64 or 32-bit ARM, so want is what their ELF
	// headers say.
	{"userland_bits", "", func(g Guest) string { return elfBits(g, "/bin/sh") }, ""},
	{"userland_arch", "", func(g Guest) string { return elfMachine(g, "/bin/sh") }, ""},
	{"process_bits", "", func(g Guest) string { return elfBits(g, "/bin/thruput") }, ""},
}

// elfBits is the width an ELF class says (byte 4: 1 is 32-bit, 2 64-bit);
// elfMachine the architecture its machine says (bytes 18-19, 0x28 is
// EM_ARM, 0xb7 EM_AARCH64); "" for anything else.
func elfBits(g Guest, path string) string {
	return map[string]string{"01": "32", "02": "64"}[elfByte(g, path, 4)]
}

func elfMachine(g Guest, path string) string {
	return map[string]string{"28": "arm", "b7": "aarch64"}[elfByte(g, path, 18)]
}

// elfByte is byte i of the header of the guest's file path, from the
// guest's od dump, in hex.
func elfByte(g Guest, path string, i int) string {
	if f := strings.Fields(g.Value("od -An -tx1 -N20 " + path)); i < len(f) {
		return f[i]
	}
	return ""
}

// usbWant is the USB tree QEMU is told to build: the dwc2 root hub, a
// hub behind the Pi's one port (QEMU's hub is a full-speed, USB 1.1 one,
// so everything behind it runs at 12 Mbit/s), the disk on its port 1 and
// the network adapter on its port 2. The first driver of a root hub is
// its host controller's.
var usbWant = []struct {
	path, parent string
	speed        float64
	driver       string
}{
	{"usb1", "", 480, "dwc2"},
	{"1-1", "usb1", 12, "hub"},
	{"1-1.1", "1-1", 12, "usb-storage"},
	{"1-1.2", "1-1", 12, "cdc_ether"},
}

// blockWant are the disks: bus and driver as thruput names them.
var blockWant = []struct{ name, bus, driver, usbPath string }{
	{"mmcblk0", "mmc", "mmcblk", ""},
	{"sda", "usb", "usb-storage", "1-1.1"},
}

// TestRaspi3bSysinfo boots Debian's arm64 kernel on QEMU's raspi3b and
// checks that `thruput sysinfo --json`, run in the guest, agrees with
// what the guest's kernel shows: the board and SoC from the device tree,
// the architecture and cores, the USB tree with speeds and drivers, the
// disks and the network adapter.
func TestRaspi3bSysinfo(t *testing.T) {
	m := newMachine(t, "", nil)
	checkSysinfo(t, boot(t, m, 90*time.Second, nil))
}

// boot runs the guest and returns its parsed dump, failing the test when
// the guest did not finish it or a module did not load. beside, when not
// nil, runs while the guest does (a peer on this side), its context
// ended when QEMU ends; boot returns after it.
func boot(t *testing.T, m *Machine, timeout time.Duration, beside func(context.Context)) Guest {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	besideDone := make(chan struct{})
	bctx, bcancel := context.WithCancel(ctx)
	go func() {
		defer close(besideDone)
		if beside != nil {
			beside(bctx)
		}
	}()
	err := m.Run(ctx)
	bcancel()
	<-besideDone
	out := m.Console()
	if err != nil {
		t.Fatalf("%v; console:\n%s", err, tail(out, 4000))
	}
	t.Cleanup(func() {
		if t.Failed() && m.Stderr.Len() > 0 {
			t.Logf("QEMU's stderr:\n%s", tail(m.Stderr.Bytes(), 1000))
		}
	})
	t.Logf("guest booted and dumped in %v, QEMU ended %s", time.Since(start).Round(100*time.Millisecond), m.Ended)
	g, err := ParseConsole(out)
	if err != nil {
		t.Fatalf("%v; console:\n%s", err, tail(out, 4000))
	}
	if len(g.Failed) > 0 {
		t.Errorf("modules that did not load: %v", g.Failed)
	}
	return g
}

// checkSysinfo checks that `thruput sysinfo --json`, run in the guest,
// agrees with what the guest's kernel shows.
func checkSysinfo(t *testing.T, g Guest) {
	t.Helper()
	if st := g.Status["thruput sysinfo --json"]; st != "rc=0" {
		t.Fatalf("thruput sysinfo in the guest: %s; output:\n%s", st, g.Files["thruput sysinfo --json"])
	}
	var doc sysinfoJSON
	if err := json.Unmarshal([]byte(g.Files["thruput sysinfo --json"]), &doc); err != nil {
		t.Fatalf("thruput's JSON: %v\n%s", err, g.Files["thruput sysinfo --json"])
	}

	for _, f := range hostFacts {
		got := jsonString(doc.Host[f.field])
		kernel := f.kernel(g)
		kernelWant := f.kernelWant
		if kernelWant == "" {
			kernelWant = f.want
		}
		if f.want != "" && kernel != kernelWant {
			t.Errorf("host.%s: the guest's kernel shows %q, the emulated board is %q", f.field, kernel, kernelWant)
		}
		want := f.want
		if want == "" {
			want = kernel
		}
		if got != want {
			t.Errorf("host.%s = %q, want %q (the guest's kernel shows %q)", f.field, got, want, kernel)
		}
	}

	kusb := kernelUSB(g)
	for _, w := range usbWant {
		k, ok := kusb[w.path]
		if !ok || k.parent != w.parent || k.speed != w.speed || len(k.drivers) == 0 || k.drivers[0] != w.driver {
			t.Errorf("USB %s: the guest's kernel shows %+v, the emulation is parent %q, %v Mbit/s, driver %s", w.path, k, w.parent, w.speed, w.driver)
		}
	}
	var tpaths []string
	for _, d := range doc.System.USB {
		tpaths = append(tpaths, d.Path)
		k := kusb[d.Path]
		got := usbNode{parent: d.Parent, speed: d.SpeedMbps, vendor: d.VendorID, product: d.ProductID, name: d.Product, drivers: d.Drivers}
		if !k.equal(got) {
			t.Errorf("usb %s: thruput has %+v, the guest's kernel %+v", d.Path, got, k)
		}
	}
	if kp := sortedKeys(kusb); !slices.Equal(sorted(tpaths), kp) {
		t.Errorf("usb[] paths %v, the guest's kernel has %v", tpaths, kp)
	}

	kblock := kernelBlock(g)
	var tblocks []string
	for _, b := range doc.System.BlockDevices {
		tblocks = append(tblocks, b.Name)
		k, ok := kblock[b.Name]
		if !ok {
			t.Errorf("block device %s: not in the guest's /sys/block", b.Name)
			continue
		}
		// The driver closest to the device: the USB interface's for a
		// USB disk (sd is the SCSI layer's), the block driver otherwise.
		kdriver := k.driver
		if k.usbPath != "" {
			kdriver = firstOr(kusb[k.usbPath].drivers, "")
		}
		if b.Bus != k.bus || b.Driver != kdriver || b.USBPath != k.usbPath || b.SizeBytes != k.size {
			t.Errorf("block %s: thruput has bus %q driver %q usb_path %q size %d; the guest's kernel %q %q %q %d",
				b.Name, b.Bus, b.Driver, b.USBPath, b.SizeBytes, k.bus, kdriver, k.usbPath, k.size)
		}
	}
	if kp := sortedKeys(kblock); !slices.Equal(sorted(tblocks), kp) {
		t.Errorf("block_devices %v, the guest's /sys/block has %v", tblocks, kp)
	}
	for _, w := range blockWant {
		i := slices.IndexFunc(doc.System.BlockDevices, func(b blockJSON) bool { return b.Name == w.name })
		if i < 0 {
			continue // reported above
		}
		if b := doc.System.BlockDevices[i]; b.Bus != w.bus || b.Driver != w.driver || b.USBPath != w.usbPath {
			t.Errorf("block %s: thruput has bus %q driver %q usb_path %q, the emulation is %q %q %q", w.name, b.Bus, b.Driver, b.USBPath, w.bus, w.driver, w.usbPath)
		}
	}
	// The SD card sits on the BCM2835's SD host controller, which
	// Linux's bcm2835 module runs as sdhost-bcm2835 (QEMU wires the card to it once the
	// pin controller routes GPIO 48-53 there, as the device tree says).
	if h := filepath.Base(g.Links["/sys/block/mmcblk0/device/../../../driver"]); h != "sdhost-bcm2835" {
		t.Errorf("the SD card's host controller driver is %q, want sdhost-bcm2835", h)
	}

	knet := kernelNet(g, kusb)
	var tnets []string
	for _, n := range doc.System.NetInterfaces {
		if n.Bus == "virtual" {
			continue
		}
		tnets = append(tnets, n.Name)
		k := knet[n.Name]
		if n.Driver != k.driver || n.Bus != k.bus || n.USBPath != k.usbPath {
			t.Errorf("net %s: thruput has driver %q bus %q usb_path %q; the guest's kernel %+v", n.Name, n.Driver, n.Bus, n.USBPath, k)
		}
	}
	if kp := sortedKeys(knet); !slices.Equal(sorted(tnets), kp) {
		t.Errorf("net_interfaces %v, the guest's kernel has %v with a device", tnets, kp)
	}
	if len(knet) != 1 {
		t.Errorf("the guest's kernel has network interfaces %v, want the one USB adapter", sortedKeys(knet))
	}
}

// newMachine finds QEMU, mkfs.ext4 and the unpacked packages, builds a
// thruput (arm64, or 32-bit ARM at level goarm, "7" or "6", then in the
// armhf busybox's 32-bit userland) and prepares a guest in a temporary
// directory that runs the script runs after its dump. Without QEMU, mkfs.ext4 or the packages it skips,
// except under CI (CI=true), where that skip would hide a setup that
// lost them: it fails.
func newMachine(t *testing.T, goarm string, runs []byte, trees ...string) *Machine {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: boots an emulated Raspberry Pi for about 20 s")
	}
	qemu, err := exec.LookPath("qemu-system-aarch64")
	if err != nil {
		skipMissing(t, "no qemu-system-aarch64 (Debian's qemu-system-arm)")
	}
	if _, err := MkfsExt4(); err != nil {
		skipMissing(t, "%v", err)
	}
	kit := requireKit(t)
	if goarm != "" && kit.Busybox32 == "" {
		skipMissing(t, "no armhf busybox in %s for a 32-bit userland (scripts/pilab-fetch fetches it)", Dir())
	}
	dir := t.TempDir()
	platform := []string{"GOOS=linux", "GOARCH=arm64"}
	if goarm != "" {
		platform = []string{"GOOS=linux", "GOARCH=arm", "GOARM=" + goarm}
	}
	bin := buildThruput(t, dir, platform...)
	m := &Machine{Dir: dir, Kit: kit, Qemu: qemu, Runs: runs, Trees: trees}
	if goarm != "" {
		m.Busybox = kit.Busybox32
	}
	if err := m.Prepare(bin); err != nil {
		t.Fatal(err)
	}
	return m
}

// buildThruput builds a static thruput into dir for the platform env
// names (GOOS=, GOARCH=, GOARM=; none: this machine's).
func buildThruput(t *testing.T, dir string, env ...string) string {
	t.Helper()
	return buildCommand(t, filepath.Join(dir, "thruput"), "github.com/thruput/thruput/cmd/thruput", env...)
}

// buildCommand builds the static command pkg into bin for the platform
// env names.
func buildCommand(t *testing.T, bin, pkg string, env ...string) string {
	t.Helper()
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, pkg)
	build.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s %v: %v\n%s", pkg, env, err, out)
	}
	return bin
}

// sysinfoJSON is the part of `thruput sysinfo --json` checked here. host
// is kept generic so that a new field needs only a hostFacts row.
type sysinfoJSON struct {
	Host   map[string]any `json:"host"`
	System struct {
		USB []struct {
			Path      string   `json:"path"`
			Parent    string   `json:"parent"`
			SpeedMbps float64  `json:"speed_mbps"`
			VendorID  string   `json:"vendor_id"`
			ProductID string   `json:"product_id"`
			Product   string   `json:"product"`
			Drivers   []string `json:"drivers"`
		} `json:"usb"`
		BlockDevices  []blockJSON `json:"block_devices"`
		NetInterfaces []struct {
			Name    string `json:"name"`
			Driver  string `json:"driver"`
			Bus     string `json:"bus"`
			USBPath string `json:"usb_path"`
		} `json:"net_interfaces"`
	} `json:"system"`
}

type blockJSON struct {
	Name      string `json:"name"`
	Bus       string `json:"bus"`
	Driver    string `json:"driver"`
	USBPath   string `json:"usb_path"`
	SizeBytes int64  `json:"size_bytes"`
}

// jsonString prints a decoded JSON value as the kernel's text would
// read: numbers without a fraction as integers, absent as "".
func jsonString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// cpuinfo returns the values of key in /proc/cpuinfo, one per line that
// has it (one per core for "processor").
func cpuinfo(g Guest, key string) []string {
	var vals []string
	for _, l := range strings.Split(g.Files["/proc/cpuinfo"], "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == key {
			vals = append(vals, strings.TrimSpace(v))
		}
	}
	return vals
}

// usbNode is one USB device as the guest's kernel shows it.
type usbNode struct {
	parent                string
	speed                 float64
	vendor, product, name string
	drivers               []string
}

func (n usbNode) equal(o usbNode) bool {
	return n.parent == o.parent && n.speed == o.speed && n.vendor == o.vendor &&
		n.product == o.product && n.name == o.name && slices.Equal(n.drivers, o.drivers)
}

var (
	usbDevName   = regexp.MustCompile(`^(usb[0-9]+|[0-9]+-[0-9.]+)$`)
	usbIfaceName = regexp.MustCompile(`^([0-9]+-[0-9.]+):[0-9]+\.([0-9]+)$`)
)

// kernelUSB reads the guest's /sys/bus/usb/devices: each device with its
// parent (the directory above it in the resolved path), its attributes,
// and the drivers of its interfaces in interface order, after the host
// controller's for a root hub (whose interfaces are named 1-0:1.0).
func kernelUSB(g Guest) map[string]usbNode {
	const dir = "/sys/bus/usb/devices/"
	nodes := map[string]usbNode{}
	for _, link := range sortedKeys(g.Links) {
		name, ok := strings.CutPrefix(link, dir)
		if !ok || !usbDevName.MatchString(name) {
			continue
		}
		p := dir + name
		speed, _ := strconv.ParseFloat(g.Value(p+"/speed"), 64)
		n := usbNode{speed: speed, vendor: g.Value(p + "/idVendor"), product: g.Value(p + "/idProduct"), name: g.Value(p + "/product")}
		if parent := filepath.Base(filepath.Dir(g.Links[link])); usbDevName.MatchString(parent) {
			n.parent = parent
		}
		if strings.HasPrefix(name, "usb") {
			n.drivers = append(n.drivers, filepath.Base(g.Links[p+"/../driver"]))
		}
		nodes[name] = n
	}
	type iface struct {
		num    int
		driver string
	}
	ifaces := map[string][]iface{}
	for _, link := range sortedKeys(g.Links) {
		name, ok := strings.CutPrefix(link, dir)
		m := usbIfaceName.FindStringSubmatch(name)
		if !ok || m == nil {
			continue
		}
		dev := m[1]
		if bus, ok := strings.CutSuffix(dev, "-0"); ok {
			dev = "usb" + bus
		}
		num, _ := strconv.Atoi(m[2])
		if drv := g.Links[link+"/driver"]; drv != "" {
			ifaces[dev] = append(ifaces[dev], iface{num, filepath.Base(drv)})
		}
	}
	for dev, list := range ifaces {
		slices.SortFunc(list, func(a, b iface) int { return a.num - b.num })
		n := nodes[dev]
		for _, i := range list {
			if !slices.Contains(n.drivers, i.driver) {
				n.drivers = append(n.drivers, i.driver)
			}
		}
		nodes[dev] = n
	}
	return nodes
}

// usbPathOf is the last USB device (not interface) in a resolved sysfs
// path: the device a disk or an interface hangs off.
func usbPathOf(resolved string) string {
	last := ""
	for _, part := range strings.Split(resolved, "/") {
		if usbDevName.MatchString(part) && !strings.HasPrefix(part, "usb") {
			last = part
		}
	}
	return last
}

type blockNode struct {
	bus, driver, usbPath string
	size                 int64
}

// kernelBlock reads the guest's /sys/block, leaving out loop and RAM
// disks as thruput does.
func kernelBlock(g Guest) map[string]blockNode {
	nodes := map[string]blockNode{}
	for _, link := range sortedKeys(g.Links) {
		name, ok := strings.CutPrefix(link, "/sys/block/")
		if !ok || strings.Contains(name, "/") || strings.HasPrefix(name, "loop") || strings.HasPrefix(name, "ram") {
			continue
		}
		target := g.Links[link]
		sectors, _ := strconv.ParseInt(g.Value(link+"/size"), 10, 64)
		n := blockNode{driver: filepath.Base(g.Links[link+"/device/driver"]), usbPath: usbPathOf(target), size: sectors * 512}
		switch {
		case n.usbPath != "":
			n.bus = "usb"
		case strings.Contains(target, "/mmc_host/"):
			n.bus = "mmc"
		}
		nodes[name] = n
	}
	return nodes
}

type netNode struct{ driver, bus, usbPath string }

// kernelNet reads the guest's network interfaces that have a device.
func kernelNet(g Guest, usb map[string]usbNode) map[string]netNode {
	nodes := map[string]netNode{}
	for _, link := range sortedKeys(g.Links) {
		rest, ok := strings.CutPrefix(link, "/sys/class/net/")
		name, ok2 := strings.CutSuffix(rest, "/device")
		if !ok || !ok2 {
			continue
		}
		n := netNode{driver: filepath.Base(g.Links[link+"/driver"]), usbPath: usbPathOf(g.Links[link])}
		if _, ok := usb[n.usbPath]; ok {
			n.bus = "usb"
		}
		nodes[name] = n
	}
	return nodes
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// tail is the last n bytes of the console, where a failed boot says why.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
