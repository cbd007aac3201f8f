package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

type libWrite struct {
	Lib    string         `json:"lib"`
	Entity string         `json:"entity"`
	Item   map[string]any `json:"item"`
}

// runWrites runs testdata/libs/run.mjs with writes only: each write's
// error ("" when it was written).
func runWrites(t *testing.T, dir, node, endpoint, table, electro, onetable string, writes []libWrite) []string {
	t.Helper()
	job, _ := json.Marshal(map[string]any{"endpoint": endpoint, "table": table, "electrodb": electro, "onetable": onetable, "writes": writes})
	jf := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(jf, job, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runJob(t, dir, node, jf)
	var out []string
	for _, w := range r.Writes {
		out = append(out, w.Error)
	}
	if len(out) != len(writes) {
		t.Fatalf("%d write results for %d writes", len(out), len(writes))
	}
	return out
}

// TestLibraryWritesVerify migrates the personalization example with every
// marker (table.markers) into DynamoDB Local, writes a new user through
// the exported ElectroDB module and another through the exported OneTable
// schema, inserts the same two rows in the source, and runs remodel
// verify: it passes (counts, every item, every access pattern), so an item
// the application writes through its library is the item remodel writes
// for the row. Then a user written through a module whose prefix is broken
// (USER# → USR#) and one through a schema whose pad width is broken
// (${user_id} → ${user_id:8:0}), with their rows inserted: verify fails.
func TestLibraryWritesVerify(t *testing.T) {
	dir, node := exportLibs(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	ctx := context.Background()
	dsn := testenv.Postgres(t)
	testenv.LoadExample(t, "postgres", dsn, "../../../examples/personalization")
	endpoint := testenv.DynamoDB(t)
	db, table := testenv.DynamoDBTable(t)
	marked := testenv.EditedFile(t, personalizationMapping, "entity_attribute: _type", "entity_attribute: _type\n  markers: [electrodb, onetable, version]")
	if code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", marked, "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "checkpoint.json")); code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	electro, onetable := exportLibs2(t, dsn, marked, table)

	// The created_at of user 1 as the source holds it and as remodel wrote it.
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#1"}, "SK": &types.AttributeValueMemberS{Value: "USER#"}}})
	if err != nil || got.Item == nil {
		t.Fatalf("user 1: %v", err)
	}
	createdAt := testenv.AttrText(got.Item, "createdAt")
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	user := func(id int, lib string) map[string]any {
		return map[string]any{"user_id": id, "email": fmt.Sprintf("%s%d@example.com", lib, id), "name": "written by " + lib, "isActive": true, "createdAt": createdAt}
	}
	insert := func(id int, lib string) {
		t.Helper()
		if _, err := conn.Exec(ctx, "INSERT INTO users (user_id, email, name, is_active, created_at) SELECT $1, $2, $3, true, created_at FROM users WHERE user_id = 1",
			id, fmt.Sprintf("%s%d@example.com", lib, id), "written by "+lib); err != nil {
			t.Fatal(err)
		}
	}
	verify := func() (int, string) {
		code, out, errOut := remodel(t, "verify", "--source", dsn, "-m", marked, "--endpoint", endpoint, "--table", table, "--samples", "3", "--progress", "none")
		return code, out + errOut
	}

	errs := runWrites(t, dir, node, endpoint, table, electro, onetable, []libWrite{
		{"electrodb", "user", user(900001, "electrodb")},
		{"onetable", "user", user(900002, "onetable")},
	})
	for i, e := range errs {
		if e != "" {
			t.Fatalf("write %d: %s", i, e)
		}
	}
	insert(900001, "electrodb")
	insert(900002, "onetable")
	if code, out := verify(); code != 0 || !strings.HasPrefix(out, "verify PASS") {
		t.Fatalf("verify after the libraries' writes: exit %d\n%s", code, out)
	}

	// Broken on purpose: a prefix in ElectroDB's module, a pad width in
	// OneTable's schema.
	for _, c := range []struct {
		file, old, new, lib string
		id                  int
	}{
		{electro, `template: "USER#${user_id}"`, `template: "USR#${user_id}"`, "electrodb", 900003},
		{onetable, `"value": "USER#${user_id}"`, `"value": "USER#${user_id:8:0}"`, "onetable", 900004},
	} {
		b, _ := os.ReadFile(c.file)
		// Every occurrence: ElectroDB refuses a key template that differs
		// between two indexes.
		broken := strings.ReplaceAll(string(b), c.old, c.new)
		if broken == string(b) {
			t.Fatalf("%q is not in %s", c.old, c.file)
		}
		bf := filepath.Join(t.TempDir(), filepath.Base(c.file))
		if err := os.WriteFile(bf, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		e, o := electro, onetable
		if c.lib == "electrodb" {
			e = bf
		} else {
			o = bf
		}
		if errs := runWrites(t, dir, node, endpoint, table, e, o, []libWrite{{c.lib, "user", user(c.id, c.lib)}}); errs[0] != "" {
			t.Fatalf("write through the broken %s: %s", c.lib, errs[0])
		}
		insert(c.id, c.lib)
		code, out := verify()
		if code == 0 || !strings.Contains(out, "FAIL") {
			t.Errorf("%s → %s: verify passes after a write through it: exit %d\n%s", c.old, c.new, code, out)
		}
		// Put things back for the next: the row out of the source, the
		// item out of the table.
		if _, err := conn.Exec(ctx, "DELETE FROM users WHERE user_id = $1", c.id); err != nil {
			t.Fatal(err)
		}
		if code, out := verify(); code == 0 {
			t.Fatalf("verify passes with the stray item of %s still in the table:\n%s", c.lib, out)
		}
		deleteStray(t, db, table)
		if code, out := verify(); code != 0 {
			t.Fatalf("verify after the stray item is deleted: exit %d\n%s", code, out)
		}
	}
}

// deleteStray deletes the items a broken library wrote: their keys begin
// with USR# or USER#00.
func deleteStray(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	in := &dynamodb.ScanInput{TableName: aws.String(table)}
	for {
		r, err := db.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Items {
			pk := testenv.AttrText(it, "PK")
			if strings.HasPrefix(pk, "USR#") || strings.HasPrefix(pk, "USER#00") {
				if _, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(r.LastEvaluatedKey) == 0 {
			return
		}
		in.ExclusiveStartKey = r.LastEvaluatedKey
	}
}
