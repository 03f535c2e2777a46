package main

import (
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/suite"
)

// TestSuiteStepsParse checks every command line the suite builds, quick
// and full, against the real commands' flags: the full method runs for an
// hour, so a misspelt flag in it would otherwise show only on a user's
// machine.
func TestSuiteStepsParse(t *testing.T) {
	for _, o := range []suite.Options{{}, {Full: true}, {UntilStable: 1}, {Full: true, Budget: 2 * time.Hour}} {
		full := o.Full
		o.Disks, o.Net, o.HTTP = []string{"/mnt/usb", "/media/sd"}, "pi4:5201", "http://pi4:8080/"
		steps, err := suite.Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 2*3 + 2 + 1, true: 2*5 + 4 + 1}[full]
		if len(steps) != want {
			t.Errorf("full=%v: %d steps, want %d", full, len(steps), want)
		}
		for _, s := range steps {
			root := newRoot(&app{argv: []string{"thruput"}})
			cmd, rest, err := root.Find(s.Args)
			if err != nil || cmd == root {
				t.Errorf("%s: %v finds no command: %v", s.Name, s.Args, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: %v: %v", s.Name, s.Args, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: %v: %v", s.Name, s.Args, err)
			}
		}
	}
	// The capped run is one stream at 40 Mbit/s, not ten at 40 each.
	steps, _ := suite.Plan(suite.Options{Net: "pi4", Full: true})
	for _, s := range steps {
		if strings.HasPrefix(s.Name, "net capped") && strings.Contains(strings.Join(s.Args, " "), "-P 10") {
			t.Errorf("%s: %v", s.Name, s.Args)
		}
		if s.Name == "net down pi4" && !strings.Contains(strings.Join(s.Args, " "), "-R") {
			t.Errorf("%s: %v has no -R", s.Name, s.Args)
		}
	}
}
