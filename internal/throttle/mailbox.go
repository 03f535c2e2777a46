package throttle

import (
	"encoding/binary"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mailbox asks the firmware over the mailbox for GET_THROTTLED (tag
// 0x00030046; raspberrypi/firmware's mailbox property interface).
func Mailbox() (uint32, bool) {
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
