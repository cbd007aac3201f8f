package introspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// engineBranchAllowed are where code may still test which engine it runs
// on, each with why: a file, or the files under a prefix ending in /, _ or
// a name's first letters (pg, my), and optionally the functions fn matches
// (path.Match: a method is Type.Method, so "pg*.*" is every method of a
// PostgreSQL type). An entry that no longer matches a branch fails the test
// too: the list says what is true now.
var engineBranchAllowed = []struct{ path, fn, why string }{
	{"introspect/dialect.go", "", "the registry: Engine.Dialect maps each engine to its dialect, Engines lists them"},
	{"introspect/dialect_", "", "the dialects: each says what its engine is"},
	{"introspect/postgres/", "", "PostgreSQL's inspector"},
	{"introspect/mysql/", "", "MySQL's inspector"},
	{"introspect/introspecttest/", "", "the inspectors' shared test suite: what each engine reports"},
	{"mapping/parse/engine.go", "engineBlock", "selects the mapping's postgres: or mysql: block by engine name"},
	{"mapping/parse/file.go", "", "the mapping file's format has a postgres: and a mysql: block (entities, access patterns): their YAML keys"},
	{"internal/domain/source/postgres/", "", "PostgreSQL's source: its Driver (which DSNs are its own, their identity), reader, snapshots, change stream and write-back"},
	{"internal/domain/source/mysql/", "", "MySQL's source: its Driver, reader, snapshots, change stream (MariaDB told from MySQL by its version) and write-back"},
	{"internal/domain/source/sourcetest/", "", "the sources' shared test support: the shared suite's table and writer in each engine's SQL"},
	{"cmd/remodel-bench/engine", "", "the bench's registry of its engines (engine.go) and each engine's part (engine_<engine>.go)"},
	{"cmd/remodel-bench/read.go", "mysqlConfig", "the bench's raw read parses a MySQL DSN in both its forms"},
	{"examples/internal/sqlscript/", "", "writes the examples' SQL scripts for the engine its -engine flag names"},
	{"internal/testsupport/testenv/testenv.go", "MySQLConfig", "reads a mysql:// test DSN"},
	{"internal/testsupport/shopwork/shopwork.go", "Timestamp", "the shop workload's timestamp type on each engine"},
	{"internal/tools/shape/", "", "scripts/shape.sh counts the files of each engine"},
	{"internal/testsupport/schemas/schemas.go", "Personalization", "the mapping tests' hand-built schema is the seeds' PostgreSQL database"},
}

// engineType matches the names of the per-engine concrete types (pgSource,
// mySource, pgReader, ...), which engine-neutral code must not assert.
var engineType = regexp.MustCompile(`^(pg|my)[A-Z]\w*$`)

// engineName reports whether a string constant names an engine: its name
// ("postgres", "postgresql", "mysql", "mariadb") or a DSN scheme of one
// ("postgres://", "mysql:"). Other spellings are other things' names
// (NoSQL Workbench's "MySql").
func engineName(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "//"), ":")
	switch s {
	case "postgres", "postgresql", "mysql", "mariadb":
		return true
	}
	return false
}

// prefixTests are the functions of package strings that test a string by
// a constant part of it: strings.HasPrefix(dsn, "mysql://") is a
// DSN-scheme branch.
var prefixTests = map[string]bool{"HasPrefix": true, "CutPrefix": true, "TrimPrefix": true, "EqualFold": true, "HasSuffix": true, "Contains": true}

