package batchwrite_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/batchwrite"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// batch is a sink.Batch of items.
type batch []sink.Item

func (b batch) Len() int             { return len(b) }
func (b batch) Item(i int) sink.Item { return b[i] }

// acks records what the sink tells of each item.
type acks struct {
	mu       sync.Mutex
	stored   map[int]int
	rejected map[int]string
}

func (a *acks) Stored(_ sink.Batch, from, to int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := from; i < to; i++ {
		a.stored[i]++
	}
}

func (a *acks) Rejected(_ sink.Batch, i int, reason string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, twice := a.rejected[i]; twice {
		return fmt.Errorf("item %d rejected twice", i)
	}
	a.rejected[i] = reason
	return nil
}

// TestSinkContract holds the table sink to the sink contract on DynamoDB
// Local, through a proxy that leaves about half of each request
// unprocessed: every item of a batch is either stored (acknowledged once,
// and in the table) or rejected with DynamoDB's reason (the one item it
// refuses, found by splitting the batch), never both; the retries are
// counted.
func TestSinkContract(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	direct, name := testenv.DynamoDBTable(t)
	tbl := &mapping.Table{Name: name, PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := migrate.CreateTable(ctx, dynamo.New(direct), tbl, name, time.Minute); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(endpoint, 7, faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 0.7, Keep: 0.5, Random: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		p.Close()
	})
	const bad = 9
	var b batch
	for i := range batchwrite.MaxBatch {
		v := mapping.Item{
			"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%02d", i)},
			"SK": &types.AttributeValueMemberS{Value: "X"},
		}
		if i == bad {
			v["tags"] = &types.AttributeValueMemberSS{Value: []string{"a", "a"}} // DynamoDB refuses a set with a repeated member
		}
		b = append(b, sink.Item{Value: v, Entity: "e"})
	}
	a := &acks{stored: map[int]int{}, rejected: map[int]string{}}
	var stats batchwrite.Stats
	s := batchwrite.New(batchwrite.Config{
		Client: dynamo.New(testenv.DynamoDBClient(srv.URL)), Table: tbl, Name: name,
		Backoff: backoff.Policy{Base: time.Millisecond, Cap: 10 * time.Millisecond, Deadline: time.Minute},
		Timeout: 30 * time.Second, Grace: time.Second, Stats: &stats,
	}, a)
	if err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx, true); err != nil {
		t.Fatal(err)
	}
	if reason := a.rejected[bad]; len(a.rejected) != 1 || !strings.Contains(reason, "DynamoDB refused the item: ValidationException") {
		t.Errorf("rejected %v, want item %d alone with DynamoDB's reason", a.rejected, bad)
	}
	for i := range b {
		if _, rej := a.rejected[i]; (a.stored[i] == 1) == rej || a.stored[i] > 1 {
			t.Errorf("item %d: stored %d times, rejected %v", i, a.stored[i], rej)
		}
	}
	out, err := direct.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != int32(len(b)-1) {
		t.Errorf("the table holds %d items, want the %d stored", out.Count, len(b)-1)
	}
	if ps := p.Stats(); ps.UnprocessedItems == 0 || stats.Retries.Load() == 0 {
		t.Errorf("the proxy left %d items unprocessed and the sink counted %d retries: the test does not exercise retries", ps.UnprocessedItems, stats.Retries.Load())
	}
}
