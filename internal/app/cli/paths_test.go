package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// Nothing listens on port 1: a command that got as far as its source or
// DynamoDB fails with exit status 3, not 2.
const (
	deadSource   = "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"
	deadEndpoint = "http://127.0.0.1:1"
)

// TestOutputNamesInput: a file a command writes may not be a file it reads
// (the mapping, verify's --rejects, preview's --traffic) or another file it
// writes, however it is spelt, through a symbolic link or as a hard link.
// The command is refused with exit status 2 before it opens anything, and
// the mapping is intact.
func TestOutputNamesInput(t *testing.T) {
	awsEnv(t)
	migrate := []string{"migrate", "--source", deadSource, "--endpoint-url", deadEndpoint}
	verify := []string{"verify", "--source", deadSource, "--endpoint-url", deadEndpoint, "-m", "m.yaml"}
	preview := []string{"preview", "--source", deadSource}
	followBack := []string{"follow-back", "--source", deadSource, "--endpoint-url", deadEndpoint}
	cases := []struct {
		name    string
		setup   func(t *testing.T) // in the test's directory, where m.yaml is the mapping
		mapping string             // the mapping file, m.yaml if ""
		args    []string
		code    int
		stderr  string // exact, without the "remodel: " and newline; "" for code 3
	}{{
		name: "migrate --rejects and --checkpoint one file",
		args: append(migrate, "-m", "m.yaml", "--rejects", "x.json", "--checkpoint", "x.json"),
		code: exitUsage, stderr: "--rejects and --checkpoint name the same file (x.json): choose two different files",
	}, {
		name:  "migrate --rejects and --checkpoint spelt apart",
		setup: func(t *testing.T) { mkdir(t, "sub") },
		args:  append(migrate, "-m", "m.yaml", "--rejects", "./x.json", "--checkpoint", "sub/../x.json"),
		code:  exitUsage, stderr: "--rejects and --checkpoint name the same file (./x.json = sub/../x.json): choose two different files",
	}, {
		name: "migrate --rejects names the mapping as ./",
		args: append(migrate, "-m", "m.yaml", "--rejects", "./m.yaml"),
		code: exitUsage, stderr: "--rejects and --mapping name the same file (./m.yaml = m.yaml): --rejects would overwrite the file --mapping reads; choose another file",
	}, {
		name:  "migrate --checkpoint is a symbolic link to the mapping",
		setup: func(t *testing.T) { symlink(t, "m.yaml", "link.json") },
		args:  append(migrate, "-m", "m.yaml", "--checkpoint", "link.json"),
		code:  exitUsage, stderr: "--checkpoint and --mapping name the same file (link.json = m.yaml): --checkpoint would overwrite the file --mapping reads; choose another file",
	}, {
		name:  "migrate --rejects in a symbolic link to the mapping's directory",
		setup: func(t *testing.T) { symlink(t, ".", "here") },
		args:  append(migrate, "-m", "m.yaml", "--rejects", "here/m.yaml"),
		code:  exitUsage, stderr: "--rejects and --mapping name the same file (here/m.yaml = m.yaml): --rejects would overwrite the file --mapping reads; choose another file",
	}, {
		name: "migrate --report-json (deprecated) is a hard link of the mapping",
		setup: func(t *testing.T) {
			if err := os.Link("m.yaml", "hard.json"); err != nil {
				t.Fatal(err)
			}
		},
		args: append(migrate, "-m", "m.yaml", "--report-json", "hard.json"),
		code: exitUsage, stderr: "--report-json hard.json is deprecated and will be removed: use --output-file json=hard.json\nremodel: --report-json and --mapping name the same file (hard.json = m.yaml): --report-json would overwrite the file --mapping reads; choose another file",
	}, {
		name:  "migrate --rejects is a dangling link to --checkpoint",
		setup: func(t *testing.T) { symlink(t, "target.json", "out.json") },
		args:  append(migrate, "-m", "m.yaml", "--rejects", "out.json", "--checkpoint", "target.json"),
		code:  exitUsage, stderr: "--rejects and --checkpoint name the same file (out.json = target.json): choose two different files",
	}, {
		name:    "migrate's default checkpoint is the mapping",
		mapping: "tiny.remodel-checkpoint.json",
		args:    append(migrate, "-m", "./tiny.remodel-checkpoint.json"),
		code:    exitUsage, stderr: "the default --checkpoint and --mapping name the same file (tiny.remodel-checkpoint.json = ./tiny.remodel-checkpoint.json): the default --checkpoint would overwrite the file --mapping reads; choose another file",
	}, {
		name:    "migrate's default checkpoint of --table is the mapping",
		mapping: "other.remodel-checkpoint.json",
		args:    append(migrate, "-m", "other.remodel-checkpoint.json", "--table", "other"),
		code:    exitUsage, stderr: "the default --checkpoint and --mapping name the same file (other.remodel-checkpoint.json): the default --checkpoint would overwrite the file --mapping reads; choose another file",
	}, {
		name:    "migrate's default rejects file is the mapping",
		mapping: "tiny.remodel-rejects.jsonl",
		args:    append(migrate, "-m", "tiny.remodel-rejects.jsonl"),
		code:    exitUsage, stderr: "the default --rejects and --mapping name the same file (tiny.remodel-rejects.jsonl): the default --rejects would overwrite the file --mapping reads; choose another file",
	}, {
		name:  "migrate --resume: the checkpoint's rejects file is the mapping",
		setup: func(t *testing.T) { write(t, "ck.json", `{"version": 1, "rejects_file": "./m.yaml"}`) },
		args:  append(migrate, "-m", "m.yaml", "--resume", "--checkpoint", "ck.json"),
		code:  exitUsage, stderr: "the checkpoint's rejects file and --mapping name the same file (./m.yaml = m.yaml): the checkpoint's rejects file would overwrite the file --mapping reads; choose another file",
	}, {
		name: "migrate with files of its own runs",
		args: append(migrate, "-m", "m.yaml", "--rejects", "r.jsonl", "--checkpoint", "c.json", "--output-file", "rep.json"),
		code: exitError,
	}, {
		name:  "verify --output-file names its --rejects",
		setup: func(t *testing.T) { write(t, "r.jsonl", "") },
		args:  append(verify, "--rejects", "r.jsonl", "--output-file", "junit=./r.jsonl"),
		code:  exitUsage, stderr: "--output-file junit=./r.jsonl and --rejects name the same file (./r.jsonl = r.jsonl): --output-file junit=./r.jsonl would overwrite the file --rejects reads; choose another file",
	}, {
		name: "verify --output names the mapping (deprecated --output FILE)",
		args: append(verify, "--output", "./m.yaml"),
		code: exitUsage, stderr: "--output ./m.yaml is deprecated and will be removed: use --output-file ./m.yaml\nremodel: --output ./m.yaml and --mapping name the same file (./m.yaml = m.yaml): --output ./m.yaml would overwrite the file --mapping reads; choose another file",
	}, {
		name: "verify two --output-file one file",
		args: append(verify, "--output-file", "v.json", "--output-file", "junit=v.json"),
		code: exitUsage, stderr: "--output-file v.json and --output-file junit=v.json name the same file (v.json): choose two different files",
	}, {
		name: "export --output-file names the mapping",
		args: []string{"export", "--output", "cloudformation", "-m", "m.yaml", "--output-file", "./m.yaml"},
		code: exitUsage, stderr: "--output-file and --mapping name the same file (./m.yaml = m.yaml): --output-file would overwrite the file --mapping reads; choose another file",
	}, {
		name: "export --output-file - is stdout",
		args: []string{"export", "--output", "cloudformation", "-m", "m.yaml", "--output-file", "-"},
		code: exitOK,
	}, {
		name:    "preview --document names the mapping",
		mapping: "m.md",
		args:    append(preview, "-m", "m.md", "--document", "./m.md"),
		code:    exitUsage, stderr: "--document and --mapping name the same file (./m.md = m.md): --document would overwrite the file --mapping reads; choose another file",
	}, {
		name:  "preview --document names --traffic",
		setup: func(t *testing.T) { write(t, "t.md", "{}\n") },
		args:  append(preview, "-m", "m.yaml", "--analyze", "--traffic", "t.md", "--document", "t.md"),
		code:  exitUsage, stderr: "--document and --traffic name the same file (t.md): --document would overwrite the file --traffic reads; choose another file",
	}, {
		name: "follow-back --dead-letter names the mapping",
		args: append(followBack, "-m", "m.yaml", "--dead-letter", "./m.yaml"),
		code: exitUsage, stderr: "--dead-letter and --mapping name the same file (./m.yaml = m.yaml): --dead-letter would overwrite the file --mapping reads; choose another file",
	}, {
		name:    "follow-back's checkpoint journal is the mapping",
		mapping: "c.json.journal",
		args:    append(followBack, "-m", "c.json.journal", "--checkpoint", "c.json"),
		code:    exitUsage, stderr: "the journal of --checkpoint and --mapping name the same file (c.json.journal): the journal of --checkpoint would overwrite the file --mapping reads; choose another file",
	}, {
		name: "follow-back --checkpoint and --dead-letter one file",
		args: append(followBack, "-m", "m.yaml", "--checkpoint", "x.json", "--dead-letter", "x.json"),
		code: exitUsage, stderr: "--checkpoint and --dead-letter name the same file (x.json): choose two different files",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			mappingFile := tc.mapping
			if mappingFile == "" {
				mappingFile = "m.yaml"
			}
			write(t, mappingFile, tinyMapping)
			if tc.setup != nil {
				tc.setup(t)
			}
			code, out, errOut := remodel(t, tc.args...)
			if code != tc.code || tc.stderr != "" && errOut != "remodel: "+tc.stderr+"\n" || tc.code != exitUsage && strings.Contains(errOut, "same file") {
				t.Errorf("remodel %q: exit %d, stderr:\n%s\nwant exit %d, stderr:\nremodel: %s\nstdout:\n%s", tc.args, code, errOut, tc.code, tc.stderr, out)
			}
			if b, err := os.ReadFile(mappingFile); err != nil || string(b) != tinyMapping {
				t.Errorf("the mapping file %s is changed (%v):\n%s", mappingFile, err, b)
			}
		})
	}
}

