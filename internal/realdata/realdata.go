// Package realdata finds, for tests, the real tool outputs and board
// captures the project keeps beside its repository in ../shared/data:
// files other people made on their own machines and committed to public
// repositories, each named with its source in the folder's SOURCES.md or
// README.md. The folder is not part of the repository: a test that reads
// it skips where it is absent, except under CI (CI=true), which has it and
// where a skip would test nothing. ModuleRoot serves the tests that read
// files of the repository from another package's directory.
package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir is ../shared/data/NAME beside the module's root.
func Dir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(ModuleRoot(t)), "shared", "data", name)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v: CI has ../shared/data beside the clone, and a test of real data must not be skipped there", dir, err)
		}
		t.Skipf("no %s beside the repository (../shared/data): %v", dir, err)
	}
	return dir
}

// ModuleRoot is the directory of go.mod, found upwards from the test's
// working directory (its package's directory); not from a source file's
// path, which a -trimpath build (make test-arm) leaves relative.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root
		}
		if filepath.Dir(root) == root {
			t.Fatal("no go.mod above the test's directory")
		}
		root = filepath.Dir(root)
	}
}

// Files lists the regular files below dir, in name order, leaving out the
// folder's SOURCES.md and README.md.
func Files(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() != "SOURCES.md" && d.Name() != "README.md" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s: %v", dir, err)
	}
	return files
}
