package gentest

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../data.sql from the generator")

// DataSQLIsCurrent pins examples/<example>/data.sql (../data.sql from the
// generator's package) to gen's output; with -update it rewrites the file
// first.
func DataSQLIsCurrent(t *testing.T, example string, gen func(io.Writer) error) {
	t.Helper()
	var buf bytes.Buffer
	if err := gen(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "data.sql")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("examples/%[1]s/data.sql is not the generator's output: regenerate it with\n"+
			"  go run ./examples/%[1]s/gen > examples/%[1]s/data.sql\n"+
			"or  go test ./examples/%[1]s/gen -update", example)
	}
}

// Deterministic fails when two runs of gen give different bytes.
func Deterministic(t *testing.T, gen func(io.Writer) error) {
	t.Helper()
	var a, b bytes.Buffer
	if err := gen(&a); err != nil {
		t.Fatal(err)
	}
	if err := gen(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs with the same flags differ")
	}
}

// FlagErrors checks that a generator's run refuses -scale 0 and an unknown
// -engine with the messages sqlscript.CheckFlags gives.
func FlagErrors(t *testing.T, run func(out io.Writer, scale int, engine string) error) {
	t.Helper()
	for _, tc := range []struct {
		scale  int
		engine string
		want   string
	}{
		{0, "", "-scale must be at least 1, got 0"},
		{1, "oracle", `-engine must be postgres or mysql, got "oracle"`},
	} {
		if err := run(&bytes.Buffer{}, tc.scale, tc.engine); err == nil || err.Error() != tc.want {
			t.Errorf("run(%d, %q) = %v, want %q", tc.scale, tc.engine, err, tc.want)
		}
	}
}
