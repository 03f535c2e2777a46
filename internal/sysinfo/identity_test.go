package sysinfo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestDecodePiRevision: codes from Raspberry Pi's table of revision codes
// (raspberrypi/documentation, computers/raspberry-pi/revision-codes.adoc).
func TestDecodePiRevision(t *testing.T) {
	for code, want := range map[string]PiRevision{
		"0002":    {"Raspberry Pi Model B", "BCM2835", 256 << 20, "1"},
		"000e":    {"Raspberry Pi Model B", "BCM2835", 512 << 20, "2"},
		"0010":    {"Raspberry Pi Model B Plus", "BCM2835", 512 << 20, "1.2"},
		"900093":  {"Raspberry Pi Zero", "BCM2835", 512 << 20, "1.3"},
		"9000c1":  {"Raspberry Pi Zero W", "BCM2835", 512 << 20, "1.1"},
		"a01041":  {"Raspberry Pi 2 Model B", "BCM2836", 1 << 30, "1.1"},
		"1a01040": {"Raspberry Pi 2 Model B", "BCM2836", 1 << 30, "1.0"},
		"a02082":  {"Raspberry Pi 3 Model B", "BCM2837", 1 << 30, "1.2"},
		"a020d3":  {"Raspberry Pi 3 Model B Plus", "BCM2837", 1 << 30, "1.3"},
		"902120":  {"Raspberry Pi Zero 2 W", "RP3A0", 512 << 20, "1.0"},
		"c03114":  {"Raspberry Pi 4 Model B", "BCM2711", 4 << 30, "1.4"},
		"a03140":  {"Raspberry Pi Compute Module 4", "BCM2711", 1 << 30, "1.0"},
		"c03130":  {"Raspberry Pi 400", "BCM2711", 4 << 30, "1.0"},
		"d04170":  {"Raspberry Pi 5", "BCM2712", 8 << 30, "1.0"},
	} {
		got, ok := DecodePiRevision(code)
		if !ok || got != want {
			t.Errorf("DecodePiRevision(%q) = %+v, %v; want %+v", code, got, ok, want)
		}
	}
	for _, bad := range []string{"", "0000", "0001", "zz", "ff0000", "a0f082", "123456789"} {
		if r, ok := DecodePiRevision(bad); ok {
			t.Errorf("DecodePiRevision(%q) = %+v, want no board", bad, r)
		}
	}
}

// TestDecodeCID: the SD CID laid out as SanDisk's SD Card Product Manual
// (rev 2.2, table 3-10) shows it: MID 0x03, OID "SD", name "SD02G", the
// revision 6.2 as 0x62, and its date example "April 2001 = 0x014".
func TestDecodeCID(t *testing.T) {
	got, ok := DecodeCID("035344534430324762123456780014ff", false)
	want := result.CardIdentity{CID: "035344534430324762123456780014ff", ManufacturerID: "0x03", OEMID: "0x5344",
		Name: "SD02G", Revision: "6.2", Serial: "0x12345678", Date: "04/2001"}
	if !ok || got != want {
		t.Errorf("DecodeCID = %+v, %v; want %+v", got, ok, want)
	}
	for _, bad := range []string{"", "0353", "zz5344534430324762123456780014ff", "035344534430324762123456780014ff00"} {
		if _, ok := DecodeCID(bad, false); ok {
			t.Errorf("DecodeCID(%q) accepted", bad)
		}
	}
}

// TestDecodeSCRSSR: registers built from the bit positions of the SD
// Physical Layer Simplified Specification (SCR table 5-17, SD Status
// table 4-44): SD_SPEC 2 with SD_SPEC3 is "3.0x"; SD_SPECX 4 is "8.xx";
// speed class 4 is C10, UHS grade 3 U3, video class 30 V30, app class 2 A2.
func TestDecodeSCRSSR(t *testing.T) {
	for scr, want := range map[string]string{
		"0235800000000000": "3.0x",
		"0235840000000000": "4.xx",
		"0235810000000000": "8.xx", // SD_SPECX 4 in bits 41:38
		"0135000000000000": "1.10",
		"zz":               "",
	} {
		if got := DecodeSCR(scr); got != want {
			t.Errorf("DecodeSCR(%s) = %q, want %q", scr, got, want)
		}
	}
	b := make([]byte, 64)
	b[8] = 4       // SPEED_CLASS [447:440]
	b[14] = 3 << 4 // UHS_SPEED_GRADE [399:396]
	b[15] = 30     // VIDEO_SPEED_CLASS [391:384]
	b[21] = 2      // APP_PERF_CLASS [339:336]
	ssr := strings.Builder{}
	for _, c := range b {
		ssr.WriteString(string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15]))
	}
	if s, u, v, a := DecodeSSR(ssr.String()); s != "C10" || u != "U3" || v != "V30" || a != "A2" {
		t.Errorf("DecodeSSR = %s %s %s %s, want C10 U3 V30 A2", s, u, v, a)
	}
	if s, u, v, a := DecodeSSR("00"); s+u+v+a != "" {
		t.Errorf("DecodeSSR of a short register = %s %s %s %s", s, u, v, a)
	}
}

