package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// fn is one function's measure.
type fn struct {
	pos        string // file:line
	name       string
	lines, cyc int
}

func main() {
	top := flag.Int("top", 15, "how many functions each list shows")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	fns, engines, err := measure(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
	print(fns, engines, *top)
}

// measure walks the non-test Go files under root.
func measure(root string) ([]fn, map[string][]string, error) {
	var fns []fn
	engines := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fns = append(fns, functions(fset, f, filepath.ToSlash(rel))...)
		for _, e := range fileEngines(f) {
			engines[e] = append(engines[e], filepath.ToSlash(rel))
		}
		return nil
	})
	return fns, engines, err
}

// functions measures the file's functions and methods.
func functions(fset *token.FileSet, f *ast.File, rel string) []fn {
	var out []fn
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			name = "(" + recvType(fd.Recv.List[0].Type) + ")." + name
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, fn{pos: rel + ":" + strconv.Itoa(start.Line), name: name, lines: end.Line - start.Line + 1, cyc: complexity(fd.Body)})
	}
	return out
}

func recvType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvType(x.X)
	}
	return "?"
}

// complexity is 1 + the branches in body (function literals included).
func complexity(body ast.Node) int {
	n := 1
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil { // default adds none
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

var (
	postgresName = regexp.MustCompile(`^pg[A-Z]`)
	mysqlName    = regexp.MustCompile(`^my[A-Z]`)
	drivers      = map[string]string{
		"github.com/jackc/pgx/v5": "postgres", "github.com/jackc/pglogrepl": "postgres", "github.com/jackc/pgx/v5/pgconn": "postgres",
		"github.com/go-sql-driver/mysql": "mysql", "github.com/go-mysql-org/go-mysql/replication": "mysql", "github.com/go-mysql-org/go-mysql/mysql": "mysql",
	}
)

// fileEngines are the engines whose code the file holds: it declares an
// identifier of the engine's (pgSource, myStream) or imports its driver.
func fileEngines(f *ast.File) []string {
	set := map[string]bool{}
	for _, im := range f.Imports {
		if e := drivers[strings.Trim(im.Path.Value, `"`)]; e != "" {
			set[e] = true
		}
	}
	for _, d := range f.Decls {
		for _, name := range declNames(d) {
			switch {
			case postgresName.MatchString(name):
				set["postgres"] = true
			case mysqlName.MatchString(name):
				set["mysql"] = true
			}
		}
	}
	var out []string
	for e := range set {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// declNames are the names a declaration declares (a method by its
// receiver's type).
func declNames(d ast.Decl) []string {
	switch x := d.(type) {
	case *ast.FuncDecl:
		if x.Recv != nil && len(x.Recv.List) > 0 {
			return []string{strings.TrimPrefix(recvType(x.Recv.List[0].Type), "*")}
		}
		return []string{x.Name.Name}
	case *ast.GenDecl:
		var out []string
		for _, s := range x.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					out = append(out, n.Name)
				}
			}
		}
		return out
	}
	return nil
}

func print(fns []fn, engines map[string][]string, top int) {
	over := func(limit int) int {
		n := 0
		for _, f := range fns {
			if f.lines > limit {
				n++
			}
		}
		return n
	}
	fmt.Printf("%d functions; %d over 100 lines, %d over 60\n\n", len(fns), over(100), over(60))
	list := func(title string, less func(a, b fn) bool) {
		sort.Slice(fns, func(i, j int) bool { return less(fns[i], fns[j]) })
		fmt.Println(title)
		for _, f := range fns[:min(top, len(fns))] {
			fmt.Printf("  %4d lines  %3d branches  %s  %s\n", f.lines, f.cyc, f.name, f.pos)
		}
		fmt.Println()
	}
	list("longest functions:", func(a, b fn) bool { return a.lines > b.lines || a.lines == b.lines && a.pos < b.pos })
	list("most branching functions (cyclomatic complexity):", func(a, b fn) bool { return a.cyc > b.cyc || a.cyc == b.cyc && a.pos < b.pos })
	names := make([]string, 0, len(engines))
	for e := range engines {
		names = append(names, e)
	}
	sort.Strings(names)
	fmt.Println("files holding one engine's code (what a third engine would touch):")
	for _, e := range names {
		dirs := map[string]int{}
		for _, f := range engines[e] {
			dirs[filepath.Dir(f)]++
		}
		var ds []string
		for d, n := range dirs {
			ds = append(ds, fmt.Sprintf("%s (%d)", d, n))
		}
		sort.Strings(ds)
		fmt.Printf("  %-8s %3d files in %d folders: %s\n", e, len(engines[e]), len(dirs), strings.Join(ds, ", "))
	}
}
