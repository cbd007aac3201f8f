package introspect

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// engineBranchAllowed are where code may still test which engine it runs
// on, each with why: the dialects themselves, the per-engine inspectors,
// the shared inspector suite's per-engine expectations, and the lookup of
// a mapping's postgres:/mysql: block by the engine's name.
var engineBranchAllowed = []struct{ path, fn, why string }{
	{"internal/domain/introspect/dialect.go", "", "the dialects"},
	{"internal/domain/introspect/dialect_", "", "the dialects"},
	{"internal/domain/introspect/postgres/", "", "PostgreSQL's inspector"},
	{"internal/domain/introspect/mysql/", "", "MySQL's inspector"},
	{"internal/domain/introspect/introspecttest/", "", "the inspectors' shared test suite: what each engine reports"},
	{"internal/domain/mapping/engine.go", "engineBlock", "selects the mapping's postgres: or mysql: block by engine name"},
}

// engineType matches the names of the per-engine concrete types (pgSource,
// mySource, pgReader, ...), which engine-neutral code must not assert.
var engineType = regexp.MustCompile(`^(pg|my)[A-Z]\w*$`)

// TestNoEngineBranches walks the module's non-test Go files and fails on
// an engine branch outside engineBranchAllowed: a comparison with
// introspect.Postgres or introspect.MySQL (string(...) of one too), a case
// naming one, or a type assertion or type switch on a per-engine concrete
// type. Shared code asks the engine's Dialect instead.
func TestNoEngineBranches(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		branches, err := engineBranches(path)
		if err != nil {
			return err
		}
		for _, b := range branches {
			if !branchAllowed(filepath.ToSlash(rel), b.fn) {
				found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), b.line, b.what))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("engine branches outside the dialects (ask introspect.Engine.Dialect() instead):\n%s", strings.Join(found, "\n"))
	}
}

func branchAllowed(rel, fn string) bool {
	for _, a := range engineBranchAllowed {
		if strings.HasPrefix(rel, a.path) && (a.fn == "" || a.fn == fn) {
			return true
		}
	}
	return false
}

// engineBranch is one branch engineBranches finds: its line, the function
// it is in and what it is.
type engineBranch struct {
	line int
	fn   string
	what string
}

// engineBranches parses the Go file at path and lists its engine branches.
func engineBranches(path string) ([]engineBranch, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	inIntrospect := f.Name.Name == "introspect"
	// isEngine reports whether e names an engine constant.
	isEngine := func(e ast.Expr) bool {
		if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "string" {
				e = c.Args[0]
			}
		}
		switch x := e.(type) {
		case *ast.SelectorExpr:
			pkg, ok := x.X.(*ast.Ident)
			return ok && pkg.Name == "introspect" && (x.Sel.Name == "Postgres" || x.Sel.Name == "MySQL")
		case *ast.Ident:
			return inIntrospect && (x.Name == "Postgres" || x.Name == "MySQL")
		}
		return false
	}
	isEngineType := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		return ok && engineType.MatchString(id.Name)
	}
	var out []engineBranch
	add := func(n ast.Node, fn, what string) {
		out = append(out, engineBranch{line: fset.Position(n.Pos()).Line, fn: fn, what: what})
	}
	for _, decl := range f.Decls {
		fn := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if (x.Op == token.EQL || x.Op == token.NEQ) && (isEngine(x.X) || isEngine(x.Y)) {
					add(x, fn, "a comparison with an engine")
				}
			case *ast.SwitchStmt:
				for _, s := range x.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if isEngine(e) {
							add(e, fn, "a case of an engine")
						}
					}
				}
			case *ast.TypeSwitchStmt:
				for _, s := range x.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if isEngineType(e) {
							add(e, fn, "a type switch on a per-engine type")
						}
					}
				}
			case *ast.TypeAssertExpr:
				if x.Type != nil && isEngineType(x.Type) {
					add(x, fn, "a type assertion to a per-engine type")
				}
			}
			return true
		})
	}
	return out, nil
}

// moduleRoot is the directory of the module's go.mod, above the test's.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
