package analyze_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/remodel-dev/remodel/analyze"
	"github.com/remodel-dev/remodel/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden pins the report of the skewed table, as text and as JSON, at
// --rate-limit 2000: both engines must give the same report, byte for byte
// (but the engine's name). go test ./analyze -run TestGolden -update
// rewrites the files from PostgreSQL.
func TestGolden(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, skewSchema)
			eng.Exec(t, dsn, skewData())
			p, src := compile(t, dsn, skewMapping)
			rep, err := analyze.Run(context.Background(), analyze.Options{Plan: p, Source: src, RateLimit: 2000})
			if err != nil {
				t.Fatal(err)
			}
			rep.Engine = "ENGINE"
			var text bytes.Buffer
			rep.WriteText(&text)
			js, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "skewed.txt", text.Bytes(), eng.Name == "postgres")
			golden(t, "skewed.json", append(js, '\n'), eng.Name == "postgres")
		})
	}
}

func golden(t *testing.T, name string, got []byte, mayUpdate bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update && mayUpdate {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./analyze -run TestGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the report differs from %s:\n%s", path, got)
	}
}
