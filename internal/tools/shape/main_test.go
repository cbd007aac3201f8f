package main

import (
	"go/parser"
	"go/token"
	"testing"
)

// TestMeasure: a function's lines and branches, and the engines of a file,
// on code written for the purpose.
func TestMeasure(t *testing.T) {
	const src = `package p

import "github.com/jackc/pgx/v5"

type pgThing struct{ c *pgx.Conn }

func (p *pgThing) f(a, b bool, xs []int) int {
	n := 0
	if a && b {
		n++
	}
	for _, x := range xs {
		switch {
		case x > 1:
			n++
		case x < 0 || x == 7:
			n--
		default:
		}
	}
	return n
}

func myHelper() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	fns := functions(fset, f, "p.go")
	if len(fns) != 2 {
		t.Fatalf("functions: %+v", fns)
	}
	// 1 + if + && + range + case + case + ||
	if g := fns[0]; g.name != "(*pgThing).f" || g.lines != 16 || g.cyc != 7 || g.pos != "p.go:7" {
		t.Errorf("measure: %+v", g)
	}
	if e := fileEngines(f); len(e) != 2 || e[0] != "mysql" || e[1] != "postgres" {
		t.Errorf("engines: %v", e)
	}
}
