package pilab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// benchRuns is the guest's part of TestPilabBench, REPS repetitions, the
// tools alternating which goes first: thruput's armv6 and armv7 builds'
// net client against their own server over the guest's loopback, paced
// at 20 Mbit/s a stream for 10 s, 1 and 10 streams, and Debian's armhf
// iperf3 (3.12) the same way; then each build's disk io, 4 KiB randread
// at QD32 for 10 s on the SD card's ext4. Every client and disk io runs
// under /bin/rusage, which writes its CPU time and peak RSS as the file
// "NAME (cost)". Both tools run with their defaults (thruput's latency
// probes and health sampling on), as a user would, and the armv6 build
// once more without them ("bare"), which shows what they cost.
var benchRuns = costShell + `listen() {
	i=0
	while [ $i -lt 300 ] && ! netstat -ltn | grep -q ":$1 "; do
		sleep 0.1
		i=$((i + 1))
	done
}
thruput_client() {
	/bin/thruput$1 net server -1 $Q >/dev/null 2>&1 &
	s=$!
	listen 5201
	cost "$2 net -P $3 rep $r" /bin/thruput$1 net client 127.0.0.1 -b 20M -t 10 -P $3 -J $Q $4
	wait $s
}
thruput_net() {
	for p in 1 10; do
		thruput_client 6 "thruput armv6" $p
		thruput_client 7 "thruput armv7" $p
		thruput_client 6 "thruput armv6 bare" $p "--no-latency --no-health"
	done
}
iperf3_net() {
	for p in 1 10; do
		/usr/bin/iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
		s=$!
		listen 5202
		cost "iperf3 net -P $p rep $r" /usr/bin/iperf3 -c 127.0.0.1 -p 5202 -b 20M -t 10 -P $p -J
		wait $s
	done
}
` + alternate(`	for b in 6 7; do
		cost "thruput armv$b disk io rep $r" /bin/thruput$b disk io /mnt/sd --rw randread --bs 4k --iodepth 32 --size 16M -t 10s --time-based --json $Q
	done
`)

// costShell starts a bench's guest script: Q, thruput's flags for a run
// that keeps nothing, and cost NAME COMMAND..., which runs the command
// as run does (init.sh) under /bin/rusage and prints what it cost as the
// file "NAME (cost)".
const costShell = `Q="--no-save --no-compare -q"
cost() {
	name=$1
	shift
	run "$name" /bin/rusage /tmp/cost "$@"
	echo "@@F $name (cost)"
	cat /tmp/cost
	echo "@@E"
}
`

// alternate is a bench's repetitions in the guest script: REPS times
// the script's thruput_net and iperf3_net, the two taking turns at going
// first, then extra.
func alternate(extra string) string {
	return `r=1
while [ $r -le REPS ]; do
	if [ $((r % 2)) -eq 1 ]; then
		thruput_net
		iperf3_net
	else
		iperf3_net
		thruput_net
	fi
` + extra + `	r=$((r + 1))
done
`
}

// benchReps is BENCH_PILAB_REPS, 3 when unset.
func benchReps(t *testing.T) int {
	t.Helper()
	s := os.Getenv("BENCH_PILAB_REPS")
	if s == "" {
		return 3
	}
	reps, err := strconv.Atoi(s)
	if err != nil || reps < 1 {
		t.Fatalf("BENCH_PILAB_REPS=%q: want a whole number from 1", s)
	}
	return reps
}

// guestCost is what the guest's command NAME cost (see costShell): its
// CPU seconds, user and system, and its peak RSS in KiB. The command
// must have succeeded.
func guestCost(t *testing.T, g Guest, name string) (cpu float64, hwmKiB int64) {
	t.Helper()
	if st := g.Status[name]; st != "rc=0" {
		t.Fatalf("%s in the guest: %q; stderr:\n%s\noutput:\n%s", name, st, g.Files[name+" (stderr)"], g.Files[name])
	}
	var user, sys float64
	if _, err := fmt.Sscanf(g.Files[name+" (cost)"], "%g %g %d", &user, &sys, &hwmKiB); err != nil {
		t.Fatalf("%s: cost %q: %v", name, g.Files[name+" (cost)"], err)
	}
	return user + sys, hwmKiB
}

