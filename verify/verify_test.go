package verify_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

const example = "../examples/personalization"

// migrated loads the personalization example into a fresh database of the
// engine, migrates it into a fresh table and returns what verify needs.
func migrated(t *testing.T, engine string, fresh func(testing.TB) string, mappingText string) verify.Options {
	t.Helper()
	ctx := context.Background()
	dsn := fresh(t)
	testenv.LoadExample(t, engine, dsn, example)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compile(t, src, mappingText)
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if rep.ItemsWritten != 6828 {
		t.Fatalf("migrate wrote %d items, want the example's 6828 rows", rep.ItemsWritten)
	}
	return verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 5}
}

func compile(t *testing.T, src source.Source, text string) *mapping.Plan {
	t.Helper()
	f, err := mapping.Parse("mapping.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := src.Inspect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func exampleMapping(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(example + "/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func run(t *testing.T, o verify.Options) *verify.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return rep
}

func text(rep *verify.Report) string {
	var b strings.Builder
	report.Write(&b, report.Text, rep)
	return b.String()
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk},
		"SK": &types.AttributeValueMemberS{Value: sk},
	}
}

// getItem reads the item with this key from o's table (nil when there is none).
func getItem(t *testing.T, o verify.Options, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := o.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(o.Table), Key: key(pk, sk)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// putItem writes item into o's table, replacing the item with its key.
func putItem(t *testing.T, o verify.Options, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := o.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(o.Table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// breakItem is a subtest, name: it changes the item (pk, sk) in o's table,
// runs verify and puts the item back. verify must fail with problems of
// the row sourceKey only: differences in the attributes wantDiff and the
// oracle's findings in wantOracle (space-separated, in problem order).
func breakItem(t *testing.T, o verify.Options, pk, sk, sourceKey, name string, change func(item map[string]types.AttributeValue), wantDiff, wantOracle string) {
	t.Run(name, func(t *testing.T) {
		orig := getItem(t, o, pk, sk)
		item := getItem(t, o, pk, sk)
		change(item)
		putItem(t, o, item)
		defer putItem(t, o, orig)
		rep := run(t, o)
		if rep.OK {
			t.Fatalf("verify passed:\n%s", text(rep))
		}
		attrs := map[verify.Kind][]string{}
		for _, p := range rep.Items[0].Problems.List {
			if p.SourceKey != sourceKey {
				t.Errorf("a problem of another row: %+v", p)
			}
			attrs[p.Kind] = append(attrs[p.Kind], p.Attribute)
		}
		if got := strings.Join(attrs[verify.KindDifferent], " "); got != wantDiff {
			t.Errorf("differences in %q, want %q\n%s", got, wantDiff, text(rep))
		}
		if got := strings.Join(attrs[verify.KindValueMismatch], " "); got != wantOracle {
			t.Errorf("the oracle found %q, want %q\n%s", got, wantOracle, text(rep))
		}
	})
}

// TestVerify breaks a migrated table on purpose, one way per subtest, and
// shows verify names the item that is wrong — on both engines.
func TestVerify(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := context.Background()

			t.Run("passes on a faithful migration", func(t *testing.T) {
				o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
				rep := run(t, o)
				if !rep.OK {
					t.Fatalf("verify failed on an untouched migration:\n%s", text(rep))
				}
				if len(rep.Patterns) != 6 || len(rep.Items) != 5 || len(rep.Counts) != 5 {
					t.Fatalf("report has %d patterns, %d item checks, %d counts; want 6, 5, 5", len(rep.Patterns), len(rep.Items), len(rep.Counts))
				}
				for _, p := range rep.Patterns {
					if p.Samples == 0 || p.Items == 0 {
						t.Errorf("access pattern %s checked %d samples and %d items: it proved nothing", p.Name, p.Samples, p.Items)
					}
				}
			})

			t.Run("deleted item", func(t *testing.T) {
				o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
				if _, err := o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.Table), Key: key("USER#7", "PERSONAL#news#theme")}); err != nil {
					t.Fatal(err)
				}
				// Make sure the row exists, so the deletion removed a real item.
				rep := run(t, o)
				out := text(rep)
				if rep.OK {
					t.Fatalf("verify passed after an item was deleted:\n%s", out)
				}
				if !strings.Contains(out, "missing item PK=USER#7 SK=PERSONAL#news#theme") {
					t.Fatalf("verify did not name the deleted item:\n%s", out)
				}
				for _, c := range rep.Counts {
					if c.Entity == "personal" && (c.OK || c.Source-c.Items != 1) {
						t.Errorf("personal count check = %+v, want one item short", c)
					}
				}
			})

			t.Run("changed attribute", func(t *testing.T) {
				o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
				_, err := o.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(o.Table), Key: key("USER#7", "USER#"),
					UpdateExpression:          aws.String("SET #n = :v"),
					ExpressionAttributeNames:  map[string]string{"#n": "name"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "Mallory"}},
					ConditionExpression:       aws.String("attribute_exists(PK)"),
				})
				if err != nil {
					t.Fatal(err)
				}
				rep := run(t, o)
				out := text(rep)
				if rep.OK {
					t.Fatalf("verify passed after an attribute changed:\n%s", out)
				}
				if !strings.Contains(out, `item PK=USER#7 SK=USER# (entity user, row user_id=7) differs: name is S "Mallory"`) {
					t.Fatalf("verify did not name the changed item and attribute:\n%s", out)
				}
			})

			t.Run("stray item", func(t *testing.T) {
				o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
				item := key("GHOST#1", "GHOST#")
				item["_type"] = &types.AttributeValueMemberS{Value: "ghost"}
				putItem(t, o, item)
				rep := run(t, o)
				if rep.OK || rep.Stray.Total != 1 || len(rep.Stray.List) != 1 || rep.Stray.List[0].Key != "PK=GHOST#1 SK=GHOST#" || rep.Stray.List[0].Kind != verify.KindStray {
					t.Fatalf("verify did not report the stray item: ok=%v stray=%+v", rep.OK, rep.Stray)
				}
			})

			t.Run("prefix without separator", func(t *testing.T) {
				// begins_with PERSONAL#news also matches PERSONAL#newsletter#…:
				// the Query returns more than the SQL. User 1 has both.
				m := strings.Replace(exampleMapping(t),
					`query: {pk: "USER#{user_id}", sk: {begins_with: "PERSONAL#{service}#"}}`,
					`query: {pk: "USER#{user_id}", sk: {begins_with: "PERSONAL#{service}"}}
    params: SELECT user_id, service FROM personal WHERE user_id = 1 AND service = 'news'`, 1)
				if !strings.Contains(m, `"PERSONAL#{service}"}}`) {
					t.Fatal("the example mapping changed; update this test's replacement")
				}
				o := migrated(t, eng.Name, eng.Fresh, m)
				rep := run(t, o)
				out := text(rep)
				if rep.OK {
					t.Fatalf("verify passed a begins_with that also matches newsletter:\n%s", out)
				}
				if !strings.Contains(out, "{user_id=1, service=news}: the Query returns item PK=USER#1 SK=PERSONAL#newsletter#") {
					t.Fatalf("verify did not name the extra newsletter item:\n%s", out)
				}
			})
		})
	}
}

func TestVerifyEmptyTableFailsEveryCount(t *testing.T) {
	eng := testenv.Engines[0]
	ctx := context.Background()
	dsn := eng.Fresh(t)
	testenv.LoadExample(t, eng.Name, dsn, example)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	plan := compile(t, src, exampleMapping(t))
	if err := migrate.CreateTable(ctx, db, &plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := run(t, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 3, Settle: time.Second})
	if rep.OK {
		t.Fatalf("verify passed on an empty table:\n%s", text(rep))
	}
	for _, c := range rep.Counts {
		if c.OK || c.Items != 0 {
			t.Errorf("count check %+v should fail with 0 items", c)
		}
	}
	for _, p := range rep.Patterns {
		if p.OK {
			t.Errorf("access pattern %s passed on an empty table", p.Name)
		}
	}
}
