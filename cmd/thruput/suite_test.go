package main

import (
	"strings"
	"testing"
)

// TestSuiteStepsParse checks every command line the suite builds, quick
// and full, against the real commands' flags: the full method runs for an
// hour, so a misspelt flag in it would otherwise show only on a user's
// machine.
func TestSuiteStepsParse(t *testing.T) {
	f := suiteFlags{disks: []string{"/mnt/usb", "/media/sd"}}
	for _, full := range []bool{false, true} {
		steps := suiteSteps(f, full, "pi4:5201", "http://pi4:8080/")
		want := map[bool]int{false: 2*3 + 2 + 1, true: 2*5 + 4 + 1}[full]
		if len(steps) != want {
			t.Errorf("full=%v: %d steps, want %d", full, len(steps), want)
		}
		for _, s := range steps {
			root := newRoot(&app{argv: []string{"thruput"}})
			cmd, rest, err := root.Find(s.args)
			if err != nil || cmd == root {
				t.Errorf("%s: %v finds no command: %v", s.name, s.args, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: %v: %v", s.name, s.args, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: %v: %v", s.name, s.args, err)
			}
		}
	}
	// The capped run is one stream at 40 Mbit/s, not ten at 40 each.
	for _, s := range suiteSteps(suiteFlags{}, true, "pi4", "") {
		if strings.HasPrefix(s.name, "net capped") && strings.Contains(strings.Join(s.args, " "), "-P 10") {
			t.Errorf("%s: %v", s.name, s.args)
		}
		if s.name == "net down pi4" && !strings.Contains(strings.Join(s.args, " "), "-R") {
			t.Errorf("%s: %v has no -R", s.name, s.args)
		}
	}
}
