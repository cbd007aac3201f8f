package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// The follow soak's source (soak.go): one table of orders, as issue 34's,
// whose item key reads a column that changes (created_at: an update moves
// the item), and a seeded workload of issue 34's mix on it.

// soakTable is the soak's table, in the bench's database.
const soakTable = "soak_orders"

// soakMapping maps it: the key, CUSTOMER#{customer_id} /
// ORDER#{created_at}#{order_id|pad:10}.
const soakMapping = `version: 1
table: {name: soak, key: {pk: PK, sk: SK}}
entities:
  order:
    from: soak_orders
    pk: "CUSTOMER#{customer_id|pad:6}"
    sk: "ORDER#{created_at|iso}#{order_id|pad:10}"
`

// soakCustomers is how many customers the orders belong to (ids 1 to
// soakCustomers; 0 is the sentinel's).
const soakCustomers = 500

// soakBase is when the first order was placed.
var soakBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func soakTime(t time.Time) string { return "'" + t.UTC().Format("2006-01-02 15:04:05.000000") + "'" }

// soakSchema is the statements that make the soak's table afresh with rows
// orders (ids 1 to rows) and the sentinel (id 0, customer 0), whose items
// column only the bench changes (soakSentinel).
func soakSchema(engine introspect.Engine, rows int) []string {
	be := benchEngineOf(engine)
	ts := be.timestamp6()
	stmts := []string{
		"DROP TABLE IF EXISTS " + soakTable,
		fmt.Sprintf("CREATE TABLE %s (order_id int PRIMARY KEY, customer_id int NOT NULL, created_at %s NOT NULL, status varchar(10) NOT NULL, amount decimal(12,2) NOT NULL, items int NOT NULL)", soakTable, ts),
	}
	if q := be.fullRows(soakTable); q != "" {
		// The item key reads columns besides the primary key: the stream
		// must carry whole rows before a change.
		stmts = append(stmts, q)
	}
	var b strings.Builder
	for id := 0; id <= rows; id++ {
		if id%500 == 0 {
			if id > 0 {
				stmts = append(stmts, b.String())
				b.Reset()
			}
			b.WriteString("INSERT INTO " + soakTable + " VALUES ")
		} else {
			b.WriteString(", ")
		}
		cust := 0
		if id > 0 {
			cust = 1 + id*7919%soakCustomers
		}
		fmt.Fprintf(&b, "(%d, %d, %s, '%s', %d.67, %d)", id, cust,
			soakTime(soakBase.Add(time.Duration(id)*time.Minute+time.Duration(id*37%1_000_000)*time.Microsecond)),
			[]string{"NEW", "PAID", "SHIPPED"}[id%3], id%1000, id%9+1)
	}
	return append(stmts, b.String())
}

// soakSentinel is the statement that marks the sentinel's item with n.
func soakSentinel(n int) string {
	return fmt.Sprintf("UPDATE %s SET items = %d WHERE order_id = 0", soakTable, n)
}

// soakLoad is the soak's workload: workers connections, each changing
// orders of its own (ids equal to its number modulo workers), so that no
// two wait on one row; every choice from the seed.
type soakLoad struct {
	conns   []sqlConn
	workers []*soakWorker
	seq     atomic.Int64
	txns    atomic.Int64 // transactions committed
	mu      sync.Mutex
	errs    []error
}

// soakWorker is one connection's orders and random choices.
type soakWorker struct {
	i   int
	rng *rand.Rand
	ids []int // its orders now (inserted ones added, deleted ones gone)
}

// newSoakLoad deals the orders 1 to rows out to the workers of conns.
func newSoakLoad(conns []sqlConn, rows int, seed uint64) *soakLoad {
	l := &soakLoad{conns: conns}
	for i := range conns {
		l.workers = append(l.workers, &soakWorker{i: i, rng: rand.New(rand.NewPCG(seed, uint64(i)))})
	}
	for id := 1; id <= rows; id++ {
		w := l.workers[id%len(conns)]
		w.ids = append(w.ids, id)
	}
	return l
}

// newID is a new order id of worker w.
func (l *soakLoad) newID(w *soakWorker) int {
	return 10_000_000 + int(l.seq.Add(1))*len(l.workers) + w.i
}

// change is one transaction of worker w, drawn as issue 34's mix: 30 %
// inserts, 30 % updates of status and amount, 20 % updates of created_at
// (the item moves), 10 % deletes, 10 % transactions of two statements.
func (l *soakLoad) change(w *soakWorker) []string {
	rng := w.rng
	when := func() string {
		return soakTime(soakBase.Add(time.Duration(rng.IntN(500_000))*time.Minute + time.Duration(rng.IntN(1_000_000))*time.Microsecond))
	}
	insert := func() string {
		id := l.newID(w)
		w.ids = append(w.ids, id)
		return fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %s, 'NEW', %d.50, %d)", soakTable, id, 1+rng.IntN(soakCustomers), when(), rng.IntN(1000), rng.IntN(9)+1)
	}
	if len(w.ids) == 0 {
		return []string{insert()}
	}
	pick := func() int { return w.ids[rng.IntN(len(w.ids))] }
	del := func() string {
		k := rng.IntN(len(w.ids))
		id := w.ids[k]
		w.ids[k] = w.ids[len(w.ids)-1]
		w.ids = w.ids[:len(w.ids)-1]
		return fmt.Sprintf("DELETE FROM %s WHERE order_id = %d", soakTable, id)
	}
	paid := func(id int) string {
		return fmt.Sprintf("UPDATE %s SET status = 'PAID', amount = amount + 1 WHERE order_id = %d", soakTable, id)
	}
	move := func(id int) string {
		return fmt.Sprintf("UPDATE %s SET created_at = %s WHERE order_id = %d", soakTable, when(), id)
	}
	switch n := rng.IntN(10); {
	case n < 3:
		return []string{insert()}
	case n < 6:
		return []string{paid(pick())}
	case n < 8:
		return []string{move(pick())}
	case n < 9:
		return []string{del()}
	case rng.IntN(2) == 0: // two statements on one order: paid, then moved
		id := pick()
		return []string{fmt.Sprintf("UPDATE %s SET status = 'SHIPPED', amount = amount - 1 WHERE order_id = %d", soakTable, id), move(id)}
	default: // an order inserted, another one deleted
		if len(w.ids) < 2 {
			return []string{insert()}
		}
		d := del()
		return []string{insert(), d}
	}
}

// run commits transactions at rate a second in all (spread over the
// workers) until stop is closed.
func (l *soakLoad) run(ctx context.Context, rate float64, stop <-chan struct{}) {
	every := time.Duration(float64(len(l.workers)) / rate * float64(time.Second))
	var wg sync.WaitGroup
	for k, w := range l.workers {
		wg.Go(func() {
			pace := time.NewTicker(every)
			defer pace.Stop()
			for {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				case <-pace.C:
				}
				octx, cancel := context.WithTimeout(ctx, opTimeout)
				_, err := l.conns[k].exec(octx, l.change(w))
				cancel()
				if err != nil {
					l.mu.Lock()
					l.errs = append(l.errs, err)
					l.mu.Unlock()
					continue
				}
				l.txns.Add(1)
			}
		})
	}
	wg.Wait()
}

// err is the workload's failures, if any: the source is meant to take
// every transaction.
func (l *soakLoad) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) == 0 {
		return nil
	}
	return fmt.Errorf("bench: soak: %d transactions of the workload failed, the first: %w", len(l.errs), l.errs[0])
}
