package suite

import (
	"errors"
	"fmt"
	"math/bits"
	"net"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// Step is one run of the suite: the command line of a thruput command,
// and what a budget needs to know of it, kept as data when the step is
// planned so that nothing reads it back from the command line (which
// holds the user's directory, whatever its name).
type Step struct {
	Name string
	// Method is what the step's command measures: a result.Method*
	// constant.
	Method result.Method
	// Args is the command line as planned; Run adds a budget's bound.
	Args []string
	// Phases counts the timed phases a budget can bound; Bound is the
	// bound the plan gives each of them, on the command line or as its
	// command's default (0: none but their data); Fixed estimates what
	// the step takes besides them: files laid out, an omitted start,
	// downloads no flag bounds.
	Phases int
	Bound  time.Duration
	Fixed  time.Duration
	// BoundFlag is the flag of the step's command that bounds each
	// phase, where a budget puts its share; empty for a download, which
	// its body bounds.
	BoundFlag string
	// Plain estimates the step's time as planned, without a budget: its
	// phases end at their bound or once their data has moved, whichever
	// comes first.
	Plain time.Duration
	// AsPlanned is set by a budget too short to run every phase until
	// stable for at least minPhase: the step costs it less as planned
	// (Plain), so it runs so, without --until-stable or a share (a sweep
	// whose files take less than a second a phase).
	AsPlanned bool
	// data is what each phase moves at most, at rate bytes a second
	// (0: the bound alone ends it).
	data int64
	rate Rate
}

// Rate is how fast files are laid out in a directory: PerSec bytes a
// second, measured on Size bytes. It holds for files up to Size: a larger
// one may outgrow the write cache the measured one fitted in (a 128 MiB
// set laid out at 800 MiB/s here, 5 GiB at 130 MiB/s).
type Rate struct {
	PerSec float64
	Size   int64
}

// Options say what the suite measures: directories for the disk methods,
// a server for the network test, a URL for the download; Full asks for
// each tool's full method rather than the short one.
type Options struct {
	Disks     []string
	Net, HTTP string
	// Bind and BindDev are the network test's -B and --bind-dev: the
	// local address, and the device, it sends from.
	Bind, BindDev string
	Full          bool
	// UntilStable (a percentage, 0 for none) is given to every step:
	// each phase ends once its figure is known to ±UntilStable %.
	UntilStable float64
	// Sustained is given to every disk step: its figure is the rate
	// after a drop.
	Sustained bool
	// Rates are the rates files are laid out at in each of Disks, as
	// measured (Rates); a directory without one, or a file larger than
	// its rate was measured on, is estimated at prepRate.
	Rates map[string]Rate
	// Budget, when set, bounds a round: every phase runs until stable
	// (2 % unless UntilStable says otherwise), bounded by its share of
	// what is left of the budget when its step starts (Run).
	Budget time.Duration
}

// minPhase is the shortest bound a budget gives a phase: time for the
// eight windows of 100 ms an interval takes (stable.MinWindows), and a
// little more.
const minPhase = time.Second

// prepRate is the rate files are laid out at, as the budget estimates
// it when the machine was not asked (Options.Rates): an SD card's
// sustained write, so that the estimate errs long and a faster disk
// leaves the time it saves to the phases after it.
const prepRate = 20 << 20

// stepCost is what a step takes besides its phases and its files:
// gathering the machine's context, evicting, saving the run.
const stepCost = 500 * time.Millisecond

// downloadCost is a download's time as the budget estimates it: no flag
// bounds it, and --until-stable ends it no sooner than 3 s.
const downloadCost = 5 * time.Second

// What the full plan leaves to the commands' defaults, as the budget
// counts it: sysbench fileio's 300 s over 5 GiB, and the presets' 5 s
// each over 1 GiB. cmd/thruput's TestSuitePlanBounds holds the bounds to
// the commands' defaults.
const (
	randomTime = 300 * time.Second
	randomSize = 5 << 30
	markTime   = 5 * time.Second
	markSize   = 1 << 30
)

// boundFlags is the flag each method's command bounds a phase with; a
// download has none.
var boundFlags = map[result.Method]string{
	result.MethodSweep:     "--max-time",
	result.MethodRandom:    "-t",
	result.MethodIO:        "-t",
	result.MethodMark:      "-t",
	result.MethodNetClient: "-t",
}

// Plan lists the steps of one round. With a budget or a target, every
// step runs --until-stable; with a budget, one too small for the steps'
// fixed costs and minPhase a phase (or their own bound, when shorter) is
// an error. A budget too small for that, but not for the steps whose
// plain run costs less (AsPlanned), runs those as planned: any budget
// the plain round fits in is accepted.
func Plan(o Options) ([]Step, error) {
	if err := o.checkBind(); err != nil {
		return nil, err
	}
	steps := plan(o)
	if o.Budget <= 0 && o.UntilStable <= 0 {
		return steps, nil
	}
	pct := o.UntilStable
	if pct <= 0 {
		pct = 2
	}
	if o.Budget > 0 {
		var all, need time.Duration
		n := 0
		for _, st := range steps {
			least := st.Fixed + time.Duration(st.Phases)*minBound(st)
			all, need = all+least, need+min(least, st.Plain)
			n += st.Phases
		}
		if need > o.Budget {
			return nil, fmt.Errorf("--budget %v cannot fit %d timed phases of at least %v each and the steps' other costs (%v in all): give more, or fewer targets", o.Budget, n, minPhase, need.Round(time.Second))
		}
		for i, st := range steps {
			steps[i].AsPlanned = all > o.Budget && st.Plain < st.Fixed+time.Duration(st.Phases)*minBound(st)
		}
	}
	for i, st := range steps {
		if !st.AsPlanned {
			steps[i].Args = append(slices.Clone(st.Args), "--until-stable="+strconv.FormatFloat(pct, 'g', -1, 64))
		}
	}
	return steps, nil
}

// checkBind refuses a binding without a network test, an address that
// is not an IP address of this machine, or a device it does not have.
func (o Options) checkBind() error {
	if (o.Bind != "" || o.BindDev != "") && o.Net == "" {
		return errors.New("--bind and --bind-dev are the network test's: give --net too")
	}
	if o.Bind != "" {
		ip := net.ParseIP(o.Bind)
		if ip == nil {
			return fmt.Errorf("--bind %s: an IP address of this machine (--bind-dev names a device)", o.Bind)
		}
		l, err := net.ListenPacket("udp", net.JoinHostPort(o.Bind, "0"))
		if err != nil {
			return fmt.Errorf("--bind %s: not an address of this machine: %w", o.Bind, err)
		}
		l.Close()
	}
	if o.BindDev != "" {
		if _, err := net.InterfaceByName(o.BindDev); err != nil {
			return fmt.Errorf("--bind-dev %s: no such network device here", o.BindDev)
		}
	}
	return nil
}

func plan(o Options) []Step {
	var steps []Step
	for _, d := range o.Disks {
		var ds []Step
		rate := o.Rates[d]
		if o.Full {
			ds = []Step{
				sweep(d, 8, 1<<20, 1<<30).bound(30*time.Second).moves(1<<30, rate),
				step("random "+d, result.MethodRandom, slices.Concat([]string{"disk", "random", d}, direct(d)), 1, layout(randomSize, rate)).byDefault(randomTime),
				fio("write", d, rate), fio("read", d, rate),
				step("mark "+d, result.MethodMark, []string{"disk", "mark", d}, 8, layout(markSize, rate)).byDefault(markTime),
			}
		} else {
			const randomSet, markFile = 128 << 20, 64 << 20
			ds = []Step{
				sweep(d, 512, 1<<20, 32<<20).bound(2*time.Second).moves(32<<20, rate),
				step("random "+d, result.MethodRandom, slices.Concat([]string{"disk", "random", d, "--files", "16", "--size", units.BlockLabel(randomSet)}, direct(d)), 1, layout(randomSet, rate)).bound(8 * time.Second),
				step("mark "+d, result.MethodMark, []string{"disk", "mark", d, "--size", units.BlockLabel(markFile)}, 8, layout(markFile, rate)).bound(2 * time.Second),
			}
		}
		if o.Sustained {
			for i := range ds {
				ds[i].Args = append(ds[i].Args, "--sustained")
			}
		}
		steps = append(steps, ds...)
	}
	if o.Net != "" {
		host, port, _ := iperf3.ParseServer(o.Net)
		if port == 0 {
			port = iperf3.DefaultPort
		}
		client := []string{"net", "client", host, "-p", strconv.Itoa(port)}
		if o.Bind != "" {
			client = append(client, "-B", o.Bind)
		}
		if o.BindDev != "" {
			client = append(client, "--bind-dev", o.BindDev)
		}
		test := func(name string, args []string, t, omit time.Duration, more ...string) Step {
			// The omitted start is not measured: it is a fixed cost, as is
			// the second the test takes to set up and end.
			st := step("net "+name+" "+host, result.MethodNetClient, args, 1, omit+time.Second).bound(t)
			if omit > 0 {
				st.Args = append(st.Args, "-O", strconv.Itoa(int(omit/time.Second)))
			}
			st.Args = append(st.Args, more...)
			return st
		}
		if o.Full {
			long := slices.Concat(client, []string{"-P", "10"})
			// The capped run is one stream: -b caps each stream, and the
			// 40 Mbit/s of a WiFi survey is what the whole test may send.
			steps = append(steps,
				test("up", long, 65*time.Second, 5*time.Second),
				test("down", long, 65*time.Second, 5*time.Second, "-R"),
				test("both", long, 65*time.Second, 5*time.Second, "--bidir"),
				test("capped", client, 65*time.Second, 5*time.Second, "-b", "40M"))
		} else {
			steps = append(steps,
				test("up", client, 4*time.Second, 0),
				test("down", client, 4*time.Second, 0, "-R"))
		}
	}
	if o.HTTP != "" {
		const repeat = 3
		steps = append(steps, step("http "+o.HTTP, result.MethodHTTP, []string{"net", "http", o.HTTP, "--repeat", strconv.Itoa(repeat)}, 0, repeat*downloadCost))
	}
	for i, st := range steps {
		phase := st.Bound
		if st.data > 0 {
			if d := layout(st.data, st.rate); phase == 0 || d < phase {
				phase = d
			}
		}
		steps[i].Plain = st.Fixed + time.Duration(st.Phases)*phase
	}
	return steps
}

// step is a step of method's command with phases timed phases and fixed
// as its other costs (stepCost added), not yet bounded. Its command line
// is a copy: steps that share a prefix append their own flags.
func step(name string, method result.Method, args []string, phases int, fixed time.Duration) Step {
	return Step{Name: name, Method: method, Args: slices.Clone(args), Phases: phases, Fixed: stepCost + fixed, BoundFlag: boundFlags[method]}
}

// bound gives each of the step's phases the bound d on its command line,
// spelt as the command's users spell it: whole seconds for iperf3's -t.
func (s Step) bound(d time.Duration) Step {
	s.Bound, s.Args = d, append(s.Args, s.BoundFlag, s.boundValue(d))
	return s
}

// boundValue spells the bound d as the step's command takes it: whole
// seconds for iperf3's -t (the protocol carries seconds), at least one.
func (s Step) boundValue(d time.Duration) string {
	if s.Method == result.MethodNetClient {
		return strconv.Itoa(max(1, int(d/time.Second)))
	}
	return d.String()
}

// moves records that each of the step's phases moves data bytes at
// most, at rate bytes a second: without a bound, or with a longer one,
// the data ends the phase as planned.
func (s Step) moves(data int64, rate Rate) Step {
	s.data, s.rate = data, rate
	return s
}

// byDefault records d, the bound the step's command gives each phase when
// its command line names none.
func (s Step) byDefault(d time.Duration) Step {
	s.Bound = d
	return s
}

// sweep is the dd loop over block sizes from lo to hi, doubling, on files
// of file bytes: each size a write and a read phase.
func sweep(dir string, lo, hi, file int64) Step {
	sizes := bits.Len64(uint64(hi / lo))
	return step("sweep "+dir, result.MethodSweep, []string{"disk", "sweep", dir, "--bs", units.BlockLabel(lo) + "-" + units.BlockLabel(hi), "--file-size", units.BlockLabel(file)}, 2*sizes, 0)
}

// fio is the full plan's fio job, rw (write or read) at queue depth 64 on
// 4 GiB, repeated 4 times: a phase each, which one pass over the file
// bounds (-t 0), at rate bytes a second. A read lays out its file first.
func fio(rw, dir string, rate Rate) Step {
	const size, repeat = 4 << 30, 4
	var fixed time.Duration
	if rw == "read" {
		fixed = layout(size, rate)
	}
	return step("io "+rw+" "+dir, result.MethodIO, []string{"disk", "io", dir, "--rw", rw, "--bs", "4k", "--iodepth", "64", "--size", units.BlockLabel(size), "--repeat", strconv.Itoa(repeat)}, repeat, fixed).moves(size, rate)
}

// layout is the time size bytes take to lay out, or to move in a phase,
// at rate, or at prepRate when rate does not hold for that size.
func layout(size int64, rate Rate) time.Duration {
	perSec := float64(prepRate)
	if rate.PerSec > 0 && size <= rate.Size {
		perSec = rate.PerSec
	}
	return time.Duration(float64(size) / perSec * float64(time.Second))
}

// direct is disk random's --direct for a directory on a device: the
// quick suite's 128 MiB set fits in any free memory, and buffered it
// would time the page cache. A tmpfs or ramfs is memory itself, and
// refuses O_DIRECT.
func direct(dir string) []string {
	var st unix.Statfs_t
	// Compared as uint32: Statfs_t.Type is an int32 on 32-bit ARM, where
	// RAMFS_MAGIC (0x858458f6) does not fit.
	if err := unix.Statfs(dir, &st); err == nil && (uint32(st.Type) == unix.TMPFS_MAGIC || uint32(st.Type) == unix.RAMFS_MAGIC) {
		return nil
	}
	return []string{"--direct"}
}
