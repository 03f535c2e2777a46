package result

import (
	"fmt"
	"slices"
	"strings"
)

// A device id names the piece of hardware a run measured by what the
// hardware says of itself, so one card's runs line up over its life
// whatever machine, slot or mount path it was in, and a card swapped
// under the same path starts a series of its own. Its form is
// "kind:body", lower case, of letters, digits and . _ : - alone:
//
//	sd:<mid>-<oid>-<name>-<serial>-<yyyy>-<mm>   an SD card's CID
//	emmc:<mid>-<oid>-<name>-<serial>-<yyyy>-<mm> an eMMC chip's CID
//	wwn:<naa.|eui.|nvme.…>                       a disk's world wide name
//	disk:<vendor model serial>                   a disk's own serial
//	usb:<vid>:<pid>:<serial>                     a USB disk's bridge
//	mac:<aa:bb:cc:dd:ee:ff>                      a network interface
//
// A part the hardware does not give is left empty ("sd:03-5344-sr64g--
// 2018-08"): such an id names a model rather than one unit.
var deviceKinds = []string{"sd", "emmc", "wwn", "disk", "usb", "mac"}

// maxDeviceID bounds an id: the longest sysfs gives (a t10 wwid) is under
// 100 characters.
const maxDeviceID = 160

// idPart makes a fact from the hardware fit an id: lower case, runs of
// anything but letters, digits, '.' and '-' as one '_', none at either end.
func idPart(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	return b.String()
}

// DeviceID is the card's id: "sd:…" for an SD card, "emmc:…" for an eMMC
// chip (mmc true), "" without a manufacturer id.
func (c CardIdentity) DeviceID(mmc bool) string {
	mid := strings.TrimPrefix(strings.ToLower(c.ManufacturerID), "0x")
	if mid == "" {
		return ""
	}
	kind := "sd:"
	if mmc {
		kind = "emmc:"
	}
	// "MM/YYYY" as sysfs prints it, written year first so ids sort by age.
	date := c.Date
	if m, y, ok := strings.Cut(c.Date, "/"); ok {
		date = y + "-" + m
	}
	parts := []string{mid, strings.TrimPrefix(strings.ToLower(c.OEMID), "0x"), c.Name, strings.TrimPrefix(strings.ToLower(c.Serial), "0x"), date}
	for i, p := range parts {
		parts[i] = idPart(p)
	}
	return bounded(kind + strings.Join(parts, "-"))
}

// bounded cuts an id made of what the hardware reports to the length
// ParseDeviceID takes: a longer one is a device's junk, not its name.
func bounded(id string) string { return id[:min(len(id), maxDeviceID)] }

// WWNDeviceID is the id of a disk from its sysfs wwid: a world wide name
// (naa., eui., nvme.) as "wwn:…", a SCSI t10 id (vendor, model and serial)
// as "disk:…"; "" for anything else, and for a name of zeros alone (a
// redacted capture's).
func WWNDeviceID(wwid string) string {
	w := strings.ToLower(strings.TrimSpace(wwid))
	for _, p := range []string{"naa.", "eui.", "nvme."} {
		if name, ok := strings.CutPrefix(w, p); ok {
			if zeros(name) {
				return ""
			}
			return bounded("wwn:" + idPart(w))
		}
	}
	if rest, ok := strings.CutPrefix(w, "t10."); ok && idPart(rest) != "" {
		return bounded("disk:" + idPart(rest))
	}
	return ""
}

// zeros says whether a serial is zeros alone, as a redacted capture
// writes every serial (and as no unit's is).
func zeros(serial string) bool { return strings.Trim(serial, "0 \n") == "" }

// SerialDeviceID is "disk:<model>_<serial>" from a disk's serial file
// (NVMe, virtio), "" without a serial or with one of zeros alone.
func SerialDeviceID(model, serial string) string {
	if idPart(serial) == "" || zeros(serial) {
		return ""
	}
	return bounded("disk:" + idPart(model+" "+serial))
}

