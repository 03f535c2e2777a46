package result

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// shapes are the types docs/result-json.md describes once, under "Shared
// shapes", wherever they appear.
var shapes = map[reflect.Type]bool{
	reflect.TypeFor[Latency](): true, reflect.TypeFor[Spread](): true, reflect.TypeFor[DeviceShare](): true,
	// A thread spread is a spread whose min and max may be absent.
	reflect.TypeFor[ThreadSpread](): true,
	reflect.TypeFor[Interval]():     true, reflect.TypeFor[Cliff](): true,
}

// field is a JSON field a result document can hold, by its path:
// `sweep.steps[].interval` (a slice's elements written `[]`). A field of a
// shared shape is rooted at the shape instead: scope "shapes", path
// `interval.converged`.
type field struct {
	scope, path, leaf string
}

// docFields are the JSON fields a result document can hold: every tag
// reachable from Document, through pointers, slices, arrays, map values
// and embedded structs, down to the types that write themselves
// (time.Time, json.RawMessage).
func docFields() []field {
	var out []field
	marshaler := reflect.TypeFor[json.Marshaler]()
	text := reflect.TypeFor[encoding.TextMarshaler]()
	shapeSeen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, scope, path string, stack map[reflect.Type]bool)
	walk = func(t reflect.Type, scope, path string, stack map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
				path += "[]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || stack[t] || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
			t.Implements(text) || reflect.PointerTo(t).Implements(text) {
			return
		}
		if shapes[t] && scope != "shapes" {
			if shapeSeen[t] {
				return
			}
			shapeSeen[t] = true
			scope, path = "shapes", path[strings.LastIndex(path, ".")+1:]
		}
		stack[t] = true
		defer delete(stack, t)
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			switch {
			case name == "-" || !f.IsExported():
				continue
			case name == "" && f.Anonymous:
				walk(f.Type, scope, path, stack)
				continue
			case name == "":
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			sc := scope
			if sc == "" {
				sc = name
			}
			out = append(out, field{scope: sc, path: p, leaf: name})
			walk(f.Type, sc, p, stack)
		}
	}
	walk(reflect.TypeFor[Document](), "", "", map[reflect.Type]bool{})
	return out
}

// docReference is the part of docs/result-json.md that describes the
// result document: from its envelope to the CSV outputs, which name
// columns, not fields.
func docReference(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/result-json.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end := strings.Index(doc, "\n## Envelope\n"), strings.Index(doc, "\n## CSV\n")
	if start < 0 || end < start {
		t.Fatalf("docs/result-json.md has no '## Envelope' ... '## CSV' span")
	}
	return doc[start:end]
}

var (
	// backticked is a name or a path in backticks: `bytes_per_sec`,
	// `hops[]`, `sweep.steps[].device`.
	backticked = regexp.MustCompile("`" + `([a-z][a-z0-9_]*(?:\[\])?(?:\.[a-z][a-z0-9_]*(?:\[\])?)*)` + "`")
	// tableRow is a row of a field table, its first cell apart.
	tableRow = regexp.MustCompile(`(?m)^\| ([^|]*) \|`)
)

// names are the field names of a backticked path: `io.runs[].read` names
// io, runs and read.
func names(path string) []string {
	return strings.Split(strings.ReplaceAll(path, "[]", ""), ".")
}

// sections splits the reference at its headings, each keyed by the first
// name its heading puts in backticks (`sweep`, `targets[]` is "targets"):
// "" for the envelope, "shapes" for the shared shapes.
func sections(t *testing.T, ref string) map[string]string {
	t.Helper()
	out := map[string]string{}
	heading := regexp.MustCompile(`(?m)^#{2,3} (.*)$`)
	idx := heading.FindAllStringSubmatchIndex(ref, -1)
	for i, m := range idx {
		end := len(ref)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		title, key := ref[m[2]:m[3]], ""
		switch {
		case title == "Shared shapes":
			key = "shapes"
		case title == "Envelope":
		default:
			b := backticked.FindStringSubmatch(title)
			if b == nil {
				t.Fatalf("docs/result-json.md: heading %q names no field", title)
			}
			key = names(b[1])[0]
		}
		out[key] += ref[m[0]:end]
	}
	return out
}

// TestDocumentedFields holds docs/result-json.md to the struct tags, path
// by path: every JSON field a result document can hold is named in the
// section of its top-level field (`sweep`, `system`, the envelope for
// those it describes in a row), or written out as a path
// (`net.parameters.interface`), and the fields of the shared shapes
// (interval, latency ...) under "Shared shapes"; so a name documented in
// one section does not document a field of the same name in another. And
// every field a table names exists in the section it is named in.
func TestDocumentedFields(t *testing.T) {
	fields := docFields()
	ref := docReference(t)
	secs := sections(t, ref)
	namedIn := map[string]map[string]bool{}
	for key, text := range secs {
		namedIn[key] = map[string]bool{}
		for _, m := range backticked.FindAllStringSubmatch(text, -1) {
			for _, name := range names(m[1]) {
				namedIn[key][name] = true
			}
		}
	}
	paths := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(ref, -1) {
		paths[m[1]] = true
	}
	var missing []string
	for _, f := range fields {
		key := f.scope
		if _, ok := secs[key]; !ok || f.path == f.leaf && key != "shapes" {
			key = "" // described in the envelope's table
		}
		if !namedIn[key][f.leaf] && !paths[f.path] {
			missing = append(missing, fmt.Sprintf("%s (section %q)", f.path, key))
		}
	}
	sort.Strings(missing)
	for _, where := range slices.Compact(missing) {
		t.Errorf("%s is not in docs/result-json.md", where)
	}
	under := map[string]map[string]bool{}
	for _, f := range fields {
		key := f.scope
		if f.path == f.leaf && key != "shapes" {
			key = ""
		}
		if under[key] == nil {
			under[key] = map[string]bool{}
		}
		under[key][f.leaf] = true
	}
	tabled := 0
	for key, text := range secs {
		for _, row := range tableRow.FindAllStringSubmatch(text, -1) {
			if row[1] == "field" || strings.HasPrefix(row[1], "---") {
				continue
			}
			for _, m := range backticked.FindAllStringSubmatch(row[1], -1) {
				for _, name := range names(m[1]) {
					tabled++
					if !under[key][name] {
						t.Errorf("docs/result-json.md documents `%s` in section %q, which holds no such field", name, key)
					}
				}
			}
		}
	}
	if tabled < 100 {
		t.Fatalf("read %d field names from the tables of docs/result-json.md; its layout changed", tabled)
	}
}
