package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/nettest"
)

// rateUnit is a rate with its unit, or a unit alone heading a column.
var rateUnit = regexp.MustCompile(`(?:\d+(?:\.\d+)? )?\b(MiB/s|MB/s|Mbit/s)`)

// linkName is a link named by its speed, which no unit changes.
var linkName = regexp.MustCompile(`(?:Ethernet|PHY rate) $`)

// strayUnit is the first rate of page, or column headed by a unit, in a
// unit other than want (or also, the second unit a page prints beside
// it), with what comes before it; "" when there is none. Mbit/s, the unit
// links are sold in, is let through where a link's ceiling is given
// ("40.1 MiB/s, 336 Mbit/s"), beside a figure ("2.3 MiB/s (19.3
// Mbit/s)", --units both) and in a link's name ("Ethernet 1000 Mbit/s").
func strayUnit(page, want, also string) string {
	for _, m := range rateUnit.FindAllStringSubmatchIndex(page, -1) {
		unit := page[m[2]:m[3]]
		if unit == want || unit == also {
			continue
		}
		before := page[max(0, m[0]-20):m[0]]
		if unit == "Mbit/s" && (strings.HasSuffix(before, want+", ") || strings.HasSuffix(before, want+" (") || linkName.MatchString(before)) {
			continue
		}
		return page[max(0, m[0]-80):m[1]]
	}
	return ""
}

// TestUnitsHonoured runs each storage command with each --units and each
// page format: a page prints every rate, verdicts included, in the unit
// asked for (MiB/s with its Mbit/s beside it in sentences for both);
// --units was once ignored by disk sweep, disk random, disk mark's
// verdicts and markdown reports, and mbit and both refused by every
// storage command.
func TestUnitsHonoured(t *testing.T) {
	fstest.Long(t, "runs every storage method sixteen times")
	dir := t.TempDir()
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
				want := map[string]string{"mib": "MiB/s", "mb": "MB/s", "mbit": "Mbit/s", "both": "MiB/s"}[u]
				inUnit(t, args, want, "")
			}
		}
	}
}

// TestNetUnits runs net client against net server, both with each
// --units and page format, and net http against http-serve: each page
// prints every rate in the unit asked for, Mbit/s by default for a
// network test, MiB/s beside Mbit/s for a download. The three once
// refused mib and mb, and net http mbit too.
func TestNetUnits(t *testing.T) {
	fstest.Long(t, "runs ten network tests and five downloads")
	url, _ := startServe(t, "8M")
	for _, u := range []string{"", "mib", "mb", "mbit", "both"} {
		want, also := map[string]string{"mib": "MiB/s", "mb": "MB/s"}[u], ""
		if want == "" {
			want = "Mbit/s"
		}
		if u == "both" {
			also = "MiB/s"
		}
		unit := []string{"--units", u}
		if u == "" {
			unit = nil
		}
		for _, f := range []string{"table", "markdown"} {
			p := nettest.FreePort(t)
			port := strconv.Itoa(p)
			srv := startBackground(t, exec.Command(thruputBin, append([]string{"net", "server", "--once", "-B", "127.0.0.1", "-p", port,
				"--format", f, "-q", "--no-save", "--no-health"}, unit...)...))
			waitListening(t, p)
			// Paced, so that it can run beside tests that measure.
			client := append([]string{"net", "client", "127.0.0.1", "-p", port, "-t", "1", "-b", "100M", "--no-latency",
				"--format", f, "-q", "--no-save", "--no-health"}, unit...)
			o := thruput(t, client...)
			code := srv.wait(t)
			for side, page := range map[string]string{"client": o.stdout, "server": srv.stdout.String()} {
				name := side + " " + strings.Join(client[4:], " ")
				switch {
				case o.code != 0 || code != 0:
					t.Errorf("%s: exit %d, server %d: %s%s", name, o.code, code, o.stderr, srv.stderr.String())
				case !strings.Contains(page, want):
					t.Errorf("%s: no figure in %s:\n%s", name, want, page)
				default:
					if stray := strayUnit(page, want, also); stray != "" {
						t.Errorf("%s: a figure in another unit than %s: %q", name, want, stray)
					}
				}
			}
		}
		want, also = map[string]string{"mib": "MiB/s", "mb": "MB/s", "mbit": "Mbit/s"}[u], ""
		if want == "" {
			want, also = "MiB/s", "Mbit/s"
		}
		for _, f := range []string{"table", "markdown"} {
			args := append([]string{"net", "http", url, "--format", f, "-q", "--no-save", "--no-health"}, unit...)
			inUnit(t, args, want, also)
		}
	}
}

// TestNetListUnits imports two real iperf3 runs and lists and compares
// them with each --units: their rates follow mib and mb, as a network
// test's page does, and stay in Mbit/s by default and with mbit or both.
// Both once stayed in Mbit/s whatever --units named.
func TestNetListUnits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	corpus := filepath.Join("..", "..", "internal", "importer", "testdata", "real")
	for label, name := range map[string]string{"run=one": "iperf3-3.14-tcp-macos.json", "run=two": "iperf3-3.12-tcp-parallel.json"} {
		if o := thruput(t, "results", "import", "--db", db, "--label", label, filepath.Join(corpus, name)); o.code != 0 {
			t.Fatalf("import %s: exit %d %s", name, o.code, o.stderr)
		}
	}
	for _, u := range []string{"", "mib", "mb", "mbit", "both"} {
		want := map[string]string{"mib": "MiB/s", "mb": "MB/s"}[u]
		if want == "" {
			want = "Mbit/s"
		}
		for _, args := range [][]string{{"results", "list"}, {"compare", "run=one", "run=two"}} {
			args = append(args, "--db", db)
			if u != "" {
				args = append(args, "--units", u)
			}
			inUnit(t, args, want, "")
		}
	}
}

// inUnit runs thruput with args and checks it printed its figures in unit
// want and none in another (also: a second unit the page may add).
func inUnit(t *testing.T, args []string, want, also string) {
	t.Helper()
	o := thruput(t, args...)
	name := strings.Join(args, " ")
	switch {
	case o.code != 0:
		t.Errorf("%s: exit %d %s", name, o.code, o.stderr)
	case !strings.Contains(o.stdout, want):
		t.Errorf("%s: no figure in %s:\n%s", name, want, o.stdout)
	default:
		if stray := strayUnit(o.stdout, want, also); stray != "" {
			t.Errorf("%s: a figure in another unit than %s: %q", name, want, stray)
		}
	}
}
