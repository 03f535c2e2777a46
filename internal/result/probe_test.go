package result

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestProbeDocumented holds the probe's section of docs/result-json.md to
// Probe's JSON fields: each one in the table, and the table naming no
// other.
func TestProbeDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/result-json.md")
	if err != nil {
		t.Fatal(err)
	}
	const heading = "\n## `thruput disk check --probe ... --json`\n"
	_, sec, ok := strings.Cut(string(b), heading)
	if !ok {
		t.Fatalf("docs/result-json.md has no heading %q", strings.TrimSpace(heading))
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var fields []string
	typ := reflect.TypeFor[Probe]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	var tabled []string
	for _, row := range tableRow.FindAllStringSubmatch(sec, -1) {
		for _, m := range backticked.FindAllStringSubmatch(row[1], -1) {
			tabled = append(tabled, m[1])
		}
	}
	for _, f := range fields {
		if !slices.Contains(tabled, f) {
			t.Errorf("%s is not in the probe's table in docs/result-json.md", f)
		}
	}
	for _, f := range tabled {
		if !slices.Contains(fields, f) {
			t.Errorf("docs/result-json.md's probe table names %s, which Probe has no field for", f)
		}
	}
}
