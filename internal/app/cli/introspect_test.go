package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

func TestIntrospectUsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--output", "dot"}, `--output must be text, json or mermaid, got "dot"`},
		{[]string{"--include", "["}, `--include: table pattern "[" is malformed: syntax error in pattern`},
		{[]string{"--include", "a", "--exclude", ""}, `--exclude: empty table pattern`},
		{[]string{"--exclude", "x[", "--output", "svg", "--include", "[z"},
			"--output must be text, json or mermaid, got \"svg\"\nremodel: --include: table pattern \"[z\" is malformed: syntax error in pattern\nremodel: --exclude: table pattern \"x[\" is malformed: syntax error in pattern"},
	} {
		args := append([]string{"introspect", "--source", "postgres://127.0.0.1:1/x"}, tc.args...)
		code, out, errOut := remodel(t, args...)
		if code != exitUsage || out != "" || errOut != "remodel: "+tc.want+"\n" {
			t.Errorf("remodel %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\nremodel: %s", args, code, out, errOut, exitUsage, tc.want)
		}
	}
}

// erdSchema has a parent, a child with a nullable foreign key, a one-to-one
// table, and a table the filters leave out.
const erdSchema = `
CREATE TABLE authors (id int NOT NULL PRIMARY KEY, email varchar(50) NOT NULL, CONSTRAINT authors_email_uk UNIQUE (email));
CREATE TABLE books (
	id int NOT NULL PRIMARY KEY,
	author_id int,
	title varchar(100) NOT NULL,
	CONSTRAINT books_author_fk FOREIGN KEY (author_id) REFERENCES authors (id)
);
CREATE INDEX books_title_idx ON books (title);
CREATE TABLE author_bios (author_id int NOT NULL PRIMARY KEY, bio text, CONSTRAINT bios_author_fk FOREIGN KEY (author_id) REFERENCES authors (id));
CREATE TABLE tmp_scratch (x int);
INSERT INTO authors VALUES (1, 'a@example.com'), (2, 'b@example.com');
INSERT INTO books VALUES (1, 1, 'One'), (2, NULL, 'Two'), (3, 2, 'Three');
`

// TestIntrospectERD runs introspect on both engines in its three formats,
// with table filters.
func TestIntrospectERD(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, erdSchema)

			code, out, errOut := remodel(t, "introspect", "--source", dsn, "--output", "mermaid", "--exclude", "tmp_*")
			if code != 0 {
				t.Fatalf("introspect --output mermaid: exit %d\n%s", code, errOut)
			}
			for _, want := range []string{
				"erDiagram\n",
				"    authors {\n        int",
				" email UK\n",
				"    authors |o..o{ books : \"author_id\"\n",
				"    authors ||--o| author_bios : \"author_id\"\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("introspect --output mermaid lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "tmp_scratch") {
				t.Errorf("--exclude tmp_* left tmp_scratch in:\n%s", out)
			}

			code, out, errOut = remodel(t, "introspect", "--source", dsn, "--include", "books", "--include", "auth*", "--exclude", "author_bios", "--output", "json")
			var s introspect.Schema
			if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
				t.Fatalf("introspect --output json: exit %d\n%s%s", code, out, errOut)
			}
			if got := strings.Join(s.TableNames(), " "); got != "authors books" {
				t.Errorf("--table books --table auth* --exclude author_bios: tables %s, want authors books", got)
			}
			authors, err := s.Table("authors")
			if err != nil {
				t.Fatal(err)
			}
			if len(authors.UniqueKeys) != 1 || authors.UniqueKeys[0].Name != "authors_email_uk" || len(authors.Indexes) != 2 {
				t.Errorf("authors: unique keys %+v, indexes %+v; want authors_email_uk, and two indexes", authors.UniqueKeys, authors.Indexes)
			}
			if n, _, known := authors.Rows(); !known || n != 2 {
				t.Errorf("authors: rows %d (known %v), want 2", n, known)
			}
			if !strings.Contains(out, `"row_estimate": 2`) {
				t.Errorf("the JSON has no row_estimate of 2:\n%s", out)
			}

			code, out, errOut = remodel(t, "introspect", "--source", dsn, "--include", "books")
			for _, want := range []string{
				"database ", ", 1 tables\n",
				"  author_id  int",
				"  foreign key books_author_fk (author_id) references ",
				"  index books_title_idx (title)\n",
			} {
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("introspect --include books: exit %d, output lacks %q:\n%s%s", code, want, out, errOut)
				}
			}

			// An --include that matches nothing is an error (exit 3), and
			// nothing is printed.
			code, out, errOut = remodel(t, "introspect", "--source", dsn, "--include", "Books", "--include", "nope*", "--include", "authors")
			want := "remodel: --include \"Books\" matches no table of the source\nremodel: --include \"nope*\" matches no table of the source\n"
			if code != exitError || out != "" || errOut != want {
				t.Errorf("unmatched --include: exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, exitError, want)
			}
		})
	}
}
