// Package resulttest gives the tests of the packages that render results
// the frozen documents internal/result keeps (testdata/frozen, whose
// README says how each was made), as thruput wrote them.
package resulttest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/thruput/thruput/internal/realdata"
	"github.com/thruput/thruput/internal/result"
)

// Frozen reads every frozen document, by file name.
func Frozen(t testing.TB) map[string]*result.Document {
	t.Helper()
	// Found from the module's root, so that any package's test reads the
	// same.
	root := realdata.ModuleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "internal", "result", "testdata", "frozen", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no frozen documents: %v", err)
	}
	docs := map[string]*result.Document{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := result.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		docs[filepath.Base(f)] = d
	}
	return docs
}