// TestRejectsOverMappingRefused: migrate --rejects naming the mapping, or
// --checkpoint naming the rejects file, with a source and DynamoDB to run
// against and a row to reject, is refused and the mapping is intact
// (migrate would remove the rejects file when it starts, write the
// rejected row into it, and remove the checkpoint when it succeeds).
func TestRejectsOverMappingRefused(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, _ := tiny(t, "postgres")
	testenv.ExecPostgres(t, dsn, "INSERT INTO items VALUES (4, NULL)")
	for _, tc := range []struct {
		name   string
		args   func(m, rejects string) []string
		stderr func(m, rejects string) string
	}{{
		"--rejects names the mapping",
		func(m, _ string) []string { return []string{"--rejects", m} },
		func(m, _ string) string { return "--rejects and --mapping name the same file (" + m + ")" },
	}, {
		"--checkpoint names --rejects",
		func(_, rejects string) []string { return []string{"--rejects", rejects, "--checkpoint", rejects} },
		func(_, rejects string) string {
			return "--rejects and --checkpoint name the same file (" + rejects + ")"
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := writeFile(t, "tiny.yaml", tinyMapping)
			rejects := filepath.Join(filepath.Dir(m), "rejects.jsonl")
			_, table := testenv.DynamoDBTable(t)
			args := append([]string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--create-table", "--max-rejects", "1"}, tc.args(m, rejects)...)
			code, out, errOut := remodel(t, args...)
			if want := tc.stderr(m, rejects); code != exitUsage || !strings.HasPrefix(errOut, "remodel: "+want+": ") {
				t.Errorf("remodel %q: exit %d, stderr:\n%s\nwant exit 2 and %q\nstdout:\n%s", args, code, errOut, want, out)
			}
			if b, err := os.ReadFile(m); err != nil || string(b) != tinyMapping {
				t.Errorf("the mapping file is changed (%v):\n%s", err, b)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