// TestCardSuspect: rows of sbc-bench's results/SD-cards-with-low-serial-
// numbers.md (commit 53f7951): an SMI card with manfid/oemid
// 0x000000/0x0000, an SD16G claiming Kingston's OEM id under 0x000000,
// an ASTC under 0x000012/0x5678; a genuine Kingston pair and a Phison
// card with a low serial are not suspect.
func TestCardSuspect(t *testing.T) {
	for _, tc := range []struct {
		manfid, oemid, name, serial string
		suspect                     bool
	}{
		{"0x000000", "0x0000", "SMI", "0x00000000", true},
		{"0x000000", "0x3432", "SD16G", "0x00000000", true},
		{"0x000012", "0x5678", "ASTC", "0x00000001", true},
		{"0x000003", "0x5344", "SC32G", "0x00000a12", true},
		{"0x000041", "0x3432", "SD32G", "0x5a3c1b22", false},
		{"0x000027", "0x5048", "SD32G", "0x00001234", false},
		// sbc-bench lets 0xdf/0x0118 pass (a genuine soldered eMMC), though
		// 0xdf under any other OEM id is a fake's.
		{"0x0000df", "0x0118", "Y2P128", "0x5a3c1b22", false},
		{"0x0000df", "0x0119", "Y2P128", "0x5a3c1b22", true},
		// A serial of zeros and the name 00000 are a fake's, 00000 on
		// Samsung's own cards excepted; Transcend's JE cards made before
		// 2013 carry low serials.
		{"0x000003", "0x5344", "SD32G", "0x00000000", true},
		{"0x000028", "0x4245", "00000", "0x5a3c1b22", true},
		{"0x00001b", "0x534d", "00000", "0x5a3c1b22", false},
		{"0x000074", "0x4a45", "USD", "0x00000a12", false},
	} {
		dir := t.TempDir()
		date := "03/2021"
		if tc.manfid == "0x000074" {
			date = "06/2010"
		}
		for k, v := range map[string]string{"manfid": tc.manfid, "oemid": tc.oemid, "name": tc.name, "serial": tc.serial, "type": "SD", "date": date} {
			if err := os.WriteFile(filepath.Join(dir, k), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := FS{}.cardIdentity(dir)
		if c == nil || (c.Suspect != "") != tc.suspect {
			t.Errorf("%s/%s %s serial %s: %+v, want suspect %v", tc.manfid, tc.oemid, tc.name, tc.serial, c, tc.suspect)
		}
	}
}

// TestRedact: what a capture zeroes.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"sys/devices/x/1-1/serial", "S3Z9NB0K123456\n", "00000000000000\n"},
		{"sys/devices/x/mmc0:aaaa/cid", "035344534430324762123456780014ff\n", "035344534430324762ffffffff0014ff\n"},
		{"sys/devices/x/mmc0:aaaa/cid", "035344534430324762000012340014ff\n", "0353445344303247620000ffff0014ff\n"},
		{"sys/devices/x/mmc0:aaaa/serial", "0x5a3c1b22\n", "0xffffffff\n"},
		{"sys/devices/x/mmc0:aaaa/serial", "0x00000a12\n", "0x00000fff\n"},
		{"sys/devices/x/mmc0:aaaa/serial", "0x00000000\n", "0x00000000\n"},
		{"proc/cpuinfo", "Revision\t: a020d3\nSerial\t\t: 000000005746899e\nModel\t: x\n", "Revision\t: a020d3\nSerial\t\t: 0000000000000000\nModel\t: x\n"},
		{"sys/class/net/eth0/address", "b8:27:eb:12:34:56\n", "00:00:00:00:00:00\n"},
		{"sys/devices/x/0:0:0:0/wwid", "naa.600224803d3e456b\n", "naa.0000000000000000\n"},
		{"proc/sys/kernel/osrelease", "6.1.21-v8+\n", "6.1.21-v8+\n"},
	} {
		if got := string(redact(tc.name, []byte(tc.in))); got != tc.want {
			t.Errorf("redact(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestUASQuirks: usb-storage.quirks' "u" flag, as people set it for
// JMicron and ASMedia bridges that misbehave on UAS.
func TestUASQuirks(t *testing.T) {
	sys := t.TempDir()
	dir := filepath.Join(sys, "module/usb_storage/parameters")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quirks"), []byte("152d:0578:u,174C:55AA:,0bda:9210:ku,0x1058:0x0a10:u,2537:1066:u,zz:1:u\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := FS{Sys: sys}.uasIgnored()
	// Armbian writes "0x"-prefixed ids; "zz" is no hex number.
	if !got["152d:0578"] || got["174c:55aa"] || !got["0bda:9210"] || !got["1058:0a10"] || !got["2537:1066"] || len(got) != 4 {
		t.Errorf("uasIgnored = %v", got)
	}
}

func FuzzDecoders(f *testing.F) {
	f.Add("035344534430324762123456780014ff", "a020d3")
	f.Add("0235800000000000", "0002")
	f.Fuzz(func(t *testing.T, hex, code string) {
		if c, ok := DecodeCID(hex, len(code)%2 == 0); ok && (len(c.Name) > 6 || c.CID != hex) {
			t.Fatalf("DecodeCID(%q) = %+v", hex, c)
		}
		DecodeSCR(hex)
		DecodeSSR(hex)
		if r, ok := DecodePiRevision(code); ok && (r.Model == "" || r.SoC == "" || r.MemoryBytes <= 0) {
			t.Fatalf("DecodePiRevision(%q) = %+v", code, r)
		}
	})
}

// FuzzUnpack: a capture is outside input; whatever it holds, nothing is
// written outside the directory it unpacks to.
func FuzzUnpack(f *testing.F) {
	f.Add("thruput sysinfo capture\n-- proc/cpuinfo --\nprocessor : 0\n-- sys/a -> ../proc --\n-- sys/b/ --\n")
	f.Add("-- ../x --\n")
	f.Add("-- a -> /etc --\n")
	f.Fuzz(func(t *testing.T, archive string) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "root")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = Unpack([]byte(archive), dir)
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 {
			t.Fatalf("unpack wrote beside its directory: %v", entries)
		}
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				full := filepath.Join(filepath.Dir(p), target)
				if filepath.IsAbs(target) || !strings.HasPrefix(full, dir) {
					t.Fatalf("link %s -> %s leads out of %s", p, target, dir)
				}
			}
			return nil
		})
	})
}

