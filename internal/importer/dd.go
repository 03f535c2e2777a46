package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// dd's summary line, by flavour. Each gives the exact byte count and
// seconds; the rate after them is rounded for people and not used.
var (
	// GNU coreutils: "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 1.94133 s,
	// 553 MB/s" (before 8.24 without the GiB); busybox: "1073741824 bytes
	// (1.0GB) copied, 9.654585 seconds, 106.1MB/s".
	ddSummary = pattern.Lazy(`(\d+) bytes (?:\([^)]*\) )?copied, ([0-9]+(?:\.[0-9]+)?(?:e[-+]?\d+)?) s(?:econds)?, `)
	// BSD and macOS: "25165824 bytes transferred in 0.026832 secs
	// (937899773 bytes/sec)".
	ddBSD     = pattern.Lazy(`(\d+) bytes transferred in ([0-9]+(?:\.[0-9]+)?) secs \(\d+ bytes/sec\)`)
	ddRecords = pattern.Lazy(`(\d+)\+(\d+) records out`)
	ddCommand = pattern.Lazy(`(?:^|[\s;|&("'` + "`" + `$])dd\s+(.*)$`)
	// ddHeading finds the direction a log's own words give its runs
	// ("Running DD READ test...", "write test"); "reads" and "written"
	// are left out, as hdparm's "Timing buffered disk reads" is no dd run.
	ddHeading = pattern.Lazy(`(?i)\b(read|reading|write|writing)\b`)
	// ddHeadingTopic is what makes a line naming a direction a heading of
	// a measurement, and not apt's "Reading package lists...".
	ddHeadingTopic = pattern.Lazy(`(?i)\b(dd|tests?|testing|speed|bench|benchmark|throughput|performance)\b`)
	// ddNoRun is dd refusing its command: no summary follows, and the
	// command is no run's.
	ddNoRun = pattern.Lazy(`^dd: (failed to open|invalid|unrecognized operand|missing)`)
)

// ddNote is the note every run read from a dd transcript carries.
const ddNote = "read from a dd transcript: bytes and seconds are dd's own summary lines; whether the page cache or an fsync was in them is what the echoed command says, nothing more"

// importDD converts a transcript of dd runs, typically a loop over block
// sizes, into one block-size sweep: a step per summary line, with the
// block size, direction and target from the dd command echoed before it
// when the transcript holds one.
//
// Several dd commands in a row with no summary between them are a script
// or a loop printed before its output: the summaries after them are its
// runs in turn, round and round. Where no command says the direction
// (none echoed, or one writing to standard output), the log's own
// headings do ("Running DD READ test..."); where nothing does, the step's
// phase is "unknown", never a guess.
func importDD(data []byte, file string) ([]*result.Document, error) {
	d := newDoc(DD, "", file, result.MethodSweep, time.Time{})
	d.Imported.Note = ddNote
	sw := &result.Sweep{}
	var script ddScript
	heading := ""
	var ops int64 = -1
	targets := map[string]int{}
	seen := map[int64]bool{}
	var bad error
	add := func(n int, l string, m []string, cmd ddArgs, heading string, ops int64) {
		bytes, err1 := strconv.ParseInt(m[1], 10, 64)
		secs, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil || !finite(secs) || secs < 0 || secs > maxSeconds {
			bad = fmt.Errorf("dd transcript: line %d: %q is not a byte count and a time", n, clip(l))
			return
		}
		phase := cmd.phase()
		if phase == "" {
			phase = heading
		}
		path := cmd.of
		switch phase {
		case result.PhaseRead:
			path = cmd.in
		case "":
			phase, path = result.PhaseUnknown, ""
		}
		ti, ok := targets[path]
		if !ok {
			ti = len(d.Targets)
			targets[path] = ti
			d.Targets = append(d.Targets, result.Target{Path: path})
		}
		st := result.SweepStep{Target: ti, Phase: phase, BlockSize: cmd.bs, Bytes: bytes, ElapsedNs: int64(math.Round(secs * 1e9))}
		st.MiBPerSec = result.MiBPerSec(st.Bytes, st.ElapsedNs)
		if ops >= 0 {
			st.Ops = ops
		}
		if cmd.bs > 0 && !seen[cmd.bs] {
			seen[cmd.bs] = true
			sw.Parameters.BlockSizes = append(sw.Parameters.BlockSizes, cmd.bs)
		}
		sw.Parameters.Write = sw.Parameters.Write || phase == result.PhaseWrite
		sw.Parameters.Read = sw.Parameters.Read || phase == result.PhaseRead
		sw.Parameters.Direct = sw.Parameters.Direct || cmd.direct
		if cmd.data != "" {
			sw.Parameters.Data = cmd.data
		}
		sw.Steps = append(sw.Steps, st)
	}
	// A summary line before its run's "records out" is the last line of
	// GNU dd's status=progress, which has the summary's form: it waits
	// here, and the "records out" that follows drops it. A summary alone
	// (a transcript cut down to those lines) is a step of its own. The
	// script's turn passes only when a step is made.
	type held struct {
		n       int
		l       string
		m       []string
		cmd     ddArgs
		heading string
	}
	var wait held
	step := func(h held, ops int64) {
		add(h.n, h.l, h.m, h.cmd, h.heading, ops)
		script.next()
	}
	flush := func() {
		if wait.m != nil && bad == nil {
			step(wait, -1)
		}
		wait = held{}
	}
	eachLine(data, func(n int, l string) {
		if bad != nil {
			return
		}
		if m := ddCommand().FindStringSubmatch(l); m != nil && strings.Contains(m[1], "=") {
			flush()
			script.command(parseDDArgs(m[1]), n)
			ops = -1
			return
		}
		if m := ddRecords().FindStringSubmatch(l); m != nil {
			wait = held{}
			full, _ := strconv.ParseInt(m[1], 10, 64)
			part, _ := strconv.ParseInt(m[2], 10, 64)
			ops = full + part
			return
		}
		m := ddSummary().FindStringSubmatch(l)
		if m == nil {
			m = ddBSD().FindStringSubmatch(l)
		}
		if m == nil {
			if ddNoRun().MatchString(strings.TrimSpace(l)) {
				script.refused()
			} else if words := ddHeading().FindAllStringSubmatch(l, -1); words != nil && ddHeadingTopic().MatchString(l) {
				heading = headingPhase(words)
			}
			return
		}
		flush()
		h := held{n: n, l: l, m: m, cmd: script.current(), heading: heading}
		if ops >= 0 {
			step(h, ops)
		} else {
			wait = h
		}
		ops = -1
	})
	flush()
	if bad != nil {
		return nil, bad
	}
	if len(sw.Steps) == 0 {
		return nil, fmt.Errorf("dd transcript: no dd summary line (\"N bytes ... copied, S s, R MB/s\")")
	}
	d.Sweep = sw
	docs := []*result.Document{d}
	identify(docs, data)
	return docs, nil
}

