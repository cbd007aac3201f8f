package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/sink/batchwrite"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

// Items DynamoDB refuses although they reach the writer: mapping's checks
// keep such items from being rendered, so these tests build them by hand,
// as a gap in those checks would.
var refusedItems = map[int]struct {
	attr   types.AttributeValue
	reason string
}{
	3: {&types.AttributeValueMemberSS{Value: []string{"a", "a"}},
		"DynamoDB refused the item: ValidationException: One or more parameter values were invalid: Input collection [a, a] contains duplicates"},
	11: {&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"": &types.AttributeValueMemberS{Value: "v"}}}}},
		"DynamoDB refused the item: ValidationException: Empty attribute name"},
	12: {nested(mapping.MaxDepth), // one level too deep: the item is the first
		"DynamoDB refused the item: ValidationException: Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"},
	24: {&types.AttributeValueMemberNS{Value: []string{"1", "1.0"}},
		"DynamoDB refused the item: ValidationException: Input collection contains duplicates"},
}

func nested(levels int) types.AttributeValue {
	var v types.AttributeValue = &types.AttributeValueMemberN{Value: "1"}
	for range levels {
		v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
	}
	return v
}

// refusedBatch is 25 items of the entities a and b, the ones numbered in
// refusedItems carrying what DynamoDB refuses, the others a list nested as
// deep as DynamoDB allows.
func refusedBatch() []pending {
	var batch []pending
	for i := range MaxBatch {
		entity := []string{"a", "b"}[i%2]
		p := pending{entity: entity, source: fmt.Sprintf("id=%d", i), item: mapping.Item{
			"PK":    &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%d", i)},
			"SK":    &types.AttributeValueMemberS{Value: "X"},
			"_type": &types.AttributeValueMemberS{Value: entity},
			"v":     nested(mapping.MaxDepth - 1),
		}}
		if bad, ok := refusedItems[i]; ok {
			p.item["v"] = bad.attr
		}
		batch = append(batch, p)
	}
	return batch
}

// refusedSetup creates a table in DynamoDB Local and returns a client for
// it (through a fault proxy when rules are given) and its name.
func refusedSetup(t *testing.T, rules ...faultproxy.Rule) (*dynamo.Client, *dynamo.Client, string, *faultproxy.Proxy) {
	t.Helper()
	direct, name := testenv.DynamoDBTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := CreateTable(ctx, direct, testTable, name, time.Minute); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		return dynamo.New(direct), dynamo.New(direct), name, nil
	}
	p, err := faultproxy.New(testenv.DynamoDB(t), 7, rules...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		p.Close()
	})
	return dynamo.New(direct), dynamo.New(testenv.DynamoDBClient(srv.URL)), name, p
}

func refusedWriter(db *dynamo.Client, name string, rej *rejects) (*writer, *counters) {
	c := &counters{perEntity: map[string]*entityCounters{"a": {}, "b": {}}}
	fast := Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond, Deadline: 30 * time.Second}
	w := &writer{table: testTable, c: c, rej: rej}
	w.cfg = batchwrite.Config{Client: db, Table: testTable, Name: name, Backoff: fast, Stats: &c.sent, Doubted: w.doubtedItems}
	w.remake()
	return w, c
}

// TestRefusedItems: DynamoDB Local refuses a batch holding a set with a
// repeated member, an empty map key or an item nested too deep. The writer
// finds those items by splitting the batch, rejects exactly their rows with
// DynamoDB's message (in the rejects file and the counters, per entity) and
// writes every other item, also when DynamoDB leaves items unprocessed on
// the way.
func TestRefusedItems(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules []faultproxy.Rule
	}{
		{"direct", nil},
		{"unprocessed", []faultproxy.Rule{{Fault: faultproxy.Unprocessed, Prob: 0.7, Keep: 0.5, Random: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			direct, db, name, proxy := refusedSetup(t, c.rules...)
			ctx := context.Background()
			rej := &rejects{path: filepath.Join(t.TempDir(), "rejects.jsonl"), max: int64(len(refusedItems))}
			w, cnt := refusedWriter(db, name, rej)
			batch := refusedBatch()
			if err := w.write(ctx, batch); err != nil {
				t.Fatalf("write: %v", err)
			}
			if err := rej.close(); err != nil {
				t.Fatal(err)
			}

			// The rejects file: exactly the refused rows, in batch order, with
			// DynamoDB's message.
			var want []Rejection
			for i, p := range batch {
				if bad, ok := refusedItems[i]; ok {
					want = append(want, Rejection{Entity: p.entity, Row: p.source, Reason: bad.reason})
				}
			}
			if got := readRejects(t, rej.path); !slices.Equal(got, want) {
				t.Errorf("rejects file:\n%v\nwant\n%v", got, want)
			}
			if !slices.Equal(rej.first, want) {
				t.Errorf("rejections in the report: %v", rej.first)
			}

			// The counters, in total and per entity, and the table agree.
			good := int64(len(batch) - len(refusedItems))
			if cnt.written.Load() != good || cnt.rejected.Load() != int64(len(refusedItems)) {
				t.Errorf("counters: %d written, %d rejected; want %d, %d", cnt.written.Load(), cnt.rejected.Load(), good, len(refusedItems))
			}
			wantWritten := map[string]int64{}
			wantRejected := map[string]int64{}
			for i, p := range batch {
				if _, ok := refusedItems[i]; ok {
					wantRejected[p.entity]++
				} else {
					wantWritten[p.entity]++
				}
			}
			for e, ec := range cnt.perEntity {
				if ec.written.Load() != wantWritten[e] || ec.rejected.Load() != wantRejected[e] {
					t.Errorf("entity %s: %d written, %d rejected; want %d, %d", e, ec.written.Load(), ec.rejected.Load(), wantWritten[e], wantRejected[e])
				}
			}
			for i, p := range batch {
				out, err := direct.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: testTable.KeyOf(p.item), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatal(err)
				}
				_, bad := refusedItems[i]
				switch {
				case bad && out.Item != nil:
					t.Errorf("row %s: refused, yet in the table", p.source)
				case !bad && out.Item == nil:
					t.Errorf("row %s: not in the table", p.source)
				case !bad && !sameDepth(out.Item["v"], mapping.MaxDepth-1):
					t.Errorf("row %s: stored differently", p.source)
				}
			}
			if proxy != nil {
				s := proxy.Stats()
				t.Logf("%d BatchWriteItem calls, %d left items unprocessed", s.Calls["BatchWriteItem"], s.Injected[faultproxy.Unprocessed])
				if s.Injected[faultproxy.Unprocessed] == 0 {
					t.Error("the proxy never left items unprocessed: the case does not exercise it")
				}
			}
		})
	}
}

