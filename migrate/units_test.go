package migrate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestWriteUnitsAgree: the write units migrate counts (mapping.WriteUnits
// and Index.Holds) agree with analyze's total for the same rows and with
// what DynamoDB Local says it consumed putting each item anew
// (ReturnConsumedCapacity INDEXES), on items of 0 to 5 KB, some of them
// outside one index or more (a NULL index key is no attribute), in indexes
// that project all attributes, the keys only, and the keys and a note of 0
// to 3 KB (INCLUDE): an index's units are of the item as it projects it.
func TestWriteUnitsAgree(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	var b strings.Builder
	b.WriteString("CREATE TABLE docs (id int PRIMARY KEY, owner varchar(20), tag varchar(20), body text NOT NULL, note text);\n")
	for i := 1; i <= 60; i++ {
		owner, tag := fmt.Sprintf("'o%d'", i%7), fmt.Sprintf("'t%d'", i%5)
		if i%4 == 0 {
			owner = "NULL"
		}
		if i%3 == 0 {
			tag = "NULL"
		}
		note := fmt.Sprintf("'%s'", strings.Repeat("n", i*61%3100))
		if i%5 == 0 {
			note = "NULL"
		}
		fmt.Fprintf(&b, "INSERT INTO docs VALUES (%d, %s, %s, '%s', %s);\n", i, owner, tag, strings.Repeat("x", i*97%5200), note)
	}
	const m = `version: 1
table:
  name: docs
  key: {pk: PK, sk: SK}
  indexes:
    - {name: byOwner, pk: owner, sk: SK}
    - {name: byTag, pk: tag, sk: PK}
    - {name: byOwnerKeys, pk: owner, projection: KEYS_ONLY}
    - {name: byTagNote, pk: tag, sk: SK, projection: {include: [note]}}
entities:
  doc:
    from: docs
    pk: "DOC#{id}"
    sk: DOC
`
	fx := load(t, testenv.Engines[0], b.String(), m)
	db := newDB(t, endpoint)
	table := tableName(t, db)
	ctx := testContext(t)
	o := fx.options(db, table)
	o.CreateTable = true
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	an, err := analyze.Run(ctx, analyze.Options{Plan: fx.plan, Source: fx.src})
	if err != nil {
		t.Fatal(err)
	}

	// Each item deleted and put again, as a new item, asking what it cost.
	var consumed float64
	perIndex := map[string]float64{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	var items []map[string]types.AttributeValue
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
	}
	for _, it := range items {
		key := map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key}); err != nil {
			t.Fatal(err)
		}
		out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		if out.ConsumedCapacity == nil || out.ConsumedCapacity.CapacityUnits == nil {
			t.Fatal("DynamoDB Local said nothing of the capacity a put consumed")
		}
		consumed += *out.ConsumedCapacity.CapacityUnits
		for name, c := range out.ConsumedCapacity.GlobalSecondaryIndexes {
			perIndex[name] += aws.ToFloat64(c.CapacityUnits)
		}
	}
	for _, is := range an.Indexes[1:] {
		if float64(is.WriteUnits) != perIndex[is.Name] {
			t.Errorf("index %s (%s): analyze counted %d write units, DynamoDB Local consumed %.0f", is.Name, is.Projection, is.WriteUnits, perIndex[is.Name])
		}
	}
	if len(items) != 60 || rep.WriteUnits != consumed || float64(an.Totals.WriteUnits) != consumed {
		t.Errorf("%d items: migrate counted %.0f write units, analyze %d, DynamoDB Local consumed %.0f; want all three equal",
			len(items), rep.WriteUnits, an.Totals.WriteUnits, consumed)
	}
}
