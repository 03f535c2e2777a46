package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// needTool skips a test when a tool is missing, and fails it under CI,
// where scripts/setup has installed it.
func needTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (scripts/setup installs it)", name)
		}
		t.Skipf("%s not installed", name)
	}
}

// generate runs the schedule generator under sh over the shipped
// /etc/default/thruput with lines appended, into a fresh directory, and
// returns the drop-in it wrote ("" for none) and its stderr.
func generate(t testing.TB, lines ...string) (dir, dropIn, stderr string) {
	t.Helper()
	def, err := os.ReadFile("debian/default")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "default")
	if err := os.WriteFile(file, append(def, strings.Join(lines, "\n")+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(tmp, "generator")
	cmd := exec.Command("sh", "generator/thruput-suite-generator", dir, dir+".early", dir+".late")
	cmd.Env = append(os.Environ(), "THRUPUT_DEFAULTS="+file)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if out, err := cmd.Output(); err != nil || len(out) > 0 {
		t.Fatalf("generator: %v\n%s%s", err, out, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "thruput-suite.timer.d", "schedule.conf"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return dir, string(b), errb.String()
}

// FuzzGenerator: whatever THRUPUT_SCHEDULE holds, the generator ends,
// exits 0 and writes nothing but the timer's section, OnCalendar lines
// systemd-analyze reads and a delay: no line of the file's reaches the
// drop-in as a setting of its own.
func FuzzGenerator(f *testing.F) {
	needTool(f, "systemd-analyze")
	for _, s := range []string{"05:00 13:00 21:00", "Mon..Fri 05:00; Sat 12:00", `"quoted"`, "'x' ; ;", "05:00\nExecStart=/bin/sh", "[Service]", "*-*-* *:*:*", "\x00", "日本 05:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		_, dropIn, _ := generate(t, "THRUPUT_SCHEDULE="+value, "THRUPUT_SCHEDULE_DELAY="+value)
		for _, l := range settings(dropIn) {
			v, ok := strings.CutPrefix(l, "OnCalendar=")
			switch {
			case l == "[Timer]" || ok && v == "":
			case ok:
				if out, err := exec.Command("systemd-analyze", "calendar", v).CombinedOutput(); err != nil {
					t.Errorf("THRUPUT_SCHEDULE=%q: OnCalendar=%q: %v\n%s", value, v, err, out)
				}
			case strings.HasPrefix(l, "RandomizedDelaySec="):
			default:
				t.Errorf("THRUPUT_SCHEDULE=%q: the drop-in says %q", value, l)
			}
		}
	})
}

// settings are a drop-in's lines that set something, comments left out.
func settings(dropIn string) []string {
	var s []string
	for _, l := range strings.Split(dropIn, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			s = append(s, l)
		}
	}
	return s
}

// TestGenerator: THRUPUT_SCHEDULE in /etc/default/thruput becomes the
// timer's OnCalendar lines, each a calendar expression systemd-analyze
// reads, and the timer with the drop-in passes systemd-analyze verify;
// the shipped file, an empty schedule and one of nothing but bad
// expressions leave the timer's daily run, a bad expression or delay is
// named and left out.
func TestGenerator(t *testing.T) {
	needTool(t, "systemd-analyze")
	for _, tc := range []struct {
		lines []string
		want  []string
		warn  string
	}{
		{nil, nil, ""},
		{[]string{`THRUPUT_SCHEDULE=""`}, nil, ""},
		{[]string{`THRUPUT_SCHEDULE="05:00 13:00  21:00"`}, []string{"[Timer]", "OnCalendar=", "OnCalendar=05:00", "OnCalendar=13:00", "OnCalendar=21:00"}, ""},
		{[]string{`THRUPUT_SCHEDULE='Mon..Fri 05:00; Sat,Sun 12:00 '`, "THRUPUT_SCHEDULE_DELAY=0"},
			[]string{"[Timer]", "OnCalendar=", "OnCalendar=Mon..Fri 05:00", "OnCalendar=Sat,Sun 12:00", "RandomizedDelaySec=0"}, ""},
		{[]string{"THRUPUT_SCHEDULE=hourly; 25:00;*-*-* 21:30"}, []string{"[Timer]", "OnCalendar=", "OnCalendar=hourly", "OnCalendar=*-*-* 21:30"}, `"25:00" is not a calendar expression`},
		{[]string{"THRUPUT_SCHEDULE=bogus"}, nil, `"bogus" is not a calendar expression`},
		{[]string{"THRUPUT_SCHEDULE=05:00", "THRUPUT_SCHEDULE_DELAY=soon"}, []string{"[Timer]", "OnCalendar=", "OnCalendar=05:00"}, `"soon" is not a time span`},
	} {
		dir, dropIn, stderr := generate(t, tc.lines...)
		if got := settings(dropIn); !slices.Equal(got, tc.want) {
			t.Errorf("%q: drop-in\n%s\nwant %q", tc.lines, dropIn, tc.want)
		}
		if tc.warn == "" && stderr != "" || !strings.Contains(stderr, tc.warn) {
			t.Errorf("%q: stderr %q, want %q", tc.lines, stderr, tc.warn)
		}
		for _, l := range settings(dropIn) {
			if v, ok := strings.CutPrefix(l, "OnCalendar="); ok && v != "" {
				if out, err := exec.Command("systemd-analyze", "calendar", v).CombinedOutput(); err != nil {
					t.Errorf("systemd-analyze calendar %q: %v\n%s", v, err, out)
				}
			}
		}
		if dropIn == "" {
			continue
		}
		// The timer and its service beside the drop-in, as systemd finds
		// them: verify reads the drop-in and names any line it ignores.
		units, _ := filepath.Glob("systemd/thruput-suite.*")
		for _, u := range units {
			b, err := os.ReadFile(u)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(u)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		verify := exec.Command("systemd-analyze", "verify", "--man=no", filepath.Join(dir, "thruput-suite.timer"))
		verify.Env = append(os.Environ(), "SYSTEMD_UNIT_PATH="+dir+":")
		out, err := verify.CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			// verify loads the machine's other units too: only ours count.
			if strings.Contains(l, "thruput") {
				t.Errorf("%q: systemd-analyze verify: %s", tc.lines, l)
			}
		}
		if err != nil {
			t.Errorf("%q: systemd-analyze verify: %v\n%s", tc.lines, err, out)
		}
	}
}
