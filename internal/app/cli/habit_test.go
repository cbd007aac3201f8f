package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// transcript runs remodel with each of the argument lists and returns, for
// each, the command line, its exit status and its stderr: what a golden
// file of usage messages holds.
func transcript(t *testing.T, runs ...[]string) []byte {
	t.Helper()
	var b strings.Builder
	for _, args := range runs {
		code, _, stderr := remodel(t, args...)
		fmt.Fprintf(&b, "$ remodel %s\nexit %d\n%s\n", strings.Join(args, " "), code, stderr)
	}
	return []byte(b.String())
}

// TestMistypedCommand: a mistyped command is named, with the nearest
// command, whatever flags follow it (before, remodel verfy --source X was
// "unknown flag: --source").
func TestMistypedCommand(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	golden.Check(t, "mistyped_command.golden", transcript(t,
		[]string{"verfy", "--source", "X"},
		[]string{"--debug", "migrat", "--mapping", "m.yaml"},
		[]string{"statuss", "--checkpoint", "x.json"},
		[]string{"intrspect", "--source", "X", "--output", "json"},
		[]string{"bogus", "--source", "X"},
		[]string{"--sourc", "x"},
	))
}

// shellWords splits a command line of the docs as sh would, for the
// commands the docs show: quotes, $VAR expanded from the environment, a
// comment, and a redirection or pipe (left out, with what follows it).
// It returns nil for a line that is no remodel command.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	flush := func() {
		if inWord {
			words = append(words, os.ExpandEnv(cur.String()))
		}
		cur.Reset()
		inWord = false
	}
	rs := []rune(line)
scan:
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			break scan
		case r == '>' || r == '|' || r == '<':
			if cur.String() == "2" {
				cur.Reset()
				inWord = false
			}
			break scan
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	for i, w := range words {
		if w == "remodel" || strings.HasSuffix(w, "/remodel") {
			return words[i+1:]
		}
		if !strings.Contains(w, "=") { // VAR=value before the command
			return nil
		}
	}
	return nil
}

// docCommands are the remodel command lines of a Markdown file's code
// blocks (and of lines that start with $ or bin/remodel), in order.
func docCommands(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inCode = !inCode
			continue
		}
		if !inCode {
			continue
		}
		// A command is typed: bin/remodel ..., or $ remodel ...; a line
		// of output that starts with remodel (a bench table) is not.
		switch {
		case strings.HasPrefix(trimmed, "$ "):
			trimmed = strings.TrimPrefix(trimmed, "$ ")
		case !strings.HasPrefix(trimmed, "bin/remodel "):
			continue
		}
		if args := shellWords(trimmed); len(args) > 0 {
			out = append(out, args)
		}
	}
	return out
}

