package cli

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/progressview"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestProgressFlagErrors: a bad --progress or --progress-interval is a
// usage error on every command that has them.
func TestProgressFlagErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--progress", "fancy"}, `--progress must be auto or bar or plain or json or none, got "fancy"`},
		{[]string{"verify", "--progress", "JSON"}, `--progress must be auto or bar or plain or json or none, got "JSON"`},
		{[]string{"preview", "--progress-interval", "0s"}, "--progress-interval must be longer than 0s, got 0s"},
		{[]string{"verify", "--exact-counts"}, "unknown flag: --exact-counts (see remodel verify --help)"},
	} {
		code, out, errOut := remodel(t, tc.args...)
		if code != exitUsage || out != "" || errOut != "remodel: "+tc.want+"\n" {
			t.Errorf("remodel %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\nremodel: %s", tc.args, code, out, errOut, exitUsage, tc.want)
		}
	}
}

// progressLines reads stderr as --progress json lines, and returns each
// phase's end line.
func progressLines(t *testing.T, command, stderr string) map[string]progressview.JSONLine {
	t.Helper()
	ends := map[string]progressview.JSONLine{}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var l progressview.JSONLine
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s: stderr line %q is no progress line: %v", command, sc.Text(), err)
		}
		if l.Version != progressview.JSONVersion || l.Command != command {
			t.Errorf("%s: line %q", command, sc.Text())
		}
		if l.Event == "end" {
			ends[l.Phase] = l
		}
	}
	return ends
}

// TestProgressJSON runs preview, migrate (with --exact-counts) and verify
// with --progress json: stderr holds only progress lines, every phase ends,
// and its counts are the report's. --progress none, and the default on a
// pipe for a run shorter than the interval, print nothing.
func TestProgressJSON(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	_, table := testenv.DynamoDBTable(t)
	dyn := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table}

	code, out, errOut := remodel(t, "preview", "--source", dsn, "-m", m, "--rows", "2", "--progress", "json")
	if code != exitOK {
		t.Fatalf("preview: exit %d, stderr:\n%s", code, errOut)
	}
	if end, ok := progressLines(t, "preview", errOut)["render"]; !ok || end.Done != 2 || *end.Total != 2 || len(end.Tasks) != 1 || end.Tasks[0].Name != "item" {
		t.Errorf("preview's render phase ends at %+v; stdout:\n%s", end, out)
	}

	// The analysis reports through the same progress: a phase per run,
	// a task per entity, counted to the rows it read.
	code, out, errOut = remodel(t, "preview", "--analyze", "--source", dsn, "-m", m, "--output", "json", "--progress", "json")
	if code != exitOK {
		t.Fatalf("preview --analyze: exit %d, stderr:\n%s", code, errOut)
	}
	var an struct {
		Entities []struct{ Rows int64 } `json:"entities"`
	}
	if err := json.Unmarshal([]byte(out), &an); err != nil || len(an.Entities) != 1 {
		t.Fatalf("preview --analyze --output json: %v\n%s", err, out)
	}
	if end, ok := progressLines(t, "preview", errOut)["analyze"]; !ok || end.Done != an.Entities[0].Rows || end.Total == nil || *end.Total != end.Done || len(end.Tasks) != 1 || end.Tasks[0].Name != "item" {
		t.Errorf("preview --analyze's analyze phase ends at %+v, want %d rows of entity item", end, an.Entities[0].Rows)
	}

	code, out, errOut = remodel(t, append([]string{"migrate", "--create-table", "--output", "json", "--progress", "json", "--exact-counts"}, dyn...)...)
	if code != exitOK {
		t.Fatalf("migrate: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var rep struct {
		RowsRead int64 `json:"rows_read"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.RowsRead != 3 {
		t.Fatalf("migrate's report: %v, %s", err, out)
	}
	ends := progressLines(t, "migrate", errOut)
	if c := ends["count"]; c.Done != 1 || c.Total == nil || *c.Total != 1 {
		t.Errorf("migrate's count phase ends at %+v", c)
	}
	if c := ends["copy"]; c.Done != rep.RowsRead || c.Total == nil || *c.Total != rep.RowsRead || !c.TotalExact || c.Percent == nil || *c.Percent != 100 {
		t.Errorf("migrate's copy phase ends at %+v, the report read %d rows", c, rep.RowsRead)
	}

	code, out, errOut = remodel(t, append([]string{"verify", "--progress", "json", "--samples", "2", "--seed", "1"}, dyn...)...)
	if code != exitOK {
		t.Fatalf("verify: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	ends = progressLines(t, "verify", errOut)
	for phase, done := range map[string]int64{"scan": 3, "count": 1, "items": 3, "patterns": 2} {
		if c, ok := ends[phase]; !ok || c.Done != done {
			t.Errorf("verify's %s phase ends at %+v, want %d done", phase, c, done)
		}
	}

	for _, args := range [][]string{{"--progress", "none"}, nil} {
		code, out, errOut = remodel(t, append(append([]string{"verify", "--samples", "2", "--seed", "1"}, args...), dyn...)...)
		if code != exitOK || errOut != "" {
			t.Errorf("verify %q: exit %d, stderr %q; want 0 and nothing; stdout:\n%s", args, code, errOut, out)
		}
	}
}