// guestRate is the received rate, in Mbit/s, in the iperf3 JSON (-J)
// that the guest's client NAME printed (thruput's and iperf3's alike).
func guestRate(t *testing.T, g Guest, name string) float64 {
	t.Helper()
	var j struct {
		End struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal([]byte(g.Files[name]), &j); err != nil || j.End.SumReceived.BitsPerSecond <= 0 {
		t.Fatalf("%s: %v\n%s", name, err, g.Files[name])
	}
	return j.End.SumReceived.BitsPerSecond / 1e6
}

// TestPilabBench is bench/pilab's measurement (issue 36), not a test: it
// runs only with BENCH_PILAB=1. The emulated Pi 3 B boots once with
// thruput's armv6 and armv7 builds and Debian's armhf iperf3 in its
// 32-bit userland and runs benchRuns; printed are each tool's CPU time
// (user+sys) per run, median of BENCH_PILAB_REPS (3), thruput's over
// iperf3's (the emulator is not a Pi: the ratio is the figure), the
// rates, and the peak RSS, with PASS/FAIL for armv6's net client -P 10
// and disk io under 32 MiB. Debian's fio is not in the guest (its armhf
// libraries are too many: scripts/pilab-fetch), so disk io has no peer
// here.
func TestPilabBench(t *testing.T) {
	if os.Getenv("BENCH_PILAB") == "" {
		t.Skip("bench/pilab runs this measurement (BENCH_PILAB=1)")
	}
	reps := benchReps(t)
	kit := requireKit(t)
	if kit.Armhf == "" {
		skipMissing(t, "no armhf iperf3 in %s (scripts/pilab-fetch fetches it)", Dir())
	}
	// The armv7 build and the cost meter beside the armv6 build that
	// newMachine puts at /bin/thruput.
	tree := t.TempDir()
	arm := []string{"GOOS=linux", "GOARCH=arm", "GOARM=6"}
	buildCommand(t, filepath.Join(tree, "bin/thruput7"), "github.com/thruput/thruput/cmd/thruput", "GOOS=linux", "GOARCH=arm", "GOARM=7")
	buildCommand(t, filepath.Join(tree, "bin/rusage"), "github.com/thruput/thruput/internal/pilab/rusage", arm...)
	if err := os.Symlink("thruput", filepath.Join(tree, "bin/thruput6")); err != nil {
		t.Fatal(err)
	}
	m := newMachine(t, "6", []byte(strings.ReplaceAll(benchRuns, "REPS", strconv.Itoa(reps))), kit.Armhf, tree)
	g := boot(t, m, time.Duration(reps)*10*time.Minute, nil)
	if st := g.Status["mount sd"]; st != "rc=0" {
		t.Fatalf("mount sd in the guest: %q: %s", st, g.Files["mount sd (stderr)"])
	}

	type runs struct{ cpu, rate, rssMiB []float64 }
	got := map[string]*runs{}
	for r := 1; r <= reps; r++ {
		for _, c := range []struct{ tool, what string }{
			{"thruput armv6", "net -P 1"}, {"thruput armv6", "net -P 10"}, {"thruput armv7", "net -P 1"}, {"thruput armv7", "net -P 10"},
			{"thruput armv6 bare", "net -P 1"}, {"thruput armv6 bare", "net -P 10"},
			{"iperf3", "net -P 1"}, {"iperf3", "net -P 10"}, {"thruput armv6", "disk io"}, {"thruput armv7", "disk io"},
		} {
			name := fmt.Sprintf("%s %s rep %d", c.tool, c.what, r)
			cpu, hwm := guestCost(t, g, name)
			var rate float64
			if c.what == "disk io" {
				d, err := result.Read(strings.NewReader(g.Files[name]))
				if err != nil || d.IO == nil || len(d.IO.Runs) != 1 || d.IO.Runs[0].Read == nil {
					t.Fatalf("%s: %v\n%s", name, err, g.Files[name])
				}
				rate = d.IO.Runs[0].Read.IOPS
			} else {
				rate = guestRate(t, g, name)
			}
			k := c.tool + " " + c.what
			if got[k] == nil {
				got[k] = &runs{}
			}
			got[k].cpu = append(got[k].cpu, cpu)
			got[k].rate = append(got[k].rate, rate)
			got[k].rssMiB = append(got[k].rssMiB, float64(hwm)/1024)
		}
	}
	fmt.Printf("emulated Pi 3 B (QEMU raspi3b, TCG), 32-bit userland on Debian's arm64 kernel; median of %d runs, alternating\n", reps)
	fmt.Printf("%-28s %12s %14s %10s %10s  %s\n", "case", "rate", "CPU s (u+s)", "/iperf3", "peak RSS", "CPU s of each run")
	for _, k := range []string{"iperf3 net -P 1", "thruput armv6 net -P 1", "thruput armv7 net -P 1", "thruput armv6 bare net -P 1",
		"iperf3 net -P 10", "thruput armv6 net -P 10", "thruput armv7 net -P 10", "thruput armv6 bare net -P 10", "thruput armv6 disk io", "thruput armv7 disk io"} {
		r := got[k]
		unit, ratio := "Mbit/s", "-"
		if strings.HasSuffix(k, "disk io") {
			unit = "IOPS"
		} else if peer := got["iperf3 "+k[strings.Index(k, "net"):]]; !strings.HasPrefix(k, "iperf3") {
			ratio = fmt.Sprintf("%.2fx", stats.Median(r.cpu)/stats.Median(peer.cpu))
		}
		each := make([]string, len(r.cpu))
		for i, c := range r.cpu {
			each[i] = strconv.FormatFloat(c, 'f', 2, 64)
		}
		fmt.Printf("%-28s %6.1f %-6s %14.2f %10s %6.1f MiB  %s\n", k, stats.Median(r.rate), unit, stats.Median(r.cpu), ratio, slices.Max(r.rssMiB), strings.Join(each, " "))
	}
	v := map[bool]string{true: "PASS", false: "FAIL"}
	for _, k := range []string{"thruput armv6 net -P 10", "thruput armv6 disk io"} {
		rss := slices.Max(got[k].rssMiB)
		fmt.Printf("%s  %s: peak RSS %.1f MiB < 32 MiB\n", v[rss < 32], k, rss)
	}
}