// commandWorkspace is a folder to run the docs' commands in: the
// personalization example's mapping as mapping.yaml (but for init, which
// writes it), a traffic file,
// examples/ of the repository, and a source that refuses connections, so
// that every command gets past its flags and stops at the source (exit
// status 3) or needs none (0). A command line the CLI refuses exits 2.
func commandWorkspace(t *testing.T, command string) {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m, err := os.ReadFile(filepath.Join(repo, "examples/personalization/mapping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"traffic.yaml": "findUserBySubscribeService: {per_second: 5}\n"}
	if command != "init" {
		files["mapping.yaml"] = string(m)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(repo, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	awsEnv(t)
	refused := "postgres://remodel@127.0.0.1:1/none?connect_timeout=2"
	for _, v := range []string{"REMODEL_SOURCE", "DSN", "PG_DSN", "MYSQL_DSN"} {
		t.Setenv(v, refused)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", filepath.Join(dir, "summary.md"))
}

// TestReadmeCommands runs every remodel command line the README shows:
// each must be one the CLI accepts (not exit status 2). The golden file
// lists them with their exit status against a source that refuses
// connections. Before, preview --rows 5 --document ... --analyze exited 2.
func TestReadmeCommands(t *testing.T) {
	readme, err := filepath.Abs("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, args := range docCommands(t, readme) {
		var code int
		var stderr string
		t.Run("", func(t *testing.T) {
			commandWorkspace(t, args[0])
			code, _, stderr = remodel(t, args...)
		})
		fmt.Fprintf(&b, "remodel %s\n  exit %d\n", strings.Join(args, " "), code)
		if code == exitUsage {
			t.Errorf("README: remodel %s: exit 2 (a usage error):\n%s", strings.Join(args, " "), stderr)
			fmt.Fprintf(&b, "  %s", stderr)
		}
	}
	golden.Check(t, "readme_commands.golden", []byte(b.String()))
}

// normalize replaces the varying parts of a transcript (temporary paths,
// the fresh databases' names) with fixed words.
func normalize(s string, pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(s)
}

// TestValidateOutputAndSources: validate renders its result as text or
// JSON (--output, --output-file), takes --source once per engine and checks
// each engine's block against its own engine; an engine without a source
// still has its block checked on its own.
func TestValidateOutputAndSources(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	pg, m := tiny(t, "postgres")
	my, _ := tiny(t, "mysql")
	pg2, _ := tiny(t, "postgres")
	dir := filepath.Dir(m)
	blocks := writeFile(t, "blocks.yaml", tinyMapping+`    postgres:
      sql: SELECT * FROM items WHERE k = {k} AND id::text <> ''
    mysql:
      sql: SELECT * FROM items WHERE k = {k} AND id <> 'x
`)
	bdir := filepath.Dir(blocks)
	out := filepath.Join(dir, "validate.json")
	var b strings.Builder
	for _, args := range [][]string{
		{"validate", "-m", m, "--output", "json", "--output-file", "text=" + out + ".txt"},
		{"validate", "-m", m, "--source", pg, "--output-file", out},
		{"validate", "-m", m, "--source", pg, "--source", my},
		{"validate", "-m", m, "--source", pg, "--source", pg2},
		{"validate", "-m", blocks, "--source", pg},
		{"validate", "-m", blocks, "--source", pg, "--source", my, "--output", "json"},
		{"validate", "-m", filepath.Join(dir, "missing.yaml"), "--output", "json"},
	} {
		code, stdout, stderr := remodel(t, args...)
		fmt.Fprintf(&b, "$ remodel %s\nexit %d\n--- stdout\n%s--- stderr\n%s\n", strings.Join(args, " "), code, stdout, stderr)
		for _, f := range []string{out, out + ".txt"} {
			if data, err := os.ReadFile(f); err == nil {
				fmt.Fprintf(&b, "--- %s\n%s\n", f, data)
				os.Remove(f)
			}
		}
	}
	dbName := func(dsn string) string {
		name := dsn[strings.LastIndex(dsn, "/")+1:]
		name, _, _ = strings.Cut(name, "?")
		return name
	}
	got := normalize(b.String(), pg, "$PG", my, "$MYSQL", pg2, "$PG2", dir, "$DIR", bdir, "$DIR",
		dbName(pg), "PGDB", dbName(my), "MYDB", dbName(pg2), "PGDB2")
	golden.Check(t, "validate_output.golden", []byte(got))
}

// TestStatusFinishedAndRunning: after a run that succeeded, status says it
// finished and with what, from the finished record the run left (before:
// exit 3, "no checkpoint"); a checkpoint saved by a process alive on this
// host is "running" (before: "stopped or running"); a --resume of the
// finished job reports it finished. The default rejects
// file is named after the table, as the checkpoint is.
func TestStatusFinishedAndRunning(t *testing.T) {
	var got string
	t.Run("in a folder of its own", func(t *testing.T) { got = statusTranscript(t) })
	if got != "" {
		golden.Check(t, "status_finished.golden", []byte(got))
	}
}

// statusTranscript runs TestStatusFinishedAndRunning's commands in a
// folder of their own and returns what they printed, normalized.
func statusTranscript(t *testing.T) string {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	testenv.ExecPostgres(t, dsn, "INSERT INTO items SELECT g, 'k' || g FROM generate_series(4, 4000) g")
	t.Chdir(t.TempDir())
	_, table := testenv.DynamoDBTable(t)
	base := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--progress", "none"}

	// A run stopped while it writes, by this process: its checkpoint's
	// process runs.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		remodelCtx(t, ctx, append(base, "--create-table", "--rate-limit", "1000", "--checkpoint-every", "100ms")...)
	}()
	ck := table + ".remodel-checkpoint.json"
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(ck); err == nil && strings.Contains(string(b), `"rows": `) && !strings.Contains(string(b), `"rows": 0`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint with settled rows after 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, running, _ := remodel(t, "status", "--prefix", table)
	cancel()
	<-done
	// Resumed to the end: the checkpoint goes, the finished record stays.
	code, _, stderr := remodel(t, append(base, "--resume")...)
	if code != 0 {
		t.Fatalf("migrate --resume: exit %d\n%s", code, stderr)
	}
	// --resume again (a run killed after it finished, a job runner that
	// starts it again): the job is done, said from the finished record;
	// exit 0 (before: exit 3, "no checkpoint: nothing to resume").
	code, again, stderr := remodel(t, append(base, "--resume")...)
	if code != 0 || !strings.Contains(again, "--resume: the job had already finished at ") || !strings.Contains(again, "(its finished record "+table+".remodel-finished.json;") ||
		!regexpMatch(`(?m)^  total +4000 +4000 +0 `, again) {
		t.Errorf("migrate --resume of the finished job: exit %d\n%s%s", code, again, stderr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- status of the run going on\n%s", running)
	for _, args := range [][]string{
		{"status", "--prefix", table},
		{"status", "--checkpoint", ck, "--output", "json", "--output-file", "text=status.txt"},
		{"status", "--table", table},
		{"status", "--prefix", "nothing"},
	} {
		code, stdout, stderr := remodel(t, args...)
		fmt.Fprintf(&b, "$ remodel %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	txt, _ := os.ReadFile("status.txt")
	fmt.Fprintf(&b, "--- status.txt\n%s", txt)
	files, _ := filepath.Glob("*")
	fmt.Fprintf(&b, "--- files left in the folder\n%s\n", strings.Join(files, "\n"))
	host, _ := os.Hostname()
	got := normalize(b.String(), table, "TABLE", host, "HOST", fmt.Sprint(os.Getpid()), "PID")
	for _, re := range []struct{ re, to string }{
		{`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`, "TIME"},
		{`in \d+\.\ds`, "in Ns"},
		{`"seconds": [0-9.e+-]+`, `"seconds": N`},
		{`(?m)^(-\s+TABLE\s+)\d+\s+\d+`, "${1}ROWS ITEMS"},
		{`"(rows_settled|items_written)": [1-9]\d*`, `"$1": N`},
		{`(?m)^(total\s+)\d+\s+\d+`, "${1}ROWS ITEMS"},
		{`(\S) {2,}`, "$1 "}, // the columns' widths follow the numbers
	} {
		got = regexp.MustCompile(re.re).ReplaceAllString(got, re.to)
	}
	return got
}

// TestOutputFileEverywhere: introspect, preview (and its analysis), status
// and validate take --output-file [FORMAT=]FILE as migrate and verify do,
// writing the file in FORMAT, or in the format its extension names.
func TestOutputFileEverywhere(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	dsn, m := tiny(t, "postgres")
	dir := t.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	var b strings.Builder
	for _, args := range [][]string{
		{"introspect", "--source", dsn, "--output-file", f("erd.json"), "--output-file", "mermaid=" + f("erd.txt")},
		{"preview", "--source", dsn, "-m", m, "--rows", "1", "--output", "json", "--output-file", "text=" + f("preview.txt")},
		{"preview", "--source", dsn, "-m", m, "--analyze", "--progress", "none", "--output-file", f("analysis.md")},
		{"preview", "--source", dsn, "-m", m, "--output-file", f("preview.md")},
		{"preview", "--source", dsn, "-m", m, "--document", f("d.md"), "--output-file", f("x.json")},
	} {
		code, _, stderr := remodel(t, args...)
		fmt.Fprintf(&b, "$ remodel %s\nexit %d\n%s", strings.Join(args, " "), code, stderr)
		files, _ := filepath.Glob(f("*"))
		for _, p := range files {
			data, _ := os.ReadFile(p)
			if strings.HasSuffix(p, ".json") { // its first lines say the format
				data = []byte(strings.Join(strings.SplitN(string(data), "\n", 4)[:3], "\n") + "\n...\n")
			} else if lines := strings.SplitN(string(data), "\n", 6); len(lines) == 6 {
				data = []byte(strings.Join(lines[:5], "\n") + "\n...\n")
			}
			fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(p), data)
			os.Remove(p)
		}
	}
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	got := normalize(b.String(), dsn, "$DSN", filepath.Dir(m), "$MAPPINGDIR", dir, "$DIR", name, "DB")
	golden.Check(t, "output_file.golden", []byte(got))
}

// TestHelpExamples: every command's --help ends in an Examples: section
// (the golden file holds them all), and every example is a command line
// the CLI accepts (run as TestReadmeCommands runs the README's).
func TestHelpExamples(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "summary.md") // the examples' variables, expanded as they are read
	for _, v := range []string{"DSN", "PG_DSN", "MYSQL_DSN"} {
		t.Setenv(v, "postgres://remodel@127.0.0.1:1/none")
	}
	var b strings.Builder
	root := (&app{}).root()
	for _, c := range root.Commands() {
		code, help, _ := remodel(t, c.Name(), "--help")
		_, examples, ok := strings.Cut(help, "\nExamples:\n")
		if code != 0 || !ok {
			t.Errorf("%s --help has no Examples: section", c.Name())
			continue
		}
		examples, _, _ = strings.Cut(examples, "\n\n")
		fmt.Fprintf(&b, "%s\n%s\n\n", c.Name(), examples)
		for _, line := range strings.Split(examples, "\n") {
			args := shellWords(strings.TrimSpace(line))
			if len(args) == 0 {
				t.Errorf("%s --help: example %q is no remodel command", c.Name(), line)
				continue
			}
			var code int
			var stderr string
			t.Run("", func(t *testing.T) {
				commandWorkspace(t, args[0])
				code, _, stderr = remodel(t, args...)
			})
			if code == exitUsage {
				t.Errorf("%s --help: example %q exits 2:\n%s", c.Name(), line, stderr)
			}
		}
	}
	golden.Check(t, "help_examples.golden", []byte(b.String()))
}

// TestDemoLeavesOthersDatabases: make demo (scripts/demo.sh) with DEMO_DB
// naming a database it did not create refuses, names it, and leaves it
// there (before, the demo dropped remodel_demo whoever had made it).
func TestDemoLeavesOthersDatabases(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("no psql")
	}
	dsn := testenv.Engines[0].Fresh(t) // a database of the test's, not the demo's
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	cmd := exec.Command("scripts/demo.sh")
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "DEMO_DB="+name, "DEMO_DYNAMODB_PORT=1")
	out, err := cmd.CombinedOutput()
	got := normalize(string(out[max(0, strings.Index(string(out), "demo: ")):]), name, "DB")
	if err == nil {
		t.Fatalf("demo.sh with a database it did not create succeeded:\n%s", out)
	}
	testenv.Engines[0].Exec(t, dsn, "SELECT 1") // still there
	golden.Check(t, "demo_refuses.golden", []byte(got))
}
