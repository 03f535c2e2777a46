package pattern

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestLazy(t *testing.T) {
	re := Lazy(`^mmc[0-9]+$`)
	if a, b := re(), re(); a != b || !a.MatchString("mmc0") || a.MatchString("mmcblk0") {
		t.Errorf("two calls gave %p and %p; mmc0 %v, mmcblk0 %v", a, b, a.MatchString("mmc0"), a.MatchString("mmcblk0"))
	}
	bad := Lazy(`(`) // made without a panic: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at its first use")
		}
	}()
	bad()
}

// TestNoPatternsAtStart: no package of the binary compiles a regular
// expression into a package variable or in an init function, which every
// start would pay for (Lazy's reason); tests may.
func TestNoPatternsAtStart(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
			case *ast.FuncDecl:
				if d.Name.Name != "init" || d.Recv != nil {
					continue
				}
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at start
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
						t.Errorf("%s: a pattern compiled at start: pattern.Lazy compiles it at first use", fset.Position(call.Pos()))
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
