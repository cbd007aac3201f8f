package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestInitFlags: init writes to stdout or to -o, refuses to overwrite a file
// without --force, keeps the tables --include and --exclude select, and
// refuses bad patterns, an --include that matches nothing and a bad --name.
func TestInitFlags(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20));
CREATE TABLE tmp_scratch (id INT PRIMARY KEY);
CREATE TABLE owners (id INT PRIMARY KEY);`)
	ctx := context.Background()

	code, stdout, stderr := remodelCtx(t, ctx, "init", "--source", dsn, "--name", "shop")
	if code != 0 || !strings.Contains(stdout, "\n  name: \"shop\"\n") || !strings.Contains(stdout, "\n  tmp_scratch:\n") {
		t.Fatalf("init to stdout: exit %d\n%s\n%s", code, stdout, stderr)
	}

	file := filepath.Join(t.TempDir(), "m.yaml")
	if code, stdout, stderr := remodelCtx(t, ctx, "init", "--source", dsn, "--output-file", file, "--exclude", "tmp_*"); code != 0 || stdout != "" || !strings.Contains(stderr, "wrote "+file) {
		t.Fatalf("init -o: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	} else {
		// The hint keeps --source (validate without it checks the file
		// alone), and says on stderr, not only in a comment of the file,
		// why no pattern came from statement statistics (the test servers
		// do not preload pg_stat_statements).
		for _, want := range []string{
			"check it with: remodel validate --source DSN -m " + file + "\n",
			"no access patterns from statement statistics: the extension pg_stat_statements is not installed",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("init -o: stderr %q, want %q", stderr, want)
			}
		}
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(first), "tmp_scratch") || !strings.Contains(string(first), "\n  items:\n") {
		t.Errorf("--exclude tmp_* kept tmp_scratch or lost items:\n%s", first)
	}
	code, _, stderr = remodelCtx(t, ctx, "init", "--source", dsn, "--output-file", file, "--include", "items")
	if want := "--output-file " + file + ": the file exists (give --force to overwrite it)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("init -o over an existing file: exit %d, stderr %q, want 2 and %q", code, stderr, want)
	}
	if again, _ := os.ReadFile(file); string(again) != string(first) {
		t.Error("the refused run changed the file")
	}
	if code, _, stderr := remodelCtx(t, ctx, "init", "--source", dsn, "--output-file", file, "--include", "items", "--force"); code != 0 {
		t.Fatalf("init --force: exit %d\n%s", code, stderr)
	}
	only, _ := os.ReadFile(file)
	if strings.Contains(string(only), "owners") || !strings.Contains(string(only), "\n  items:\n") {
		t.Errorf("--include items --force did not write items alone:\n%s", only)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--include", "[x"}, 2, `--include: table pattern "[x" is malformed`},
		{[]string{"--include", "nothing_*"}, 3, `--include "nothing_*" matches no table of the source`},
		{[]string{"--name", "x"}, 2, `--name "x" is not a DynamoDB table name`},
	} {
		code, _, stderr := remodelCtx(t, ctx, append([]string{"init", "--source", dsn}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("init %v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}
