package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

// TestUnitsHonoured runs each storage command with each --units and each
// page format: a page prints every rate in the unit asked for (MiB/s
// with its Mbit/s beside it in sentences for both); --units was once
// ignored by disk sweep, disk random and markdown reports, and mbit and
// both refused by every storage command.
func TestUnitsHonoured(t *testing.T) {
	fstest.Long(t, "runs every storage method sixteen times")
	dir := t.TempDir()
	figure := regexp.MustCompile(`\d (MiB/s|MB/s|Mbit/s)`)
	for _, cmd := range [][]string{
		{"disk", "sweep", dir, "--bs", "4k,64k", "--file-size", "1M"},
		// Runs of a fifth of a second: the units of the page are checked,
		// not its figures (mark's -t is each of its eight tests).
		{"disk", "random", dir, "--size", "4M", "-t", "0.2", "--bs", "16k"},
		{"disk", "io", dir, "--size", "4M", "-t", "0.2", "--bs", "4k"},
		{"disk", "mark", dir, "--size", "4M", "-t", "0.2"},
	} {
		for _, u := range []string{"mib", "mb", "mbit", "both"} {
			for _, f := range []string{"table", "markdown"} {
				args := append(append([]string{}, cmd...), "--units", u, "--format", f, "-q", "--no-save")
				o := thruput(t, args...)
				name := strings.Join(args, " ")
				want := map[string]string{"mib": "MiB/s", "mb": "MB/s", "mbit": "Mbit/s", "both": "MiB/s"}[u]
				switch {
				case o.code != 0:
					t.Errorf("%s: exit %d %s", name, o.code, o.stderr)
				default:
					// Link ceilings are in Mbit/s besides, the unit links
					// are sold in; every storage figure is in the one unit.
					for _, m := range figure.FindAllStringSubmatch(o.stdout, -1) {
						if m[1] != want && m[1] != "Mbit/s" {
							t.Errorf("%s: a figure in %s:\n%s", name, m[1], o.stdout)
							break
						}
					}
					if !strings.Contains(o.stdout, want) {
						t.Errorf("%s: no figure in %s:\n%s", name, want, o.stdout)
					}
				}
			}
		}
	}
}
