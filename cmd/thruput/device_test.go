package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result/resulttest"
)

// TestCardHistory: the frozen sweep, as runs of card A in a Pi 4's slot,
// then card B in its place under the same mount path, then card A again
// in a Pi 5. The history lists one card's runs by its id or a prefix;
// compare sets the two cards side by side by id, and a label query that
// takes both cards' runs gives a column per card, never their mean.
func TestCardHistory(t *testing.T) {
	const cardA, cardB = "sd:03-5344-sr64g-1a2b3c4d-2018-08", "sd:03-5344-sr64g-5e6f7a8b-2019-01"
	frozen := resulttest.Frozen(t)["disk.sweep.json"]
	var lines []string
	for i, run := range []struct{ host, card string }{{"pi4", cardA}, {"pi4", cardA}, {"pi4", cardB}, {"pi4", cardB}, {"pi5", cardA}} {
		d := *frozen
		d.Targets = append(d.Targets[:0:0], d.Targets...)
		d.Targets[0].Path, d.Targets[0].DeviceID = "/media/card", run.card
		d.StartedAt = time.Date(2026, 11, 1+i, 6, 0, 0, 0, time.UTC)
		d.EndedAt = d.StartedAt.Add(time.Minute)
		d.ID = fmt.Sprintf("202611%02dT060000Z-card%02d", 1+i, i)
		d.Host.Hostname = run.host
		d.Labels = map[string]string{"slot": "sd"}
		d.Previous = nil
		b, err := json.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	jsonl := filepath.Join(t.TempDir(), "cards.jsonl")
	if err := os.WriteFile(jsonl, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "results.db")
	if o := thruput(t, "results", "import", "--db", db, jsonl); o.code != 0 {
		t.Fatalf("import: exit %d %s", o.code, o.stderr)
	}
	for _, c := range []struct {
		device string
		want   string
	}{
		{cardA, "card04 card01 card00"},
		{"SD:03-5344-SR64G-5E6F", "card03 card02"},
		{"sd:03-5344", "card04 card03 card02 card01 card00"},
		{"mac:", ""},
	} {
		var got []string
		for _, e := range listed(t, db, "--device", c.device) {
			got = append(got, e.ID[len(e.ID)-6:])
			if len(e.DeviceIDs) != 1 || !strings.HasPrefix(e.DeviceIDs[0], strings.ToLower(c.device)) {
				t.Errorf("--device %s listed %s of %v", c.device, e.ID, e.DeviceIDs)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("results list --device %s: %v, want %s", c.device, got, c.want)
		}
	}
	if o := thruput(t, "results", "list", "--db", db, "--device", cardB); o.code != 0 || !strings.Contains(o.stdout, "DEVICE") || !strings.Contains(o.stdout, cardB) {
		t.Errorf("the list's table names no device: exit %d\n%s", o.code, o.stdout)
	}

	columns := func(args ...string) []string {
		t.Helper()
		o := thruput(t, append([]string{"compare", "--db", db, "--json"}, args...)...)
		var c struct {
			Columns []struct {
				Name string
				Runs []string
			}
		}
		if o.code != 0 || json.Unmarshal([]byte(o.stdout), &c) != nil {
			t.Fatalf("compare %v: exit %d %s", args, o.code, o.stderr)
		}
		var out []string
		for _, col := range c.Columns {
			out = append(out, fmt.Sprintf("%s: %d runs", col.Name, len(col.Runs)))
		}
		return out
	}
	if got, want := strings.Join(columns("device_id="+cardA, "device_id="+cardB), "; "), "device_id="+cardA+": 3 runs; device_id="+cardB+": 2 runs"; got != want {
		t.Errorf("compare by id: %s, want %s", got, want)
	}
	if got, want := strings.Join(columns("device_id="+cardA+",slot=sd", "--host", "pi4"), "; "), "device_id="+cardA+",slot=sd: 2 runs"; got != want {
		t.Errorf("compare by id on one host: %s, want %s", got, want)
	}
	// The same slot and path held two cards: two columns, not one mean.
	if got, want := strings.Join(columns("slot=sd", "--host", "pi4"), "; "), "slot=sd "+cardA+": 2 runs; slot=sd "+cardB+": 2 runs"; got != want {
		t.Errorf("compare of a swapped card's slot: %s, want %s", got, want)
	}

	for _, args := range [][]string{
		{"results", "list", "--db", db, "--device", "card-a"},
		{"results", "list", "--db", db, "--device", "sd:03 5344"},
		{"results", "export", "--db", db, "--device", "x"},
		{"compare", "--db", db, "device_id=sd:03%"},
	} {
		o := thruput(t, args...)
		if o.code != 2 || !strings.Contains(o.stderr, "device id") || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("thruput %v: exit %d, stderr %q; want exit 2 and one line about the device id", args, o.code, o.stderr)
		}
	}
}
