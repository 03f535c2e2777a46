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
// again: every field must come back with its name and value, so that a
// JSON field renamed, dropped or given another type in the Go definition
// fails here ("a field once published keeps its name and meaning; new
// fields may appear"). The set covers every method, a run with its health
// and an imported run.
func TestFrozenDocuments(t *testing.T) {
	methods := map[Method]bool{}
	var health, imported bool
	eachFrozen(t, func(f string, in []byte, d *Document) {
		// The file is named for its method, after any prefix.
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !strings.HasSuffix(name, string(d.Method)) {
			t.Errorf("%s holds a %s run", f, d.Method)
		}
		methods[d.Method] = true
		health = health || d.Health != nil
		imported = imported || d.Imported != nil
		var out bytes.Buffer
		if err := d.Write(&out); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if lost := lostFields(t, in, out.Bytes()); len(lost) > 0 {
			t.Errorf("%s lost fields when read and written again:\n%s", f, strings.Join(lost, "\n"))
		}
	})
	for _, m := range []Method{MethodSweep, MethodRandom, MethodIO, MethodMark, MethodCheck, MethodNetClient, MethodNetServer, MethodHTTP} {
		if !methods[m] {
			t.Errorf("no frozen %s document in %s", m, frozenDir)
		}
	}
	if !health || !imported {
		t.Errorf("the frozen documents hold a health section: %v, an imported run: %v; want both", health, imported)
	}
}

// lostFields lists the paths (the first ten) where now, the document
// written again, no longer holds what was, the frozen file, held: a key
// gone or a value changed. Keys only now has are new fields, which may
// appear.
func lostFields(t *testing.T, was, now []byte) []string {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(was, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(now, &y); err != nil {
		t.Fatal(err)
	}
	var lost []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		if len(lost) >= 10 {
			return
		}
		switch xv := x.(type) {
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok {
				lost = append(lost, path+": not an object now")
				return
			}
			for k, v := range xv {
				if _, ok := yv[k]; !ok {
					lost = append(lost, path+"."+k+": gone")
					continue
				}
				walk(path+"."+k, v, yv[k])
			}
		case []any:
			yv, ok := y.([]any)
			if !ok || len(yv) != len(xv) {
				lost = append(lost, path+": another array now")
				return
			}
			for i := range xv {
				walk(path+"[]", xv[i], yv[i])
			}
		default:
			if !reflect.DeepEqual(x, y) {
				lost = append(lost, path+": was "+string(mustJSON(x))+", now "+string(mustJSON(y)))
			}
		}
	}
	walk("document", x, y)
	return lost
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// eachFrozen calls fn with each frozen document: its file, its bytes and
// the document read from them. One that does not read fails the test.
func eachFrozen(t *testing.T, fn func(file string, in []byte, d *Document)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(frozenDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no frozen documents in %s: %v", frozenDir, err)
	}
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
		fn(f, in, d)
	}
}

// TestBriefInBits: a method's Brief writes its rates in Mbit/s exactly
// when BriefInBits says so, which is how a stored headline is converted
// to the unit a page asks for.
func TestBriefInBits(t *testing.T) {
	eachFrozen(t, func(f string, _ []byte, d *Document) {
		s := d.Section()
		if s == nil {
			return
		}
		brief := s.Brief(d.Targets)
		if bits, mib := strings.Contains(brief, "Mbit/s"), strings.Contains(brief, "MiB/s"); bits != d.Method.BriefInBits() || mib == bits {
			t.Errorf("%s: %s's Brief %q, BriefInBits %v", f, d.Method, brief, d.Method.BriefInBits())
		}
	})
}
