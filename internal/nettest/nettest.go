// Package nettest provides test hosts as real network namespaces joined
// by veth pairs, for tests of what crosses a network; never traffic to any
// address outside them.
//
// thruput's network numbers depend on the kernel's TCP stack, its socket
// buffers and what a bottleneck does to them, which an in-process net.Pipe
// or the loopback device of the build machine cannot stand in for. So
// NewLink makes two namespaces with the real `ip` from iproute2, joins them
// with a veth pair and, if asked, shapes it with a tbf qdisc to a line rate.
// The namespaces have no route other than their /30 and no device other
// than lo and their end of the veth, so nothing a test sends can reach the
// build machine's network or the internet: it fails with "network is
// unreachable" instead.
//
// Namespaces outlive a crashed test process (they are bind mounts in
// /run/netns, and a server started in one keeps it alive too), and the CI
// machine runs other jobs right after ours, so each is registered with
// t.Cleanup before it is made, and what a killed process left behind is
// found by Sweep, which Main runs first. Every namespace is named
// tpt-<pid>-<n>-a or -b after the process that made it, which is how Sweep
// tells a leftover from a namespace of a test binary that is still running.
//
// All of this needs root; see fstest.RequireRoot.
package nettest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/fstest"
)

// netnsDir is where `ip netns` keeps its named namespaces (NETNS_RUN_DIR in
// Debian's iproute2).
const netnsDir = "/run/netns"

// namePrefix starts the name of every namespace of ours. Sweep matches on
// it and on nothing else.
const namePrefix = "tpt-"

// Shaping parameters for the tbf qdisc on each veth end; see shapeArgs.
const (
	// burstTime is how much line rate the token bucket holds. The qdisc
	// sends again from an hrtimer, and when that timer or the softirq runs
	// late (a loaded 2-CPU CI machine), the tokens earned meanwhile are lost
	// unless the bucket can hold them. rate/HZ (4 ms at HZ=250) is the
	// classic minimum; with 5 ms, iperf3 at 100mbit read 95.5-95.7 Mbit/s
	// with both CPUs busy, where a 16 KiB bucket (1.3 ms) dropped to 93.6.
	// A bigger bucket lets the first instant of a transfer run above the
	// rate: 256 KiB made a 3 s iperf3 read 96.2 Mbit/s.
	burstTime = 5 * time.Millisecond
	// minBurst is two full-size Ethernet frames: tbf drops a packet larger
	// than the bucket, and with room for exactly one frame every timer
	// that fires late wastes tokens.
	minBurst = 2 * 1514
	// latency bounds the tbf queue. Over a veth the round trip is some
	// microseconds, so TCP's whole window sits in this queue; with 10 ms a
	// 3 s iperf3 saw hundreds of retransmits, with 50 ms none (BBR and
	// CUBIC alike), and a test of what crosses the link should not see
	// losses the shaper made up.
	latency = "50ms"
)

// Link is two network namespaces joined by a veth pair.
type Link struct {
	A, B         string // namespace names
	AddrA, AddrB string // IPv4 addresses, no prefix, e.g. "10.201.7.1"
	DevA, DevB   string // veth names inside each namespace
}

// linkCount numbers the links of this process, for namespace names and
// subnets.
var linkCount atomic.Uint32

