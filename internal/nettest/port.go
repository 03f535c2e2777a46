package nettest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"testing"
)

// FreePort finds a loopback port nobody listens on (TCP and UDP) for a
// server the test starts, above the kernel's ephemeral range
// (ip_local_port_range), as bench/net picks its ports: a port from that
// range, found by listening on :0 and closing, can be handed to another
// socket (test binaries run side by side, and every outgoing connection
// takes one) before the server binds it. Where the range leaves no room
// above it, a port from it is still better than none.
func FreePort(t testing.TB) int {
	t.Helper()
	lo := 61000
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var from, to int
		if _, err := fmt.Sscan(string(b), &from, &to); err == nil {
			lo = to + 1
		}
	}
	for try := range 40 {
		port := 0
		if lo < 65000 && try < 30 {
			port = lo + rand.IntN(65535-lo)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if pc, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			pc.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}
