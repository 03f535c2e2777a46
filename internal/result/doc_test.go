package result

import (
	"encoding"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// docFields are the JSON field names a result document can hold: every
// tag reachable from Document, through pointers, slices, arrays, map
// values and embedded structs, down to the types that write themselves
// (time.Time, json.RawMessage). Each name maps to where it was met.
func docFields() map[string]string {
	fields := map[string]string{}
	seen := map[reflect.Type]bool{}
	marshaler := reflect.TypeFor[json.Marshaler]()
	text := reflect.TypeFor[encoding.TextMarshaler]()
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
			t.Implements(text) || reflect.PointerTo(t).Implements(text) {
			return
		}
		seen[t] = true
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			switch {
			case name == "-" || !f.IsExported():
				continue
			case name == "" && f.Anonymous:
				walk(f.Type, path)
				continue
			case name == "":
				name = f.Name
			}
			if _, ok := fields[name]; !ok {
				fields[name] = path + "." + name
			}
			walk(f.Type, path+"."+name)
		}
	}
	walk(reflect.TypeFor[Document](), "document")
	return fields
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

// TestDocumentedFields holds docs/result-json.md to the struct tags: every
// JSON field a result document can hold is named there (in a table or in
// the text), and every field a table names exists.
func TestDocumentedFields(t *testing.T) {
	fields := docFields()
	ref := docReference(t)
	named := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(ref, -1) {
		for _, name := range names(m[1]) {
			named[name] = true
		}
	}
	var missing []string
	for name, where := range fields {
		if !named[name] {
			missing = append(missing, where)
		}
	}
	sort.Strings(missing)
	for _, where := range missing {
		t.Errorf("%s is not in docs/result-json.md", where)
	}
	var tabled []string
	for _, row := range tableRow.FindAllStringSubmatch(ref, -1) {
		if row[1] == "field" || strings.HasPrefix(row[1], "---") {
			continue
		}
		for _, m := range backticked.FindAllStringSubmatch(row[1], -1) {
			tabled = append(tabled, names(m[1])...)
		}
	}
	if len(tabled) < 100 {
		t.Fatalf("read %d field names from the tables of docs/result-json.md; its layout changed", len(tabled))
	}
	for _, name := range slices.Compact(slices.Sorted(slices.Values(tabled))) {
		if _, ok := fields[name]; !ok {
			t.Errorf("docs/result-json.md documents `%s`, which no result document holds", name)
		}
	}
}
