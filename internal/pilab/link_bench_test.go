package pilab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/stats"
)

// linkRuns is the guest's part of TestPilabLinkBench, REPS repetitions,
// the tools alternating which goes first: the armv6 build's net client
// and Debian's armhf iperf3 (3.12), each against a server on this
// machine (SERVER), over the emulated USB network adapter and QEMU's
// user-mode network, paced at RATE for 10 s, one stream each way;
// thruput with its defaults (latency probes, health sampling), without
// each and without both ("bare"). Every client runs under /bin/rusage,
// as in benchRuns, and so does each tool's start alone (thruput version,
// iperf3 -v): what a run costs before it measures anything.
var linkRuns = costShell + `for n in /sys/class/net/*; do
	[ "${n##*/}" = lo ] || usb=${n##*/}
done
ip addr add 10.0.2.15/24 dev "$usb"
ip route add default via 10.0.2.2
thruput_net() {
	for d in up down; do
		R=
		[ $d = down ] && R=-R
		cost "thruput $d rep $r" /bin/thruput net client SERVER -b RATE -t 10 -J $Q $R
		cost "thruput no-health $d rep $r" /bin/thruput net client SERVER -b RATE -t 10 -J $Q $R --no-health
		cost "thruput no-latency $d rep $r" /bin/thruput net client SERVER -b RATE -t 10 -J $Q $R --no-latency
		cost "thruput bare $d rep $r" /bin/thruput net client SERVER -b RATE -t 10 -J $Q $R --no-latency --no-health
	done
}
iperf3_net() {
	for d in up down; do
		R=
		[ $d = down ] && R=-R
		cost "iperf3 $d rep $r" /usr/bin/iperf3 -c SERVER -p 5202 -b RATE -t 10 -J $R
	done
}
` + alternate(`	cost "thruput start rep $r" /bin/thruput version
	cost "iperf3 start rep $r" /usr/bin/iperf3 -v
`)

