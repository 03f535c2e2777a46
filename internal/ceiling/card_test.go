package ceiling_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// sidecar reads a register set's .expect: its source line, and the
// values read by hand, one "key value" a line.
func sidecar(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		out[k] = v
	}
	if out["source"] == "" {
		t.Fatalf("%s names no source", path)
	}
	return out
}

// registers finds a register dump's CID, SCR and SSR in text as sysfs
// prints them and people paste them: "CID: hex", "SCR: hex", and "SSR:"
// with the 128 digits on the lines after it; as grep -H prints the files,
// ".../cid:hex"; or as udevadm info -a does, ATTRS{cid}=="hex". The first
// of each is taken.
func registers(text string) (cid, scr, ssr string) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		_, file, _ := strings.Cut(l, "/sys/")
		name, value, grepped := strings.Cut(file[strings.LastIndex(file, "/")+1:], ":")
		if attr, ok := strings.CutPrefix(strings.TrimSpace(l), "ATTRS{"); ok {
			name, value, grepped = strings.Cut(attr, `}=="`)
			value = strings.TrimSuffix(value, `"`)
		}
		switch {
		case grepped && cid == "" && name == "cid":
			cid = value
		case grepped && scr == "" && name == "scr":
			scr = value
		case grepped && ssr == "" && name == "ssr":
			ssr = value
		case cid == "" && strings.HasPrefix(l, "CID: "):
			cid = strings.TrimPrefix(l, "CID: ")
		case scr == "" && strings.HasPrefix(l, "SCR: "):
			scr = strings.TrimPrefix(l, "SCR: ")
		case ssr == "" && l == "SSR:":
			for _, next := range lines[i+1:] {
				if len(ssr) >= 128 || strings.Trim(next, "0123456789abcdef") != "" {
					break
				}
				ssr += next
			}
		}
	}
	return cid, scr, ssr
}

// TestRealRegisters: each register set card owners published is decoded
// to the claims read from it by hand, and a check of that card judges
// exactly the classes its registers claim.
func TestRealRegisters(t *testing.T) {
	expects, err := filepath.Glob("testdata/real/*.expect")
	if err != nil || len(expects) == 0 {
		t.Fatalf("no register sets: %v", err)
	}
	for _, exp := range expects {
		t.Run(filepath.Base(exp), func(t *testing.T) {
			want := sidecar(t, exp)
			b, err := os.ReadFile(strings.TrimSuffix(exp, ".expect"))
			if err != nil {
				t.Fatal(err)
			}
			cid, scr, ssr := registers(string(b))
			if cid != want["cid"] || scr != want["scr"] || ssr != want["ssr"] {
				t.Fatalf("registers in the text: cid %q scr %q ssr %q; the sidecar read %q %q %q", cid, scr, ssr, want["cid"], want["scr"], want["ssr"])
			}
			card, ok := sysinfo.DecodeCID(cid, false)
			if !ok {
				t.Fatalf("DecodeCID(%s) refused", cid)
			}
			card.SpecVersion = sysinfo.DecodeSCR(scr)
			card.SpeedClass, card.UHSClass, card.VideoClass, card.AppClass = sysinfo.DecodeSSR(ssr)
			for k, got := range map[string]string{"manufacturer": card.ManufacturerID, "oem": card.OEMID, "name": card.Name, "revision": card.Revision,
				"serial": card.Serial, "date": card.Date, "spec": card.SpecVersion} {
				if got != want[k] {
					t.Errorf("%s: decoded %q, read by hand %q", k, got, want[k])
				}
			}
			var classes []string
			for _, c := range []string{card.SpeedClass, card.UHSClass, card.VideoClass, card.AppClass} {
				if c != "" {
					classes = append(classes, c)
				}
			}
			if strings.Join(classes, " ") != want["classes"] {
				t.Errorf("classes %v, read by hand %q", classes, want["classes"])
			}

			// The card in a Pi's slot at 50 MHz high speed (25 MB/s), with
			// figures that meet every class it claims; one claiming a UHS
			// or video class in a UHS-I SDR104 slot (104 MB/s), the bus
			// those classes are for, with figures that meet up to V30 and
			// A2.
			doc := checkDoc(card, "sd high-speed", 50e6, nil, 20, 2000, 900)
			if card.UHSClass != "" || card.VideoClass != "" {
				doc = checkDoc(card, "sd uhs SDR104", 208e6, nil, 40, 5000, 2500)
			}
			ceiling.Explain(doc)
			c := doc.Check
			if c.ClaimSource != "registers" || strings.Join(c.Claimed, " ") != want["classes"] {
				t.Errorf("judged %v from %q, want %s from the registers", c.Claimed, c.ClaimSource, want["classes"])
			}
			if c.Pass == nil || !*c.Pass || !strings.HasPrefix(c.Verdict, "PASS: the card meets "+want["classes"]) {
				t.Errorf("pass %v, verdict %q", c.Pass, c.Verdict)
			}
			for _, cr := range c.Criteria {
				if !slices.Contains(classes, cr.Class) || cr.CappedBy != "" {
					t.Errorf("criterion %+v", cr)
				}
			}
		})
	}
}