// NewLink makes two namespaces, A and B, joined by a veth pair with AddrA
// and AddrB on a /30, with lo and the veth up in both, and deletes them
// again (which removes the veth, too) when the test ends, pass or fail.
// Processes still running in them then are killed first.
//
// rateMbit > 0 shapes the egress of both veth ends to rateMbit Mbit/s with
// tbf (burst rateMbit×5 ms, at least two frames; latency 50 ms; see
// burstTime and latency for why). The rate counts Ethernet frames, so with
// a 1500-byte MTU a single TCP stream carries at most 1448/1514 of it: at
// 100 Mbit/s iperf3 reads about 95.6 Mbit/s. rateMbit == 0 leaves the link
// unshaped.
//
// IPv6 is off in both namespaces, so that router solicitations, DAD and MLD
// never show up in what crosses the link.
func NewLink(t testing.TB, rateMbit int) *Link {
	t.Helper()
	fstest.RequireRoot(t)
	if rateMbit < 0 {
		t.Fatalf("nettest: negative rate %d Mbit/s", rateMbit)
	}
	n := linkCount.Add(1)
	pid := os.Getpid()
	base := fmt.Sprintf("%s%d-%d-", namePrefix, pid, n)
	subnet := subnetFor(pid, n)
	l := &Link{
		A: base + "a", B: base + "b",
		AddrA: ipv4(subnet + 1), AddrB: ipv4(subnet + 2),
		DevA: "veth-a", DevB: "veth-b",
	}

	// Registered before `ip netns add`: an add that fails half-way may have
	// created the mount all the same.
	t.Cleanup(func() {
		for _, ns := range []string{l.B, l.A} {
			killed, err := deleteNamespace(ns)
			if len(killed) > 0 {
				t.Logf("nettest: killed processes %v still running in %s", killed, ns)
			}
			if err != nil {
				t.Errorf("nettest: %v", err)
			}
		}
	})
	for _, ns := range []string{l.A, l.B} {
		mustRun(t, "ip", "netns", "add", ns)
		if err := l.Enter(ns, disableIPv6); err != nil {
			t.Fatalf("nettest: %s: %v", ns, err)
		}
	}
	// Made in A with its peer made directly in B, so that no veth ever
	// exists in the host namespace, where its name could clash with
	// another link's or a real device's. The explicit, different ifindexes
	// matter: left to itself each end would be index 2 in its namespace,
	// the kernel's linkwatch then takes the pair for a device that is its
	// own link and defers its carrier event by up to a second, and until it
	// runs the veth is not running (waitRunning).
	mustRun(t, "ip", "-n", l.A, "link", "add", l.DevA, "index", "10", "type", "veth", "peer", "name", l.DevB, "netns", l.B, "index", "20")
	for _, end := range []struct{ ns, dev, addr string }{{l.A, l.DevA, l.AddrA}, {l.B, l.DevB, l.AddrB}} {
		mustRun(t, "ip", "-n", end.ns, "addr", "add", end.addr+"/30", "dev", end.dev)
		if rateMbit > 0 {
			mustRun(t, "tc", append([]string{"-n", end.ns, "qdisc", "add", "dev", end.dev, "root"}, shapeArgs(rateMbit)...)...)
		}
		mustRun(t, "ip", "-n", end.ns, "link", "set", "lo", "up")
		mustRun(t, "ip", "-n", end.ns, "link", "set", end.dev, "up")
	}
	for _, end := range []struct{ ns, dev string }{{l.A, l.DevA}, {l.B, l.DevB}} {
		if err := waitRunning(end.ns, end.dev); err != nil {
			t.Fatalf("nettest: %v", err)
		}
	}
	return l
}

// BucketBytes is what the token bucket of a link shaped to rateMbit holds
// (burstTime of line rate, at least minBurst): what may arrive at once at
// the start of a transfer, before the rate holds.
func BucketBytes(rateMbit int) int64 {
	return max(int64(rateMbit)*1_000_000/8*int64(burstTime)/int64(time.Second), minBurst)
}

// shapeArgs returns the tc arguments after "root" for a tbf of rateMbit.
func shapeArgs(rateMbit int) []string {
	burst := BucketBytes(rateMbit)
	return []string{"tbf", "rate", strconv.Itoa(rateMbit) + "mbit", "burst", strconv.FormatInt(burst, 10), "latency", latency}
}

// subnetFor returns the network address of link n of process pid, as a
// number, in 10.0.0.0/8. The namespaces are closed, so equal subnets in two
// links would still work; distinct ones keep logs and packet captures of
// parallel test binaries apart, and let a test join two links' namespaces
// later without renumbering. 14 bits of pid (pid_max is 32768 on most
// machines) and 8 of the counter fill the 2^22 /30s of 10/8.
func subnetFor(pid int, n uint32) uint32 {
	return 10<<24 | (uint32(pid)%(1<<14)<<8|n%(1<<8))<<2
}

func ipv4(a uint32) string {
	return net.IPv4(byte(a>>24), byte(a>>16), byte(a>>8), byte(a)).String()
}

