package faultproxy_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

func TestDiscardAcknowledgesWithoutForwarding(t *testing.T) {
	p, up, url := start(t, 1, faultproxy.Rule{Fault: faultproxy.Discard, Prob: 1})
	big := strings.Repeat("x", 1500) // one write request of 1-2 KB of JSON: 2 units
	body := []byte(`{"RequestItems":{"b":[{"PutRequest":{"Item":{"id":{"S":"` + big + `"}}}}],` +
		`"a":[{"PutRequest":{"Item":{"id":{"S":"1"}}}},{"DeleteRequest":{"Key":{"id":{"S":"2"}}}}]},` +
		`"ReturnConsumedCapacity":"TOTAL"}`)
	a, err := call(t, url, "BatchWriteItem", body)
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 200 {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	checkCRC(t, a)
	if want := `{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"a","CapacityUnits":2},{"TableName":"b","CapacityUnits":2}]}`; string(a.body) != want {
		t.Errorf("answer\n%s\nwant\n%s", a.body, want)
	}
	if n := up.count(); n != 0 {
		t.Errorf("the target saw %d calls, want none", n)
	}
	// Other operations pass: the proxy still fronts a real table.
	if a, err := call(t, url, "DescribeTable", []byte(`{}`)); err != nil || a.status != 200 || up.count() != 1 {
		t.Errorf("DescribeTable: %v, status %d, target calls %d", err, a.status, up.count())
	}
	s := p.Stats()
	if s.Injected[faultproxy.Discard] != 1 || s.DiscardedItems != 3 || s.Forwarded["BatchWriteItem"] != 0 || s.Calls["BatchWriteItem"] != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestDiscardConsumedCapacityOnRequest(t *testing.T) {
	_, _, url := start(t, 1, faultproxy.Rule{Fault: faultproxy.Discard, Prob: 1})
	for _, c := range []struct{ ask, want string }{
		{"", `{"UnprocessedItems":{}}`},
		{"NONE", `{"UnprocessedItems":{}}`},
		{"INDEXES", `{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":3,"Table":{"CapacityUnits":3}}]}`},
	} {
		body := batchBody(3)
		body = []byte(strings.Replace(string(body), `"ReturnConsumedCapacity":"TOTAL"`, `"ReturnConsumedCapacity":"`+c.ask+`"`, 1))
		a, err := call(t, url, "BatchWriteItem", body)
		if err != nil {
			t.Fatal(err)
		}
		if string(a.body) != c.want {
			t.Errorf("ReturnConsumedCapacity %q: answer %s, want %s", c.ask, a.body, c.want)
		}
	}
}

func TestDiscardForwardsWhatItCannotRead(t *testing.T) {
	p, up, url := start(t, 1, faultproxy.Rule{Fault: faultproxy.Discard, Prob: 1})
	for _, body := range []string{`not json`, `{"RequestItems":{}}`} {
		if _, err := call(t, url, "BatchWriteItem", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if n := up.count(); n != 2 {
		t.Errorf("the target saw %d calls, want both", n)
	}
	if s := p.Stats(); s.Injected[faultproxy.Discard] != 0 || s.DiscardedItems != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestDiscardInFrontOfDynamoDBLocal: the SDK reads the answer as DynamoDB's
// own (nothing unprocessed, capacity per table), and DynamoDB Local, which
// answers every other operation, never receives the items.
func TestDiscardInFrontOfDynamoDBLocal(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	_, name := testenv.DynamoDBTable(t)
	p, err := faultproxy.New(endpoint, 1, faultproxy.Rule{Fault: faultproxy.Discard, Prob: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, p)
	db := testenv.DynamoDBClient(srv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]types.WriteRequest, 25)
	for i := range reqs {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: strconv.Itoa(i)},
		}}}
	}
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems:           map[string][]types.WriteRequest{name: reqs},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedItems) != 0 || len(out.ConsumedCapacity) != 1 ||
		aws.ToString(out.ConsumedCapacity[0].TableName) != name || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 25 {
		got, _ := json.Marshal(out.ConsumedCapacity)
		t.Errorf("unprocessed %v, consumed %s; want none and 25 units on %s", out.UnprocessedItems, got, name)
	}
	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if scan.Count != 0 {
		t.Errorf("the table holds %d items, want none", scan.Count)
	}
	if s := p.Stats(); s.DiscardedItems != 25 || s.Forwarded["CreateTable"] != 1 || s.Forwarded["Scan"] != 1 {
		t.Errorf("stats %+v", s)
	}
}

// newServer serves the proxy until the test ends and returns its URL.
func newServer(t *testing.T, p *faultproxy.Proxy) string {
	t.Helper()
	s := httptest.NewServer(p)
	t.Cleanup(func() { s.Close(); p.Close() })
	return s.URL
}
