package migrate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestFollowLateCopyWrite: a copy request DynamoDB carries out long after
// the writer gave up on it (no answer within --request-timeout: the
// writer wrote its items again and went on) must not leave the table
// older than the source. The plant: the proxy holds the first
// BatchWriteItem that holds order X's item (Stale) while the copy goes on;
// at that moment the test changes rows already written (order 1), the
// rows of the held request (X is updated, another order Y of it is
// deleted) and a row not yet written (the last order). The follower
// applies the changes; then the held request is let through: X's item is
// the copy's old state again and Y's item is back. At the clean stop (the
// cutover) the table must be exactly the source: the follower writes the
// rows of the request in doubt again.
func TestFollowLateCopyWrite(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 20, 300)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			const x = 151
			release := make(chan struct{})
			var once sync.Once
			letGo := func() { once.Do(func() { close(release) }) }
			t.Cleanup(letGo)
			var mu sync.Mutex
			var held string
			changed := make(chan error, 1)
			xKey := fmt.Sprintf(`#%09d"`, x)
			p, _, db := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Stale, Ops: bwi, First: 1, Release: release,
				Match: func(_ string, body []byte) bool {
					if !strings.Contains(string(body), xKey) {
						return false
					}
					mu.Lock()
					defer mu.Unlock()
					if held == "" {
						held = string(body)
						// The copy stands at X: change rows written, in flight and not yet written.
						changed <- s.conn.Exec(context.Background(),
							"UPDATE orders SET note = 'early', status = 'paid' WHERE id = 1",
							fmt.Sprintf("UPDATE orders SET note = 'late', status = 'paid' WHERE id = %d", s.orders),
							fmt.Sprintf("UPDATE orders SET note = 'moved', status = 'paid', created_at = %s WHERE id = %d", sqlTime(shopBase.Add(-time.Hour)), x))
					}
					return true
				}})
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(db, table, ck)
			o.CreateTable, o.Writers, o.RequestTimeout = true, 2, time.Second
			f := startFollow(t, testContext(t), o)
			f.following(t)
			if err := <-changed; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			var y int
			for _, m := range regexp.MustCompile(`ORDER#[^"]*#0*([1-9][0-9]*)"`).FindAllStringSubmatch(held, -1) {
				if id := atoi(m[1]); id != x && id > 1 && id < s.orders {
					y = id
					break
				}
			}
			mu.Unlock()
			if y == 0 {
				t.Fatalf("the held request holds no other order than %d", x)
			}
			s.mustExec(t, fmt.Sprintf("DELETE FROM orders WHERE id = %d", y))
			s.caughtUp(t, direct, table, f)
			pk := fmt.Sprintf("CUSTOMER#%d", 1+y*7%(s.customers-1))
			if n := countItems(t, direct, table, pk, fmt.Sprintf("#%09d", y)); n != 0 {
				t.Fatalf("the follower did not delete order %d's item: %d left", y, n)
			}

			letGo() // the request DynamoDB carries out late
			for deadline := time.Now().Add(time.Minute); countItems(t, direct, table, pk, fmt.Sprintf("#%09d", y)) == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the held request did not land within a minute (proxy %+v)", p.Stats())
				}
			}
			rep := f.stop(t)
			if rep.Follow.Redone == 0 {
				t.Errorf("the stop wrote no row of the copy request in doubt again: %+v", rep.Follow)
			}
			s.checkExact(t, direct, table)
		})
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// countItems counts the items of partition pk whose sort key ends with suffix
// (a consistent read).
func countItems(t *testing.T, db interface {
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}, table, pk, suffix string) int {
	t.Helper()
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range out.Items {
		if strings.HasSuffix(it["SK"].(*types.AttributeValueMemberS).Value, suffix) {
			n++
		}
	}
	return n
}

// TestFollowLateFollowerWrite: the follower's own request that DynamoDB
// carries out after the follower gave up on it (and wrote its items again)
// must not leave the table older than the source either: the proxy holds
// the follower's first BatchWriteItem holding order X's item while the
// follower retries it and applies a newer change of X; the held request
// then lands with X's older state and puts back order Y's item a later
// change deleted. The clean stop writes the rows in doubt again.
func TestFollowLateFollowerWrite(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 20, 100)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			const x, y = 41, 42
			release := make(chan struct{})
			var once sync.Once
			letGo := func() { once.Do(func() { close(release) }) }
			t.Cleanup(letGo)
			p, _, db := proxy(t, endpoint, 1)
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(db, table, ck)
			o.CreateTable, o.RequestTimeout = true, time.Second
			f := startFollow(t, testContext(t), o)
			f.following(t)
			xKey, yKey := fmt.Sprintf(`#%09d"`, x), fmt.Sprintf(`#%09d"`, y)
			if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Stale, Ops: bwi, First: 1, Release: release,
				Match: func(_ string, body []byte) bool {
					return strings.Contains(string(body), xKey) && strings.Contains(string(body), yKey)
				}}); err != nil {
				t.Fatal(err)
			}
			// One transaction: X and Y in one batch, held, then written again.
			s.mustExec(t, fmt.Sprintf("UPDATE orders SET note = 'first' WHERE id = %d", x), fmt.Sprintf("UPDATE orders SET note = 'first' WHERE id = %d", y))
			s.caughtUp(t, direct, table, f)
			if st := p.Stats(); st.Injected[faultproxy.Stale] != 1 {
				t.Fatalf("the proxy held %d requests, want the one with orders %d and %d", st.Injected[faultproxy.Stale], x, y)
			}
			s.mustExec(t, fmt.Sprintf("UPDATE orders SET note = 'second' WHERE id = %d", x))
			s.mustExec(t, fmt.Sprintf("DELETE FROM orders WHERE id = %d", y))
			s.caughtUp(t, direct, table, f)
			pk := fmt.Sprintf("CUSTOMER#%d", 1+y*7%(s.customers-1))
			letGo() // the follower's first request lands late
			for deadline := time.Now().Add(time.Minute); countItems(t, direct, table, pk, fmt.Sprintf("#%09d", y)) == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the held request did not land within a minute (proxy %+v)", p.Stats())
				}
			}
			rep := f.stop(t)
			if rep.Follow.Redone == 0 {
				t.Errorf("the stop wrote no row of the request in doubt again: %+v", rep.Follow)
			}
			s.checkExact(t, direct, table)
		})
	}
}
