package sysinfo

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// fixture is testdata/<name>.txtar unpacked into a temporary tree, as
// roots. The trees are kept as archives, not checked in as they are,
// because sysfs names hold colons (8:1, 0000:00:1f.2), which Go module zips
// reject. A file named "link -> target" becomes a symlink. The tree is
// shared (see unpacked): a test must not write into it.
func fixture(t testing.TB, name string) FS {
	t.Helper()
	return unpacked(t, name+".txtar")
}

// trees holds each archive of testdata unpacked once for the whole test
// binary: the tests only read their trees, and unpacking one again for
// every test (a few hundred files and directories each) was most of this
// package's -short time.
var trees struct {
	sync.Mutex
	dir string
	fs  map[string]FS
}

// unpacked is the archive testdata/<archive> as an FS, unpacked on first
// use.
func unpacked(t testing.TB, archive string) FS {
	t.Helper()
	trees.Lock()
	defer trees.Unlock()
	if fs, ok := trees.fs[archive]; ok {
		return fs
	}
	if trees.dir == "" {
		// In memory (/dev/shm, a tmpfs) where the system has one: the
		// trees are about a thousand files and as many directories,
		// which on a disk's filesystem (ext4 reads its inode tables to
		// place each new one) took five times the tests' own time.
		dir, err := os.MkdirTemp("/dev/shm", "thruput-sysinfo-fixtures-")
		if err != nil {
			dir, err = os.MkdirTemp("", "thruput-sysinfo-fixtures-")
		}
		if err != nil {
			t.Fatal(err)
		}
		trees.dir, trees.fs = dir, map[string]FS{}
	}
	path := archive // a capture outside the repository (realdata) by its path
	if !filepath.IsAbs(archive) {
		path = filepath.Join("testdata", archive)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(trees.dir, strings.TrimSuffix(archive, ".txtar"))
	if err := Unpack(b, dir); err != nil {
		t.Fatal(err)
	}
	trees.fs[archive] = AtRoot(dir)
	return trees.fs[archive]
}

// TestMain removes the shared trees after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if trees.dir != "" {
		os.RemoveAll(trees.dir)
	}
	os.Exit(code)
}

