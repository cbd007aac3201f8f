package migrate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// TestCreateTableServiceFailure: CreateTable answered with a 500 that did
// not create the table is sent again, once DescribeTable finds no table
// (fails when the first answer ends the run); three such answers end it
// with DynamoDB's error; a request forwarded and then left unanswered is
// not sent again (the table it made would be taken for another's).
func TestCreateTableServiceFailure(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	tbl := &mapping.Table{Name: "t", PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}, EntityAttr: "_type"}
	create := func(f faultproxy.Fault, first int) (string, int, error) {
		p, _, db := proxy(t, endpoint, 1, faultproxy.Rule{Fault: f, Ops: []string{"CreateTable"}, First: first})
		name := tableName(t, newDB(t, endpoint))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		err := migrate.CreateTable(ctx, db, tbl, name, time.Minute)
		return name, p.Stats().Injected[f], err
	}
	name, n, err := create(faultproxy.InternalError, 1)
	if err != nil || n != 1 {
		t.Fatalf("one 500: %v (%d injected)", err, n)
	}
	if _, err := newDB(t, endpoint).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatalf("the table after one 500 and a second CreateTable: %v", err)
	}
	if _, n, err := create(faultproxy.InternalError, 3); err == nil || n != 3 || !strings.Contains(err.Error(), "500") {
		t.Fatalf("three 500s: %v (%d injected)", err, n)
	}
	if _, n, err := create(faultproxy.DropAfter, 1); err == nil || n != 1 || !strings.Contains(err.Error(), "may or may not have been created") {
		t.Fatalf("no answer: %v (%d injected)", err, n)
	}
	// A 500 after which DescribeTable finds the table (here made before,
	// standing for one the failed attempt made): not sent again, and the
	// error says the table is there.
	p, _, db := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.InternalError, Ops: []string{"CreateTable"}, First: 1})
	made := tableName(t, newDB(t, endpoint))
	if err := migrate.CreateTable(context.Background(), newDB(t, endpoint), tbl, made, time.Minute); err != nil {
		t.Fatal(err)
	}
	err = migrate.CreateTable(context.Background(), db, tbl, made, time.Minute)
	if n := p.Stats().Injected[faultproxy.InternalError]; err == nil || n != 1 || !strings.Contains(err.Error(), "the table exists now") {
		t.Fatalf("a 500, then the table found: %v (%d injected)", err, n)
	}
}
