package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMain removes the default rejected-rows files (remodel-rejects.jsonl,
// and a shard's remodel-rejects.shard-I-of-N.jsonl) that the tests' migrate
// runs without --rejects wrote into the package's directory: migrate always
// writes its rejects file, and a test must leave nothing behind. A file
// that was there before the tests is left alone.
func TestMain(m *testing.M) {
	before, _ := filepath.Glob("remodel-rejects*.jsonl")
	code := m.Run()
	after, _ := filepath.Glob("remodel-rejects*.jsonl")
	for _, f := range after {
		if !slices.Contains(before, f) {
			os.Remove(f)
		}
	}
	os.Exit(code)
}
