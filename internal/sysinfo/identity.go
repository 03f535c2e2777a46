package sysinfo

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// usbBridges names USB-to-SATA and USB-to-NVMe bridge chips by VID:PID.
// Every row is from sbc-bench's GetUSBSataBridgeName (ThomasKaiser/
// sbc-bench, sbc-bench.sh, commit 53f7951), which corrects the names the
// usb.ids database gives several of them.
var usbBridges = map[string]string{
	"1058:0a10": "JMicron JMS56x dual SATA 6Gb/s bridge (Western Digital firmware)",
	"152d:0561": "JMicron JMS561 dual SATA 6Gb/s bridge",
	"152d:0576": "JMicron JMS576 SATA 6Gb/s bridge",
	// usb.ids wrongly says JMS567; a JMS579 answers with the same id and
	// names itself in its product string (raspberrypi/linux issue #3070).
	"152d:0578": "JMicron JMS578/JMS579 SATA 6Gb/s bridge",
	"152d:0580": "JMicron JMS580 SATA bridge (SuperSpeed Plus / 6Gb/s)",
	"152d:0581": "JMicron JMS581 bridge (SuperSpeed Plus)",
	"152d:0583": "JMicron JMS583 NVMe bridge (SuperSpeed Plus / Gen3 x2)",
	"152d:0586": "JMicron JMS586 NVMe bridge (SuperSpeed Plus 20Gbps / Gen3 x2)",
	"152d:0901": "JMicron JMS901 UFS 2.1/UHS-I bridge",
	"174c:1352": "ASMedia ASM1352R SATA bridge (SuperSpeed Plus / 6Gb/s)",
	"174c:1356": "ASMedia ASM1352R SATA bridge (SuperSpeed Plus / 6Gb/s)",
	"174c:225c": "ASMedia ASM225CM SATA 6Gb/s bridge",
	"174c:2362": "ASMedia ASM2362 NVMe bridge (SuperSpeed Plus / Gen3 x2)",
	"174c:2364": "ASMedia ASM2362 NVMe bridge (SuperSpeed Plus 20Gbps / Gen3 x4)",
	// One id for the ASM1051E, 1053E, 1153, 1153E, 1156 and 235CM.
	"174c:55aa": "ASMedia SATA 6Gb/s bridge",
	"2109:0715": "VIA Labs VL715/VL716 SATA bridge",
	"0bda:9210": "Realtek RTL9210 NVMe/SATA bridge (SuperSpeed Plus / Gen3 x2 / 6Gb/s)",
}

// bridgeName names the bridge of a USB disk, "" when its id is not a
// known bridge.
func bridgeName(vid, pid string) string {
	return usbBridges[strings.ToLower(vid+":"+pid)]
}

// uasIgnored reads usb-storage's quirks (usb-storage.quirks= on the kernel
// command line, or modprobe options): "VID:PID:flags,..." where the flag
// "u" makes the kernel ignore UAS and bind usb-storage instead. The key is
// "vid:pid" as sysfs spells them: the kernel reads the ids as hex numbers,
// so "0x1058:0x0a10:u" (as Armbian writes them) and "1058:a10:u" name
// the device sysfs calls 1058:0a10.
func (fs FS) uasIgnored() map[string]bool {
	out := map[string]bool{}
	for q := range strings.SplitSeq(readValue(fs.Sys+"/module/usb_storage/parameters/quirks"), ",") {
		f := strings.Split(strings.TrimSpace(q), ":")
		if len(f) != 3 || !strings.Contains(f[2], "u") {
			continue
		}
		vid, err1 := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(f[0]), "0x"), 16, 16)
		pid, err2 := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(f[1]), "0x"), 16, 16)
		if err1 == nil && err2 == nil {
			out[fmt.Sprintf("%04x:%04x", vid, pid)] = true
		}
	}
	return out
}

// sdMakers names SD card and eMMC makers by CID manufacturer id, as
// sbc-bench's CheckStorage does (sbc-bench.sh, commit 53f7951, the case
// on "${mmc_manfid}/${mmc_oemid}"), and its
// results/SD-cards-with-low-serial-numbers.md. The key is "manfid/oemid"
// as sysfs prints them, without the 0x, for the ids named only with the
// OEM id they pair with on genuine cards; a bare manfid for those it
// names whatever the OEM id.
var sdMakers = map[string]string{
	"02/544d": "Toshiba", "03/5344": "SanDisk", "03/5744": "SanDisk", "1b/534d": "Samsung",
	"1d/4144": "ADATA", "27/5048": "Phison", "28/4245": "Lexar", "41/3432": "Kingston",
	"74/4a45": "Transcend", "74/4a60": "Transcend", "82/4a54": "Sony", "ad/4c53": "Longsys",
	"9f/5449": "Texas Instruments", "9b/0100": "YMTC", "90/014a": "SK Hynix",
	"ea/010e": "SiliconGo",
	// eMMC chips: Samsung's, Kingston's and Foresee's.
	"15/0100": "Samsung", "70/0100": "Kingston", "88/0103": "Foresee", "d6/0103": "Foresee", "d6/2903": "Foresee",
	"01": "Panasonic", "08": "Silicon Power", "18": "Infineon", "1d": "Corsair",
	"45": "SanDisk/Toshiba", "ce": "Samsung", "fe": "Micron-Numonyx",
}

