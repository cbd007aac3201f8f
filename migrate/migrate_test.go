package migrate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestPersonalization migrates the personalization example into a table
// that Run creates, and checks every row landed, entity by entity, with the
// table's keys and indexes as the mapping declares them.
func TestPersonalization(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := personalization(t, eng)
			if fx.total == 0 {
				t.Fatal("the example loaded no rows")
			}
			db := newDB(t, endpoint)
			table := tableName(t, db)
			ctx := testContext(t)
			o := fx.options(db, table)
			o.CreateTable = true
			o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
			// A file left by an earlier run must not survive to tell of rows
			// this run did not reject.
			if err := os.WriteFile(o.RejectsPath, []byte(`{"entity":"user","row":"user_id=1","reason":"old"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkLanded(t, fx, rep, db, table)
			if !rep.CreatedTable || rep.Table != table || rep.Engine != eng.Name {
				t.Errorf("report: created %v, table %q, engine %q", rep.CreatedTable, rep.Table, rep.Engine)
			}
			if rep.Retries != 0 || rep.Throttled != 0 {
				t.Errorf("DynamoDB Local never pushes back, yet the report has %d retries, %d throttled", rep.Retries, rep.Throttled)
			}
			if rep.WriteUnits < float64(fx.total) {
				t.Errorf("%.1f write units for %d items", rep.WriteUnits, fx.total)
			}
			// The rejects file is always written: empty, the earlier run's
			// line gone.
			if b, err := os.ReadFile(o.RejectsPath); err != nil || len(b) != 0 || rep.RejectsFile != "" {
				t.Errorf("no row was rejected, yet the rejects file is not there empty (%v, %q) or is reported (%q)", err, b, rep.RejectsFile)
			}

			out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(out.Table.KeySchema); got != "PK/SK" {
				t.Errorf("table key %s, want PK/SK", got)
			}
			if out.Table.BillingModeSummary == nil || out.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
				t.Errorf("billing %+v, want on-demand", out.Table.BillingModeSummary)
			}
			gsis := map[string]string{}
			for _, g := range out.Table.GlobalSecondaryIndexes {
				gsis[aws.ToString(g.IndexName)] = keys(g.KeySchema)
				if g.Projection == nil || g.Projection.ProjectionType != types.ProjectionTypeAll {
					t.Errorf("index %s projects %+v, want ALL", aws.ToString(g.IndexName), g.Projection)
				}
			}
			if len(gsis) != 2 || gsis["GSI1"] != "SK/PK" || gsis["GSI2"] != "data/SK" {
				t.Errorf("global indexes %v, want GSI1 SK/PK and GSI2 data/SK", gsis)
			}

			// GSI2 is sparse: only subscribe_user items carry data.
			var n int64
			q := dynamodb.NewQueryPaginator(db, &dynamodb.QueryInput{
				TableName: aws.String(table), IndexName: aws.String("GSI2"), Select: types.SelectCount,
				KeyConditionExpression:    aws.String("#d = :v"),
				ExpressionAttributeNames:  map[string]string{"#d": "data"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "SUBSCRIBE_USER"}},
			})
			for q.HasMorePages() {
				page, err := q.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				n += int64(page.Count)
			}
			if n != fx.rows["subscribe_user"] {
				t.Errorf("GSI2 holds %d items, want the %d subscribe_user rows", n, fx.rows["subscribe_user"])
			}

			// One item in full: the renames, the non-ASCII text, the types.
			got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "USER#1"}, "SK": &types.AttributeValueMemberS{Value: "USER#"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]types.AttributeValue{
				"PK":        &types.AttributeValueMemberS{Value: "USER#1"},
				"SK":        &types.AttributeValueMemberS{Value: "USER#"},
				"_type":     &types.AttributeValueMemberS{Value: "user"},
				"user_id":   &types.AttributeValueMemberN{Value: "1"},
				"email":     &types.AttributeValueMemberS{Value: "siobhan.obrien.1@example.org"},
				"name":      &types.AttributeValueMemberS{Value: "Siobhán O'Brien"},
				"isActive":  &types.AttributeValueMemberBOOL{Value: true},
				"createdAt": &types.AttributeValueMemberS{Value: "2023-01-01T00:00:00Z"},
			}
			if d := diffItem(got.Item, want); d != "" {
				t.Errorf("item USER#1/USER#: %s", d)
			}
		})
	}
}

func keys(ks []types.KeySchemaElement) string {
	var hash, rng string
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			hash = aws.ToString(k.AttributeName)
		} else {
			rng = aws.ToString(k.AttributeName)
		}
	}
	return hash + "/" + rng
}

// diffItem compares scalar items; "" when equal.
func diffItem(got, want map[string]types.AttributeValue) string {
	var d []string
	text := func(av types.AttributeValue) string {
		switch x := av.(type) {
		case *types.AttributeValueMemberS:
			return "S:" + x.Value
		case *types.AttributeValueMemberN:
			return "N:" + x.Value
		case *types.AttributeValueMemberBOOL:
			if x.Value {
				return "BOOL:true"
			}
			return "BOOL:false"
		case nil:
			return "<missing>"
		}
		return "?"
	}
	for k, w := range want {
		if g := text(got[k]); g != text(w) {
			d = append(d, k+" = "+g+", want "+text(w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, "unexpected attribute "+k)
		}
	}
	return strings.Join(d, "; ")
}

// TestTableChecks covers the safety checks before any write: a missing
// table, creating one that exists, a non-empty table, and an existing table
// whose keys or indexes are not the mapping's.
func TestTableChecks(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := personalization(t, eng)
			db := newDB(t, endpoint)
			ctx := testContext(t)
			table := tableName(t, db)

			wantErr := func(what string, err error, parts ...string) {
				t.Helper()
				if err == nil {
					t.Errorf("%s: no error", what)
					return
				}
				for _, p := range parts {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("%s: error %q does not say %q", what, err, p)
					}
				}
			}

			// No table and no CreateTable.
			rep, err := migrate.Run(ctx, fx.options(db, table))
			wantErr("missing table", err, "table "+table+" does not exist", "--create-table")
			if rep == nil || rep.RowsRead != 0 {
				t.Errorf("missing table: report %+v", rep)
			}

			// CreateTable on an existing table.
			if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
				t.Fatal(err)
			}
			err = migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute)
			wantErr("CreateTable twice", err, "creating table "+table, "already exists")
			o := fx.options(db, table)
			o.CreateTable = true
			_, err = migrate.Run(ctx, o)
			wantErr("Run with CreateTable on an existing table", err, "already exists")
			if err := migrate.CheckTable(ctx, db, &fx.plan.Table, table); err != nil {
				t.Errorf("CheckTable on the table CreateTable made: %v", err)
			}

			// A table that holds an item is refused, untouched...
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "OTHER#1"}, "SK": &types.AttributeValueMemberS{Value: "OTHER#"},
				"_type": &types.AttributeValueMemberS{Value: "other"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err = migrate.Run(ctx, fx.options(db, table))
			wantErr("non-empty table", err, "already holds items", "--allow-non-empty")
			if n, _ := scan(t, db, table); n != 1 || rep.ItemsWritten != 0 {
				t.Errorf("non-empty table: %d items in the table, %d written; want the 1 item that was there", n, rep.ItemsWritten)
			}
			// ... unless AllowNonEmpty.
			o = fx.options(db, table)
			o.AllowNonEmpty = true
			rep, err = migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("AllowNonEmpty: %v", err)
			}
			if n, per := scan(t, db, table); n != fx.total+1 || per["other"] != 1 || rep.ItemsWritten != fx.total {
				t.Errorf("AllowNonEmpty: %d items in the table (%d other), %d written; want %d + the 1 that was there", n, per["other"], rep.ItemsWritten, fx.total)
			}

			// Tables whose keys are not the mapping's.
			attr := func(n string) types.AttributeDefinition {
				return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
			}
			key := func(h, r string) []types.KeySchemaElement {
				ks := []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}}
				if r != "" {
					ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r), KeyType: types.KeyTypeRange})
				}
				return ks
			}
			gsi := func(name, h, r string) types.GlobalSecondaryIndex {
				return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: key(h, r), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
			}
			for _, c := range []struct {
				name  string
				in    dynamodb.CreateTableInput
				parts []string
			}{
				{"other key", dynamodb.CreateTableInput{
					AttributeDefinitions: []types.AttributeDefinition{attr("id")}, KeySchema: key("id", ""),
				}, []string{"has key (id, no sort key) but the mapping says (PK, SK)"}},
				{"swapped key", dynamodb.CreateTableInput{
					AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("SK")}, KeySchema: key("SK", "PK"),
				}, []string{"has key (SK, PK) but the mapping says (PK, SK)"}},
				{"no indexes", dynamodb.CreateTableInput{
					AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("SK")}, KeySchema: key("PK", "SK"),
				}, []string{"has no index GSI1"}},
				{"key of another type", dynamodb.CreateTableInput{
					AttributeDefinitions: []types.AttributeDefinition{
						{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeN}, attr("SK"), attr("data"),
					},
					KeySchema:              key("PK", "SK"),
					GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("GSI1", "SK", "PK"), gsi("GSI2", "data", "SK")},
				}, []string{"key attribute PK of table", "has type N but the mapping says S"}},
				{"index keys differ", dynamodb.CreateTableInput{
					AttributeDefinitions: []types.AttributeDefinition{attr("PK"), attr("SK"), attr("data")}, KeySchema: key("PK", "SK"),
					GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("GSI1", "SK", "PK"), gsi("GSI2", "data", "")},
				}, []string{"index GSI2 of", "has key (data, no sort key) but the mapping says (data, SK)"}},
			} {
				name := tableName(t, db)
				c.in.TableName = aws.String(name)
				c.in.BillingMode = types.BillingModePayPerRequest
				if _, err := db.CreateTable(ctx, &c.in); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				err := migrate.CheckTable(ctx, db, &fx.plan.Table, name)
				wantErr(c.name+": CheckTable", err, c.parts...)
				rep, err := migrate.Run(ctx, fx.options(db, name))
				wantErr(c.name+": Run", err, c.parts...)
				if n, _ := scan(t, db, name); n != 0 || rep.RowsRead != 0 {
					t.Errorf("%s: %d items written, %d rows read into a table with the wrong keys", c.name, n, rep.RowsRead)
				}
			}
		})
	}
}