func TestHost(t *testing.T) {
	withoutSys := func(roots FS) FS {
		roots.Sys = t.TempDir()
		return roots
	}
	// The ARMv6 build's "+" beside an ARM1176: uname -m was not
	// recorded, and is inferred.
	pi1 := result.Host{
		Hostname:     "raspberrypi",
		Kernel:       "6.1.21+",
		OS:           "Raspbian GNU/Linux 11 (bullseye)",
		Arch:         "armv6l",
		Inferred:     []string{"arch"},
		InferredFrom: []string{"kernel release suffix +"},
		Board:        "Raspberry Pi Model B Rev 2",
		SoC:          "BCM2835",
		Revision:     "000e",
		CPUCore:      "ARM1176",
		CPUModel:     "ARMv6-compatible processor rev 7 (v6l)",
		CPUCores:     1,
		MemoryBytes:  445376 * 1024,
		CPUGovernor:  "ondemand",
	}
	pi1NoSys := pi1
	pi1NoSys.CPUGovernor = ""
	for _, tc := range []struct {
		name    string
		fixture string
		adjust  func(FS) FS
		want    result.Host
	}{
		{
			name:    "pi1",
			fixture: "pi1",
			want:    pi1,
		},
		{
			name:    "desktop",
			fixture: "desktop",
			want: result.Host{
				Hostname:    "desktop",
				Kernel:      "5.15.0-105-generic",
				OS:          "Ubuntu 22.04.4 LTS",
				Board:       "ASUSTeK COMPUTER INC. H97-PRO",
				CPUModel:    "Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz",
				CPUCores:    4,
				MemoryBytes: 16302248 * 1024,
			},
		},
		{
			// Without sysfs the cores are counted in cpuinfo, and DMI is gone.
			name:    "desktop without sysfs",
			fixture: "desktop",
			adjust:  withoutSys,
			want: result.Host{
				Hostname:    "desktop",
				Kernel:      "5.15.0-105-generic",
				OS:          "Ubuntu 22.04.4 LTS",
				CPUModel:    "Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz",
				CPUCores:    4,
				MemoryBytes: 16302248 * 1024,
			},
		},
		{
			// /proc/device-tree still names the board; the governor is
			// sysfs's.
			name:    "pi1 without sysfs",
			fixture: "pi1",
			adjust:  withoutSys,
			want:    pi1NoSys,
		},
		{
			name:    "nothing readable",
			fixture: "pi1",
			adjust:  func(FS) FS { return FS{Proc: t.TempDir(), Sys: t.TempDir(), Etc: t.TempDir()} },
			want:    result.Host{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			roots := fixture(t, tc.fixture)
			if tc.adjust != nil {
				roots = tc.adjust(roots)
			}
			if got := roots.Host(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Host() =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	flash, spinning := new(false), new(true)
	for _, tc := range []struct {
		fixture string
		path    string
		want    result.Target
	}{
		{"pi1", "/home/pi/bench", result.Target{
			FSType: "ext4", MountPoint: "/", MountOptions: "rw,noatime", MountSource: "/dev/root",
			Device: "mmcblk0", Partition: "mmcblk0p2", DeviceModel: "SD SC32G",
			LogicalBlockSize: 512, Rotational: flash,
		}},
		{"pi1", "/boot", result.Target{
			FSType: "vfat", MountPoint: "/boot", MountSource: "/dev/mmcblk0p1",
			MountOptions: "rw,relatime,fmask=0022,dmask=0022,codepage=437,iocharset=ascii,shortname=mixed,errors=remount-ro",
			Device:       "mmcblk0", Partition: "mmcblk0p1", DeviceModel: "SD SC32G",
			LogicalBlockSize: 512, Rotational: flash,
		}},
		// Nested deep under a mount.
		{"pi1", "/media/ext4/thruput/a/b/c/d", result.Target{
			FSType: "ext4", MountPoint: "/media/ext4", MountOptions: "rw,relatime,stripe=8191", MountSource: "/dev/sda1",
			Device: "sda", Partition: "sda1", DeviceModel: "Seagate Expansion", DeviceID: "usb:0bc2:2300:",
			LogicalBlockSize: 512, Rotational: spinning,
		}},
		{"desktop", "/home/user/bench", result.Target{
			FSType: "ext4", MountPoint: "/", MountOptions: "rw,relatime,errors=remount-ro", MountSource: "/dev/nvme0n1p2",
			Device: "nvme0n1", Partition: "nvme0n1p2", DeviceModel: "Samsung SSD 970 EVO Plus 500GB",
			LogicalBlockSize: 512, Rotational: flash,
		}},
		// /srv/data is mounted twice; the xfs on top hides the tmpfs.
		{"desktop", "/srv/data/runs/2024", result.Target{
			FSType: "xfs", MountPoint: "/srv/data", MountSource: "/dev/sda1",
			MountOptions: "rw,noatime,attr2,inode64,logbufs=8,logbsize=32k,noquota",
			Device:       "sda", Partition: "sda1", DeviceModel: "WDC WD10EZEX-08W",
			LogicalBlockSize: 512, Rotational: spinning,
		}},
		// A prefix of the path that ends mid-name is not its mount point.
		{"desktop", "/srv/database", result.Target{
			FSType: "ext4", MountPoint: "/", MountOptions: "rw,relatime,errors=remount-ro", MountSource: "/dev/nvme0n1p2",
			Device: "nvme0n1", Partition: "nvme0n1p2", DeviceModel: "Samsung SSD 970 EVO Plus 500GB",
			LogicalBlockSize: 512, Rotational: flash,
		}},
		{"desktop", "/tmp/thruput", result.Target{
			FSType: "tmpfs", MountPoint: "/tmp", MountSource: "tmpfs",
			MountOptions: "rw,nosuid,nodev,size=8151124k,nr_inodes=1048576,inode64",
		}},
		// btrfs shows an anonymous device; the source names the disk.
		{"desktop", "/mnt/backup/daily", result.Target{
			FSType: "btrfs", MountPoint: "/mnt/backup", MountSource: "/dev/sdb1",
			MountOptions: "rw,relatime,space_cache=v2,subvolid=257,subvol=/@backup",
			Device:       "sdb", Partition: "sdb1", DeviceModel: "ST2000DM008-2FR1",
			LogicalBlockSize: 512, Rotational: spinning,
		}},
		// A mount point with a space, and a loop device with its image.
		{"desktop", "/mnt/win data/Users/Public", result.Target{
			FSType: "fuseblk", MountPoint: "/mnt/win data", MountSource: "/dev/loop3",
			MountOptions: "rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096",
			Device:       "loop3", LoopBackingFile: "/var/tmp/ntfs.img",
			LogicalBlockSize: 512, Rotational: flash,
		}},
		{"desktop", "/mnt/win data", result.Target{
			FSType: "fuseblk", MountPoint: "/mnt/win data", MountSource: "/dev/loop3",
			MountOptions: "rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096",
			Device:       "loop3", LoopBackingFile: "/var/tmp/ntfs.img",
			LogicalBlockSize: 512, Rotational: flash,
		}},
	} {
		t.Run(tc.fixture+tc.path, func(t *testing.T) {
			got, err := fixture(t, tc.fixture).Target(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Path = tc.path
			if !sameTarget(got, tc.want) {
				t.Errorf("Target(%q) =\n%s\nwant\n%s", tc.path, show(got), show(tc.want))
			}
		})
	}
}

// sameTarget compares targets by the value Rotational points to.
func sameTarget(a, b result.Target) bool {
	ra, rb := a.Rotational, b.Rotational
	a.Rotational, b.Rotational = nil, nil
	return a == b && (ra == nil) == (rb == nil) && (ra == nil || *ra == *rb)
}

func show(t result.Target) string {
	b, _ := json.MarshalIndent(t, "", "  ")
	return string(b)
}

func TestTargetErrors(t *testing.T) {
	table := func(content string) FS {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "self"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "self/mountinfo"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return FS{Proc: dir, Sys: t.TempDir(), Etc: t.TempDir()}
	}
	srv := "45 28 8:1 / /srv rw - xfs /dev/sda1 rw\n"
	for _, tc := range []struct {
		name  string
		roots FS
		path  string
		want  error
	}{
		{"no mount table", FS{Proc: t.TempDir()}, "/srv", fs.ErrNotExist},
		{"malformed table", table(srv + "46 28 8:2 / /mnt rw xfs /dev/sda2 rw\n"), "/srv", ErrMountInfo},
		{"path on no mount", table(srv), "/home", ErrNoMount},
		{"relative path", table(srv), "srv", ErrNoMount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.roots.Target(tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Target(%q) error = %v, want %v", tc.path, err, tc.want)
			}
			if got != (result.Target{Path: tc.path}) {
				t.Errorf("Target(%q) = %+v, want only the path", tc.path, got)
			}
		})
	}
	// A mount that sysfs knows nothing about is no error.
	got, err := table(srv).Target("/srv/x")
	if err != nil || got.FSType != "xfs" || got.Device != "" {
		t.Errorf("Target without sysfs = %+v, %v; want xfs and no device", got, err)
	}
}

func TestBoard(t *testing.T) {
	for _, tc := range []struct {
		name string
		dmi  map[string]string
		want string
	}{
		{"system fields", map[string]string{"sys_vendor": "Dell Inc.", "product_name": "OptiPlex 9020", "board_name": "0PC5F7"}, "Dell Inc. OptiPlex 9020"},
		{"board fields", map[string]string{"sys_vendor": "System manufacturer", "product_name": "System Product Name", "board_vendor": "ASUSTeK COMPUTER INC.", "board_name": "PRIME B450M-A"}, "ASUSTeK COMPUTER INC. PRIME B450M-A"},
		{"placeholder vendor", map[string]string{"sys_vendor": "To Be Filled By O.E.M.", "product_name": "B450M Pro4"}, "B450M Pro4"},
		{"placeholders only", map[string]string{"sys_vendor": "To Be Filled By O.E.M.", "product_name": "To Be Filled By O.E.M.", "board_vendor": "Default string", "board_name": "Default string"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := t.TempDir()
			dir := filepath.Join(sys, "class/dmi/id")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, v := range tc.dmi {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := (FS{Proc: t.TempDir(), Sys: sys}).dmiBoard(); got != tc.want {
				t.Errorf("dmiBoard() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadValue(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"device-tree string", "Raspberry Pi Model B Rev 2\x00", "Raspberry Pi Model B Rev 2"},
		{"padded", "Seagate \n", "Seagate"},
		{"empty", "", ""},
		{"longer than the bound", strings.Repeat("x", maxValue+100), strings.Repeat("x", maxValue)},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readValue(path); got != tc.want {
			t.Errorf("%s: readValue = %.40q (%d bytes), want %.40q", tc.name, got, len(got), tc.want)
		}
	}
	if got := readValue(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: readValue = %q, want empty", got)
	}
}

func TestCountCPUs(t *testing.T) {
	for list, want := range map[string]int{
		"0": 1, "0-3": 4, "0,2-5": 5, "0-1,4,6-7": 5,
		"": 0, "3-1": 0, "x": 0, "0-": 0, "-1": 0, "0,,1": 0,
	} {
		if got := countCPUs(list); got != want {
			t.Errorf("countCPUs(%q) = %d, want %d", list, got, want)
		}
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`"Ubuntu 22.04.4 LTS"`: "Ubuntu 22.04.4 LTS",
		`'Alpine Linux v3.19'`: "Alpine Linux v3.19",
		`Arch`:                 "Arch",
		`"say \"hi\" for \$5"`: `say "hi" for $5`,
		`"`:                    `"`,
		`"unbalanced'`:         `"unbalanced'`,
	} {
		if got := unquote(in); got != want {
			t.Errorf("unquote(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/mnt/win\040data`: "/mnt/win data",
		`/a\011b\012c`:     "/a\tb\nc",
		`/back\134slash`:   `/back\slash`,
		`/plain`:           "/plain",
		`/short\04`:        `/short\04`,
		`/not\999octal`:    `/not\999octal`,
		`/too\400big`:      `/too\400big`,
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMountInfo(t *testing.T) {
	m, err := parseMountInfo("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue")
	want := mount{major: 98, point: "/mnt2", options: "rw,noatime", fsType: "ext3", source: "/dev/root", superOptions: "rw,errors=continue"}
	if err != nil || m != want {
		t.Errorf("parseMountInfo = %+v, %v; want %+v", m, err, want)
	}
	// An empty source still holds its place.
	m, err = parseMountInfo("50 28 0:46 / /run/user/1000 rw,nosuid,nodev - tmpfs  rw,size=1630224k")
	if err != nil || m.source != "" || m.superOptions != "rw,size=1630224k" {
		t.Errorf("empty source: parseMountInfo = %+v, %v", m, err)
	}
	for _, line := range []string{
		"",
		"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw",
		"36 35 98:0 /mnt1 /mnt2 rw,noatime - ext3 /dev/root",
		"36 35 98 /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw",
		"36 35 98:x /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw",
		"36 35 98:0 /mnt1 mnt2 rw,noatime - ext3 /dev/root rw",
	} {
		if _, err := parseMountInfo(line); !errors.Is(err, ErrMountInfo) {
			t.Errorf("parseMountInfo(%q) error = %v, want ErrMountInfo", line, err)
		}
	}
}

func FuzzParseMountInfo(f *testing.F) {
	for _, name := range []string{"pi1", "desktop"} {
		table, _ := os.ReadFile(filepath.Join(fixture(f, name).Proc, "self/mountinfo"))
		for line := range strings.Lines(string(table)) {
			f.Add(strings.TrimSuffix(line, "\n"))
		}
	}
	f.Add("1 2 3:4 / / - - - - - -")
	f.Add(`1 2 0:0 / /\ \1\12\123\1234 rw - a b c`)
	f.Fuzz(func(t *testing.T, line string) {
		m, err := parseMountInfo(line)
		if err != nil {
			if !errors.Is(err, ErrMountInfo) {
				t.Fatalf("error %v does not wrap ErrMountInfo", err)
			}
			return
		}
		if !strings.HasPrefix(m.point, "/") {
			t.Fatalf("mount point %q is not absolute", m.point)
		}
		if !holds(m.point, m.point) {
			t.Fatalf("mount point %q does not hold itself", m.point)
		}
		if opts := joinOptions(m.options, m.superOptions); strings.Contains(opts, ",,") {
			t.Fatalf("joined options %q hold an empty option", opts)
		}
	})
}

func TestLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc and /sys")
	}
	h := Default().Host()
	if h.Hostname == "" || h.Kernel == "" || h.Arch == "" || h.CPUCores <= 0 || h.MemoryBytes <= 0 {
		t.Errorf("Default().Host() = %+v; want hostname, kernel, arch, cores and memory", h)
	}
	dir := t.TempDir()
	tg, err := Default().Target(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Path != dir || tg.MountPoint == "" || tg.FSType == "" {
		t.Errorf("Default().Target(%q) = %+v; want the path, a mount point and a type", dir, tg)
	}
	t.Logf("host %+v", h)
	t.Logf("target %s", show(tg))
}

// TestSoC: the device tree's last compatible entry names the chip; the
// kernel's Hardware line, BCM2835 on every Raspberry Pi kernel, is the
// fallback; a PC has neither.
func TestSoC(t *testing.T) {
	for name, want := range map[string]string{"pi4": "BCM2711", "pi1": "BCM2835", "desktop": ""} {
		if got := fixture(t, name).Host().SoC; got != want {
			t.Errorf("%s: SoC %q, want %q", name, got, want)
		}
	}
}