// TestIdleHostsAndOverlays: an SD host the driver powered off says no bus
// mode (its ios still reads "legacy" at 0 Hz); an overlay root whose
// upper directory sits on a tmpfs, as raspi-config's does, says so.
func TestIdleHostsAndOverlays(t *testing.T) {
	root := t.TempDir()
	fs := AtRoot(root)
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The layout of the kernel's mmc_ios_show (drivers/mmc/core/debugfs.c).
	write("sys/kernel/debug/mmc1/ios", "clock:\t\t0 Hz\nvdd:\t\t0 (invalid)\nbus mode:\t2 (push-pull)\nchip select:\t0 (don't care)\npower mode:\t0 (off)\nbus width:\t0 (1 bits)\ntiming spec:\t0 (legacy)\n")
	if timing, clock, width := fs.mmcIOS("mmc1"); timing != "" || clock != 0 || width != 0 {
		t.Errorf("powered-off host: %q %d %d, want unknown", timing, clock, width)
	}
	write("sys/kernel/debug/mmc0/ios", "clock:\t\t50000000 Hz\npower mode:\t2 (on)\nbus width:\t2 (4 bits)\ntiming spec:\t2 (sd high-speed)\n")
	if timing, clock, width := fs.mmcIOS("mmc0"); timing != "sd high-speed" || clock != 50e6 || width != 4 {
		t.Errorf("powered host: %q %d %d", timing, clock, width)
	}
	write("proc/self/mountinfo", "20 1 0:18 / /media/root-rw rw,relatime - tmpfs tmpfs-root rw\n"+
		"21 1 0:19 / / rw,noatime - overlay overlayroot rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/overlay-workdir\n")
	tg, err := fs.Target("/home/pi")
	if err != nil || tg.FSType != "overlay" || tg.OverlayUpperFS != "tmpfs" {
		t.Errorf("overlay root: %+v, %v", tg, err)
	}
}

// TestDecodeEMMCCID: the eMMC layout (JESD84 7.2): CBX 01 (BGA) and OID
// 0x00 read as the kernel prints them, 0x0100, as sbc-bench shows for
// Samsung's chips (results/Xh2H.txt: "Samsung BJTD4R ... 0x000015/0x0100").
// The date nibble 7 is 1997+7; chips of spec 4.41 on count from 2013, which
// only the kernel (knowing EXT_CSD) can tell, so its own date file wins.
func TestDecodeEMMCCID(t *testing.T) {
	c, ok := DecodeCID("150100424a544434520312345678a7ff", true)
	if !ok || c.ManufacturerID != "0x15" || c.OEMID != "0x0100" || c.Name != "BJTD4R" || c.Revision != "0.3" || c.Serial != "0x12345678" || c.Date != "10/2004" {
		t.Errorf("DecodeCID = %+v", c)
	}
}

// FuzzUASQuirks: whatever the quirks parameter holds, every id read is a
// VID:PID as sysfs spells them.
func FuzzUASQuirks(f *testing.F) {
	f.Add("152d:0578:u,174C:55AA:,0bda:9210:ku")
	f.Add("0x2537:0x1066:u,0x2537:0x1068:u,0x1058:0x0a10:u")
	f.Add("1058:a10:u,:::,0x:0x:u,12345:1:u")
	sysID := regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{4}$`)
	f.Fuzz(func(t *testing.T, quirks string) {
		sys := t.TempDir()
		dir := filepath.Join(sys, "module/usb_storage/parameters")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "quirks"), []byte(quirks), 0o644); err != nil {
			t.Fatal(err)
		}
		for id := range (FS{Sys: sys}).uasIgnored() {
			if !sysID.MatchString(id) {
				t.Fatalf("quirks %q gave id %q", quirks, id)
			}
		}
	})
}
