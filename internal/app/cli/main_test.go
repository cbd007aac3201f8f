package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// leftovers are the files a migrate run writes by default into the
// working directory: its rejected-rows file (always written,
// TABLE.remodel-rejects.jsonl), the checkpoint a stopped run keeps
// (TABLE.remodel-checkpoint.json) and the finished record a run that
// succeeded leaves (TABLE.remodel-finished.json).
var leftovers = []string{"*remodel-rejects*.jsonl", "*.remodel-checkpoint.json", "*.remodel-finished.json"}

// TestMain removes the default files (leftovers) that the tests' migrate
// runs without --rejects or --checkpoint wrote into the package's
// directory: a test must leave nothing behind. A file that was there
// before the tests is left alone. It also removes the remodel command
// the tests built (buildRemodel).
func TestMain(m *testing.M) {
	var before []string
	for _, g := range leftovers {
		f, _ := filepath.Glob(g)
		before = append(before, f...)
	}
	code := m.Run()
	if remodelBin.dir != "" {
		os.RemoveAll(remodelBin.dir)
	}
	for _, g := range leftovers {
		after, _ := filepath.Glob(g)
		for _, f := range after {
			if !slices.Contains(before, f) {
				os.Remove(f)
			}
		}
	}
	os.Exit(code)
}
