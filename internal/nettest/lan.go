package nettest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

// LAN is hosts on one switch: a namespace holding a bridge, and a
// namespace per host joined to it by a veth pair, each shaped to its own
// rate, the way boards hang off one Ethernet switch.
type LAN struct {
	Switch string
	Hosts  []LANHost
}

// LANHost is one host of a LAN.
type LANHost struct {
	NS   string // namespace name
	Addr string // IPv4 address on the LAN, no prefix
}

// NewLAN makes len(rates) hosts on one bridge; rates[i] > 0 shapes host
// i's link (both directions) to that many Mbit/s with tbf, as NewLink
// does. Everything is deleted when the test ends, pass or fail; processes
// still running in the namespaces are killed first.
func NewLAN(t testing.TB, rates []int) *LAN {
	t.Helper()
	fstest.RequireRoot(t)
	if len(rates) < 1 || len(rates) > 250 {
		t.Fatalf("nettest: a LAN of %d hosts", len(rates))
	}
	n := linkCount.Add(1)
	base := fmt.Sprintf("%s%d-%d-", namePrefix, os.Getpid(), n)
	l := &LAN{Switch: base + "s"}
	for i := range rates {
		l.Hosts = append(l.Hosts, LANHost{NS: fmt.Sprintf("%sh%d", base, i), Addr: fmt.Sprintf("172.%d.%d.%d", 16+n%16, n/16%256, i+1)})
	}
	t.Cleanup(func() {
		for _, ns := range append(l.names(), l.Switch) {
			if killed, err := deleteNamespace(ns); err != nil {
				t.Errorf("nettest: %v", err)
			} else if len(killed) > 0 {
				t.Logf("nettest: killed processes %v still running in %s", killed, ns)
			}
		}
	})
	mustRun(t, "ip", "netns", "add", l.Switch)
	mustRun(t, "ip", "-n", l.Switch, "link", "add", "br0", "type", "bridge")
	mustRun(t, "ip", "-n", l.Switch, "link", "set", "br0", "up")
	for i, h := range l.Hosts {
		mustRun(t, "ip", "netns", "add", h.NS)
		if err := enter(h.NS, disableIPv6); err != nil {
			t.Fatalf("nettest: %s: %v", h.NS, err)
		}
		port := fmt.Sprintf("p%d", i)
		// The switch's port gets a fixed, different index for the same
		// reason as in NewLink: a pair with equal ifindexes is taken for
		// its own link and comes up a second late.
		mustRun(t, "ip", "-n", h.NS, "link", "add", "eth0", "index", "10", "type", "veth", "peer", "name", port, "netns", l.Switch, "index", fmt.Sprint(100+i))
		mustRun(t, "ip", "-n", h.NS, "addr", "add", h.Addr+"/16", "dev", "eth0")
		mustRun(t, "ip", "-n", l.Switch, "link", "set", port, "master", "br0")
		if rates[i] > 0 {
			mustRun(t, "tc", append([]string{"-n", h.NS, "qdisc", "add", "dev", "eth0", "root"}, shapeArgs(rates[i])...)...)
			mustRun(t, "tc", append([]string{"-n", l.Switch, "qdisc", "add", "dev", port, "root"}, shapeArgs(rates[i])...)...)
		}
		mustRun(t, "ip", "-n", h.NS, "link", "set", "lo", "up")
		mustRun(t, "ip", "-n", h.NS, "link", "set", "eth0", "up")
		mustRun(t, "ip", "-n", l.Switch, "link", "set", port, "up")
	}
	for _, h := range l.Hosts {
		if err := waitRunning(h.NS, "eth0"); err != nil {
			t.Fatalf("nettest: %v", err)
		}
	}
	return l
}

func (l *LAN) names() []string {
	var out []string
	for _, h := range l.Hosts {
		out = append(out, h.NS)
	}
	return out
}

// Command runs name with args in host i's namespace (ip netns exec).
func (l *LAN) Command(ctx context.Context, i int, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", l.Hosts[i].NS, name}, args...)...)
}

// Enter runs fn on a thread in host i's namespace; see Link.Enter.
func (l *LAN) Enter(i int, fn func() error) error {
	if i < 0 || i >= len(l.Hosts) || !slices.Contains(l.names(), l.Hosts[i].NS) {
		return fmt.Errorf("nettest: no host %d", i)
	}
	return enter(l.Hosts[i].NS, fn)
}

// KillAll kills every process in host i's namespace (its sshd and the
// sessions it started), as a host that dies would.
func (l *LAN) KillAll(i int) error {
	_, err := killAll(l.Hosts[i].NS)
	return err
}
