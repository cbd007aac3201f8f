package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

const pagilaMapping = `version: 1
table:
  name: pagila
  key: {pk: PK, sk: SK}
entities:
  film:
    from: film
    pk: "FILM#{film_id}"
    sk: "FILM#"
  staff:
    from: staff
    pk: "STAFF#{staff_id}"
    sk: "STAFF#"
  customer:
    from: customer
    pk: "CUSTOMER#{customer_id}"
    sk: "CUSTOMER#"
  payment:
    from: payment
    where: payment_id % 10 = 0
    pk: "CUSTOMER#{customer_id}"
    sk: "PAYMENT#{payment_date|iso}#{payment_id}"
`

// TestOraclePagila holds the oracle to a real database nobody here wrote:
// Pagila's arrays, enums, domains, tsvector, bytea, numerics and a
// partitioned table with microsecond timestamps. A faithful migration
// passes; a planted bug in one film's array is found.
func TestOraclePagila(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.Postgres(t)
	testenv.LoadPagila(t, dsn)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	plan := compile(t, src, pagilaMapping)
	// Film 1's special features lose their last element on the way.
	restore := mapping.SetConvertHook(func(e *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
		if l, ok := av.(*types.AttributeValueMemberL); ok && a.Attr == "special_features" && len(l.Value) == 2 {
			if s, ok := l.Value[0].(*types.AttributeValueMemberS); ok && s.Value == "Deleted Scenes" {
				return &types.AttributeValueMemberL{Value: l.Value[:1]}
			}
		}
		return av
	})
	defer restore()
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rejected != 0 || rep.ItemsWritten < 1000+2+599+1000 {
		t.Fatalf("migrate wrote %d items and rejected %d rows", rep.ItemsWritten, rep.Rejected)
	}
	o := verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 100}
	vrep := run(t, o)
	var got []string
	for _, ic := range vrep.Items {
		if ic.Compared != ic.Rows || ic.Rows == 0 {
			t.Errorf("entity %s: %d rows read, %d compared", ic.Entity, ic.Rows, ic.Compared)
		}
		for _, p := range ic.Problems.List {
			got = append(got, string(p.Kind)+" "+p.Entity+" "+p.SourceKey+" "+p.Attribute+": want "+p.Want+", got "+p.Got)
		}
	}
	if len(got) == 0 {
		t.Fatalf("the planted bug was not found:\n%s", text(vrep))
	}
	for _, g := range got {
		if !strings.HasPrefix(g, "value_mismatch film film_id=") || !strings.Contains(g, ` special_features: want ["Deleted Scenes","Behind the Scenes"], got L [S "Deleted Scenes"]`) {
			t.Errorf("unexpected problem %s", g)
		}
	}
	restore()
	if vrep := run(t, o); vrep.Items[0].Different != int64(len(got)) || vrep.Items[1].Different+vrep.Items[2].Different+vrep.Items[3].Different != 0 {
		t.Errorf("with the hook removed: %+v", vrep.Items)
	}
}