// TestPilabLinkBench is `bench/pilab link` (issue 36), a measurement, not
// a test: it runs only with BENCH_PILAB=link. Over the guest's loopback
// (TestPilabBench) the kernel delivers each of a client's packets to the
// server inside the client's own system call, and wakes the server, on
// the guest's CPU, and a latency probe costs the client its echo's
// delivery too: on a Pi the other end is another machine. Here the
// servers are on this machine: QEMU runs in one namespace of a link
// shaped to 100 Mbit/s (a Pi's Ethernet) and thruput's server (this
// machine's build) and iperf3 -s (IPERF3, else Debian's) in the other.
// The guest has one core (maxcpus=1, as a Pi 1 or Zero), shared by the
// client and the kernel's USB and network work. Printed are each
// client's CPU time (user+sys) per run, median of BENCH_PILAB_REPS (3),
// thruput's over iperf3's in the same direction, and the rates.
func TestPilabLinkBench(t *testing.T) {
	if os.Getenv("BENCH_PILAB") != "link" {
		t.Skip("bench/pilab link runs this measurement (BENCH_PILAB=link)")
	}
	reps := benchReps(t)
	rate := "500K"
	if s := os.Getenv("BENCH_PILAB_RATE"); s != "" {
		rate = s
	}
	iperf3 := os.Getenv("IPERF3")
	if iperf3 == "" {
		iperf3 = "/usr/bin/iperf3"
	}
	if _, err := exec.LookPath(iperf3); err != nil {
		skipMissing(t, "no iperf3 for the server side (%v)", err)
	}
	kit := requireKit(t)
	if kit.Armhf == "" {
		skipMissing(t, "no armhf iperf3 in %s (scripts/pilab-fetch fetches it)", Dir())
	}
	link := nettest.NewLink(t, 100)
	tree := t.TempDir()
	buildCommand(t, tree+"/bin/rusage", "github.com/thruput/thruput/internal/pilab/rusage", "GOOS=linux", "GOARCH=arm", "GOARM=6")
	host := buildThruput(t, t.TempDir())

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, s := range []struct {
		port int
		args []string
	}{
		{5201, []string{host, "net", "server", "-B", link.AddrB, "--no-save", "-q"}},
		{5202, []string{iperf3, "-s", "-B", link.AddrB, "-p", "5202"}},
	} {
		c := link.Command(ctx, link.B, s.args[0], s.args[1:]...)
		if err := c.Start(); err != nil {
			t.Fatalf("%v: %v", s.args, err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		if !nettest.Sockets(fmt.Sprintf("/proc/%d/net", c.Process.Pid), s.port, nettest.Listen, 1) {
			t.Fatalf("%v: not listening on port %d after 10 s", s.args, s.port)
		}
	}

	script := strings.NewReplacer("REPS", strconv.Itoa(reps), "SERVER", link.AddrB, "RATE", rate).Replace(linkRuns)
	m := newMachine(t, "6", []byte(script), kit.Armhf, tree)
	m.Namespace, m.OneCore = link.A, true
	g := boot(t, m, time.Duration(reps)*10*time.Minute, nil)
	if n := len(cpuinfo(g, "processor")); n != 1 {
		t.Fatalf("the guest has %d cores online, want 1 (maxcpus=1)", n)
	}

	tools := []string{"iperf3", "thruput", "thruput no-health", "thruput no-latency", "thruput bare"}
	type runs struct{ cpu, rate []float64 }
	got := map[string]*runs{}
	cost := func(name string) float64 {
		cpu, _ := guestCost(t, g, name)
		return cpu
	}
	start := map[string][]float64{}
	for r := 1; r <= reps; r++ {
		for _, tool := range []string{"iperf3", "thruput"} {
			start[tool] = append(start[tool], cost(fmt.Sprintf("%s start rep %d", tool, r)))
		}
		for _, tool := range tools {
			for _, dir := range []string{"up", "down"} {
				name := fmt.Sprintf("%s %s rep %d", tool, dir, r)
				cpu, rate := cost(name), guestRate(t, g, name)
				k := tool + " " + dir
				if got[k] == nil {
					got[k] = &runs{}
				}
				got[k].cpu = append(got[k].cpu, cpu)
				got[k].rate = append(got[k].rate, rate)
			}
		}
	}
	fmt.Printf("emulated Pi 3 B on one core (QEMU raspi3b, TCG, maxcpus=1), armv6 thruput and armhf iperf3 3.12 clients against servers on this machine "+
		"(thruput's, %s) over the emulated USB adapter, -b %s -t 10, 1 stream; median of %d runs, alternating\n", iperf3, rate, reps)
	fmt.Printf("%-24s %14s %14s %10s  %s\n", "case", "rate", "CPU s (u+s)", "/iperf3", "CPU s of each run")
	each := func(x []float64) string {
		s := make([]string, len(x))
		for i, c := range x {
			s[i] = strconv.FormatFloat(c, 'f', 2, 64)
		}
		return strings.Join(s, " ")
	}
	for _, tool := range []string{"iperf3", "thruput"} {
		fmt.Printf("%-24s %14s %14.2f %10s  %s\n", tool+" start", "-", stats.Median(start[tool]), fmt.Sprintf("%.2fx", stats.Median(start[tool])/stats.Median(start["iperf3"])), each(start[tool]))
	}
	for _, dir := range []string{"up", "down"} {
		for _, tool := range tools {
			r := got[tool+" "+dir]
			ratio := "-"
			if tool != "iperf3" {
				ratio = fmt.Sprintf("%.2fx", stats.Median(r.cpu)/stats.Median(got["iperf3 "+dir].cpu))
			}
			fmt.Printf("%-24s %7.1f Mbit/s %14.2f %10s  %s\n", tool+" "+dir, stats.Median(r.rate), stats.Median(r.cpu), ratio, each(r.cpu))
		}
	}
}
