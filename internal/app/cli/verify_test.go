package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

const shelfMapping = `version: 1
table:
  name: shelf
  key: {pk: PK, sk: SK}
entities:
  book:
    from: books
    pk: "SHELF#{shelf}"
    sk: "BOOK#{isbn}"
access_patterns:
  booksOnShelf:
    query: {pk: "SHELF#{shelf}"}
    entity: book
    sql: SELECT * FROM books WHERE shelf = {shelf}
`

// TestVerifyReports runs migrate (one row rejected: no isbn) and verify
// through the CLI: the report formats and files, --rejects, --seed, the
// exit statuses, and the report written when verify cannot run.
func TestVerifyReports(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, `CREATE TABLE books (id INT PRIMARY KEY, shelf INT NOT NULL, isbn VARCHAR(20));
INSERT INTO books VALUES (1, 1, 'a1'), (2, 1, 'a2'), (3, 2, NULL), (4, 2, 'b4'), (5, 3, 'c5');`)
	_, table := testenv.DynamoDBTable(t)
	dir := t.TempDir()
	m := filepath.Join(dir, "mapping.yaml")
	if err := os.WriteFile(m, []byte(shelfMapping), 0o644); err != nil {
		t.Fatal(err)
	}
	rejects := filepath.Join(dir, "rejects.jsonl")
	base := []string{"--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table}
	verifyArgs := func(args ...string) []string { return append(append([]string{"verify"}, base...), args...) }
	code, out, errOut := remodel(t, append(append([]string{"migrate"}, base...), "--create-table", "--max-rejects", "1", "--rejects", rejects)...)
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}

	t.Run("rejects accepted: json on stdout, exit 0", func(t *testing.T) {
		code, out, errOut := remodel(t, verifyArgs("--rejects", rejects, "--output", "json", "--seed", "5")...)
		var rep struct {
			Version int
			OK      bool
			Seed    int64
			Rejects struct {
				Total int
				Rows  []struct{ Entity, Row string }
			} `json:"accepted_rejects"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("verify --output json: %v\n%s%s", err, out, errOut)
		}
		if code != exitOK || !rep.OK || rep.Version != 1 || rep.Seed != 5 || rep.Rejects.Total != 1 || rep.Rejects.Rows[0].Row != "id=3" {
			t.Fatalf("exit %d, report %+v\n%s", code, rep, errOut)
		}
	})

	t.Run("failing: text on stdout, junit and markdown files, exit 1", func(t *testing.T) {
		xmlPath, mdPath := filepath.Join(dir, "verify.xml"), filepath.Join(dir, "summary.md")
		code, out, errOut := remodel(t, verifyArgs("--output-file", xmlPath, "--output-file", "markdown="+mdPath)...)
		if code != exitFailed || !regexp.MustCompile(`^remodel: verify: \d+ of \d+ checks failed \(the report names them\)\n$`).MatchString(errOut) {
			t.Fatalf("exit %d, stderr %q; want %d and one line that counts the failed checks", code, errOut, exitFailed)
		}
		if !regexp.MustCompile(`^verify FAIL table \S+ against the postgres source \(seed \d+\)\n`).MatchString(out) ||
			!strings.Contains(out, "row id=3 of entity book cannot become an item: ") {
			t.Fatalf("stdout is not the text report naming the rejected row:\n%s", out)
		}
		x, err := os.ReadFile(xmlPath)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(x), `<?xml version="1.0" encoding="UTF-8"?>`+"\n<testsuites ") || !strings.Contains(string(x), `<failure type="unrenderable_row"`) {
			t.Fatalf("the JUnit file:\n%s", x)
		}
		md, err := os.ReadFile(mdPath)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(md), "### ❌ remodel verify: FAIL\n") {
			t.Fatalf("the Markdown file:\n%s", md)
		}
	})

	t.Run("json on stdout beside FORMAT=FILE outputs", func(t *testing.T) {
		// --output-file names its format, so --output json is stdout's.
		xmlPath := filepath.Join(dir, "named.xml")
		_, out, errOut := remodel(t, verifyArgs("--rejects", rejects, "--output", "json", "--output-file", "junit="+xmlPath)...)
		var rep struct{ Version int }
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Version != 1 {
			t.Fatalf("stdout is not the JSON report (%v):\n%s%s", err, out, errOut)
		}
		if x, err := os.ReadFile(xmlPath); err != nil || !strings.Contains(string(x), "<testsuites ") {
			t.Fatalf("the JUnit file (%v):\n%s", err, x)
		}
	})

	t.Run("the same seed checks the same parameters", func(t *testing.T) {
		params := func() string {
			_, out, _ := remodel(t, verifyArgs("--output", "json", "--seed", "11", "--samples", "2")...)
			var rep struct {
				Patterns []struct{ Parameters []string } `json:"access_patterns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Patterns) != 1 || len(rep.Patterns[0].Parameters) != 2 {
				t.Fatalf("verify --seed 11: %v\n%s", err, out)
			}
			return strings.Join(rep.Patterns[0].Parameters, " ")
		}
		if a, b := params(), params(); a != b {
			t.Fatalf("--seed 11 checked %s, then %s", a, b)
		}
	})

	t.Run("cannot run: the report still comes out", func(t *testing.T) {
		xmlPath := filepath.Join(dir, "error.xml")
		args := append([]string{"verify", "--source", dsn, "-m", m, "--endpoint", endpoint}, "--table", "no_such_table", "--output-file", xmlPath)
		code, out, errOut := remodel(t, args...)
		if code == exitOK || code == exitUsage || !strings.HasPrefix(errOut, "remodel: verify: table no_such_table does not exist at "+endpoint+" (region us-east-1); ") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if !strings.Contains(out, "error: verify could not finish: verify: table no_such_table does not exist") {
			t.Fatalf("stdout:\n%s", out)
		}
		x, err := os.ReadFile(xmlPath)
		if err != nil || !strings.Contains(string(x), `<testsuite name="verify" tests="1" failures="0" errors="1"`) {
			t.Fatalf("the JUnit file of a run that could not start (%v):\n%s", err, x)
		}
	})

	t.Run("cannot reach the source: the report names the mapping's table", func(t *testing.T) {
		// No --table: the name comes from the mapping, which is readable
		// although the source is not.
		code, out, errOut := remodel(t, "verify", "--source", "postgres://postgres@127.0.0.1:1/none", "-m", m, "--endpoint", endpoint, "--progress", "none")
		if code != exitError || !strings.HasPrefix(out, "verify FAIL table shelf (seed ") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})

	t.Run("interrupted: the report says so", func(t *testing.T) {
		// A signal before verify starts (main's context canceled, as
		// signal.NotifyContext does): the report says interrupted, not
		// "context canceled".
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("terminated signal received"))
		code, out, errOut := remodelCtx(t, ctx, verifyArgs("--output", "json", "--progress", "none")...)
		var rep struct {
			OK          bool   `json:"ok"`
			Error       string `json:"error"`
			Interrupted bool   `json:"interrupted"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitInterrupted || rep.OK || !rep.Interrupted || rep.Error != "interrupted (terminated signal received)" {
			t.Fatalf("exit %d (%v), report %+v\nstdout %s\nstderr %s", code, err, rep, out, errOut)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(bad, []byte(`{"entity":"book","row":"id=3"}`+"\n"+`{"entity":"shelf","row":"id=1"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--output", "yaml"}, `remodel: --output must be text, json, junit or markdown, got "yaml"`},
			{[]string{"--max-problems", "-1"}, "remodel: --max-problems must be at least 0, got -1"},
			{[]string{"--output-file", "junit="}, `remodel: --output-file "junit=" names no file`},
			{[]string{"--output-file", "juint=v.xml"}, `remodel: --output-file "juint=v.xml": "juint" is not a format (text, json, junit or markdown); a file whose name holds = is given as ./juint=v.xml`},
			{[]string{"--rejects", bad}, `remodel: verify: ` + bad + `:2: entity "shelf" is not in the mapping (entities: book)`},
		} {
			code, out, errOut := remodel(t, verifyArgs(tc.args...)...)
			if code != exitUsage || strings.TrimSpace(errOut) != tc.want || out != "" {
				t.Errorf("verify %v: exit %d, stdout %q, stderr %q; want %d and %s", tc.args, code, out, errOut, exitUsage, tc.want)
			}
		}
	})
}