// TestNoEngineBranches type-checks the module's packages (their non-test
// files, from source; what they import, from the build's export data) and
// fails on an engine branch outside engineBranchAllowed. A branch is:
//   - any use of the constants introspect.Postgres or introspect.MySQL,
//     however the package is imported (an alias, a dot import);
//   - a string constant that names an engine (engineName: "postgres",
//     "mysql", "mariadb", a DSN scheme such as "mysql://") compared with
//     == or !=, as a switch case, as a map key, or given to a prefix test
//     of package strings (a DSN-scheme switch);
//   - a type assertion or type switch on a per-engine concrete type.
//
// Shared code asks the engine's Dialect instead. The test logs every
// branch it finds in the allowed places, for scripts/shape.sh.
func TestNoEngineBranches(t *testing.T) {
	t0 := time.Now()
	pkgs := modulePackages(t)
	t1 := time.Now()
	found := checkPackages(t, pkgs)
	t.Logf("go list -export %.1fs, type-checking %.1fs", t1.Sub(t0).Seconds(), time.Since(t1).Seconds())
	var bad []string
	used := make([]int, len(engineBranchAllowed))
	for _, b := range found {
		if i := branchAllowed(b.file, b.fn); i >= 0 {
			used[i]++
			continue
		}
		bad = append(bad, b.String())
	}
	for i, a := range engineBranchAllowed {
		t.Logf("allowed: %3d branches in %s%s (%s)", used[i], a.path, fnSuffix(a.fn), a.why)
		if used[i] == 0 {
			bad = append(bad, fmt.Sprintf("engineBranchAllowed: %s%s matches no branch: remove it", a.path, fnSuffix(a.fn)))
		}
	}
	t.Logf("%d packages checked, %d engine branches, %d outside the allowed places", countMine(t, pkgs), len(found), len(bad))
	if len(bad) > 0 {
		t.Errorf("engine branches outside the dialects (ask introspect.Engine.Dialect() instead, or allow the place with a reason):\n%s", strings.Join(bad, "\n"))
	}
}

func fnSuffix(fn string) string {
	if fn == "" {
		return ""
	}
	return " " + fn
}

// branchAllowed is the index of the entry that allows a branch in file
// (relative to the module root) and function fn, or -1.
func branchAllowed(file, fn string) int {
	for i, a := range engineBranchAllowed {
		if !strings.HasPrefix(file, a.path) {
			continue
		}
		if ok, _ := path.Match(a.fn, fn); a.fn == "" || ok {
			return i
		}
	}
	return -1
}

// countMine counts the module's own packages among pkgs.
func countMine(t *testing.T, pkgs []listedPackage) int {
	root := moduleRoot(t)
	n := 0
	for _, p := range pkgs {
		if mine(p, root) {
			n++
		}
	}
	return n
}

// mine reports whether p is a package of the module at root.
func mine(p listedPackage, root string) bool {
	return !p.Standard && p.Module != nil && p.Module.Dir == root
}

// engineBranch is one branch the test finds: where, the function it is in
// and what it is.
type engineBranch struct {
	file string // relative to the module root
	line int
	fn   string
	what string
}

func (b engineBranch) String() string { return fmt.Sprintf("%s:%d: %s", b.file, b.line, b.what) }

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Standard   bool
	Module     *struct{ Path, Dir string }
}