// TestRefusedBeyondMaxRejects: a refused item beyond --max-rejects stops the
// write, naming its row and DynamoDB's message.
func TestRefusedBeyondMaxRejects(t *testing.T) {
	_, db, name, _ := refusedSetup(t)
	for _, c := range []struct {
		max  int64
		want string
	}{
		{0, "migrate: stopped: rejected rows exceeded --max-rejects 0 (1 rejected; the last: entity b, row id=3: " + refusedItems[3].reason + ")"},
		{2, "migrate: stopped: rejected rows exceeded --max-rejects 2 (3 rejected; the last: entity a, row id=12: " + refusedItems[12].reason + ")"},
	} {
		rej := &rejects{max: c.max}
		w, cnt := refusedWriter(db, name, rej)
		err := w.write(context.Background(), refusedBatch())
		if err == nil || err.Error() != c.want {
			t.Errorf("max %d: err %v\nwant %s", c.max, err, c.want)
		}
		if cnt.rejected.Load() != c.max+1 || rej.n != c.max+1 {
			t.Errorf("max %d: %d rejected (rejects %d), want %d", c.max, cnt.rejected.Load(), rej.n, c.max+1)
		}
	}
}

func sameDepth(av types.AttributeValue, levels int) bool {
	for range levels {
		l, ok := av.(*types.AttributeValueMemberL)
		if !ok || len(l.Value) != 1 {
			return false
		}
		av = l.Value[0]
	}
	n, ok := av.(*types.AttributeValueMemberN)
	return ok && n.Value == "1"
}

func readRejects(t *testing.T, path string) []Rejection {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Rejection
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Rejection
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v: %q", path, err, line)
		}
		out = append(out, r)
	}
	return out
}

// TestRefusedKeyIsFree: an item DynamoDB refuses leaves its key without an
// item, so the collision check lets the next item with that key through
// (once: the one after it is a collision again), while an item with the key
// of one DynamoDB took is still a collision.
// Not parallel: a top-level test parked in t.Parallel would be one of the
// goroutines TestCancel finds left behind.
func TestRefusedKeyIsFree(t *testing.T) {
	_, db, name, _ := refusedSetup(t)
	ctx := context.Background()
	rej := &rejects{max: int64(len(refusedItems))}
	w, _ := refusedWriter(db, name, rej)
	coll := newCollisions(testTable, false, 0)
	defer coll.close()
	w.coll = coll
	var emitted, collided []string
	emit := func(p pending) error { emitted = append(emitted, p.source); return nil }
	collide := func(p pending, _ string) error { collided = append(collided, p.source); return nil }
	var scratch []byte
	batch := refusedBatch()
	for _, p := range batch {
		if err := coll.add(p, &scratch, emit, collide); err != nil {
			t.Fatal(err)
		}
	}
	if len(emitted) != len(batch) || len(collided) != 0 {
		t.Fatalf("the batch: %d emitted, %v collided; want all %d emitted", len(emitted), collided, len(batch))
	}
	if err := w.write(ctx, batch); err != nil {
		t.Fatalf("write: %v", err)
	}
	if rej.n != int64(len(refusedItems)) {
		t.Fatalf("%d rows rejected, want %d", rej.n, len(refusedItems))
	}
	again := func(i int, source string) pending {
		p := batch[i]
		p.source = source
		p.item = maps.Clone(p.item)
		p.item["v"] = &types.AttributeValueMemberN{Value: "1"}
		return p
	}
	emitted, collided = nil, nil
	for _, p := range []pending{again(3, "refused key, first"), again(3, "refused key, second"), again(0, "written key")} {
		if err := coll.add(p, &scratch, emit, collide); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(emitted, []string{"refused key, first"}) || !slices.Equal(collided, []string{"refused key, second", "written key"}) {
		t.Errorf("emitted %v, collided %v; want the first item with the refused key emitted, the others collided", emitted, collided)
	}
}
