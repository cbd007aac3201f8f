package migrate_test

import (
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/faultproxy"
	"github.com/remodel-dev/remodel/internal/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestSharedPause: one throttled BatchWriteItem pauses every writer, not
// only the one it answered. The proxy throttles the first write and notes
// when each write arrives; with a pause of at least 1s (Base 2s, equal
// jitter), no write may arrive between 300ms (the writes in flight at the
// throttle are long answered by then) and 1s after the throttled one,
// although eight writers have batches to send.
func TestSharedPause(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	var mu sync.Mutex
	var arrived []time.Time
	p, _, db := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Throttle, Ops: bwi, First: 1, Match: func(string, []byte) bool {
		mu.Lock()
		arrived = append(arrived, time.Now())
		mu.Unlock()
		return true // the rule applies to every write; it fires on the first only
	}})
	o := fx.options(db, table)
	o.CreateTable = true
	o.Writers = 8
	o.Backoff = migrate.Backoff{Base: 2 * time.Second, Cap: 2 * time.Second, Deadline: 30 * time.Second}
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLanded(t, fx, rep, direct, table)
	if rep.Throttled != 1 || p.Stats().Injected[faultproxy.Throttle] != 1 {
		t.Fatalf("report: %d throttled, the proxy throttled %d", rep.Throttled, p.Stats().Injected[faultproxy.Throttle])
	}
	mu.Lock()
	defer mu.Unlock()
	throttled := arrived[0]
	var early, during, after int
	for _, at := range arrived[1:] {
		switch d := at.Sub(throttled); {
		case d < 300*time.Millisecond:
			early++
		case d < time.Second:
			during++
		default:
			after++
		}
	}
	t.Logf("writes after the throttled one: %d within 300ms, %d from 300ms to 1s, %d later", early, during, after)
	if during != 0 {
		t.Errorf("%d writes arrived while every writer should have been paused", during)
	}
	if after < len(arrived)/2 {
		t.Errorf("only %d of %d writes came after the pause: the test did not pause the run mid-way", after, len(arrived))
	}
}