// disableIPv6 runs inside a namespace before its veth exists; "default" is
// what new devices inherit.
func disableIPv6() error {
	for _, dev := range []string{"all", "default"} {
		err := os.WriteFile("/proc/sys/net/ipv6/conf/"+dev+"/disable_ipv6", []byte("1"), 0)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // kernel without IPv6: nothing to silence
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// operWait bounds the wait for a veth to come up.
const operWait = 5 * time.Second

// waitRunning waits until dev in ns is operationally up. Until then the
// kernel has not attached its qdisc and drops what is sent, and a lost SYN
// costs the first connection of a test a second.
func waitRunning(ns, dev string) error {
	deadline := time.Now().Add(operWait)
	for {
		var flags net.Flags
		err := enter(ns, func() error {
			ifi, err := net.InterfaceByName(dev)
			if err == nil {
				flags = ifi.Flags
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("%s in %s: %w", dev, ns, err)
		}
		if flags&net.FlagRunning != 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s in %s not running %v after being set up (flags %v)", dev, ns, operWait, flags)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// check refuses namespaces other than the link's own, so that a typo
// cannot run a command in, or enter, some other namespace of the machine.
func (l *Link) check(ns string) error {
	if ns != l.A && ns != l.B {
		return fmt.Errorf("nettest: namespace %q is not %s or %s", ns, l.A, l.B)
	}
	return nil
}

// Command returns an *exec.Cmd running name with args inside namespace ns
// (l.A or l.B), via `ip netns exec`. ip execs name in place, so the Cmd's
// process is name itself and ctx kills it directly. For another ns, Start
// fails.
//
// Processes still running when the test ends are killed before their
// namespace is deleted.
func (l *Link) Command(ctx context.Context, ns string, name string, args ...string) *exec.Cmd {
	return command(ctx, l.check(ns), ns, name, args...)
}

// command is `ip netns exec ns name args...`, failing at Start with bad
// when the caller refused ns.
func command(ctx context.Context, bad error, ns string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
	if bad != nil {
		cmd.Err = bad
	}
	return cmd
}

// Enter runs fn on an OS thread switched into namespace ns (l.A or l.B), so
// that sockets fn makes (net.Listen, net.Dial) are in ns. The thread is
// switched back and unlocked before Enter returns.
//
// Sockets keep the namespace they were made in: a listener made inside fn
// can be served from any goroutine after Enter has returned. Close them
// (t.Cleanup): an open socket keeps its namespace, and the veth in it,
// alive after the namespace has been deleted, until the process exits.
//
// Only fn's own goroutine is in ns. Goroutines started inside fn run on
// other threads, in the namespace of the process, and so does Go code that
// hands work to other goroutines or threads: dial IP addresses, not host
// names, whose resolution may run elsewhere.
//
// Enter panics if it cannot switch the thread back.
func (l *Link) Enter(ns string, fn func() error) error {
	if err := l.check(ns); err != nil {
		return err
	}
	return enter(ns, fn)
}

// enter is Enter for any namespace of ours.
func enter(ns string, fn func() error) error {
	target, err := os.Open(nsFile(ns))
	if err != nil {
		return fmt.Errorf("nettest: %w", err)
	}
	defer target.Close()

	runtime.LockOSThread()
	// The thread's own namespace, not the process's: this may be a nested
	// Enter.
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("nettest: %w", err)
	}
	defer orig.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("nettest: setns %s: %w", ns, err)
	}
	defer func() {
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			// Left locked, the thread is ended with its goroutine instead of
			// running other goroutines in ns; but this goroutine would go on
			// in ns, and a test that silently talks to the wrong network is
			// worse than one that crashes.
			panic(fmt.Sprintf("nettest: cannot switch thread back from namespace %s: %v", ns, err))
		}
		runtime.UnlockOSThread()
	}()
	return fn()
}

// validSuffix: a and b are a Link's ends (or a Router's), r a Router's
// middle, s a LAN's switch, hN its hosts.
func validSuffix(s string) bool {
	switch s {
	case "a", "b", "r", "s":
		return true
	}
	n, ok := strings.CutPrefix(s, "h")
	v, err := strconv.Atoi(n)
	return ok && err == nil && v >= 0 && strconv.Itoa(v) == n
}

// nsFile returns the path of namespace ns in /run/netns.
func nsFile(ns string) string { return filepath.Join(netnsDir, ns) }

// parseName splits a namespace name of ours into the pid that made it and
// reports whether it is one.
func parseName(ns string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(ns, namePrefix)
	if !ok {
		return 0, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 || !validSuffix(parts[2]) {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return 0, false
	}
	if _, err := strconv.ParseUint(parts[1], 10, 32); err != nil {
		return 0, false
	}
	return pid, true
}
