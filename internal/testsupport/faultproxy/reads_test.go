package faultproxy_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// reader is a stand-in for DynamoDB's reads: BatchGetItem answers every key
// of table t with an item (and records what it was asked), Query answers
// three items and a LastEvaluatedKey.
type reader struct {
	mu   sync.Mutex
	gets []map[string]json.RawMessage // KeysAndAttributes of table t, per call
}

func (u *reader) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var out any
	switch r.Header.Get("X-Amz-Target") {
	case "DynamoDB_20120810.BatchGetItem":
		var in struct {
			RequestItems map[string]map[string]json.RawMessage
		}
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ka := in.RequestItems["t"]
		u.mu.Lock()
		u.gets = append(u.gets, ka)
		u.mu.Unlock()
		var keys []map[string]map[string]string
		_ = json.Unmarshal(ka["Keys"], &keys)
		items := []any{}
		for _, k := range keys {
			items = append(items, map[string]any{"id": k["id"], "v": map[string]string{"S": "value " + k["id"]["S"]}})
		}
		out = map[string]any{"Responses": map[string]any{"t": items}, "UnprocessedKeys": map[string]any{}}
	case "DynamoDB_20120810.Query":
		items := []any{}
		for i := range 3 {
			items = append(items, map[string]any{"id": map[string]string{"S": strconv.Itoa(i)}})
		}
		out = map[string]any{"Items": items, "Count": 3, "ScannedCount": 3, "LastEvaluatedKey": map[string]any{"id": map[string]string{"S": "2"}}}
	default:
		out = map[string]any{}
	}
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10))
	w.Write(b)
}

func startReader(t *testing.T, rules ...faultproxy.Rule) (*faultproxy.Proxy, *reader, *dynamodb.Client) {
	t.Helper()
	up := &reader{}
	us := httptest.NewServer(up)
	t.Cleanup(us.Close)
	p, err := faultproxy.New(us.URL, 1, rules...)
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(p)
	t.Cleanup(func() { ps.Close(); p.Close() })
	db := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(ps.URL),
		Credentials: aws.AnonymousCredentials{}, Retryer: aws.NopRetryer{},
	})
	return p, up, db
}

func keyIDs(keys []map[string]types.AttributeValue) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k["id"].(*types.AttributeValueMemberS).Value)
	}
	sort.Slice(out, func(i, j int) bool { a, _ := strconv.Atoi(out[i]); b, _ := strconv.Atoi(out[j]); return a < b })
	return out
}

func TestUnprocessedKeys(t *testing.T) {
	p, up, db := startReader(t, faultproxy.Rule{Fault: faultproxy.Unprocessed, First: 1, Keep: 0.5})
	keys := make([]map[string]types.AttributeValue, 10)
	for i := range keys {
		keys[i] = map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: strconv.Itoa(i)}}
	}
	in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"t": {Keys: keys, ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("id, v")},
	}}
	out, err := db.BatchGetItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := keyIDs(out.Responses["t"]); !slices.Equal(got, ids(0, 5)) {
		t.Errorf("answered %v, want the first half", got)
	}
	un := out.UnprocessedKeys["t"]
	if got := keyIDs(un.Keys); !slices.Equal(got, ids(5, 10)) {
		t.Errorf("unprocessed %v, want the second half", got)
	}
	if un.ConsistentRead == nil || !*un.ConsistentRead || un.ProjectionExpression == nil || *un.ProjectionExpression != "id, v" {
		t.Errorf("the unprocessed keys lost their table's read options: %+v", un)
	}
	if len(up.gets) != 1 || string(up.gets[0]["ConsistentRead"]) != "true" {
		t.Fatalf("target saw %v", up.gets)
	}
	// The rule fired once: the retry of the rest is answered whole.
	out, err = db.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: out.UnprocessedKeys})
	if err != nil {
		t.Fatal(err)
	}
	if got := keyIDs(out.Responses["t"]); !slices.Equal(got, ids(5, 10)) || len(out.UnprocessedKeys) != 0 {
		t.Errorf("retry answered %v, left %v", got, out.UnprocessedKeys)
	}
	if s := p.Stats(); s.Injected[faultproxy.Unprocessed] != 1 || s.UnprocessedKeys != 5 || s.Forwarded["BatchGetItem"] != 2 {
		t.Errorf("stats %+v", s)
	}

	// Keep 0: nothing reaches the target, every key comes back.
	if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1}); err != nil {
		t.Fatal(err)
	}
	out, err = db.BatchGetItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses["t"]) != 0 || !slices.Equal(keyIDs(out.UnprocessedKeys["t"].Keys), ids(0, 10)) || len(up.gets) != 2 {
		t.Errorf("Keep 0: answered %d, unprocessed %v, target calls %d", len(out.Responses["t"]), keyIDs(out.UnprocessedKeys["t"].Keys), len(up.gets))
	}
}

func TestLag(t *testing.T) {
	begin := time.Now()
	p, _, db := startReader(t, faultproxy.Rule{Fault: faultproxy.Lag, Index: "GSI1", For: 500 * time.Millisecond})
	query := func(index string) *dynamodb.QueryOutput {
		t.Helper()
		in := &dynamodb.QueryInput{TableName: aws.String("t"), KeyConditionExpression: aws.String("id = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "x"}}}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		out, err := db.Query(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := query("GSI1"); len(out.Items) != 0 || out.Count != 0 || out.ScannedCount != 0 || out.LastEvaluatedKey == nil {
		t.Errorf("lagging index: %d items, Count %d, ScannedCount %d, LastEvaluatedKey %v; want none, 0, 0 and the key kept",
			len(out.Items), out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	if out := query(""); len(out.Items) != 3 {
		t.Errorf("the table's own Query lost items: %d", len(out.Items))
	}
	if out := query("GSI2"); len(out.Items) != 3 {
		t.Errorf("another index lost items: %d", len(out.Items))
	}
	// The index lags for 500ms from when the rules were set: every answer
	// until then is empty, and the first full one ends the lag.
	lagged := 1
	waitFor(t, "the lag of GSI1 to end", func() bool {
		out := query("GSI1")
		if len(out.Items) == 0 {
			lagged++
			return false
		}
		if len(out.Items) != 3 || out.Count != 3 {
			t.Errorf("after the lag: %d items, Count %d", len(out.Items), out.Count)
		}
		if d := time.Since(begin); d < 500*time.Millisecond {
			t.Errorf("the lag of 500ms ended after %s", d)
		}
		return true
	})
	if s := p.Stats(); s.Injected[faultproxy.Lag] != lagged || s.LaggedItems != 3*lagged {
		t.Errorf("stats %+v, want %d lagged answers of 3 items", s, lagged)
	}

	// Keep: part of the answer stays; First counts requests.
	if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Lag, First: 2, Keep: 0.34}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1, 3} {
		if out := query("GSI2"); len(out.Items) != want {
			t.Errorf("query %d: %d items, want %d", i, len(out.Items), want)
		}
	}
}

func TestBadReadRules(t *testing.T) {
	if _, err := faultproxy.New("http://127.0.0.1:1", 1, faultproxy.Rule{Fault: faultproxy.Lag, For: -time.Second}); err == nil ||
		err.Error() != "faultproxy: rule 0 (lag): Prob and Keep must be in [0, 1], First, For and Delay not negative" {
		t.Errorf("negative For: %v", err)
	}
}
