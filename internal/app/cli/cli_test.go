package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// remodel runs the CLI and returns its exit status, stdout and stderr.
func remodel(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := remodel(t, "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, c := range []string{"introspect", "validate", "preview", "migrate", "verify", "export", "version"} {
		if !regexp.MustCompile(`(?m)^\s+` + c + `\s`).MatchString(out) {
			t.Errorf("--help does not list %s:\n%s", c, out)
		}
		code, sub, _ := remodel(t, c, "--help")
		if code != 0 || !strings.Contains(sub, "remodel "+c) {
			t.Errorf("%s --help exited %d:\n%s", c, code, sub)
		}
	}
	for _, c := range []string{"migrate", "verify"} {
		_, help, _ := remodel(t, c, "--help")
		for _, f := range []string{"--profile", "--region", "--endpoint-url", "--table", "--debug"} {
			if !strings.Contains(help, f+" ") {
				t.Errorf("%s --help does not mention %s", c, f)
			}
		}
	}
	_, mig, _ := remodel(t, "migrate", "--help")
	for _, f := range []string{"--create-table", "--allow-non-empty", "--max-rejects", "--writers"} {
		if !strings.Contains(mig, f) {
			t.Errorf("migrate --help does not mention %s", f)
		}
	}
	if !strings.Contains(out, exitStatusHelp) {
		t.Errorf("--help does not list the exit statuses:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := remodel(t, "version")
	if code != 0 || out != "remodel dev (mapping format version 1)\n" {
		t.Fatalf("version: exit %d, %q", code, out)
	}
	code, flag, _ := remodel(t, "--version")
	if code != 0 || flag != out {
		t.Fatalf("--version: exit %d, %q; want %q", code, flag, out)
	}
}

// TestUsageErrors: every mistake in how remodel is called is one message on
// stderr and exit status 2, before anything is opened.
func TestUsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" (see remodel --help)`},
		{[]string{"migrat"}, `unknown command "migrat" (did you mean migrate? see remodel --help)`},
		{[]string{"--sourc", "x"}, `unknown flag: --sourc (--source is a flag of the commands, as in remodel export --source; see remodel --help)`},
		{[]string{"--no-such-flag"}, `unknown flag: --no-such-flag (see remodel --help)`},
		{[]string{"migrate", "--no-such-flag"}, `unknown flag: --no-such-flag (see remodel migrate --help)`},
		{[]string{"migrate", "--tabel", "x"}, `unknown flag: --tabel (did you mean --table? see remodel migrate --help)`},
		{[]string{"verify", "--sample", "3"}, `unknown flag: --sample (did you mean --samples? see remodel verify --help)`},
		{[]string{"verify", "--regoin", "x"}, `unknown flag: --regoin (did you mean --region? see remodel verify --help)`},
		{[]string{"migrate", "--table"}, `flag needs an argument: --table (see remodel migrate --help)`},
		{[]string{"migrate", "--writers", "x"}, `invalid value "x" for --writers: want an integer (see remodel migrate --help)`},
		{[]string{"migrate", "--retry-for", "5"}, `invalid value "5" for --retry-for: want a duration such as 30s, 2m or 1h30m (see remodel migrate --help)`},
		{[]string{"verify", "--skip-items=maybe"}, `invalid value "maybe" for --skip-items: want true or false (see remodel verify --help)`},
		{[]string{"introspect"}, "no source: give --source DSN or set REMODEL_SOURCE"},
		{[]string{"introspect", "--source", "x", "--output", "yaml"}, `--output must be text, json or mermaid, got "yaml"`},
		{[]string{"preview", "extra"}, `preview takes no arguments, got ["extra"] (flags start with --; see remodel preview --help)`},
		{[]string{"preview", "--rows", "0"}, "--rows must be at least 1, got 0"},
		{[]string{"preview", "--rows", "-3", "--output", "xml"}, "--output must be text, json or markdown, got \"xml\"\nremodel: --rows must be at least 1, got -3"},
		{[]string{"verify", "--samples", "0"}, "--samples must be at least 1, got 0"},
		{[]string{"verify", "--readers", "0"}, "--readers must be at least 1, got 0"},
		{[]string{"verify", "--sample-rate", "0"}, "--sample-rate must be more than 0 and at most 1, got 0"},
		{[]string{"verify", "--sample-rate", "1.5"}, "--sample-rate must be more than 0 and at most 1, got 1.5"},
		{[]string{"verify", "--gsi-settle", "0s"}, "--gsi-settle must be longer than 0s, got 0s"},
		{[]string{"verify", "--gsi-settle", "-1m"}, "--gsi-settle must be longer than 0s, got -1m0s"},
		{[]string{"migrate", "--retry-for", "0"}, "--retry-for must be longer than 0s, got 0s"},
		{[]string{"migrate", "--retry-for", "-5s"}, "--retry-for must be longer than 0s, got -5s"},
		{[]string{"migrate", "--writers", "0"}, "--writers must be at least 1, got 0"},
		{[]string{"migrate", "--readers", "0"}, "--readers must be at least 1, got 0"},
		{[]string{"migrate", "--render-workers", "0"}, "--render-workers must be at least 1, got 0"},
		{[]string{"migrate", "--render-workers", "-2"}, "--render-workers must be at least 1, got -2"},
		{[]string{"migrate", "--max-rejects", "-1"}, "--max-rejects must be at least 0, got -1"},
		{[]string{"migrate", "--request-timeout", "0s"}, "--request-timeout must be longer than 0s, got 0s"},
		{[]string{"verify", "--request-timeout", "-1s"}, "--request-timeout must be longer than 0s, got -1s"},
		{[]string{"preview", "--source-timeout", "0s"}, "--source-timeout must be longer than 0s, got 0s"},
		{[]string{"introspect", "--source", "x", "--source-timeout", "-1s"}, "--source-timeout must be longer than 0s, got -1s"},
		{[]string{"migrate", "--table-timeout", "-1s"}, "--table-timeout must be longer than 0s, got -1s"},
		{[]string{"migrate", "--rate-limit", "-5"}, "--rate-limit must be at least 0, got -5"},
		{[]string{"migrate", "--rate-limit", "1.5"}, `invalid value "1.5" for --rate-limit: want an integer (see remodel migrate --help)`},
		{[]string{"migrate", "--rejects", os.DevNull}, "--rejects must be a file's path: /dev/null is not a regular file, and migrate removes and rewrites this file"},
		{[]string{"migrate", "--checkpoint", os.TempDir()}, "--checkpoint must be a file's path: " + os.TempDir() + " is not a regular file, and migrate removes and rewrites this file"},
		{[]string{"migrate", "--delete-stale"}, "--delete-stale needs --allow-non-empty: without it migrate writes only into an empty table, where nothing is stale"},
		{[]string{"migrate", "--region", "us east 1"}, `--region must be a region name such as us-east-1, got "us east 1"`},
		{[]string{"verify", "--endpoint-url", "127.0.0.1:8000"}, `--endpoint-url must be an http:// or https:// URL such as http://127.0.0.1:8000, got "127.0.0.1:8000"`},
		{[]string{"verify", "--endpoint", "ftp://h"}, `--endpoint-url must be an http:// or https:// URL such as http://127.0.0.1:8000, got "ftp://h"`},
		{[]string{"migrate", "--writers", "0", "--readers", "0", "--retry-for", "0s"}, "--writers must be at least 1, got 0\nremodel: --readers must be at least 1, got 0\nremodel: --retry-for must be longer than 0s, got 0s"},
	} {
		code, out, errOut := remodel(t, tc.args...)
		if code != exitUsage || out != "" || errOut != "remodel: "+tc.want+"\n" {
			t.Errorf("remodel %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\nremodel: %s", tc.args, code, out, errOut, exitUsage, tc.want)
		}
	}
}

