package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// The change-stream tests (migrate --follow) run on every engine of
// testenv.FollowEngines, on a shop: customers (entity customer, only the
// active ones: a where), orders (entity order, whose item key reads
// customer_id and created_at, not only the primary key id, so its rows are
// needed whole before a change: REPLICA IDENTITY FULL on PostgreSQL; with
// a conditional attribute and a TTL) and order_lines, embedded in their
// order (linked by order_id, outside their key line_id: whole rows too).

// shopSchema is the shop's tables on eng.
func shopSchema(eng testenv.FollowEngine) string {
	return fmt.Sprintf(`
CREATE TABLE customers (id int PRIMARY KEY, name varchar(60) NOT NULL, tier varchar(10) NOT NULL, active boolean NOT NULL);
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, created_at %[1]s NOT NULL, status varchar(10) NOT NULL,
  total decimal(12,2) NOT NULL, expires_at %[1]s NULL, note varchar(40) NOT NULL);
CREATE TABLE order_lines (line_id int PRIMARY KEY, order_id int NOT NULL, sku varchar(20) NOT NULL, qty int NOT NULL,
  FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE INDEX order_lines_order ON order_lines (order_id);
CREATE INDEX orders_customer ON orders (customer_id);
%[2]s%[3]s`, eng.Timestamp, eng.FullRows("orders"), eng.FullRows("order_lines"))
}

const shopMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}, ttl: expires}
entities:
  customer:
    from: customers
    where: active
    pk: "CUSTOMER#{id}"
    sk: PROFILE
  order:
    from: orders
    pk: "CUSTOMER#{customer_id}"
    sk: "ORDER#{created_at|iso}#{id|pad:9}"
    ttl: expires_at
    attributes:
      set:
        open: {value: "OPEN#{customer_id}", when: "status = 'open'"}
    embed:
      lines: {from: order_lines, order_by: line_id, attributes: {include: [line_id, sku, qty]}}
access_patterns:
  ordersOfCustomer:
    entity: order
    query: {pk: "CUSTOMER#{customer_id}", sk: {begins_with: "ORDER#"}}
    sql: SELECT * FROM orders WHERE customer_id = {customer_id} ORDER BY created_at, id
