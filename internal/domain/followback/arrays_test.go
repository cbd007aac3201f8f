package followback_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/shopwork"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// newRig is a source made by script at dsn, migrated by mappingYAML into
// a fresh table with a stream, as newShop makes the shop.
func newRig(t *testing.T, dsn, script, mappingYAML string, exec func(testing.TB, string, string)) *shop {
	t.Helper()
	endpoint := testenv.DynamoDB(t)
	exec(t, dsn, script)
	s := &shop{App: &shopwork.App{}, dsn: dsn, exec: exec}
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("mapping.yaml", []byte(mappingYAML))
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan, err = mapping.Compile(f, schema); err != nil {
		t.Fatal(err)
	}
	s.src = src
	s.DB, s.Table = testenv.DynamoDBTable(t)
	s.st = dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	rep, err := migrate.Run(ctx, migrate.Options{Plan: s.Plan, Source: src, DB: s.DB, Table: s.Table, CreateTable: true, Stream: true, Writers: 2,
		Backoff: migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 30 * time.Second}, RejectsPath: filepath.Join(t.TempDir(), "rejects.jsonl")})
	if err != nil || !rep.OK {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

const arraysSchema = `
CREATE TABLE docs (id int PRIMARY KEY, tags text[], counts int[], prices numeric(8,2)[], seen timestamptz(3)[],
  grid int[][], flags boolean[], blobs bytea[], docs jsonb[]);
INSERT INTO docs VALUES
  (1, '{a,"b,c","q\"uote","back\\slash",NULL,"",NULL}', '{1,2,NULL}', '{1.50,2.25}', '{"2025-01-02 03:04:05.123+00"}',
   '{{1,2},{3,4}}', '{t,f}', '{"\\x00ff"}', ARRAY['{"a": [1, 2]}'::jsonb, '[]'::jsonb]),
  (2, '{}', NULL, '{}', NULL, NULL, NULL, NULL, NULL);
`

const arraysMapping = `version: 1
table: {name: docs, key: {pk: PK, sk: SK}}
entities:
  doc: {from: docs, pk: "DOC#{id}", sk: DOC}
`

// TestFollowBackArrays (PostgreSQL): lists written into the items of
// array columns (text with quotes, commas, backslashes, NULL and empty
// elements; int with NULLs; numeric; timestamptz; two dimensions;
// boolean; bytea; jsonb; empty arrays) flow back into the arrays, each
// element exact: verify passes and the values are the arrays written.
func TestFollowBackArrays(t *testing.T) {
	s := newRig(t, testenv.Postgres(t), arraysSchema, arraysMapping, testenv.ExecPostgres)
	dir := t.TempDir()
	f := start(t, s.options(t, filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")))
	l := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	null := &types.AttributeValueMemberNULL{Value: true}
	key := func(id string) mapping.Item { return mapping.Item{"PK": str("DOC#" + id), "SK": str("DOC")} }
	update := func(id, expr string, vals map[string]types.AttributeValue) {
		t.Helper()
		_, err := s.DB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(s.Table), Key: key(id),
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatal(err)
		}
		s.Writes++
	}
	update("1", "SET tags = :t, counts = :c, grid = :g", map[string]types.AttributeValue{
		":t": l(str(`x"y`), null, str(`a\b,c{d}`), str("NULL"), str(" sp ")),
		":c": l(n("7"), null, n("-9")),
		":g": l(l(n("5"), n("6")), l(n("7"), null)),
	})
	update("1", "SET prices = :p, seen = :s, flags = :f, docs = :d", map[string]types.AttributeValue{
		":p": l(n("3.5"), n("-0.01")),
		":s": l(str("2025-06-07T08:09:10.456Z"), null),
		":f": l(&types.AttributeValueMemberBOOL{Value: false}),
		":d": l(&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": str(`v"w`)}}, null),
	})
	update("2", "SET tags = :t, blobs = :b", map[string]types.AttributeValue{
		":t": l(str("only")), ":b": l(&types.AttributeValueMemberB{Value: []byte{0, '"', '\\', 0xff}}),
	})
	put, err := s.Plan.Entity("doc").Render([]any{int64(3), []any{}, []any{int64(1)}, nil, nil, []any{[]any{int64(1)}}, nil, nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	s.Put(t, put)
	f.waitFor(t, s.Writes)
	f.stop()
	if f.err != nil || !f.rep.OK || f.rep.DeadLetters != 0 {
		t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
	}
	s.checkExact(t)
	for q, want := range map[string]int64{
		`SELECT count(*) FROM docs WHERE id = 1 AND tags = '{"x\"y",NULL,"a\\b,c{d}","NULL"," sp "}' AND counts = '{7,NULL,-9}'
		   AND grid = '{{5,6},{7,NULL}}' AND prices = '{3.50,-0.01}' AND seen = '{"2025-06-07 08:09:10.456+00",NULL}' AND flags = '{f}'
		   AND docs = ARRAY['{"k": "v\"w"}'::jsonb, NULL]`: 1,
		`SELECT count(*) FROM docs WHERE id = 2 AND tags = '{only}' AND blobs = ARRAY['\x00225cff'::bytea] AND prices = '{}'`: 1,
		`SELECT count(*) FROM docs WHERE id = 3 AND tags = '{}' AND counts = '{1}' AND grid = '{{1}}'`:                        1,
	} {
		if got := count(t, s, q); got != want {
			t.Errorf("%s: %d rows, want %d", q, got, want)
		}
	}
}