// TestPasswordsNeverPrinted connects with a wrong password and to a closed
// port: the errors must name the server but never the password.
func TestPasswordsNeverPrinted(t *testing.T) {
	const pw = "s3cr3tPW"
	for _, dsn := range []string{
		"postgres://postgres:" + pw + "@127.0.0.1:1/x?connect_timeout=2",
		"mysql://root:" + pw + "@127.0.0.1:1/x",
		"root:" + pw + "@tcp(127.0.0.1:1)/x",
		"postgres://nobody:" + pw + "@127.0.0.1:5432/x?connect_timeout=2",
		"mysql://nobody:" + pw + "@127.0.0.1:3306/x",
		"postgres://u:" + pw + "@[::1:bad/x",
	} {
		code, out, errOut := remodel(t, "introspect", "--source", dsn)
		if code == 0 {
			t.Errorf("introspect %s succeeded", dsn)
		}
		if strings.Contains(out+errOut, pw) {
			t.Errorf("the password appears in the output for %s:\n%s%s", strings.ReplaceAll(dsn, pw, "…"), out, errOut)
		}
	}
}

// TestHelpHidesTheSourcePassword: $REMODEL_SOURCE is the --source default,
// but --help must not print it.
func TestHelpHidesTheSourcePassword(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "postgres://app:TopSecret1@db:5432/shop")
	for _, c := range []string{"introspect", "validate", "preview", "migrate", "verify", "export"} {
		code, out, errOut := remodel(t, c, "--help")
		if code != 0 || strings.Contains(out+errOut, "TopSecret1") {
			t.Errorf("%s --help (exit %d) prints the password from $REMODEL_SOURCE:\n%s", c, code, out)
		}
	}
	// ... and the variable is still the default.
	_, _, errOut := remodel(t, "introspect")
	if strings.Contains(errOut, "no source") || strings.Contains(errOut, "TopSecret1") {
		t.Errorf("introspect without --source did not use $REMODEL_SOURCE, or printed its password: %s", errOut)
	}
}