`

// shopBase is when the shop's first order was placed.
var shopBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func sqlTime(t time.Time) string { return "'" + t.UTC().Format("2006-01-02 15:04:05.000000") + "'" }

// shop is a source database of a follow engine with the shop's rows.
type shop struct {
	eng       testenv.FollowEngine
	dsn       string
	conn      testenv.SQLConn // the test's own statements
	fx        *fixture
	customers int // ids 0 (the sentinel, always active) to customers-1
	orders    int // ids 1 to orders, each with two lines (line ids 1 to 2*orders)
	sentinels int
}

// newShop makes a shop of customers customers and orders orders.
func newShop(t *testing.T, eng testenv.FollowEngine, customers, orders int) *shop {
	t.Helper()
	dsn := eng.Fresh(t)
	var b strings.Builder
	b.WriteString(shopSchema(eng))
	values := func(table string, n int, row func(i int) string) {
		for i := range n {
			if i%500 == 0 {
				if i > 0 {
					b.WriteString(";\n")
				}
				b.WriteString("INSERT INTO " + table + " VALUES ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(row(i))
		}
		b.WriteString(";\n")
	}
	values("customers", customers, func(i int) string {
		return fmt.Sprintf("(%d, 'customer %d', '%s', %v)", i, i, []string{"gold", "silver", "bronze"}[i%3], i == 0 || i%4 != 0)
	})
	values("orders", orders, func(i int) string {
		id := i + 1
		expires := "NULL"
		if id%5 == 0 {
			expires = sqlTime(time.Date(2090, 1, 1, 0, 0, id, 0, time.UTC))
		}
		return fmt.Sprintf("(%d, %d, %s, '%s', %d.25, %s, 'n%d')", id, 1+id*7%(customers-1),
			sqlTime(shopBase.Add(time.Duration(id)*time.Minute+time.Duration(id*37%1000000)*time.Microsecond)),
			[]string{"open", "closed", "shipped"}[id%3], id, expires, id)
	})
	values("order_lines", 2*orders, func(i int) string {
		l := i + 1
		return fmt.Sprintf("(%d, %d, 'SKU-%d', %d)", l, (l+1)/2, l%50, l%7+1)
	})
	eng.Exec(t, dsn, b.String())
	return &shop{eng: eng, dsn: dsn, conn: eng.Connect(t, dsn), fx: open(t, dsn, "mapping.yaml", shopMapping), customers: customers, orders: orders}
}

// mustExec runs statements, in one transaction when there are several.
func (s *shop) mustExec(t *testing.T, stmts ...string) {
	t.Helper()
	if err := s.conn.Exec(context.Background(), stmts...); err != nil {
		t.Fatal(err)
	}
}

// followOptions are the options of a followed migration of the shop into
// table, with its checkpoint ck.
func (s *shop) followOptions(db dynamo.API, table, ck string) migrate.Options {
	o := s.fx.options(db, table)
	o.Follow = true
	o.CheckpointPath, o.MappingDigest, o.SourceID = ck, "digest-1", "source-1"
	o.CheckpointEvery = 100 * time.Millisecond
	return o
}

// sourceRows counts the source's rows per entity (with its where), now.
func (s *shop) sourceRows(t *testing.T) map[string]int64 { return sourceRows(t, s.fx) }

// sourceRows counts fx's source rows per entity (with its where; an
// entity from a query counts the query's rows), now.
func sourceRows(t *testing.T, fx *fixture) map[string]int64 {
	t.Helper()
	ctx := testContext(t)
	snap, err := fx.src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	rows := map[string]int64{}
	for _, e := range fx.plan.Entities {
		if rows[e.Name], err = snap.Readers()[0].Count(ctx, e.Table, e.Where); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// checkExact checks that the table is exactly the source now: verify's
// checks (every item attribute by attribute, no stray item, the access
// pattern) and as many items of each entity as the source has rows.
func (s *shop) checkExact(t *testing.T, db dynamo.API, table string) {
	t.Helper()
	checkExact(t, s.fx, db, table)
}

// checkExact checks that the table is exactly fx's source now: verify's
// checks (every item attribute by attribute, no stray item, the access
// patterns) and as many items of each entity as the source has rows.
func checkExact(t *testing.T, fx *fixture, db dynamo.API, table string) {
	t.Helper()
	verifyExact(t, fx, db, table)
	want := sourceRows(t, fx)
	_, got := scan(t, db, table)
	for _, e := range fx.plan.Entities {
		if got[e.Name] != want[e.Name] {
			t.Errorf("the table holds %d %s items, the source has %d rows", got[e.Name], e.Name, want[e.Name])
		}
	}
}

// caughtUp waits until the follower has applied every change committed so
// far. It commits a sentinel change (customer 0's name, which nothing else
// changes) after them and waits for it (waitCaughtUp).
func (s *shop) caughtUp(t *testing.T, db dynamo.API, table string, f *following) {
	t.Helper()
	s.sentinels++
	mark := fmt.Sprintf("sentinel %d", s.sentinels)
	s.mustExec(t, "UPDATE customers SET name = '"+mark+"' WHERE id = 0")
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "CUSTOMER#0"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}
	waitCaughtUp(t, f, func() bool {
		out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return false
		}
		n, ok := out.Item["name"].(*types.AttributeValueMemberS)
		return ok && n.Value == mark
	})
}

// waitCaughtUp waits until the follower has applied a sentinel change
// committed after every change the test waits for: until applied (the
// sentinel's item shows it) says so, which means that its transaction,
// the last of the stream, was handed to the follower and every batch
// before its batch is acknowledged, and then for a status, taken after
// that, with no transaction waiting to be acknowledged.
func waitCaughtUp(t *testing.T, f *following, applied func() bool) {
	t.Helper()
	l := f.log
	deadline := time.Now().Add(2 * time.Minute)
	for !applied() {
		if f.ended() {
			t.Fatalf("the followed migration ended: %v", f.err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower did not apply the sentinel change within 2 minutes (last status %+v)", l.last())
		}
		time.Sleep(20 * time.Millisecond)
	}
	seen := time.Now()
	for {
		if st, ok := l.since(seen); ok && st.Behind == 0 {
			return
		}
		if f.ended() {
			t.Fatalf("the followed migration ended: %v", f.err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower still has transactions to acknowledge 2 minutes after the last change (last status %+v)", l.last())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// followLog records the follower's lag as the progress tracker reports
// it: a progress.Printer of the run's tracker, taking the follow phase's
// lag from every state (the tracker's Run polls it every
// followLogEvery).
type followLog struct {
	mu    sync.Mutex
	all   []stampedLag
	first chan struct{}
	once  sync.Once
}

// followLogEvery is how often the tests' tracker is read.
const followLogEvery = 50 * time.Millisecond

type stampedLag struct {
	at time.Time
	progress.LagState
}

func newFollowLog() *followLog { return &followLog{first: make(chan struct{})} }

func (l *followLog) Print(s progress.State) {
	for _, p := range s.Phases {
		if p.Name == "follow" && p.Lag != nil {
			l.mu.Lock()
			l.all = append(l.all, stampedLag{time.Now(), *p.Lag})
			l.mu.Unlock()
			l.once.Do(func() { close(l.first) })
		}
	}
}

func (l *followLog) Close(s progress.State) { l.Print(s) }

// since is the latest lag reported after t.
func (l *followLog) since(t time.Time) (progress.LagState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.all); n > 0 && l.all[n-1].at.After(t) {
		return l.all[n-1].LagState, true
	}
	return progress.LagState{}, false
}

func (l *followLog) last() progress.LagState {
	st, _ := l.since(time.Time{})
	return st
}

// following is a followed migration running in the background.
type following struct {
	cancel context.CancelFunc
	done   chan struct{}
	rep    *migrate.Report
	err    error
	log    *followLog
}

// startFollow starts migrate.Run with o (o.Follow set) in the background;
// the run is stopped when the test ends.
func startFollow(t *testing.T, ctx context.Context, o migrate.Options) *following {
	t.Helper()
	f := &following{done: make(chan struct{}), log: newFollowLog()}
	o.Progress = progress.New("migrate")
	stopProgress := progress.Run(o.Progress, f.log, followLogEvery)
	ctx, f.cancel = context.WithCancel(ctx)
	go func() {
		defer close(f.done)
		f.rep, f.err = migrate.Run(ctx, o)
		stopProgress()
	}()
	t.Cleanup(func() { f.cancel(); <-f.done })
	return f
}

// following waits for the follower's first lag: the copy is done and the
// changes are being applied.
func (f *following) following(t *testing.T) {
	t.Helper()
	select {
	case <-f.log.first:
	case <-f.done:
		t.Fatalf("the run ended before it followed the changes: %v", f.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the follower did not start within 2 minutes")
	}
}

// ended says whether the run ended.
func (f *following) ended() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// wait waits for the run to end.
func (f *following) wait(t *testing.T) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute")
	}
}

// stop stops the follower as SIGINT does and checks that it stopped
// cleanly: Run returns nil and the report says it was stopped.
func (f *following) stop(t *testing.T) *migrate.Report {
	t.Helper()
	f.cancel()
	f.wait(t)
	if f.err != nil {
		t.Fatalf("the stopped follower returned %v", f.err)
	}
	if f.rep.Follow == nil || !f.rep.Follow.Stopped {
		t.Fatalf("the report of the stopped follower: %+v", f.rep.Follow)
	}
	return f.rep
}

// workload changes the shop's rows from several workers at once, each on
// rows of its own (orders and customers whose id, and lines whose order
// id, is the worker's number modulo the number of workers), so that they
// never wait for each other.
type workload struct {
	s       *shop
	conns   []testenv.SQLConn // per worker
	workers int
	seq     atomic.Int64 // new ids
	ops     atomic.Int64 // statements or transactions committed
	mu      sync.Mutex
	errs    []error
	orders  [][]int // per worker: order ids it made or was given (some deleted since)
	lines   [][]int // per worker: line ids likewise
	rng     []*rand.Rand
}

func newWorkload(t *testing.T, s *shop, workers int, seed uint64) *workload {
	w := &workload{s: s, workers: workers, orders: make([][]int, workers), lines: make([][]int, workers)}
	for range workers {
		w.conns = append(w.conns, s.eng.Connect(t, s.dsn))
	}
	for id := 1; id <= s.orders; id++ {
		w.orders[id%workers] = append(w.orders[id%workers], id)
		w.lines[id%workers] = append(w.lines[id%workers], 2*id-1, 2*id)
	}
	for i := range workers {
		w.rng = append(w.rng, rand.New(rand.NewPCG(seed, uint64(i))))
	}
	return w
}

// workloadPace is how often a worker makes a change at most: a workload
// as fast as the source takes it would starve the follower and DynamoDB
// Local of the machine's two cores.
const workloadPace = 5 * time.Millisecond

// run makes n changes per worker, or (n 0) changes until stop is closed.
func (w *workload) run(n int, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for i := range w.workers {
		wg.Go(func() {
			pace := time.NewTicker(workloadPace)
			defer pace.Stop()
			for k := 0; n == 0 || k < n; k++ {
				select {
				case <-stop:
					return
				case <-pace.C:
				}
				if err := w.conns[i].Exec(context.Background(), w.change(i)...); err != nil {
					w.mu.Lock()
					w.errs = append(w.errs, err)
					w.mu.Unlock()
					continue
				}
				w.ops.Add(1)
			}
		})
	}
	wg.Wait()
}

// check fails the test if a change failed.
func (w *workload) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, err := range w.errs[:min(len(w.errs), 5)] {
		t.Errorf("workload: %v", err)
	}
	if len(w.errs) > 5 {
		t.Errorf("workload: %d more errors", len(w.errs)-5)
	}
}

// newID is a new id of worker i.
func (w *workload) newID(i int) int { return 10_000_000 + int(w.seq.Add(1))*w.workers + i }

// change is one random change of worker i: the statements of one
// transaction.
func (w *workload) change(i int) []string {
	rng := w.rng[i]
	pick := func(ids []int) int { return ids[rng.IntN(len(ids))] }
	order := func() int { return pick(w.orders[i]) }
	// A line of the worker's, or of no one (its order was deleted, it is
	// not the worker's): the statement changes nothing then.
	line := func() string {
		return fmt.Sprintf("line_id = %d AND order_id %% %d = %d", pick(w.lines[i]), w.workers, i)
	}
	when := func() string {
		return sqlTime(shopBase.Add(time.Duration(rng.IntN(500_000))*time.Minute + time.Duration(rng.IntN(1_000_000))*time.Microsecond))
	}
	customer := func() int { // one of the worker's, not the sentinel (0)
		return (rng.IntN(w.s.customers/w.workers-1)+1)*w.workers + i
	}
	newOrder := func() (int, []string) {
		id := w.newID(i)
		w.orders[i] = append(w.orders[i], id)
		stmts := []string{fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, %s, 'open', %d.50, NULL, 'new')", id, customer(), when(), rng.IntN(1000))}
		for range rng.IntN(4) {
			l := w.newID(i)
			w.lines[i] = append(w.lines[i], l)
			stmts = append(stmts, fmt.Sprintf("INSERT INTO order_lines VALUES (%d, %d, 'SKU-NEW', %d)", l, id, rng.IntN(9)+1))
		}
		return id, stmts
	}
	// A line added to an order that may be gone: nothing is inserted then.
	addLine := func(o int) string {
		l := w.newID(i)
		w.lines[i] = append(w.lines[i], l)
		return fmt.Sprintf("INSERT INTO order_lines SELECT %d, id, 'SKU-ADD', %d FROM orders WHERE id = %d", l, rng.IntN(9)+1, o)
	}
	switch rng.IntN(16) {
	case 0, 1: // a new order with its lines
		_, stmts := newOrder()
		return stmts
	case 2: // values, which the conditional attribute reads
		return []string{fmt.Sprintf("UPDATE orders SET status = '%s', total = total + 1, note = 'upd %d' WHERE id = %d",
			[]string{"open", "closed", "shipped"}[rng.IntN(3)], rng.IntN(1000), order())}
	case 3: // the item's sort key moves
		return []string{fmt.Sprintf("UPDATE orders SET created_at = %s WHERE id = %d", when(), order())}
	case 4: // the item's partition key moves
		return []string{fmt.Sprintf("UPDATE orders SET customer_id = %d WHERE id = %d", customer(), order())}
	case 5: // the TTL
		ttl := "NULL"
		if rng.IntN(2) == 0 {
			ttl = sqlTime(time.Date(2080+rng.IntN(10), 1, 1, 0, 0, 0, 0, time.UTC))
		}
		return []string{fmt.Sprintf("UPDATE orders SET expires_at = %s WHERE id = %d", ttl, order())}
	case 6: // an order goes, with its lines
		return []string{fmt.Sprintf("DELETE FROM orders WHERE id = %d", order())}
	case 7: // a customer enters or leaves the entity's where
		return []string{fmt.Sprintf("UPDATE customers SET active = NOT active, name = 'toggled %d' WHERE id = %d", rng.IntN(1000), customer())}
	case 8: // child rows: inserted, changed, deleted
		return []string{addLine(order())}
	case 9:
		return []string{fmt.Sprintf("UPDATE order_lines SET qty = qty + 1, sku = 'SKU-%d' WHERE %s", rng.IntN(100), line())}
	case 10:
		return []string{"DELETE FROM order_lines WHERE " + line()}
	case 11: // a line moves to another order (both items change)
		o := order()
		return []string{fmt.Sprintf("UPDATE order_lines SET order_id = %d WHERE %s AND EXISTS (SELECT 1 FROM orders WHERE id = %d)", o, line(), o)}
	case 12: // two statements: an order moves twice, and another order's line goes
		o := order()
		return []string{
			fmt.Sprintf("UPDATE orders SET created_at = %s, note = 'twice' WHERE id = %d", when(), o),
			"DELETE FROM order_lines WHERE " + line(),
			fmt.Sprintf("UPDATE orders SET customer_id = %d, status = 'open' WHERE id = %d", customer(), o),
		}
	case 13: // an order that exists only inside its transaction
		id, stmts := newOrder()
		return append(stmts, fmt.Sprintf("DELETE FROM orders WHERE id = %d", id))
	case 14: // the primary key itself changes (its lines follow: ON UPDATE CASCADE)
		id := w.newID(i)
		w.orders[i] = append(w.orders[i], id)
		return []string{fmt.Sprintf("UPDATE orders SET id = %d WHERE id = %d", id, order())}
	default: // two statements: an order deleted, another one's line added and a customer changed
		return []string{
			fmt.Sprintf("DELETE FROM orders WHERE id = %d", order()),
			addLine(order()),
			fmt.Sprintf("UPDATE customers SET tier = 'tier%d' WHERE id = %d", rng.IntN(10), customer()),
		}
	}
}

// checkpointFollow is the follow state of a checkpoint file ({} when the
// file is missing or being replaced).
func checkpointFollow(path string) map[string]any {
	var ck struct {
		Follow map[string]any `json:"follow"`
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &ck) != nil || ck.Follow == nil {
		return map[string]any{}
	}
	return ck.Follow
}

// TestFollowWorkload: a followed migration of the shop while a workload
// changes it, during the copy and after it: inserts, value updates,
// updates that move an item's key (created_at, customer_id, the primary
// key), deletes, customers entering and leaving the entity's where, the
// conditional attribute and the TTL changing, child rows inserted,
// changed, moved to another order and deleted, transactions of several
// statements. Once the workload stops and the follower has applied
// everything, the stopped follower returns nil with a report saying it was
// stopped, and the table is exactly the source: verify passes and every
// entity has as many items as the source has rows.
func TestFollowWorkload(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 200, 1500)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			// The copy's writes are held back a little, so that the
			// workload runs while it copies.
			_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 40 * time.Millisecond})
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(slow, table, ck)
			o.CreateTable, o.Writers = true, 2
			w := newWorkload(t, s, 3, 1)

			f := startFollow(t, testContext(t), o)
			stop := make(chan struct{})
			var copying, copied atomic.Int64 // the workload's changes when the slot was created, when the copy was done
			copying.Store(-1)
			var wg sync.WaitGroup
			wg.Go(func() { w.run(0, stop) })
			wg.Go(func() {
				for {
					if copying.Load() < 0 && checkpointFollow(ck)["start"] != nil {
						copying.Store(w.ops.Load())
					}
					select {
					case <-f.log.first:
						copied.Store(w.ops.Load())
						close(stop)
						return
					case <-f.done:
						close(stop)
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			})
			wg.Wait()
			f.following(t)
			w.run(300, nil) // after the copy
			w.check(t)
			t.Logf("%d changes: %d before the slot, %d during the copy, %d after it", w.ops.Load(), copying.Load(), copied.Load()-copying.Load(), w.ops.Load()-copied.Load())
			if copying.Load() < 0 || copied.Load()-copying.Load() < 10 {
				t.Errorf("the workload made %d changes during the copy; the test wants some", copied.Load()-copying.Load())
			}

			s.caughtUp(t, direct, table, f)
			rep := f.stop(t)
			if rep.Follow.Changes == 0 || rep.Follow.Puts == 0 || rep.Follow.Deletes == 0 || rep.Follow.Rejected != 0 {
				t.Errorf("follow report: %+v", rep.Follow)
			}
			s.checkExact(t, direct, table)
		})
	}
}

// TestFollowResume: a follower stopped (as by SIGINT) and run again with
// --resume goes on from the slot: the changes made while it was stopped
// are applied and the table is exact. A run stopped during the copy, before
// the follower started, leaves the checkpoint's copy not done; --resume
// finishes the copy (the rows not settled, read anew) and then follows,
// from the slot of the first run: the changes made since the first run's
// snapshot, to the rows copied then and to the others, all land.
func TestFollowResume(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Run("following", func(t *testing.T) {
				s := newShop(t, eng, 100, 500)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				ck := filepath.Join(t.TempDir(), "c.json")
				o := s.followOptions(db, table, ck)
				o.CreateTable = true
				w := newWorkload(t, s, 2, 2)

				f := startFollow(t, testContext(t), o)
				f.following(t)
				w.run(100, nil)
				s.caughtUp(t, db, table, f)
				f.stop(t)
				if st := checkpointFollow(ck); st["copy_done"] != true || st["applied"] == nil {
					t.Fatalf("the checkpoint's follow state after the stop: %v", st)
				}

				w.run(150, nil) // while no one follows
				w.check(t)
				o.Resume, o.CreateTable = true, false
				f = startFollow(t, testContext(t), o)
				f.following(t)
				s.caughtUp(t, db, table, f)
				rep := f.stop(t)
				if rep.Earlier == nil || rep.RowsRead != rep.Earlier.Rows || rep.Follow.Changes == 0 {
					t.Errorf("the resumed run read %d rows (earlier runs %+v; want no more: the copy was done) and applied %d changes (want those made while stopped)", rep.RowsRead, rep.Earlier, rep.Follow.Changes)
				}
				s.checkExact(t, db, table)
			})
			t.Run("stopped during the copy", func(t *testing.T) {
				s := newShop(t, eng, 100, 1500)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
				ck := filepath.Join(t.TempDir(), "c.json")
				o := s.followOptions(slow, table, ck)
				o.CreateTable, o.Writers = true, 1
				rep, err := migrate.Run(stopAfter(t, db, table, 300), o)
				if err == nil || !rep.Interrupted || rep.Follow != nil {
					t.Fatalf("the first run was not stopped during the copy: %v, follow %+v", err, rep.Follow)
				}
				if st := checkpointFollow(ck); st["copy_done"] != false || st["start"] == nil || !strings.HasPrefix(fmt.Sprint(st["slot"]), migrate.DefaultSlot(table, "")+"_") {
					t.Fatalf("the checkpoint's follow state after a stop during the copy: %v", st)
				}
				if n, _ := scan(t, db, table); n >= int64(s.orders) {
					t.Fatalf("the stopped copy wrote %d items: all the orders", n)
				}

				w := newWorkload(t, s, 2, 3)
				w.run(300, nil) // rows copied and rows not yet copied change
				w.check(t)
				o = s.followOptions(db, table, ck)
				o.Resume = true
				f := startFollow(t, testContext(t), o)
				f.following(t)
				if st := checkpointFollow(ck); st["copy_done"] != true {
					t.Errorf("the checkpoint's follow state once the resumed run follows: %v", st)
				}
				w.run(100, nil)
				w.check(t)
				s.caughtUp(t, db, table, f)
				rep = f.stop(t)
				if rep.Earlier == nil || rep.Earlier.Items == 0 || rep.RowsRead <= rep.Earlier.Rows || rep.Follow.Changes == 0 {
					t.Errorf("the resumed run: earlier %+v, %d rows read, %d changes applied; want the first run's items, the rest of the copy and the changes since its snapshot",
						rep.Earlier, rep.RowsRead, rep.Follow.Changes)
				}
				s.checkExact(t, db, table)
			})
		})
	}
}

// TestFollowReplayNeverWins: changes replayed after a crash never bring an
// item back to an older state.
//
// The plant: order 1 is changed twice, A (created_at T1, note "A": its
// item's key moves) then B (created_at T2, note "B": it moves again). The
// first follower applies both, so the table holds the newest state, the
// item at T2 with note B; then its connection to the source is severed
// before it told the source what it applied, as a crash would (PostgreSQL:
// the walsender is ended; the position is reported every 10 s, and the
// test is done well before; an engine that resumes from remodel's
// checkpoint instead gets its checkpoint of before A back), so the source
// keeps A and B and a second run (--resume) gets them again: A
// first, in a batch of its own (FollowBatch 1), its writes held back 300 ms
// as are B's, so that what A's batch wrote stays in the table a while.
// The test samples order 1's items all along the replay (consistent
// reads): they must be, every time, the one item at T2 with note B.
//
// A follower that wrote a change's own row values would, replaying A, put
// the item at T1 with note A back (an older state: the item B had moved
// away resurrected, beside B's) until B is replayed, and the sampling sees
// it. This follower reads order 1 again as the source holds it now (B) and
// deletes the keys its row had before that no row renders now (T0 and T1),
// so the replay only writes B again.
func TestFollowReplayNeverWins(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 20, 100)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(db, table, ck)
			o.CreateTable = true
			f := startFollow(t, testContext(t), o)
			f.following(t)
			// The checkpoint before A and B: a source that resumes from
			// remodel's checkpoint, not from a slot of its own, gets them
			// again from there.
			before, err := os.ReadFile(ck)
			if err != nil {
				t.Fatal(err)
			}

			pk := fmt.Sprintf("CUSTOMER#%d", 1+1*7%(s.customers-1))
			state := func() string { // order 1's items: "SK note", sorted
				out, err := db.Query(context.Background(), &dynamodb.QueryInput{
					TableName:                 aws.String(table),
					KeyConditionExpression:    aws.String("PK = :pk"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
					ConsistentRead:            aws.Bool(true),
				})
				if err != nil {
					return "error: " + err.Error()
				}
				var items []string
				for _, it := range out.Items {
					sk := it["SK"].(*types.AttributeValueMemberS).Value
					if strings.HasSuffix(sk, "#000000001") {
						items = append(items, sk+" "+it["note"].(*types.AttributeValueMemberS).Value)
					}
				}
				slices.Sort(items)
				return strings.Join(items, ", ")
			}
			t1, t2 := time.Date(2024, 6, 1, 1, 2, 3, 456789000, time.UTC), time.Date(2024, 7, 1, 1, 2, 3, 0, time.UTC)
			s.mustExec(t, "UPDATE orders SET created_at = "+sqlTime(t1)+", note = 'A' WHERE id = 1")
			s.mustExec(t, "UPDATE orders SET created_at = "+sqlTime(t2)+", note = 'B' WHERE id = 1")
			newest := "ORDER#2024-07-01T01:02:03.000000Z#000000001 B"
			for deadline := time.Now().Add(time.Minute); state() != newest; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the first follower did not apply A and B within a minute: order 1 is %q", state())
				}
			}
			if eng.Sever != nil {
				eng.Sever(t, s.dsn, checkpointFollow(ck)["slot"].(string))
				f.wait(t)
				t.Logf("the first run, severed: %v", f.err)
			} else {
				f.stop(t)
				if err := os.WriteFile(ck, before, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// The replay, sampled.
			_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 300 * time.Millisecond})
			o = s.followOptions(slow, table, ck)
			o.Resume, o.FollowBatch = true, 1
			sampled := make(chan []string)
			stopSampling := make(chan struct{})
			go func() {
				var seen []string
				n := 0
				for {
					n++
					if st := state(); st != newest && !slices.Contains(seen, st) {
						seen = append(seen, st)
					}
					select {
					case <-stopSampling:
						sampled <- append(seen, fmt.Sprint(n))
						return
					default:
					}
				}
			}()
			f = startFollow(t, testContext(t), o)
			f.following(t)
			s.caughtUp(t, db, table, f)
			rep := f.stop(t)
			close(stopSampling)
			seen := <-sampled
			t.Logf("%s samples of order 1 during the replay", seen[len(seen)-1])
			for _, st := range seen[:len(seen)-1] {
				t.Errorf("during the replay order 1 was %q, not the newest state %q", st, newest)
			}
			var replayed int64
			for _, e := range rep.Follow.Entities {
				if e.Name == "order" {
					replayed = e.Changes
				}
			}
			if replayed < 2 {
				t.Fatalf("the plant failed: the second run got %d changes of orders, not A and B again (the first follower told the source it applied them; report %+v)", replayed, rep.Follow)
			}
			if got := state(); got != newest {
				t.Errorf("after the replay order 1 is %q, want %q", got, newest)
			}
			s.checkExact(t, db, table)
		})
	}
}

// openWithQueries is open for a mapping with entities from queries, whose
// result columns the source describes (as the CLI has it do); the fixture
// counts no rows.
func openWithQueries(t *testing.T, dsn, mappingYAML string) *fixture {
	t.Helper()
	ctx := testContext(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("mapping.yaml", []byte(mappingYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entities {
		if q := e.Query.Value; q != "" {
			cols, err := src.QueryColumns(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			schema.AddQuery(q, cols)
		}
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{plan: plan, src: src, rows: map[string]int64{}}
}

// postgresFollow is PostgreSQL's entry of testenv.FollowEngines.
func postgresFollow(t *testing.T) testenv.FollowEngine {
	t.Helper()
	for _, e := range testenv.FollowEngines {
		if e.Name == "postgres" {
			return e
		}
	}
	t.Fatal("testenv.FollowEngines has no PostgreSQL")
	return testenv.FollowEngine{}
}

// count runs a count query on conn.
func count(t *testing.T, conn testenv.SQLConn, q string) int64 {
	t.Helper()
	n, err := conn.Int(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestFollowRefusals (PostgreSQL): what a source must have for --follow
// is checked before anything is created, and a refusal says what to
// change: wal_level = logical, the REPLICATION privilege, REPLICA IDENTITY
// FULL on a table whose item key reads a column outside its primary key
// (and on an embed's child table whose link does), and no entity from a
// view or a query. A refused run creates no DynamoDB table, no slot and no
// publication, and leaves no checkpoint.
func TestFollowRefusals(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	pg := postgresFollow(t)
	db := newDB(t, endpoint)

	// refused runs a followed migration that must be refused saying want
	// (one that is not follows until its 30 s are up).
	refused := func(t *testing.T, fx *fixture, dsn string, want ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(testContext(t), 30*time.Second)
		defer cancel()
		table := tableName(t, db)
		ck := filepath.Join(t.TempDir(), "c.json")
		o := fx.options(db, table)
		o.CreateTable, o.Follow, o.CheckpointPath = true, true, ck
		_, err := migrate.Run(ctx, o)
		if err == nil {
			t.Fatal("the followed migration was not refused")
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("refusal %q does not say %q", err, w)
			}
		}
		if _, err := db.DescribeTable(testContext(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
			t.Error("the refused run created the table")
		}
		if _, err := os.Stat(ck); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the refused run left a checkpoint: %v", err)
		}
		admin := pg.Connect(t, dsn)
		if n := count(t, admin, "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '"+migrate.DefaultSlot(table, "")+"%'"); n != 0 {
			t.Error("the refused run created a replication slot")
		}
		if n := count(t, admin, "SELECT count(*) FROM pg_publication"); n != 0 {
			t.Error("the refused run created a publication")
		}
	}
	schema := shopSchema(pg)
	withoutFull := strings.ReplaceAll(schema, pg.FullRows("orders"), "")

	t.Run("wal_level", func(t *testing.T) {
		dsn := testenv.Postgres(t) // the shared server: wal_level replica
		testenv.ExecPostgres(t, dsn, schema)
		refused(t, open(t, dsn, "mapping.yaml", shopMapping), dsn, "following changes needs wal_level = logical", "which has replica", "ALTER SYSTEM SET wal_level = logical")
	})
	t.Run("REPLICATION", func(t *testing.T) {
		admin := pg.Fresh(t)
		testenv.ExecPostgres(t, admin, schema)
		role := testenv.UniqueName("norepl")
		testenv.ExecPostgres(t, admin, "CREATE ROLE "+role+" LOGIN NOREPLICATION; GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+role)
		t.Cleanup(func() { // after the source's connections are closed (cleanups run last first)
			testenv.ExecPostgres(t, admin, "DROP OWNED BY "+role+"; DROP ROLE "+role)
		})
		dsn := strings.Replace(admin, "//postgres@", "//"+role+"@", 1)
		if dsn == admin {
			t.Fatalf("cannot name user %s in %s", role, admin)
		}
		refused(t, open(t, dsn, "mapping.yaml", shopMapping), admin, "REPLICATION privilege, which user "+role+" does not have", `ALTER ROLE "`+role+`" REPLICATION`)
	})
	t.Run("REPLICA IDENTITY", func(t *testing.T) {
		dsn := pg.Fresh(t)
		testenv.ExecPostgres(t, dsn, withoutFull)
		refused(t, open(t, dsn, "mapping.yaml", shopMapping), dsn, `ALTER TABLE "public"."orders" REPLICA IDENTITY FULL;`)
		// The embed's child table, linked by a column outside its key.
		dsn = pg.Fresh(t)
		testenv.ExecPostgres(t, dsn, strings.ReplaceAll(schema, pg.FullRows("order_lines"), ""))
		fx := open(t, dsn, "mapping.yaml", shopMapping)
		refused(t, fx, dsn, `ALTER TABLE "public"."order_lines" REPLICA IDENTITY FULL;`)
	})
}

// diffedMapping is the shop's mapping with two entities that are not
// followed row by row: open_order reads a view (the open orders) and
// order_total a query (each customer's spending, an aggregate).
var diffedMapping = strings.Replace(shopMapping, "access_patterns:", `  open_order:
    from: open_orders
    key: [id]
    pk: "OPEN#{id}"
    sk: "ORDER#{customer_id}"
    attributes: {include: [status, total]}
  order_total:
    query: SELECT customer_id, count(*) AS orders, sum(total) AS spent FROM orders GROUP BY customer_id
    key: [customer_id]
    pk: "CUSTOMER#{customer_id}"
    sk: SPENT
