package dynamo

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

func TestScanSegments(t *testing.T) {
	for _, c := range []struct {
		items int64
		want  int
	}{{0, 4}, {3_999, 4}, {5_000, 5}, {204_584, 204}, {1_000_000_000, 4096}} {
		if got := ScanSegments(c.items); got != c.want {
			t.Errorf("ScanSegments(%d) = %d, want %d", c.items, got, c.want)
		}
	}
}

// TestScanAll: every item of a DynamoDB Local table is met exactly once,
// whatever the item count the segments are sized by (too small, right,
// too large), and the input's projection and Select are kept.
func TestScanAll(t *testing.T) {
	ctx := context.Background()
	_, table := testenv.DynamoDBTable(t)
	db := client(t, testenv.DynamoDB(t), nil)
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	const n = 5_100
	var batch []map[string]types.AttributeValue
	flush := func() {
		if len(batch) == 0 {
			return
		}
		in := puts(batch...)
		in.RequestItems = map[string][]types.WriteRequest{table: in.RequestItems["t"]}
		for len(in.RequestItems) > 0 {
			out, err := db.BatchWriteItem(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			in.RequestItems = out.UnprocessedItems
		}
		batch = batch[:0]
	}
	for i := range n {
		batch = append(batch, map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%05d", i)},
			"v":  &types.AttributeValueMemberS{Value: "value"},
		})
		if len(batch) == 25 {
			flush()
		}
	}
	flush()
	for _, items := range []int64{0, n, 100 * n} {
		var mu sync.Mutex
		seen := map[string]int{}
		err := ScanAll(ctx, db, dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String("PK")}, items, func(page *dynamodb.ScanOutput) error {
			mu.Lock()
			defer mu.Unlock()
			for _, it := range page.Items {
				if _, ok := it["v"]; ok {
					return fmt.Errorf("projection lost: %v", it)
				}
				seen[it["PK"].(*types.AttributeValueMemberS).Value]++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("items %d: %v", items, err)
		}
		if len(seen) != n {
			t.Errorf("items %d: %d keys seen, want %d", items, len(seen), n)
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("items %d: %s seen %d times", items, k, c)
			}
		}
		var count int64
		err = ScanAll(ctx, db, dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount}, items, func(page *dynamodb.ScanOutput) error {
			mu.Lock()
			count += int64(page.Count)
			mu.Unlock()
			return nil
		})
		if err != nil || count != n {
			t.Errorf("items %d: Select COUNT gave %d (%v), want %d", items, count, err, n)
		}
	}
}
