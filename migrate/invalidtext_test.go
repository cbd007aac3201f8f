package migrate_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestRejectsInvalidUTF8: in a SQL_ASCII PostgreSQL database, text keys
// that differ only in a byte that is not UTF-8 are rejected, each under
// its own escaped key in the rejects file (whose JSON would otherwise turn
// both bytes into the same U+FFFD); the valid row is written.
func TestRejectsInvalidUTF8(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	dsn := testenv.PostgresWith(t, "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE words (name text PRIMARY KEY, note text);
INSERT INTO words VALUES (E'caf\xe9', 'e acute'), (E'caf\xe8', 'e grave'), ('café', 'utf-8'), ('tea', E'na\xefve');`)
	fx := open(t, dsn, "mapping.yaml", `version: 1
table: {name: words, key: {pk: PK}}
entities:
  word: {from: words, pk: "WORD#{name}"}
`)
	db := newDB(t, endpoint)
	ctx := testContext(t)
	table := tableName(t, db)
	o := fx.options(db, table)
	o.CreateTable = true
	o.MaxRejects = 10
	o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.ItemsWritten != 1 || rep.Rejected != 3 {
		t.Errorf("%d written, %d rejected; want 1 and 3", rep.ItemsWritten, rep.Rejected)
	}
	raw := []byte(readFile(t, o.RejectsPath))
	if bytes.Contains(raw, []byte("\uFFFD")) || bytes.Contains(raw, []byte(`\ufffd`)) {
		t.Errorf("the rejects file holds U+FFFD:\n%s", raw)
	}
	got := rejectLines(t, o.RejectsPath)
	slices.SortFunc(got, func(a, b migrate.Rejection) int { return bytes.Compare([]byte(a.Row), []byte(b.Row)) })
	want := []migrate.Rejection{
		{Entity: "word", Row: `name="caf\xe8"`, Reason: "rendering PK: {name}: text is not valid UTF-8 (byte 0xe8 at offset 3)"},
		{Entity: "word", Row: `name="caf\xe9"`, Reason: "rendering PK: {name}: text is not valid UTF-8 (byte 0xe9 at offset 3)"},
		{Entity: "word", Row: `name=tea`, Reason: "column note (text): text is not valid UTF-8 (byte 0xef at offset 2)"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("rejects file:\n got  %q\n want %q\nfile:\n%s", got, want, raw)
	}
	if n, _ := scan(t, db, table); n != 1 {
		t.Errorf("the table holds %d items, want the row café", n)
	}
}
