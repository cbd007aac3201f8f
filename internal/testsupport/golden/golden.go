package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Updating says whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the file testdata/name of the test's package.
// With -update it writes got there instead (creating its folder) and
// passes.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// CheckNoStale fails when the folder testdata/dir holds a .golden file
// without its case beside it (the same name with the extension caseExt,
// such as ".yaml"): a golden file whose case was removed or renamed.
func CheckNoStale(t testing.TB, dir, caseExt string) {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join("testdata", dir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + caseExt); err != nil {
			t.Errorf("%s has no case: %v", g, err)
		}
	}
}
