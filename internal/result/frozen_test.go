package result

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// frozenDir holds a document of every method as thruput wrote it
// (testdata/frozen/README.md says how each was made).
const frozenDir = "testdata/frozen"

// TestFrozenDocuments reads back every frozen document and writes it
// again: the bytes must be the same, so that a JSON field renamed, dropped
// or given another type in the Go definition fails here ("a field once
// published keeps its name"). The set covers every method, a run with its
// health and an imported run.
func TestFrozenDocuments(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(frozenDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no frozen documents in %s: %v", frozenDir, err)
	}
	methods := map[Method]bool{}
	var health, imported bool
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Read(bytes.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		// The file is named for its method, after any prefix.
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !strings.HasSuffix(name, d.Method) {
			t.Errorf("%s holds a %s run", f, d.Method)
		}
		methods[d.Method] = true
		health = health || d.Health != nil
		imported = imported || d.Imported != nil
		var out bytes.Buffer
		if err := d.Write(&out); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Errorf("%s changed when read and written again:\n%s", f, jsonDiff(t, in, out.Bytes()))
		}
	}
	for _, m := range []Method{MethodSweep, MethodRandom, MethodIO, MethodMark, MethodNetClient, MethodNetServer, MethodHTTP} {
		if !methods[m] {
			t.Errorf("no frozen %s document in %s", m, frozenDir)
		}
	}
	if !health || !imported {
		t.Errorf("the frozen documents hold a health section: %v, an imported run: %v; want both", health, imported)
	}
}

// jsonDiff names the first paths where two JSON documents differ.
func jsonDiff(t *testing.T, a, b []byte) string {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		if len(diffs) >= 10 {
			return
		}
		switch xv := x.(type) {
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok {
				diffs = append(diffs, path+": not an object now")
				return
			}
			for k, v := range xv {
				if _, ok := yv[k]; !ok {
					diffs = append(diffs, path+"."+k+": lost")
					continue
				}
				walk(path+"."+k, v, yv[k])
			}
			for k := range yv {
				if _, ok := xv[k]; !ok {
					diffs = append(diffs, path+"."+k+": new")
				}
			}
		case []any:
			yv, ok := y.([]any)
			if !ok || len(yv) != len(xv) {
				diffs = append(diffs, path+": another array now")
				return
			}
			for i := range xv {
				walk(path+"[]", xv[i], yv[i])
			}
		default:
			if !reflect.DeepEqual(x, y) {
				diffs = append(diffs, path+": was "+string(mustJSON(x))+", now "+string(mustJSON(y)))
			}
		}
	}
	walk("document", x, y)
	if len(diffs) == 0 {
		return "the same fields and values, in another layout"
	}
	return strings.Join(diffs, "\n")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
