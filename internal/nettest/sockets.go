package nettest

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// TCP socket states as /proc/net/tcp writes them.
const (
	Established = "01"
	Listen      = "0A"
)

// Sockets says whether, within 10 s, at least n TCP sockets whose local
// port is port are in state in the tables under dir ("/proc/net", or
// /proc/PID/net for the namespace of process PID: ip netns exec keeps
// the pid). Tests wait on it rather than sleep a fixed time, which a
// loaded machine can outlast.
func Sockets(dir string, port int, state string, n int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if CountSockets(dir, port, state) >= n {
			return true
		}
	}
	return false
}

// CountSockets is one look at the tables Sockets polls: how many TCP
// sockets whose local port is port are in state now, for a test that
// also watches something else meanwhile (its server's exit).
func CountSockets(dir string, port int, state string) int {
	local := fmt.Sprintf(":%04X", port)
	found := 0
	for _, f := range []string{dir + "/tcp", dir + "/tcp6"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			// sl local_address rem_address st ...
			if fs := strings.Fields(line); len(fs) > 3 && strings.HasSuffix(fs[1], local) && fs[3] == state {
				found++
			}
		}
	}
	return found
}
