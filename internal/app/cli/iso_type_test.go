package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// isoSQL: a timestamp without a zone, one with a zone (PostgreSQL
// timestamptz written at +01:00; MySQL TIMESTAMP in the session zone UTC)
// and a date, each typed iso by isoMapping.
func isoSQL(engine string) string {
	if engine == "mysql" {
		return `SET time_zone = '+00:00';
CREATE TABLE evs (id INT PRIMARY KEY, kind VARCHAR(10) NOT NULL, at DATETIME(3) NOT NULL, at_tz TIMESTAMP(6) NULL DEFAULT NULL, day DATE NULL);
INSERT INTO evs VALUES (1, 'a', '2024-01-05 10:00:00.250', '2024-01-05 10:00:00.123456', '2024-01-05'),
  (2, 'a', '1969-12-31 23:59:59.999', NULL, '1000-01-01'), (3, 'b', '9999-12-31 23:59:59.999', '2038-01-19 03:14:07', NULL);`
	}
	return `CREATE TABLE evs (id INT PRIMARY KEY, kind VARCHAR(10) NOT NULL, at TIMESTAMP(3) NOT NULL, at_tz TIMESTAMPTZ(6), day DATE);
INSERT INTO evs VALUES (1, 'a', '2024-01-05 10:00:00.250', '2024-01-05 11:00:00.123456+01', '2024-01-05'),
  (2, 'a', '1969-12-31 23:59:59.999', NULL, '1000-01-01'), (3, 'b', '9999-12-31 23:59:59.999', '2038-01-19 03:14:07+00', NULL);`
}

// isoMapping types the three columns iso; at also feeds the sort key of an
// index that a pattern queries with {at|iso}: the same text.
const isoMapping = `version: 1
table:
  name: evs
  key: {pk: PK, sk: SK}
  indexes: [{name: ByAt, pk: kind, sk: at}]
entities:
  ev:
    from: evs
    pk: "EV#{id}"
    sk: EV
    attributes:
      types: {at: iso, at_tz: iso, day: iso}
access_patterns:
  since:
    index: ByAt
    query: {pk: "{kind}", sk: {gte: "{at|iso}"}}
    entity: ev
    sql: SELECT * FROM evs WHERE kind = {kind} AND at >= {at}
`

// TestISOType migrates and verifies isoMapping on both engines: the
// attributes are ISO-8601 UTC text with Z (a zone converted, no zone taken
// as UTC, a date at midnight), verify passes them and the index pattern,
// and fails an item whose text names the same instant in another form, or
// another instant.
func TestISOType(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	ctx := context.Background()
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, isoSQL(eng.Name))
			db, table := testenv.DynamoDBTable(t)
			m := writeFile(t, "iso.yaml", isoMapping)
			dyn := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table}
			if code, out, errOut := remodel(t, append([]string{"migrate", "--create-table"}, dyn...)...); code != exitOK {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			want := map[string]map[string]string{
				"EV#1": {"at": "2024-01-05T10:00:00.250000Z", "at_tz": "2024-01-05T10:00:00.123456Z", "day": "2024-01-05T00:00:00.000000Z"},
				"EV#2": {"at": "1969-12-31T23:59:59.999000Z", "day": "1000-01-01T00:00:00.000000Z"},
				"EV#3": {"at": "9999-12-31T23:59:59.999000Z", "at_tz": "2038-01-19T03:14:07.000000Z"},
			}
			for pk, attrs := range want {
				out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "EV"}}})
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"at", "at_tz", "day"} {
					got, _ := out.Item[name].(*types.AttributeValueMemberS)
					switch {
					case attrs[name] == "" && out.Item[name] != nil:
						t.Errorf("%s.%s = %v, want no attribute (NULL)", pk, name, out.Item[name])
					case attrs[name] != "" && (got == nil || got.Value != attrs[name]):
						t.Errorf("%s.%s = %#v, want S %q", pk, name, out.Item[name], attrs[name])
					}
				}
			}
			code, out, errOut := remodel(t, append([]string{"verify", "--samples", "5"}, dyn...)...)
			if code != exitOK || !strings.HasPrefix(out, "verify PASS") || !strings.Contains(out, "since") {
				t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
			}
			for _, tamper := range []struct{ attr, value string }{
				{"at_tz", "2024-01-05T11:00:00.123456+01:00"}, // the same instant, not the text iso writes
				{"day", "2024-01-06T00:00:00.000000Z"},        // another instant
			} {
				out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: "EV#1"}, "SK": &types.AttributeValueMemberS{Value: "EV"}}})
				if err != nil {
					t.Fatal(err)
				}
				item := out.Item
				orig := item[tamper.attr]
				item[tamper.attr] = &types.AttributeValueMemberS{Value: tamper.value}
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
					t.Fatal(err)
				}
				code, vout, _ := remodel(t, append([]string{"verify", "--samples", "1"}, dyn...)...)
				if code == exitOK || !strings.Contains(vout, tamper.attr) {
					t.Errorf("verify with %s = %q: exit %d, want a failure naming it\n%s", tamper.attr, tamper.value, code, vout)
				}
				item[tamper.attr] = orig
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
