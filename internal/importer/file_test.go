package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// TestEachFile reads a real fio output and an export of its runs from
// files, as results import does, and refuses a cut-short export.
func TestEachFile(t *testing.T) {
	fstest.Long(t, "imports large exports")
	dir := t.TempDir()
	fio := filepath.Join(dir, "fio.json")
	if err := os.WriteFile(fio, fioOutput(t), 0o644); err != nil {
		t.Fatal(err)
	}
	var docs []*result.Document
	out, err := EachFile(fio, func(d *result.Document) error { docs = append(docs, d); return nil })
	if err != nil || out.Tool != FIO || len(docs) == 0 {
		t.Fatalf("EachFile(fio): %q, %d docs, %v", out.Tool, len(docs), err)
	}
	var export bytes.Buffer
	enc := json.NewEncoder(&export)
	for i := 0; i < 50; i++ {
		for _, d := range docs {
			c := *d
			c.ID = strings.Replace(d.ID, "-", "-"+string(rune('a'+i%26))+string(rune('a'+i/26)), 1)
			if err := enc.Encode(&c); err != nil {
				t.Fatal(err)
			}
		}
	}
	jsonl := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(jsonl, export.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	out, err = EachFile(jsonl, func(d *result.Document) error { n++; return nil })
	if err != nil || out.Tool != Thruput || n != 50*len(docs) {
		t.Fatalf("EachFile(export): %q, %d docs, %v; want %d", out.Tool, n, err, 50*len(docs))
	}
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, export.Bytes()[:export.Len()-40], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := EachFile(cut, func(*result.Document) error { return nil }); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("a cut-short export: %v, want truncated", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := EachFile(empty, func(*result.Document) error { return nil }); err == nil {
		t.Error("an empty file was accepted")
	}
}
