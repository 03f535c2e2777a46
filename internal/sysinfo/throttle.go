package sysinfo

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
)

// throttling fills what the Raspberry Pi firmware says about capping and
// under-voltage. The firmware lowers the ARM clock behind cpufreq's back,
// so scaling_cur_freq is what the kernel asked for, not what runs; only
// the firmware's own bits tell. They are asked, in this order:
//
//   - the VideoCore mailbox (/dev/vcio, the property GET_THROTTLED, what
//     vcgencmd get_throttled uses), on the live machine only;
//   - the firmware driver's get_throttled file, which some 4.19 kernels
//     answer with a deprecation warning in the kernel log, so it is read
//     only when the mailbox cannot be;
//   - the raspberrypi-hwmon driver's under-voltage alarm (rpi_volt,
//     in0_lcrit_alarm), which names under-voltage alone.
func (fs FS) throttling(c *result.CPU) {
	v, ok := uint32(0), false
	getThrottled := filepath.Join(fs.Sys, "devices/platform/soc/soc:firmware/get_throttled")
	if fs.Live {
		v, ok = vcioThrottled()
		c.ThrottledSource = "vcio"
		if ok {
			// A capture keeps the mailbox's answer where a machine
			// without the mailbox would be read, in the driver's format.
			tap.file(getThrottled, []byte(strconv.FormatUint(uint64(v), 16)+"\n"))
		}
	}
	if !ok {
		// The driver prints the bit field in hex without a prefix
		// ("50005"); vcgencmd, which people quote, prints 0x50005.
		raw := readValue(getThrottled)
		digits := strings.TrimPrefix(strings.TrimPrefix(raw, "0x"), "0X")
		if n, err := strconv.ParseUint(digits, 16, 32); err == nil && digits != "" {
			v, ok = uint32(n), true
			c.ThrottledSource = "get_throttled"
		}
	}
	if ok {
		c.Throttled = "0x" + strconv.FormatUint(uint64(v), 16)
		now := v&0xf != 0
		c.ThrottledNow = &now
	} else {
		c.ThrottledSource = ""
	}
	for _, hw := range glob(filepath.Join(fs.Sys, "class/hwmon/hwmon*")) {
		if readValue(filepath.Join(hw, "name")) == "rpi_volt" {
			c.UnderVoltageNow = readBool(filepath.Join(hw, "in0_lcrit_alarm"))
		}
	}
}

// vcioThrottled asks the firmware over the mailbox for GET_THROTTLED
// (tag 0x00030046; raspberrypi/firmware's mailbox property interface).
func vcioThrottled() (uint32, bool) {
	f, err := os.OpenFile("/dev/vcio", os.O_RDWR, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	// size, request code, tag, value buffer size, request size, value,
	// end tag: 32-bit words in the CPU's (little-endian) order.
	msg := []uint32{7 * 4, 0, 0x00030046, 4, 4, 0, 0}
	buf := make([]byte, len(msg)*4)
	for i, w := range msg {
		binary.LittleEndian.PutUint32(buf[i*4:], w)
	}
	// _IOWR(100, 0, char *): the size field is that of a pointer.
	req := uintptr(3<<30 | unsafe.Sizeof(uintptr(0))<<16 | 100<<8)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return 0, false
	}
	// The firmware sets bit 31 of the request code on success, and bit 31
	// of the tag's size word when it answered the tag.
	if binary.LittleEndian.Uint32(buf[4:]) != 0x80000000 || binary.LittleEndian.Uint32(buf[16:])&0x80000000 == 0 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(buf[20:]), true
}
