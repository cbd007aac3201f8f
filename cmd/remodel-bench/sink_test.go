package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestPoolItemCyclesWithNewKeys(t *testing.T) {
	p := &pool{pk: "PK", items: []mapping.Item{
		{"PK": s("USER#1"), "SK": s("A"), "x": s("1")},
		{"PK": s("USER#1"), "SK": s("B"), "x": s("2")},
	}}
	want := []string{"USER#1 A", "USER#1 B", "USER#1~1 A", "USER#1~1 B", "USER#1~2 A"}
	for i, w := range want {
		it := p.item(int64(i))
		got := it["PK"].(*types.AttributeValueMemberS).Value + " " + it["SK"].(*types.AttributeValueMemberS).Value
		if got != w || it["x"].(*types.AttributeValueMemberS).Value != p.items[i%2]["x"].(*types.AttributeValueMemberS).Value {
			t.Errorf("item %d: key %q, want %q, or other attributes changed", i, got, w)
		}
	}
	if p.items[0]["PK"].(*types.AttributeValueMemberS).Value != "USER#1" {
		t.Error("a later cycle changed the pool's own item")
	}
}

// TestPoolAndRawSink: the pool holds the mapping's items (all of them when
// the source is small, a proportional share when it is not), and the raw
// sink writes n items, more than the pool, each under its own key.
func TestPoolAndRawSink(t *testing.T) {
	_, src, plan := example(t, "postgres")
	db, table := testenv.DynamoDBTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	counts, total, err := countRows(ctx, src, plan)
	if err != nil {
		t.Fatal(err)
	}
	all, err := buildPool(ctx, plan, src, counts, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(all.items)) != total || all.rejected != 0 {
		t.Errorf("pool of %d items (%d rejected), want every one of %d rows", len(all.items), all.rejected, total)
	}
	if all.sizeMin <= 0 || all.sizeMin > all.sizeMax || all.meanSize() < float64(all.sizeMin) || all.meanSize() > float64(all.sizeMax) {
		t.Errorf("sizes min %d, mean %.0f, max %d", all.sizeMin, all.meanSize(), all.sizeMax)
	}
	small, err := buildPool(ctx, plan, src, counts, 400)
	if err != nil {
		t.Fatal(err)
	}
	// Each entity contributes ceil(its rows * 400 / total): 400 to 400 + entities.
	if n := len(small.items); n < 400 || n > 400+len(plan.Entities) {
		t.Errorf("pool of about 400: %d items", n)
	}
	entities := map[string]int{}
	for _, it := range small.items {
		entities[it[plan.Table.EntityAttr].(*types.AttributeValueMemberS).Value]++
	}
	if len(entities) != len(plan.Entities) {
		t.Errorf("the small pool has items of %v, want every entity", entities)
	}

	if err := migrate.CreateTable(ctx, db, &plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	const n = 1000 // 2.5 cycles of the small pool
	if _, err := rawSink(ctx, dynamo.New(db), table, small, n, 4); err != nil {
		t.Fatal(err)
	}
	if err := checkCount(ctx, db, table, n); err != nil {
		t.Error(err)
	}
	if err := checkCount(ctx, db, table, n+1); err == nil {
		t.Error("checkCount accepted a wrong count")
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count+countRest(ctx, t, db, table, out.LastEvaluatedKey) != n {
		t.Errorf("a scan counts %d items, want %d", out.Count, n)
	}
}

func countRest(ctx context.Context, t *testing.T, db dynamo.API, table string, start map[string]types.AttributeValue) int32 {
	var n int32
	for len(start) > 0 {
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		n += out.Count
		start = out.LastEvaluatedKey
	}
	return n
}

// TestPoolEmbeds: on the game-profile example (a user's servers embedded
// in its item) the pool's items are preview's, embedded rows included, on
// both engines: the same count and the same total size. A share of the
// rows (a limit) reads its embedded rows too.
func TestPoolEmbeds(t *testing.T) {
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			_, src, plan := exampleOf(t, engine, "game-profile")
			if plan.MaxEmbeds() == 0 {
				t.Fatal("the game-profile mapping has no embeds: this test tests nothing")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			counts, _, err := countRows(ctx, src, plan)
			if err != nil {
				t.Fatal(err)
			}
			all, err := buildPool(ctx, plan, src, counts, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			res, err := preview.Run(ctx, plan, src, 0, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			n, size, embedded := 0, 0, 0
			for _, e := range res.Entities {
				for _, it := range e.Values {
					n++
					size += mapping.ItemSize(it)
					if _, ok := it["INIT_SERVER"]; ok {
						embedded++
					}
				}
			}
			if embedded == 0 {
				t.Fatal("preview shows no item with embedded servers")
			}
			if len(all.items) != n || all.sizeSum != size || all.rejected != 0 {
				t.Errorf("pool: %d items, %d bytes, %d rejected; preview: %d items, %d bytes", len(all.items), all.sizeSum, all.rejected, n, size)
			}
			small, err := buildPool(ctx, plan, src, counts, 400)
			if err != nil {
				t.Fatal(err)
			}
			if len(small.items) == 0 || len(small.items) > 400+len(plan.Entities) {
				t.Errorf("a pool of about 400 items holds %d", len(small.items))
			}
		})
	}
}
