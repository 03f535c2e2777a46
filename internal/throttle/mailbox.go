package throttle

import (
	"encoding/binary"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Property tags of the firmware's mailbox property interface
// (raspberrypi/firmware wiki "Mailbox property interface"; the values as
// the kernel names them in include/soc/bcm2835/raspberrypi-firmware.h,
// RPI_FIRMWARE_GET_THROTTLED and RPI_FIRMWARE_GET_CLOCK_MEASURED).
const (
	tagThrottled     = 0x00030046
	tagClockMeasured = 0x00030047
	// clockARM is the wiki's "Unique clock IDs" 0x000000003, ARM.
	clockARM = 3
)

// Mailbox asks the firmware over the mailbox for GET_THROTTLED.
func Mailbox() (uint32, bool) {
	v, ok := property(tagThrottled, 0)
	return v[0], ok
}

// MeasuredClock asks the firmware for the ARM clock it measures
// (GET_CLOCK_RATE_MEASURED, clock id 3), in Hz: what the cores run at,
// which the firmware lowers behind cpufreq's scaling_cur_freq when it
// throttles. vcgencmd measure_clock arm reads the same counter. ok is
// false where /dev/vcio cannot be opened or the firmware does not
// answer the tag (firmware before 2019).
func MeasuredClock() (uint32, bool) {
	v, ok := property(tagClockMeasured, clockARM, 0)
	if !ok || v[0] != clockARM {
		return 0, false
	}
	return v[1], true
}

// property sends one tag with the given value words (the request's,
// then room for the response's) and returns the response's words.
func property(tag uint32, value ...uint32) ([]uint32, bool) {
	buf := Request(tag, value...)
	f, err := os.OpenFile("/dev/vcio", os.O_RDWR, 0)
	if err != nil {
		return make([]uint32, len(value)), false
	}
	defer f.Close()
	// _IOWR(100, 0, char *): the size field is that of a pointer.
	req := uintptr(3<<30 | unsafe.Sizeof(uintptr(0))<<16 | 100<<8)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return make([]uint32, len(value)), false
	}
	return Response(buf, tag, len(value))
}

// Request is the message buffer for one tag, as the wiki lays it out:
// size, request code 0, the tag, its value buffer size, its request
// size, the value words, the end tag; 32-bit words in the CPU's
// (little-endian) order.
func Request(tag uint32, value ...uint32) []byte {
	msg := append([]uint32{uint32(6+len(value)) * 4, 0, tag, uint32(len(value)) * 4, uint32(len(value)) * 4}, value...)
	msg = append(msg, 0)
	buf := make([]byte, len(msg)*4)
	for i, w := range msg {
		binary.LittleEndian.PutUint32(buf[i*4:], w)
	}
	return buf
}

// Response reads n value words of tag from a buffer the firmware
// answered: it sets the request code to 0x80000000 on success, and bit
// 31 of the tag's size word when it answered the tag (an unknown tag is
// left as sent).
func Response(buf []byte, tag uint32, n int) ([]uint32, bool) {
	out := make([]uint32, n)
	if len(buf) < 20+4*n || binary.LittleEndian.Uint32(buf[4:]) != 0x80000000 ||
		binary.LittleEndian.Uint32(buf[8:]) != tag || binary.LittleEndian.Uint32(buf[16:])&0x80000000 == 0 {
		return out, false
	}
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(buf[20+4*i:])
	}
	return out, true
}