// checkDoc is a class verdict's document: one run whose sequential write
// moved mbps MB/s and whose random steps made the IOPS given, on a card
// in an SD slot in bus mode timing at clock Hz.
func checkDoc(card result.CardIdentity, timing string, clock int64, claim []string, mbps, readIOPS, writeIOPS float64) *result.Document {
	mibps := mbps * 1e6 / (1 << 20)
	return &result.Document{Method: result.MethodCheck, Targets: []result.Target{{Path: "/", Device: "mmcblk0", FSType: "ext4"}},
		System: &result.System{BlockDevices: []result.BlockDevice{{Name: "mmcblk0", Bus: "mmc", Driver: "mmcblk", MMCTiming: timing, MMCClockHz: clock, MMCBusWidth: 4,
			MMCCardType: "SD", Card: &card}}},
		Check: &result.Check{CheckParameters: result.CheckParameters{Preset: result.CheckClass, Claim: claim}, Runs: []result.CheckRun{{Steps: []result.CheckStep{
			{Name: result.StepSeqWrite, RW: "write", BlockSize: 4 << 20, IODepth: 4, TimeBased: true, ElapsedNs: 10e9, MiBPerSec: mibps, IOPS: mibps / 4},
			{Name: result.StepRandWrite, RW: "randwrite", BlockSize: 4 << 10, IODepth: 32, ElapsedNs: 10e9, IOPS: writeIOPS, MiBPerSec: writeIOPS / 256},
			{Name: result.StepRandRead, RW: "randread", BlockSize: 4 << 10, IODepth: 32, ElapsedNs: 10e9, IOPS: readIOPS, MiBPerSec: readIOPS / 256},
		}}}}}
}

// TestCheckVerdicts: the reader, not the card, is named where it caps a
// figure; an SD card with unreadable registers gets the classes its
// figures reach; a disk that is no SD card is judged against its link.
func TestCheckVerdicts(t *testing.T) {
	// A U3 claim (30 MB/s) in a 25 MB/s high-speed slot: the figure is the
	// reader's, and nothing is judged on it.
	doc := checkDoc(result.CardIdentity{ManufacturerID: "0x03"}, "sd high-speed", 50e6, []string{"U3", "A1"}, 23, 2000, 900)
	ceiling.Explain(doc)
	c := doc.Check
	var capped []string
	for _, cr := range c.Criteria {
		if cr.CappedBy != "" {
			capped = append(capped, cr.Class+" "+cr.Step)
		}
	}
	if strings.Join(capped, ",") != "U3 seq-write" || c.Pass != nil || !strings.Contains(c.Verdict, "The reader, not the card, set the figures of U3") {
		t.Errorf("capped %v, pass %v, verdict %q", capped, c.Pass, c.Verdict)
	}

	// The same card at 10 MB/s in an SDR104 slot: C10 passes, U3 fails
	// on the card's account.
	doc = checkDoc(result.CardIdentity{ManufacturerID: "0x03"}, "sd uhs SDR104", 208e6, []string{"C10", "U3"}, 12, 2000, 900)
	ceiling.Explain(doc)
	if c := doc.Check; c.Pass == nil || *c.Pass || !strings.HasPrefix(c.Verdict, "FAIL: U3 sustained sequential write 12.0 MB/s < 30.0") {
		t.Errorf("SDR104: pass %v, verdict %q", c.Pass, c.Verdict)
	}

	// Registers that could not be read: every class tried, none passed.
	doc = checkDoc(result.CardIdentity{}, "sd uhs SDR104", 208e6, nil, 12, 2000, 900)
	doc.System.BlockDevices[0].Card = nil
	ceiling.Explain(doc)
	if c := doc.Check; c.ClaimSource != "unknown" || c.Pass != nil || c.Verdict != "The card's claim is unknown (no class could be read from its registers): its figures reach C2 C4 C6 C10 U1 V6 V10 A1, not U3 V30 V60 V90 A2." {
		t.Errorf("unknown: source %q, pass %v, verdict %q", c.ClaimSource, c.Pass, c.Verdict)
	}

	// A USB stick: no class, its link instead.
	doc = checkDoc(result.CardIdentity{}, "", 0, nil, 30, 2000, 900)
	doc.System.BlockDevices[0] = result.BlockDevice{Name: "mmcblk0", Bus: "usb", Driver: "usb-storage", USBPath: "1-1"}
	doc.System.USB = []result.USBDevice{{Path: "1-1", SpeedMbps: 480, Parent: "usb1"}, {Path: "usb1", SpeedMbps: 480}}
	ceiling.Explain(doc)
	if c := doc.Check; c.ClaimSource != "none" || c.Pass != nil || len(c.Criteria) != 0 ||
		!strings.Contains(c.Verdict, "is no SD card and has no class to judge; judged against its link instead: USB 2.0 high speed mass storage (Bulk-Only)") {
		t.Errorf("usb: source %q, pass %v, verdict %q", c.ClaimSource, c.Pass, c.Verdict)
	}
}