// modulePackages lists the module's packages and their dependencies with
// their export data (go list -export builds what the cache lacks).
func modulePackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,Export,GoFiles,Standard,Module", "./...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// checkPackages type-checks each package of the module and returns the
// engine branches of all of them, sorted by place.
func checkPackages(t *testing.T, pkgs []listedPackage) []engineBranch {
	t.Helper()
	root := moduleRoot(t)
	export := map[string]string{}
	var own []listedPackage
	for _, p := range pkgs {
		export[p.ImportPath] = p.Export
		if mine(p, root) {
			own = append(own, p)
		}
	}
	var (
		mu    sync.Mutex
		found []engineBranch
		errs  []string
		wg    sync.WaitGroup
	)
	next := make(chan listedPackage)
	for range 4 {
		wg.Go(func() {
			// One importer per goroutine: an importer is not safe for
			// concurrent use.
			fset := token.NewFileSet()
			imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
				f := export[path]
				if f == "" {
					return nil, fmt.Errorf("no export data for %s", path)
				}
				return os.Open(f)
			})
			for p := range next {
				bs, err := packageBranches(fset, imp, root, p)
				mu.Lock()
				found = append(found, bs...)
				if err != nil {
					errs = append(errs, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range own {
		next <- p
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("type-checking the module:\n%s", strings.Join(errs, "\n"))
	}
	// In order of place; of the branches of one line the first found, the
	// outermost (a comparison before the constant compared).
	slices.SortStableFunc(found, func(a, b engineBranch) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return slices.CompactFunc(found, func(a, b engineBranch) bool { return a.file == b.file && a.line == b.line })
}

// packageBranches parses and type-checks the non-test files of p and lists
// their engine branches.
func packageBranches(fset *token.FileSet, imp types.Importer, root string, p listedPackage) ([]engineBranch, error) {
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ImportPath, err)
	}
	var out []engineBranch
	for _, f := range files {
		rel, err := filepath.Rel(root, fset.Position(f.Pos()).Filename)
		if err != nil {
			return nil, err
		}
		out = append(out, fileBranches(fset, info, filepath.ToSlash(rel), f)...)
	}
	return out, nil
}

// branchFinder walks one type-checked file.
type branchFinder struct {
	fset *token.FileSet
	info *types.Info
	file string
	fn   string
	out  []engineBranch
}

func fileBranches(fset *token.FileSet, info *types.Info, rel string, f *ast.File) []engineBranch {
	b := &branchFinder{fset: fset, info: info, file: rel}
	for _, decl := range f.Decls {
		b.fn = funcName(decl)
		ast.Inspect(decl, b.visit)
	}
	return b.out
}

// funcName is the name of a function declaration, Type.Method for a
// method; "" for other declarations.
func funcName(decl ast.Decl) string {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		return ""
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func (b *branchFinder) add(n ast.Node, what string) {
	b.out = append(b.out, engineBranch{file: b.file, line: b.fset.Position(n.Pos()).Line, fn: b.fn, what: what})
}

func (b *branchFinder) visit(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.Ident:
		if isEngineConst(b.info.Uses[x]) {
			b.add(x, "a use of introspect."+x.Name)
		}
	case *ast.BinaryExpr:
		if (x.Op == token.EQL || x.Op == token.NEQ) && (b.namesEngine(x.X) || b.namesEngine(x.Y)) {
			b.add(x, "a comparison with an engine's name")
		}
	case *ast.CaseClause:
		for _, e := range x.List {
			if b.namesEngine(e) {
				b.add(e, "a case of an engine's name")
			}
		}
	case *ast.CompositeLit:
		b.mapKeys(x)
	case *ast.IndexExpr:
		if b.isMap(x.X) && b.namesEngine(x.Index) {
			b.add(x, "a map indexed by an engine's name")
		}
	case *ast.CallExpr:
		b.prefixTest(x)
	case *ast.TypeSwitchStmt:
		for _, s := range x.Body.List {
			for _, e := range s.(*ast.CaseClause).List {
				if b.isEngineType(e) {
					b.add(e, "a type switch on a per-engine type")
				}
			}
		}
	case *ast.TypeAssertExpr:
		if x.Type != nil && b.isEngineType(x.Type) {
			b.add(x, "a type assertion to a per-engine type")
		}
	}
	return true
}

// isEngineConst reports whether obj is introspect.Postgres or
// introspect.MySQL.
func isEngineConst(obj types.Object) bool {
	c, ok := obj.(*types.Const)
	return ok && c.Pkg() != nil && c.Pkg().Path() == "github.com/remodel-dev/remodel/introspect" && (c.Name() == "Postgres" || c.Name() == "MySQL")
}

// namesEngine reports whether e is a string constant naming an engine
// (a literal, a named constant, string(introspect.MySQL), ...).
func (b *branchFinder) namesEngine(e ast.Expr) bool {
	tv, ok := b.info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.String && engineName(constant.StringVal(tv.Value))
}

func (b *branchFinder) isMap(e ast.Expr) bool {
	tv, ok := b.info.Types[e]
	if !ok {
		return false
	}
	_, isMap := tv.Type.Underlying().(*types.Map)
	return isMap
}

// mapKeys finds the keys naming an engine of a map literal.
func (b *branchFinder) mapKeys(x *ast.CompositeLit) {
	if !b.isMap(x) {
		return
	}
	for _, el := range x.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok && b.namesEngine(kv.Key) {
			b.add(kv.Key, "a map keyed by an engine's name")
		}
	}
}

// prefixTest finds strings.HasPrefix(s, "mysql://") and its kin.
func (b *branchFinder) prefixTest(x *ast.CallExpr) {
	sel, ok := x.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	fn, ok := b.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "strings" || !prefixTests[fn.Name()] {
		return
	}
	for _, a := range x.Args {
		if b.namesEngine(a) {
			b.add(x, "strings."+fn.Name()+" of an engine's name or DSN scheme")
			return
		}
	}
}

// isEngineType reports whether e denotes a per-engine concrete type (or a
// pointer to one) of the module.
func (b *branchFinder) isEngineType(e ast.Expr) bool {
	tv, ok := b.info.Types[e]
	if !ok || !tv.IsType() {
		return false
	}
	t := tv.Type
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && strings.HasPrefix(n.Obj().Pkg().Path(), "github.com/remodel-dev/remodel/") && engineType.MatchString(n.Obj().Name())
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
