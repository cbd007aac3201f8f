package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

// TestSoakMix: the soak's workload draws issue 34's mix (30 % inserts, 30 %
// status and amount, 20 % created_at, 10 % deletes, 10 % two statements),
// the same statements for the same seed, on the worker's own orders.
func TestSoakMix(t *testing.T) {
	const n = 20000
	draw := func(seed uint64) ([][]string, map[string]int) {
		l := newSoakLoad(make([]sqlConn, 4), 2000, seed)
		var all [][]string
		kinds := map[string]int{}
		for i := range n {
			w := l.workers[i%len(l.workers)]
			stmts := l.change(w)
			all = append(all, stmts)
			switch s := stmts[0]; {
			case len(stmts) == 2:
				kinds["two"]++
			case strings.HasPrefix(s, "INSERT"):
				kinds["insert"]++
			case strings.Contains(s, "status = 'PAID', amount = amount + 1"):
				kinds["paid"]++
			case strings.Contains(s, "SET created_at"):
				kinds["move"]++
			case strings.HasPrefix(s, "DELETE"):
				kinds["delete"]++
			default:
				t.Fatalf("a statement of no kind: %q", stmts)
			}
			for _, s := range stmts {
				if strings.Contains(s, "order_id = 0") {
					t.Fatalf("the workload touches the sentinel: %q", s)
				}
			}
		}
		return all, kinds
	}
	a, kinds := draw(7)
	for kind, want := range map[string]float64{"insert": 0.3, "paid": 0.3, "move": 0.2, "delete": 0.1, "two": 0.1} {
		if got := float64(kinds[kind]) / n; math.Abs(got-want) > 0.02 {
			t.Errorf("%s: %.3f of the transactions, want %.2f", kind, got, want)
		}
	}
	b, _ := draw(7)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("the same seed drew other statements")
	}
	c, _ := draw(8)
	if slices.EqualFunc(a, c, slices.Equal) {
		t.Error("another seed drew the same statements")
	}
}

// TestSoakSchema: the table afresh, the rows and the sentinel in batches,
// whole rows on PostgreSQL's stream.
func TestSoakSchema(t *testing.T) {
	for _, e := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
		stmts := soakSchema(e, 1200)
		rows := 0
		for _, s := range stmts {
			if strings.HasPrefix(s, "INSERT") {
				rows += strings.Count(s, "), (") + 1
			}
		}
		if rows != 1201 {
			t.Errorf("%s: %d rows inserted, want 1 200 and the sentinel", e, rows)
		}
		full := slices.ContainsFunc(stmts, func(s string) bool { return strings.Contains(s, "REPLICA IDENTITY FULL") })
		if full != (e == introspect.Postgres) {
			t.Errorf("%s: REPLICA IDENTITY FULL %v", e, full)
		}
		if !strings.HasPrefix(stmts[0], "DROP TABLE IF EXISTS") {
			t.Errorf("%s: the first statement is %q", e, stmts[0])
		}
	}
}
