package health

import (
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sockio"
)

// Pattern is a kernel log message that says a figure measured while it
// appeared may be wrong: the storage, USB, network or power path failing
// under the load. Kind is "storage", "usb", "network" or "power".
type Pattern struct {
	Name string
	Kind string
	re   func() *regexp.Regexp
}

// Patterns are the kernel messages a run is marked suspect for, the ones
// sbc-bench scans for and the ones Raspberry Pi storage and network
// threads quote. Each matches anywhere in the message text.
var Patterns = []Pattern{
	{"xhci died", "usb", pattern.Lazy(`xHCI host (controller not responding|not responding to stop endpoint)|HC died`)},
	{"usb reset", "usb", pattern.Lazy(`reset (low|full|high|super|wireless|SuperSpeed( Plus)?|SuperSpeed Gen \S+)[- ]speed USB device|reset SuperSpeed.* USB device`)},
	{"usb disconnect", "usb", pattern.Lazy(`USB disconnect, device number`)},
	{"uas abort", "storage", pattern.Lazy(`uas_eh_(abort|device_reset)_handler|uas_zap_pending`)},
	{"scsi error", "storage", pattern.Lazy(`FAILED Result: hostbyte=|Sense Key : (Medium|Hardware) Error|critical (target|medium) error`)},
	{"i/o error", "storage", pattern.Lazy(`I/O error|blk_update_request: .*error`)},
	{"filesystem error", "storage", pattern.Lazy(`(EXT4|XFS|BTRFS|F2FS)(-fs)? (\(\S+\) )?(error|warning)|Remounting filesystem read-only`)},
	{"mmc timeout", "storage", pattern.Lazy(`mmc\d+: .*([Tt]imeout|timed out)|mmcblk\d+: .*error -110`)},
	{"mmc re-tuning", "storage", pattern.Lazy(`mmc\d+: .*(tuning execution failed|[Rr]e-?tuning)|Controller never released inhibit`)},
	{"pcie aer", "storage", pattern.Lazy(`AER: |PCIe Bus Error`)},
	{"nvme timeout", "storage", pattern.Lazy(`nvme\S*: I/O \d+ .*timeout|nvme\S*: controller is down`)},
	{"netdev watchdog", "network", pattern.Lazy(`NETDEV WATCHDOG|transmit queue \d+ timed out|tx timeout`)},
	{"link down", "network", pattern.Lazy(`Link is Down`)},
	{"under-voltage", "power", pattern.Lazy(`[Uu]nder-?voltage detected|Undervoltage detected`)},
}

// Match is the first pattern the message matches.
func Match(msg string) (Pattern, bool) {
	for _, p := range Patterns {
		if p.re().MatchString(msg) {
			return p, true
		}
	}
	return Pattern{}, false
}

// kmsgRecord is the text of one /dev/kmsg record:
//
//	6,1402,4253122,-;usb 2-1: reset SuperSpeed USB device number 2 using xhci_hcd
//	 SUBSYSTEM=usb
//
// prefix (priority, sequence, microseconds, flags), ";", the message,
// then dictionary lines that start with a space.
func kmsgRecord(rec string) (string, bool) {
	_, msg, ok := strings.Cut(rec, ";")
	if !ok {
		return "", false
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return msg, true
}

// kmsg reads the records logged since it was opened. A read of
// /dev/kmsg returns one record; EAGAIN says there are no more, EPIPE that
// some were overwritten before they were read. Not through os.File: the
// runtime's poller would make a non-blocking read wait. And raw system
// calls, which never wait on a non-blocking descriptor: an announced one
// woke a sleeping sysmon at every sample (see sockio.Alarm).
type kmsg struct {
	fd   int
	lost bool
	buf  []byte
}

// openKmsg opens path and skips what was logged before; an error means
// the log cannot be read (no CAP_SYSLOG with dmesg_restrict, no device).
func openKmsg(path string) (*kmsg, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if _, err := syscall.Seek(fd, 0, io.SeekEnd); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	// A record is at most 8 KiB with its dictionary (PRINTK_MESSAGE_MAX
	// and CONSOLE_EXT_LOG_MAX in printk.h); a smaller buffer gets EINVAL.
	return &kmsg{fd: fd, buf: make([]byte, 8192)}, nil
}

// read returns the messages logged since the last read.
func (k *kmsg) read() []string {
	var out []string
	for range 10000 {
		n, e := sockio.RawRead(k.fd, k.buf)
		switch {
		case e == syscall.EPIPE:
			k.lost = true
			continue
		case e == syscall.EINTR:
			continue
		case e != 0 || n <= 0:
			return out
		}
		if msg, ok := kmsgRecord(string(k.buf[:n])); ok {
			out = append(out, msg)
		}
	}
	return out
}

func (k *kmsg) close() { syscall.Close(k.fd) }

// Scopes of a kernel line (result.KernelLine's Scope).
const (
	scopeUnderTest = "device under test"
	scopeMachine   = "machine"
	scopeOther     = "other device"
)

// sysName is a sysfs path element the kernel's lines name a device by: a
// USB device (2-1, 1-1.2), a SCSI host (host0) or target (0:0:0:0), a
// PCI function (0000:01:00.0), an MMC host (mmc0).
var sysName = pattern.Lazy(`^(\d+-\d+(\.\d+)*|host\d+|\d+:\d+:\d+:\d+|[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]|mmc\d+)$`)

// UnderTest names the devices the run's data crossed (block devices and
// partitions, network interfaces), before Stop: a kernel line makes the
// run suspect only when it names one of them, or the devices they hang
// off (their USB device, SCSI host, PCI function, MMC host), or when it
// concerns the whole machine (power, the USB host controller dying).
// Another device's line is kept as a note.
func (s *Sampler) UnderTest(names ...string) {
	if s == nil {
		return
	}
	words := map[string]bool{}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "/ ") {
			continue
		}
		words[n] = true
		for _, class := range []string{"block", "net"} {
			p, err := filepath.EvalSymlinks(filepath.Join(s.cfg.Sys, "class", class, n))
			if err != nil {
				continue
			}
			for _, e := range strings.Split(p, string(filepath.Separator)) {
				if sysName().MatchString(e) {
					words[e] = true
				}
			}
		}
	}
	s.mu.Lock()
	s.underTest = words
	s.mu.Unlock()
}

// scope says whom a matched line concerns.
func (s *Sampler) scope(m result.KernelLine) string {
	if m.Kind == "power" || m.Pattern == "xhci died" {
		return scopeMachine
	}
	for _, tok := range strings.FieldsFunc(m.Line, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == '[' || r == ']' || r == '(' || r == ')' || r == ';' || r == '='
	}) {
		tok = strings.TrimRight(tok, ":.")
		// "2-1:1.0" is an interface of USB device 2-1, "mmc0:0001" a
		// card on host mmc0.
		head, _, _ := strings.Cut(tok, ":")
		if s.underTest[tok] || s.underTest[head] {
			return scopeUnderTest
		}
	}
	return scopeOther
}