// sdGenuine are manfid/oemid pairs that sbc-bench's counterfeit rules
// would catch but that it lets pass: 0xdf/0x0118 is "a legit soldered
// 128GB eMMC used in e.g. GoWin R86S and MeLE Quieter3C" (sbc-bench.sh,
// commit 53f7951), although 0xdf is otherwise a fake's id.
var sdGenuine = map[string]bool{"df/0118": true}

// lowSerialOK are the pairs whose cards sbc-bench found with low serial
// numbers although genuine (ADATA's and Phison's OEM cards); Transcend's
// "JE" cards too, when made before 2013.
func lowSerialOK(pair, date string) bool {
	switch pair {
	case "1d/4144", "27/5048":
		return true
	case "74/4a45":
		_, year, _ := strings.Cut(date, "/")
		y, err := strconv.Atoi(year)
		return err == nil && y <= 2012
	}
	return false
}

// sdCounterfeit are the manfid/oemid pairs that sbc-bench's CheckStorage
// calls "definite counterfeit": bogus manufacturer ids, and Kingston's OEM
// id "42" (0x3432) under any other manufacturer. A "/" key is a pair, a
// bare key a manufacturer id with any OEM id.
var sdCounterfeit = map[string]bool{
	"00": true, "12": true, "ff/0000": true, "6f/0013": true, "25/1708": true, "df": true, "fe/3456": true,
}

// suspectNames are card names sbc-bench found only on fakes; 00000 too,
// except on Samsung's cards, which all carry it.
var suspectNames = map[string]bool{"ASTC": true, "SMI": true, "AS": true}

// hexField keeps the last n hex digits of sysfs's "0x000003" ("03" for
// n = 2), zero-padded.
func hexField(v string, n int) string {
	v = strings.TrimPrefix(strings.ToLower(v), "0x")
	if len(v) < n {
		v = strings.Repeat("0", n-len(v)) + v
	}
	return v[len(v)-n:]
}

// cardIdentity fills an SD or eMMC card's identity from its CID (as sysfs
// decodes it and, where the raw register is there, as decoded here) and
// its SCR and SSR registers.
func (fs FS) cardIdentity(dev string) *result.CardIdentity {
	c := &result.CardIdentity{CID: readValue(dev + "/cid")}
	typ := readValue(dev + "/type")
	if id, ok := DecodeCID(c.CID, typ == "MMC"); ok {
		*c = id
	}
	// The kernel's own decoding, where it differs from ours, wins: it knows
	// the card's CSD version, which sets the eMMC date's base year.
	if v := readValue(dev + "/manfid"); v != "" {
		c.ManufacturerID = "0x" + hexField(v, 2)
	}
	if v := readValue(dev + "/oemid"); v != "" {
		c.OEMID = v
	}
	if v := readValue(dev + "/name"); v != "" {
		c.Name = v
	}
	if v := readValue(dev + "/date"); v != "" {
		c.Date = v
	}
	if v := readValue(dev + "/serial"); v != "" {
		c.Serial = v
	}
	if c.ManufacturerID == "" {
		return nil
	}
	mid, oid := hexField(c.ManufacturerID, 2), hexField(c.OEMID, 4)
	pair := mid + "/" + oid
	c.Maker = sdMakers[pair]
	if c.Maker == "" && !sdCounterfeit[pair] {
		c.Maker = sdMakers[mid]
	}
	serial := strings.TrimPrefix(c.Serial, "0x")
	switch {
	case sdGenuine[pair]:
	case sdCounterfeit[mid] || sdCounterfeit[pair]:
		c.Suspect = "manufacturer/OEM id " + c.ManufacturerID + "/" + c.OEMID + " is a known counterfeit pair (sbc-bench)"
	case oid == "3432" && mid != "41":
		c.Suspect = "Kingston's OEM id under manufacturer " + c.ManufacturerID + " (sbc-bench)"
	}
	switch {
	case c.Suspect != "":
	case suspectNames[c.Name] || (c.Name == "00000" && c.Maker != "Samsung"):
		c.Suspect = "the name " + c.Name + " is found only on counterfeit cards (sbc-bench)"
	case serial == "00000000":
		c.Suspect = "serial " + c.Serial + " is a counterfeit's (sbc-bench)"
	case typ == "SD" && strings.HasPrefix(serial, "0000") && !lowSerialOK(pair, c.Date):
		c.Suspect = "serial " + c.Serial + " is implausibly low (sbc-bench's results/SD-cards-with-low-serial-numbers.md)"
	}
	if scr := readValue(dev + "/scr"); scr != "" {
		c.SpecVersion = DecodeSCR(scr)
	}
	if ssr := readValue(dev + "/ssr"); ssr != "" {
		c.SpeedClass, c.UHSClass, c.VideoClass, c.AppClass = DecodeSSR(ssr)
	}
	return c
}