// TestUnknownColumnIsLocated validates a mapping whose include list names a
// column the real table lacks: the error names file, line, column and the
// column.
func TestUnknownColumnIsLocated(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			m := filepath.Join(t.TempDir(), "bad.yaml")
			err := os.WriteFile(m, []byte(`version: 1
table:
  name: personalization
  key: {pk: PK, sk: SK}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "USER#"
    attributes:
      include: [email, emial]
`), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			code, _, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
			want := m + `:11:24: entities.user.attributes.include[1]: table users has no column "emial" (columns: user_id, email, name, is_active, created_at)`
			if code != exitFailed || errOut != "remodel: "+want+"\n" {
				t.Fatalf("exit %d, stderr:\n%s\nwant:\nremodel: %s", code, errOut, want)
			}
		})
	}
}

// TestExampleEndToEnd runs the README's flow on the personalization example
// for both engines through the CLI: introspect, validate, preview, migrate,
// verify.
func TestExampleEndToEnd(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	m := "../../../examples/personalization/mapping.yaml"
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			_, table := testenv.DynamoDBTable(t)

			code, out, errOut := remodel(t, "introspect", "--source", dsn, "--output", "json")
			var schema struct {
				Tables []struct{ Name string }
			}
			if code != 0 || json.Unmarshal([]byte(out), &schema) != nil || len(schema.Tables) != 5 {
				t.Fatalf("introspect: exit %d, %d tables, stderr %s", code, len(schema.Tables), errOut)
			}
			if code, out, errOut = remodel(t, "validate", "--source", dsn, "-m", m); code != 0 || !strings.Contains(out, "valid against") {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, "preview", "--source", dsn, "-m", m, "--rows", "1")
			if code != 0 || !strings.Contains(out, `{"PK":{"S":"USER#1"},"SK":{"S":"USER#"},"_type":{"S":"user"}`) {
				t.Fatalf("preview: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, "migrate", "--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table, "--create-table")
			if code != 0 || !regexp.MustCompile(`total\s+6828\s+6828\s+0`).MatchString(out) {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			// A second migrate into the now non-empty table is refused.
			code, _, errOut = remodel(t, "migrate", "--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table)
			if code == 0 || !strings.Contains(errOut, "already holds items") {
				t.Fatalf("migrate into a non-empty table: exit %d, %s", code, errOut)
			}
			code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table, "--output", "json")
			var rep struct {
				OK       bool
				Patterns []struct {
					Name string
					OK   bool
				} `json:"access_patterns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("verify --output json: %v\n%s", err, out)
			}
			if code != 0 || !rep.OK || len(rep.Patterns) != 6 {
				t.Fatalf("verify: exit %d ok=%v patterns=%d\n%s%s", code, rep.OK, len(rep.Patterns), out, errOut)
			}
		})
	}
}
