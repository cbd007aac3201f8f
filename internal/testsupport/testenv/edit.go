package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EditedFile copies the file at path into a temporary directory with each
// pair of edits (old, new) made once, and returns the copy's path. An old
// text the file does not hold fails the test: the edit would test nothing.
func EditedFile(t testing.TB, path string, edits ...string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("testenv: %s no longer holds %q", path, edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
