package nettest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

// Router is three namespaces in a line, client - router - server, joined
// by two veth pairs, the router forwarding between them and shaping both
// of its egresses with tbf: the queue of a slow hop sits on the router,
// where it fills as it does on a home gateway. (A sender's own qdisc stays
// nearly empty: TCP small queues hold the data in the socket instead.)
type Router struct {
	Client, Router, Server string // namespace names
	ClientAddr, ServerAddr string // IPv4 addresses, no prefix
	// ToClient and ToServer are the router's devices toward each end,
	// whose egress the queue shapes.
	ToClient, ToServer string
}

// Queue is the router's tbf on each egress: RateMbit, and either a
// Latency bound ("100ms": a queue of rate×latency bytes, a deep one) or a
// Limit in bytes (30000: a short one).
type Queue struct {
	RateMbit int
	Latency  string
	Limit    int
	// InitCwnd, if set, is both ends' first congestion window in packets
	// (ip route initcwnd; the kernel's is 10), so that a sender fills a
	// deep queue within its first round trips. Without it CUBIC leaves
	// slow start where HyStart happens to see an ACK train, at 30 to 300
	// packets, and from 120 or more grows 15-20 packets a second here:
	// a 1.3 MB queue was then a quarter full 15 s into a test.
	InitCwnd int
}

// args are the tc arguments after "root".
func (q Queue) args() []string {
	a := shapeArgs(q.RateMbit)[:5] // tbf rate R burst B
	if q.Limit > 0 {
		return append(a, "limit", strconv.Itoa(q.Limit))
	}
	return append(a, "latency", q.Latency)
}

// NewRouter makes the three namespaces with q on the router's two
// egresses, and deletes them when the test ends, pass or fail, killing
// what still runs in them first.
func NewRouter(t testing.TB, q Queue) *Router {
	t.Helper()
	fstest.RequireRoot(t)
	if q.RateMbit <= 0 || (q.Limit > 0) == (q.Latency != "") {
		t.Fatalf("nettest: queue %+v: a rate and one of latency or limit", q)
	}
	n1, n2 := linkCount.Add(1), linkCount.Add(1)
	pid := os.Getpid()
	base := fmt.Sprintf("%s%d-%d-", namePrefix, pid, n1)
	left, right := subnetFor(pid, n1), subnetFor(pid, n2)
	r := &Router{Client: base + "a", Router: base + "r", Server: base + "b",
		ClientAddr: ipv4(left + 1), ServerAddr: ipv4(right + 2), ToClient: "veth-c", ToServer: "veth-s"}
	t.Cleanup(func() {
		for _, ns := range []string{r.Server, r.Router, r.Client} {
			killed, err := deleteNamespace(ns)
			if len(killed) > 0 {
				t.Logf("nettest: killed processes %v still running in %s", killed, ns)
			}
			if err != nil {
				t.Errorf("nettest: %v", err)
			}
		}
	})
	for _, ns := range []string{r.Client, r.Router, r.Server} {
		mustRun(t, "ip", "netns", "add", ns)
		if err := enter(ns, disableIPv6); err != nil {
			t.Fatalf("nettest: %s: %v", ns, err)
		}
		mustRun(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	// Distinct ifindexes for the reason NewLink gives.
	mustRun(t, "ip", "-n", r.Client, "link", "add", "eth0", "index", "10", "type", "veth", "peer", "name", r.ToClient, "netns", r.Router, "index", "20")
	mustRun(t, "ip", "-n", r.Server, "link", "add", "eth0", "index", "30", "type", "veth", "peer", "name", r.ToServer, "netns", r.Router, "index", "40")
	routerLeft, routerRight := ipv4(left+2), ipv4(right+1)
	for _, e := range []struct{ ns, dev, addr, via string }{
		{r.Client, "eth0", r.ClientAddr, routerLeft}, {r.Server, "eth0", r.ServerAddr, routerRight},
		{r.Router, r.ToClient, routerLeft, ""}, {r.Router, r.ToServer, routerRight, ""},
	} {
		mustRun(t, "ip", "-n", e.ns, "addr", "add", e.addr+"/30", "dev", e.dev)
		mustRun(t, "ip", "-n", e.ns, "link", "set", e.dev, "up")
		if e.via != "" {
			route := []string{"-n", e.ns, "route", "add", "default", "via", e.via}
			if q.InitCwnd > 0 {
				route = append(route, "initcwnd", strconv.Itoa(q.InitCwnd))
			}
			mustRun(t, "ip", route...)
		}
	}
	for _, dev := range []string{r.ToClient, r.ToServer} {
		mustRun(t, "tc", append([]string{"-n", r.Router, "qdisc", "add", "dev", dev, "root"}, q.args()...)...)
	}
	if err := enter(r.Router, func() error {
		return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0)
	}); err != nil {
		t.Fatalf("nettest: forwarding in %s: %v", r.Router, err)
	}
	for _, e := range []struct{ ns, dev string }{{r.Client, "eth0"}, {r.Server, "eth0"}, {r.Router, r.ToClient}, {r.Router, r.ToServer}} {
		if err := waitRunning(e.ns, e.dev); err != nil {
			t.Fatalf("nettest: %v", err)
		}
	}
	return r
}

// check refuses namespaces other than the router's three.
func (r *Router) check(ns string) error {
	if ns != r.Client && ns != r.Router && ns != r.Server {
		return fmt.Errorf("nettest: namespace %q is not one of %s, %s, %s", ns, r.Client, r.Router, r.Server)
	}
	return nil
}

// Command runs name with args in namespace ns (ip netns exec); see
// Link.Command.
func (r *Router) Command(ctx context.Context, ns string, name string, args ...string) *exec.Cmd {
	return command(ctx, r.check(ns), ns, name, args...)
}

// Enter runs fn on a thread in namespace ns; see Link.Enter.
func (r *Router) Enter(ns string, fn func() error) error {
	if err := r.check(ns); err != nil {
		return err
	}
	return enter(ns, fn)
}
