package migrate_test

import (
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestSharedPause: one throttled BatchWriteItem pauses every writer, not
// only the one it answered. The proxy throttles the first write and notes
// when each write arrives. The pause lasts at least 1.5s (Base 3s, equal
// jitter), so while eight writers have batches to send, the writes after
// the throttled one must show a gap of at least 1.2s (the pause, less the
// writes already in flight when it began); writers backing off alone would
// go on writing every few milliseconds.
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
	o.Backoff = migrate.Backoff{Base: 3 * time.Second, Cap: 3 * time.Second, Deadline: 30 * time.Second}
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
	var gap time.Duration
	var before, after int // writes before and after the longest gap
	for i := 1; i < len(arrived); i++ {
		if d := arrived[i].Sub(arrived[i-1]); d > gap {
			gap, before, after = d, i-1, len(arrived)-i
		}
	}
	t.Logf("the longest gap between writes: %s, after %d writes following the throttled one, before %d", gap, before, after)
	if gap < 1200*time.Millisecond {
		t.Errorf("the longest gap between writes is %s: the writers were not paused together", gap)
	}
	if after < len(arrived)/2 {
		t.Errorf("the longest gap came with %d of %d writes to go: the running writers were not paused together", after, len(arrived))
	}
}
