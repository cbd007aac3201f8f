package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestNullUsageErrors: --to null: refuses every flag that needs a store,
// each with its reason, as a usage error (exit status 2) before anything
// is opened.
func TestNullUsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--follow"}, "--follow does not go with --to null: (the changes would be applied to a table;"},
		{[]string{"--resume"}, "--resume does not go with --to null: (nothing is stored: a stopped run has nothing to go on from"},
		{[]string{"--checkpoint", "ck.json"}, "--checkpoint does not go with --to null:"},
		{[]string{"--create-table"}, "--create-table does not go with --to null: (there is no table"},
		{[]string{"--rate-limit", "10"}, "--rate-limit does not go with --to null: (nothing is written"},
		{[]string{"--shard", "1/2"}, "--shard does not go with --to null:"},
		{[]string{"--import"}, "--import does not go with --to null:"},
	} {
		args := append([]string{"migrate", "--to", "null:"}, tc.args...)
		code, _, errOut := remodel(t, args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", args, code, errOut, tc.want)
		}
	}
}

// TestMigrateNull: migrate --to null: reads and renders every row and
// says so, with no DynamoDB to talk to (--endpoint names a port nobody
// listens on) and no checkpoint or finished record left behind; its JSON
// report counts every row's item.
func TestMigrateNull(t *testing.T) {
	awsEnv(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn, mapPath := tiny(t, eng.Name)
			dir := t.TempDir()
			t.Chdir(dir)
			report := filepath.Join(dir, "report.json")
			code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", mapPath, "--to", "null:", "--endpoint", "http://127.0.0.1:9",
				"--progress", "none", "--output-file", "json="+report)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			if want := "migrated " + eng.Name + " into the null sink: every row read, rendered and its key checked, nothing written (the items of table tiny)"; !strings.Contains(out, want) {
				t.Errorf("report:\n%s\nwant %q", out, want)
			}
			var rep migrate.Report
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if !rep.OK || !rep.NullSink || rep.RowsRead != 3 || rep.ItemsWritten != 3 || rep.CreatedTable {
				t.Errorf("report: ok %v, null sink %v, %d rows read, %d items, created table %v; want 3 rows and 3 items into the null sink", rep.OK, rep.NullSink, rep.RowsRead, rep.ItemsWritten, rep.CreatedTable)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.Contains(e.Name(), "checkpoint") || strings.Contains(e.Name(), "finished") {
					t.Errorf("the run into the null sink left %s", e.Name())
				}
			}
		})
	}
}
