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

	"github.com/remodel-dev/remodel/internal/testenv"
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
	for _, c := range []string{"introspect", "validate", "preview", "migrate", "verify", "version"} {
		if !regexp.MustCompile(`(?m)^\s+` + c + `\s`).MatchString(out) {
			t.Errorf("--help does not list %s:\n%s", c, out)
		}
		code, sub, _ := remodel(t, c, "--help")
		if code != 0 || !strings.Contains(sub, "remodel "+c) {
			t.Errorf("%s --help exited %d:\n%s", c, code, sub)
		}
	}
	_, mig, _ := remodel(t, "migrate", "--help")
	for _, f := range []string{"--create-table", "--allow-non-empty", "--max-rejects", "--endpoint", "--writers"} {
		if !strings.Contains(mig, f) {
			t.Errorf("migrate --help does not mention %s", f)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := remodel(t, "version")
	if code != 0 || !strings.HasPrefix(out, "remodel ") {
		t.Fatalf("version: exit %d, %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"introspect"}, "no source: give --source DSN or set REMODEL_SOURCE"},
		{[]string{"introspect", "--source", "x", "--format", "yaml"}, `--format must be text or json, got "yaml"`},
		{[]string{"preview", "extra"}, `preview takes no arguments`},
		{[]string{"verify", "--source", "x", "--sample-rate", "0"}, `--sample-rate must be more than 0 and at most 1, got 0`},
		{[]string{"verify", "--source", "x", "--sample-rate", "1.5"}, `--sample-rate must be more than 0 and at most 1, got 1.5`},
		{[]string{"introspect", "--source", "oracle://u:pw@h/db"}, "is not a postgres://, mysql:// or user:pass@tcp(host:port)/db DSN"},
	} {
		code, _, errOut := remodel(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("remodel %v: exit %d, stderr %q; want a failure mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, _ := remodel(t, "migrate", "--no-such-flag"); code != exitUsage {
		t.Errorf("a bad flag exits %d, want %d", code, exitUsage)
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
	for _, c := range []string{"introspect", "validate", "preview", "migrate", "verify"} {
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
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../examples/personalization")
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
			if code != exitFailed || strings.TrimSpace(errOut) != "remodel: "+want {
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
	m := "../../examples/personalization/mapping.yaml"
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../examples/personalization")
			_, table := testenv.DynamoDBTable(t)

			code, out, errOut := remodel(t, "introspect", "--source", dsn, "--format", "json")
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
			code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table, "--format", "json")
			var rep struct {
				OK       bool
				Patterns []struct {
					Name string
					OK   bool
				} `json:"access_patterns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("verify --format json: %v\n%s", err, out)
			}
			if code != 0 || !rep.OK || len(rep.Patterns) != 6 {
				t.Fatalf("verify: exit %d ok=%v patterns=%d\n%s%s", code, rep.OK, len(rep.Patterns), out, errOut)
			}
		})
	}
}
