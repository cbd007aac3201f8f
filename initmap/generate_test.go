package initmap_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/initmap"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// schemaFrom reads an ERD that introspect/erd's tests keep as JSON (what
// remodel introspect --format json prints for the real databases).
func schemaFrom(t *testing.T, name string) *introspect.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "introspect", "erd", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s introspect.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (go test -update rewrites it); got:\n%s", path, got)
	}
}

// TestGenerateGolden writes the mapping of each ERD, compares it with its
// golden file, and checks that it parses and compiles against the same ERD
// without a problem.
func TestGenerateGolden(t *testing.T) {
	for _, name := range []string{"pagila", "chinook-postgres", "chinook-mysql", "tricky"} {
		t.Run(name, func(t *testing.T) {
			s := schemaFrom(t, name)
			got := initmap.Generate(s, initmap.Options{})
			golden(t, name+".yaml", got)
			if again := initmap.Generate(schemaFrom(t, name), initmap.Options{}); string(again) != string(got) {
				t.Fatal("a second run wrote other bytes")
			}
			f, err := mapping.Parse(name+".yaml", got)
			if err != nil {
				t.Fatalf("the generated mapping does not parse:\n%v", err)
			}
			if err := mapping.Check(f); err != nil {
				t.Fatalf("the generated mapping does not check:\n%v", err)
			}
			if _, err := mapping.Compile(f, s); err != nil {
				t.Fatalf("the generated mapping does not compile against its ERD:\n%v", err)
			}
			if !strings.HasPrefix(string(got), "# yaml-language-server") {
				t.Error("no schema line")
			}
		})
	}
}