access_patterns:`, 1)

// TestFollowDiffed: the entities read from a view (open orders) and a
// query (an aggregate of orders per customer) are not followed row by row:
// the workload's changes reach them by the diff pass when the follower is
// stopped. Before the stop the table is not exact (verify fails on them:
// the pass has work to do); after it, it is, and the report counts the
// pass's rows, unchanged items, puts and deletes. validate's line says
// which entities are diffed.
func TestFollowDiffed(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 60, 400)
			s.mustExec(t, "CREATE VIEW open_orders AS SELECT * FROM orders WHERE status = 'open'")
			s.fx = openWithQueries(t, s.dsn, diffedMapping)
			if got, want := migrate.FollowSupport(s.fx.plan), "diffed when the follower stops (a change cannot be traced to their items): open_order (a view), order_total (a query)"; !strings.Contains(got, want) {
				t.Errorf("FollowSupport = %q, want it to say %q", got, want)
			}
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := s.followOptions(db, table, filepath.Join(t.TempDir(), "c.json"))
			o.CreateTable = true
			f := startFollow(t, testContext(t), o)
			f.following(t)
			w := newWorkload(t, s, 2, 7)
			w.run(150, nil)
			w.check(t)
			s.caughtUp(t, db, table, f)
			rep, err := verify.Run(testContext(t), verify.Options{Plan: s.fx.plan, Source: s.fx.src, DB: db, Table: table, Samples: 1, Seed: 1, Settle: 30 * time.Second})
			if err != nil || rep.OK {
				t.Errorf("before the stop, verify = %v, ok %v; want a failure: the diffed entities are the copy's", err, rep != nil && rep.OK)
			}

			mrep := f.stop(t)
			diffed := map[string]migrate.FollowDiff{}
			for _, d := range mrep.Follow.Diffed {
				diffed[d.Entity] = d
			}
			want := s.sourceRows(t)
			for _, name := range []string{"open_order", "order_total"} {
				d, ok := diffed[name]
				switch {
				case !ok:
					t.Errorf("the report has no diff pass of %s: %+v", name, mrep.Follow.Diffed)
				case d.Rows != want[name] || d.Puts == 0 || d.Unchanged == 0 || d.Unchanged+d.Puts != d.Rows || d.Rejected != 0:
					t.Errorf("diff pass of %s: %+v; the source has %d rows, and the workload changed some", name, d, want[name])
				}
			}
			if d := diffed["open_order"]; d.Deletes == 0 { // orders closed or deleted since the copy
				t.Errorf("diff pass of open_order deleted nothing: %+v", d)
			}
			s.checkExact(t, db, table)
		})
	}
}

// TestFollowCleanup (PostgreSQL): migrate.FollowCleanup ends a stopped
// followed migration: it drops the replication slot, and the publication
// when remodel created it (one the user named is left), and removes the
// checkpoint. A checkpoint edited by hand (here: to name another slot) is
// refused and drops nothing, as is the checkpoint of a migration that did
// not follow.
func TestFollowCleanup(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	pg := postgresFollow(t)
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("publication named=%v", named), func(t *testing.T) {
			s := newShop(t, pg, 20, 50)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(db, table, ck)
			o.CreateTable = true
			var slot, pub string
			if named {
				pub = "mine"
				s.mustExec(t, "CREATE PUBLICATION mine FOR TABLE customers, orders, order_lines")
				o.Publication = pub
			}
			f := startFollow(t, testContext(t), o)
			f.following(t)
			f.stop(t)
			slot = checkpointFollow(ck)["slot"].(string)
			if pub == "" {
				pub = slot
			}
			slots := func() int64 {
				return count(t, s.conn, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"+slot+"'")
			}
			pubs := func() int64 {
				return count(t, s.conn, "SELECT count(*) FROM pg_publication WHERE pubname = '"+pub+"'")
			}
			if slots() != 1 || pubs() != 1 {
				t.Fatalf("after the stopped follower: %d slots %s, %d publications %s; want one of each", slots(), slot, pubs(), pub)
			}

			orig, err := os.ReadFile(ck)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(orig, &doc); err != nil {
				t.Fatal(err)
			}
			doc["follow"].(map[string]any)["slot"] = "another_slot"
			edited, _ := json.MarshalIndent(doc, "", "  ")
			if err := os.WriteFile(ck, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := testContext(t)
			if done, err := migrate.FollowCleanup(ctx, s.fx.src, ck, true); err == nil || !strings.Contains(err.Error(), "damaged or was edited") {
				t.Errorf("follow-cleanup with an edited checkpoint: %q, %v; want it refused", done, err)
			}
			if slots() != 1 || pubs() != 1 {
				t.Errorf("the refused follow-cleanup dropped something: %d slots, %d publications", slots(), pubs())
			}

			if err := os.WriteFile(ck, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			done, err := migrate.FollowCleanup(ctx, s.fx.src, ck, false)
			if err != nil {
				t.Fatalf("follow-cleanup: %v", err)
			}
			and := ""
			if !named {
				and = " and publication " + pub
			}
			if want := "dropped replication slot " + slot + and; done != want {
				t.Errorf("follow-cleanup says %q, want %q", done, want)
			}
			// Again, the slot gone: it says so instead of claiming a drop.
			done, err = migrate.FollowCleanup(ctx, s.fx.src, ck, true)
			if err != nil {
				t.Fatalf("follow-cleanup again: %v", err)
			}
			if want := "replication slot " + slot + " did not exist (dropped already)" + and + "; removed checkpoint " + ck; done != want {
				t.Errorf("follow-cleanup again says %q, want %q", done, want)
			}
			if slots() != 0 {
				t.Error("follow-cleanup left the slot")
			}
			if n := pubs(); named && n != 1 || !named && n != 0 {
				t.Errorf("follow-cleanup left %d publications %s (the user's: %v)", n, pub, named)
			}
			if _, err := os.Stat(ck); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("follow-cleanup left the checkpoint: %v", err)
			}
		})
	}
	t.Run("not followed", func(t *testing.T) {
		fx := personalization(t, testenv.Engines[0])
		_, _, _, ck := stoppedJob(t, fx, endpoint)
		done, err := migrate.FollowCleanup(testContext(t), fx.src, ck, true)
		if err == nil || !strings.Contains(err.Error(), "did not follow the source's changes: it has no slot") {
			t.Errorf("follow-cleanup of a migration that did not follow: %q, %v; want it refused", done, err)
		}
		if _, err := os.Stat(ck); err != nil {
			t.Errorf("the refused follow-cleanup removed the checkpoint: %v", err)
		}
	})
}

// TestFollowLargeTransaction: a transaction of more changes than the
// stream holds at once (FollowTxnPart 50 here; source.MaxTxnPart, 10 000,
// in use) is handed over and applied in parts, and counted as one
// transaction; the table is exact after it.
func TestFollowLargeTransaction(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 50, 400)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := s.followOptions(db, table, filepath.Join(t.TempDir(), "c.json"))
			o.CreateTable, o.FollowTxnPart = true, 50
			f := startFollow(t, testContext(t), o)
			f.following(t)
			s.mustExec(t,
				"UPDATE orders SET status = 'closed', total = total + 1 WHERE status = 'open'",
				"DELETE FROM order_lines WHERE line_id % 3 = 0",
				"UPDATE customers SET name = CONCAT('renamed ', name) WHERE id > 0")
			s.caughtUp(t, db, table, f)
			rep := f.stop(t)
			// 133 open orders closed, 266 lines deleted, 49 customers
			// renamed, and the sentinel's change. PostgreSQL hands over
			// parts of exactly 50; a MySQL rows event holds many rows, so
			// a part there is 50 or more (the rows event that reached 50).
			if rep.Follow.Parts < 2 || rep.Follow.Transactions != int64(1+s.sentinels) || rep.Follow.Changes != 448+int64(s.sentinels) {
				t.Errorf("follow report: %d parts, %d transactions, %d changes; want 2 parts or more, %d transactions (the large one and the sentinels), %d changes",
					rep.Follow.Parts, rep.Follow.Transactions, rep.Follow.Changes, 1+s.sentinels, 448+s.sentinels)
			}
			s.checkExact(t, db, table)
		})
	}
}