// DecodeCID decodes a card's 128-bit CID register as sysfs prints it (32
// hex digits). The SD layout (SD Physical Layer Simplified Specification,
// 5.2): MID [127:120], OID [119:104] two ASCII characters, PNM [103:64]
// five, PRV [63:56] as BCD n.m, PSN [55:24], MDT [19:8] as year since 2000
// and month. eMMC (JEDEC JESD84, 7.2): MID [127:120], CBX [113:112], OID
// [111:104], PNM
// [103:56] six characters, PRV [55:48], PSN [47:16], MDT [15:8] as month
// and year since 1997 (cards of spec 4.41 and later count from 2013).
func DecodeCID(cid string, mmc bool) (result.CardIdentity, bool) {
	b, err := hex.DecodeString(cid)
	if err != nil || len(b) != 16 {
		return result.CardIdentity{}, false
	}
	c := result.CardIdentity{CID: cid, ManufacturerID: fmt.Sprintf("0x%02x", b[0])}
	// Both print OID as the kernel does: 16 bits from bit 104, which for
	// eMMC takes in the card/BGA bits (Samsung's chips read 0x0100).
	c.OEMID = fmt.Sprintf("0x%04x", uint16(b[1])<<8|uint16(b[2]))
	if mmc {
		c.Name = strings.TrimRight(string(b[3:9]), " \x00")
		c.Revision = fmt.Sprintf("%d.%d", b[9]>>4, b[9]&0xf)
		c.Serial = fmt.Sprintf("0x%08x", uint32(b[10])<<24|uint32(b[11])<<16|uint32(b[12])<<8|uint32(b[13]))
		c.Date = fmt.Sprintf("%02d/%d", b[14]>>4, 1997+int(b[14]&0xf))
		return c, true
	}
	c.Name = strings.TrimRight(string(b[3:8]), " \x00")
	c.Revision = fmt.Sprintf("%d.%d", b[8]>>4, b[8]&0xf)
	c.Serial = fmt.Sprintf("0x%08x", uint32(b[9])<<24|uint32(b[10])<<16|uint32(b[11])<<8|uint32(b[12]))
	year := 2000 + int(b[13]&0xf)<<4 + int(b[14]>>4)
	c.Date = fmt.Sprintf("%02d/%d", b[14]&0xf, year)
	return c, true
}

// DecodeSCR names the SD spec version a card claims in its SCR (64 bits,
// 16 hex digits): SD_SPEC [59:56], SD_SPEC3 [47], SD_SPEC4 [42], SD_SPECX
// [41:38] (SD Physical Layer Simplified Specification, 5.6, table 5-17).
func DecodeSCR(scr string) string {
	v, err := strconv.ParseUint(scr, 16, 64)
	if err != nil || len(scr) != 16 {
		return ""
	}
	spec, spec3, spec4, specx := v>>56&0xf, v>>47&1, v>>42&1, v>>38&0xf
	switch {
	case specx >= 1 && specx <= 6:
		return []string{"", "5.xx", "6.xx", "7.xx", "8.xx", "9.xx", "9.1"}[specx]
	case spec == 2 && spec4 == 1:
		return "4.xx"
	case spec == 2 && spec3 == 1:
		return "3.0x"
	case spec <= 2:
		return []string{"1.0/1.01", "1.10", "2.00"}[spec]
	}
	return ""
}

// DecodeSSR reads the classes an SD card claims in its 512-bit SD Status
// (128 hex digits): SPEED_CLASS [447:440] (0,2,4,6 -> Class 0,2,4,6; 4 ->
// Class 10), UHS_SPEED_GRADE [399:396], VIDEO_SPEED_CLASS [391:384] and
// APP_PERF_CLASS [339:336] (SD Physical Layer Simplified Specification,
// 4.10.2, table 4-44).
func DecodeSSR(ssr string) (speed, uhs, video, app string) {
	b, err := hex.DecodeString(ssr)
	if err != nil || len(b) != 64 {
		return "", "", "", ""
	}
	// Bit n of the register is in byte 63-n/8.
	bits := func(hi, lo int) int {
		v := 0
		for i := hi; i >= lo; i-- {
			v = v<<1 | int(b[63-i/8]>>(i%8)&1)
		}
		return v
	}
	if s := bits(447, 440); s <= 4 {
		speed = []string{"", "C2", "C4", "C6", "C10"}[s]
	}
	if u := bits(399, 396); u == 1 || u == 3 {
		uhs = "U" + strconv.Itoa(u)
	}
	if v := bits(391, 384); v > 0 && v <= 90 {
		video = "V" + strconv.Itoa(v)
	}
	if a := bits(339, 336); a == 1 || a == 2 {
		app = "A" + strconv.Itoa(a)
	}
	return speed, uhs, video, app
}