// headingPhase is the direction a line's words name, "" when they name
// both ("read/write test") or neither.
func headingPhase(words [][]string) string {
	phase := ""
	for _, w := range words {
		p := result.PhaseWrite
		if strings.HasPrefix(strings.ToLower(w[1]), "read") {
			p = result.PhaseRead
		}
		if phase != "" && p != phase {
			return ""
		}
		phase = p
	}
	return phase
}

// ddScript is the dd commands a transcript printed since its last run:
// one echoed before its run, or several, a script or loop printed before
// the output it made, whose runs take them in turn.
type ddScript struct {
	cmds []ddArgs
	turn int
	// ran is true once a run took the current commands: the next command
	// starts a new list.
	ran bool
	// line is where the last command was printed.
	line int
}

// scriptGap is the most lines between two commands of one script (a
// `sync`, a cache drop and an `echo` between its dd lines); commands
// further apart are one typed after another (an example, then the run).
const scriptGap = 4

// command adds a command printed on line n; the same one printed twice in
// a row (a script's `echo "dd ..."` before its `dd ...`) counts once.
func (s *ddScript) command(a ddArgs, n int) {
	if s.ran || n-s.line > scriptGap {
		s.cmds, s.turn, s.ran = nil, 0, false
	}
	s.line = n
	if n := len(s.cmds); n > 0 && s.cmds[n-1] == a {
		return
	}
	s.cmds = append(s.cmds, a)
}

// current is the command of the next run, the zero ddArgs when none was
// printed.
func (s *ddScript) current() ddArgs {
	if len(s.cmds) == 0 {
		return ddArgs{}
	}
	return s.cmds[s.turn%len(s.cmds)]
}

// next passes the turn after a run.
func (s *ddScript) next() {
	s.turn++
	s.ran = true
}

// refused drops the last command, which dd refused before running it.
func (s *ddScript) refused() {
	if !s.ran && len(s.cmds) > 0 {
		s.cmds = s.cmds[:len(s.cmds)-1]
	}
}

// ddArgs is what the echoed dd command says about the run after it.
type ddArgs struct {
	in, of, data string
	bs           int64
	direct       bool
	// toVariable: the output is a shell variable or placeholder
	// (`of=$out`), which may be /dev/null or a file.
	toVariable bool
}

// phase is the direction the command names: of=/dev/null reads, another
// output writes, and so does /dev/zero or /dev/urandom into a variable;
// an input file with no output reads. "" when it names none (no
// command, dd writing to a pipe, a file copied to a variable).
func (a ddArgs) phase() string {
	switch {
	case a.of == "/dev/null":
		return result.PhaseRead
	case a.of != "", a.toVariable && a.data != "":
		return result.PhaseWrite
	case a.in != "" && a.data == "" && !a.toVariable:
		return result.PhaseRead
	}
	return ""
}

func parseDDArgs(s string) ddArgs {
	var a ddArgs
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		// A script's `echo "dd ... of=/dev/null"` quotes its last word.
		v = strings.Trim(v, `"'`)
		if !ok || strings.ContainsAny(v, "$[`") {
			// A shell variable or a placeholder: not what dd was given.
			a.toVariable = a.toVariable || (ok && k == "of")
			continue
		}
		switch k {
		case "if":
			a.in = v
			switch v {
			case "/dev/zero":
				a.data = "zero"
			case "/dev/urandom", "/dev/random":
				a.data = "random"
			}
		case "of":
			a.of = v
		case "bs", "obs":
			if n, ok := ddSize(v); ok {
				a.bs = n
			}
		case "oflag", "iflag":
			a.direct = a.direct || strings.Contains(v, "direct")
		}
	}
	return a
}

// ddSize reads a size as GNU, busybox and BSD dd do: K, M, G (and BSD's
// k, m, g) are powers of 1024, KB, MB, GB powers of 1000, b is 512 and
// w 2 bytes; an unexpanded "$bs" is no size.
func ddSize(v string) (int64, bool) {
	n, suffix, ok := leadingInt(v)
	if !ok {
		return 0, false
	}
	mult := int64(1)
	switch strings.ToLower(suffix) {
	case "", "c":
	case "w":
		mult = 2
	case "b":
		mult = 512
	case "k", "kib":
		mult = 1 << 10
	case "m", "mib":
		mult = 1 << 20
	case "g", "gib":
		mult = 1 << 30
	case "kb":
		mult = 1e3
	case "mb":
		mult = 1e6
	case "gb":
		mult = 1e9
	default:
		return 0, false
	}
	if n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}