// USBDeviceID is "usb:<vid>:<pid>:<serial>" of a USB disk, with ":<lun>"
// after it when the SCSI LUN is not 0 (a dual bridge's second disk); ""
// without its ids. A serial of zeros alone is left empty.
func USBDeviceID(vid, pid, serial, lun string) string {
	if idPart(vid) == "" || idPart(pid) == "" {
		return ""
	}
	if zeros(serial) {
		serial = ""
	}
	id := "usb:" + idPart(vid) + ":" + idPart(pid) + ":" + idPart(serial)
	if l := idPart(lun); l != "" && l != "0" {
		id += ":" + l
	}
	return bounded(id)
}

// MACDeviceID is "mac:<address>" of a network interface, "" for an
// address that is not a MAC or is all zeros (a redacted capture's).
func MACDeviceID(addr string) string {
	a := strings.ToLower(strings.TrimSpace(addr))
	f := strings.Split(a, ":")
	if len(f) != 6 || strings.Trim(a, "0:") == "" {
		return ""
	}
	for _, x := range f {
		if len(x) != 2 || strings.Trim(x, "0123456789abcdef") != "" {
			return ""
		}
	}
	return "mac:" + a
}

// ShortDeviceID is the part of an id that tells one unit from another of
// its model, for a chart's legend, which has room for a few words: an SD
// card's or eMMC's serial ("sd …1a2b3c4d"), else its name and date, and
// the last eight characters of other ids ("usb …000000ff").
func ShortDeviceID(id string) string {
	kind, body, _ := strings.Cut(id, ":")
	if kind == "sd" || kind == "emmc" {
		if f := strings.Split(body, "-"); len(f) == 6 {
			if f[3] != "" {
				return kind + " …" + f[3]
			}
			return kind + " " + f[2] + " " + f[4] + "-" + f[5]
		}
	}
	if len(body) > 8 {
		return kind + " …" + body[len(body)-8:]
	}
	return id
}

// ParseDeviceID checks an id or the start of one, as --device and
// device_id= take it ("sd:", "sd:03-5344", a whole id), and returns it in
// lower case. The kind and its colon must be whole: a prefix matches the
// ids that start with it, and "s" would match every kind's by accident.
func ParseDeviceID(s string) (string, error) {
	id := strings.ToLower(strings.TrimSpace(s))
	kind, _, ok := strings.Cut(id, ":")
	switch {
	case id == "":
		return "", fmt.Errorf("device id is empty: want KIND:…, KIND one of %s (thruput sysinfo shows each disk's and interface's)", strings.Join(deviceKinds, ", "))
	case !ok || !slices.Contains(deviceKinds, kind):
		return "", fmt.Errorf("device id %q: want KIND:…, KIND one of %s (thruput sysinfo shows each disk's and interface's)", s, strings.Join(deviceKinds, ", "))
	case len(id) > maxDeviceID:
		return "", fmt.Errorf("device id %q: longer than %d characters", s, maxDeviceID)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == ':' || r == '-') {
			return "", fmt.Errorf("device id %q: holds %q; an id has only letters, digits, '.', '_', ':' and '-'", s, r)
		}
	}
	return id, nil
}

// DeviceIDs are the ids of the hardware the run measured, each once, in
// the order of its targets: each target's DeviceID, and for a network run
// the id of the interface it crossed, from its System. Empty for a run
// that recorded none (runs before ids were kept, loop devices, tmpfs).
func (d *Document) DeviceIDs() []string {
	var ids []string
	// An id this thruput would not write (a document made by hand or by
	// another program) is left out rather than stored malformed.
	add := func(raw string) {
		if id, err := ParseDeviceID(raw); err == nil && id == raw && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, t := range d.Targets {
		add(t.DeviceID)
	}
	add(d.interfaceID(d.Crossed()))
	return ids
}

// interfaceID is the id of the network interface of that name in the
// run's System, "" when it has none.
func (d *Document) interfaceID(name string) string {
	if name == "" || d.System == nil {
		return ""
	}
	for _, n := range d.System.NetInterfaces {
		if n.Name == name {
			return n.DeviceID
		}
	}
	return ""
}
