package followback_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/verify"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// The shop: customers, their orders with the order lines embedded,
// favourites (a join of customers and products), and titles, an entity
// read from a view (which follow-back cannot write back).
const schemaSQL = `
CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(100) NOT NULL, email varchar(100));
CREATE TABLE products (sku varchar(20) PRIMARY KEY, title varchar(100));
CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(id), created_at %s NOT NULL, total numeric(12,2), status varchar(20));
CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders(id), line_no int NOT NULL, sku varchar(20) NOT NULL, qty int NOT NULL, PRIMARY KEY (order_id, line_no));
CREATE TABLE favourites (customer_id bigint NOT NULL REFERENCES customers(id), sku varchar(20) NOT NULL REFERENCES products(sku), PRIMARY KEY (customer_id, sku));
CREATE VIEW titles AS SELECT sku, title FROM products;
`

const shopMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  customer: {from: customers, pk: "CUSTOMER#{id}", sk: PROFILE}
  order:
    from: orders
    pk: "CUSTOMER#{customer_id}"
    sk: "ORDER#{created_at|iso}#{id|pad:9}"
    attributes: {exclude: [customer_id, created_at]}
    embed:
      lines: {from: order_lines, on: order_id, order_by: line_no, attributes: {exclude: [order_id]}}
  product: {from: products, pk: "PRODUCT#{sku}", sk: PRODUCT}
  favourite: {from: favourites, pk: "CUSTOMER#{customer_id}", sk: "FAV#{sku}", attributes: {exclude: [customer_id]}}
  title: {from: titles, key: [sku], pk: "TITLE#{sku}", sk: TITLE}
`

var base = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// shop is a migrated source and its table, with the clients follow-back
// and the application use.
type shop struct {
	eng    string
	dsn    string
	exec   func(testing.TB, string, string)
	plan   *mapping.Plan
	src    source.Source
	db     *dynamodb.Client
	st     *dynamodbstreams.Client
	table  string
	orders map[int64]*order // the application's view of the orders
	writes int              // item writes made (each one stream record)
}

type order struct {
	id, customer int64
	at           time.Time
	total        string
	status       string
	lines        [][3]any // line_no, sku, qty
}

func newShop(t *testing.T, eng string, fresh func(testing.TB) string, exec func(testing.TB, string, string)) *shop {
	t.Helper()
	endpoint := testenv.DynamoDB(t)
	dsn := fresh(t)
	ts := "timestamp(6)"
	if eng == "mysql" {
		ts = "datetime(6)"
	}
	exec(t, dsn, fmt.Sprintf(schemaSQL, ts))
	var b strings.Builder
	b.WriteString("INSERT INTO customers VALUES ")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%s(%d, 'customer %d', 'c%d@example.com')", comma(i), i, i, i)
	}
	b.WriteString(";\nINSERT INTO products VALUES ('P1','one'),('P2','two'),('P3','three'),('P4','four'),('P5','five');\n")
	s := &shop{eng: eng, dsn: dsn, exec: exec, orders: map[int64]*order{}}
	b.WriteString("INSERT INTO orders VALUES ")
	for i := int64(1); i <= 40; i++ {
		o := &order{id: i, customer: i%20 + 1, at: base.Add(time.Duration(i)*time.Minute + time.Duration(i*37)*time.Microsecond), total: fmt.Sprintf("%d.%02d", i*3, i%100), status: "new"}
		for l := int64(1); l <= i%3+1; l++ {
			o.lines = append(o.lines, [3]any{l, fmt.Sprintf("P%d", (i+l)%5+1), l})
		}
		s.orders[i] = o
		fmt.Fprintf(&b, "%s(%d, %d, '%s', %s, 'new')", comma(int(i)), i, o.customer, o.at.Format("2006-01-02 15:04:05.000000"), o.total)
	}
	b.WriteString(";\nINSERT INTO order_lines VALUES ")
	n := 0
	for i := int64(1); i <= 40; i++ {
		for _, l := range s.orders[i].lines {
			n++
			fmt.Fprintf(&b, "%s(%d, %d, '%s', %d)", comma(n), i, l[0], l[1], l[2])
		}
	}
	b.WriteString(";\nINSERT INTO favourites VALUES ")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%s(%d, 'P%d')", comma(i), i, i%5+1)
	}
	b.WriteString(";\n")
	exec(t, dsn, b.String())

	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("mapping.yaml", []byte(shopMapping))
	if err != nil {
		t.Fatal(err)
	}
	if s.plan, err = mapping.Compile(f, schema); err != nil {
		t.Fatal(err)
	}
	s.src = src
	s.db, s.table = testenv.DynamoDBTable(t)
	s.st = dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	rep, err := migrate.Run(ctx, migrate.Options{Plan: s.plan, Source: src, DB: s.db, Table: s.table, CreateTable: true, Stream: true, Writers: 4,
		Backoff: migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 30 * time.Second}, RejectsPath: filepath.Join(t.TempDir(), "rejects.jsonl")})
	if err != nil || !rep.OK {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

func comma(i int) string {
	if i == 1 {
		return ""
	}
	return ", "
}

// following is a follow-back run in the background.
type following struct {
	cancel context.CancelFunc
	done   chan struct{}
	rep    *followback.Report
	err    error
	status chan followback.Status
}

func (s *shop) options(t *testing.T, ck, dead string) followback.Options {
	return followback.Options{Plan: s.plan, Source: s.src, DB: s.db, Streams: s.st, Table: s.table, CheckpointPath: ck,
		DeadLetterPath: dead, Poll: 20 * time.Millisecond, DeferFor: 20 * time.Second}
}

// start runs follow-back until stop, and waits until it is ready.
func start(t *testing.T, o followback.Options) *following {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &following{cancel: cancel, done: make(chan struct{}), status: make(chan followback.Status, 1)}
	ready := make(chan struct{})
	o.Ready = func() { close(ready) }
	o.Watch = func(st followback.Status) {
		select {
		case <-f.status:
		default:
		}
		f.status <- st
	}
	go func() {
		defer close(f.done)
		f.rep, f.err = followback.Run(ctx, o)
	}()
	select {
	case <-ready:
	case <-f.done:
		t.Fatalf("follow-back ended before it was ready: %v", f.err)
	case <-time.After(time.Minute):
		t.Fatal("follow-back not ready after a minute")
	}
	t.Cleanup(f.stop)
	return f
}

// waitFor waits until follow-back has dealt with n item changes (applied
// or dead-lettered) and has nothing more to read.
func (f *following) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	var last followback.Status
	for {
		select {
		case st := <-f.status:
			last = st
			if st.CaughtUp && st.Applied+st.DeadLetters >= int64(n) {
				return
			}
		case <-f.done:
			t.Fatalf("follow-back ended: %v", f.err)
		case <-deadline:
			t.Fatalf("follow-back has not dealt with %d changes after 2 minutes: %+v", n, last)
		}
	}
}

func (f *following) stop() {
	f.cancel()
	<-f.done
}

// The application's writes, through the SDK, items as the mapping makes them.

func (s *shop) render(t *testing.T, entity string, vals map[string]any, kids [][]any) mapping.Item {
	t.Helper()
	e := s.plan.Entity(entity)
	row := make([]any, len(e.Columns)+len(e.Embeds()))
	for i, c := range e.Columns {
		row[i] = vals[c.Name]
	}
	if len(e.Embeds()) > 0 {
		row[len(e.Columns)] = kids
	}
	it, err := e.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func (s *shop) orderItem(t *testing.T, o *order) mapping.Item {
	var kids [][]any
	for _, l := range o.lines {
		kids = append(kids, []any{o.id, l[0], l[1], l[2], o.id})
	}
	return s.render(t, "order", map[string]any{"id": o.id, "customer_id": o.customer, "created_at": o.at, "total": o.total, "status": o.status}, kids)
}

func (s *shop) put(t *testing.T, it mapping.Item) {
	t.Helper()
	if _, err := s.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it}); err != nil {
		t.Fatal(err)
	}
	s.writes++
}

func (s *shop) del(t *testing.T, key mapping.Item) {
	t.Helper()
	if _, err := s.db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: s.plan.Table.KeyOf(key)}); err != nil {
		t.Fatal(err)
	}
	s.writes++
}

func (s *shop) update(t *testing.T, key mapping.Item, expr string, vals map[string]types.AttributeValue) {
	t.Helper()
	names := map[string]string{}
	for k, v := range map[string]string{"#n": "name", "#s": "status", "#t": "total", "#i": "title"} {
		if strings.Contains(expr, k) {
			names[k] = v
		}
	}
	in := &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: s.plan.Table.KeyOf(key), UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	_, err := s.db.UpdateItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	s.writes++
}

// workload writes n rounds of seeded changes into the table as an
// application would: new customers with orders and favourites, attribute
// updates, key moves, deletes, embedded list edits.
func (s *shop) workload(t *testing.T, seed uint64, from, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	for i := from; i < from+n; i++ {
		cid := int64(100 + i)
		s.put(t, s.render(t, "customer", map[string]any{"id": cid, "name": fmt.Sprintf("new %d", i), "email": nil}, nil))
		o := &order{id: int64(1000 + i), customer: cid, at: base.Add(time.Duration(i) * time.Hour), total: fmt.Sprintf("%d.50", i), status: "new",
			lines: [][3]any{{int64(1), "P1", int64(1)}, {int64(2), "P2", int64(2)}}}
		s.orders[o.id] = o
		s.put(t, s.orderItem(t, o))
		s.put(t, s.render(t, "favourite", map[string]any{"customer_id": cid, "sku": fmt.Sprintf("P%d", r.IntN(5)+1)}, nil))
		// An attribute update of an old customer.
		c := int64(r.IntN(20) + 1)
		s.update(t, mapping.Item{"PK": str(fmt.Sprintf("CUSTOMER#%d", c)), "SK": str("PROFILE")}, "SET #n = :n", map[string]types.AttributeValue{":n": str(fmt.Sprintf("renamed %d", i))})
		// An order: status and total, or its lines, or its key moved.
		id := int64(r.IntN(40) + 1)
		o = s.orders[id]
		if o == nil {
			continue
		}
		switch r.IntN(4) {
		case 0:
			o.status, o.total = fmt.Sprintf("status %d", i), fmt.Sprintf("%d.25", i)
			s.update(t, s.orderItem(t, o), "SET #s = :s, #t = :t", map[string]types.AttributeValue{":s": str(o.status), ":t": &types.AttributeValueMemberN{Value: o.total}})
		case 1: // the lines: one changed, one removed, one added
			lines := [][3]any{}
			for j, l := range o.lines {
				if j == 1 {
					continue
				}
				lines = append(lines, [3]any{l[0], l[1], l[2].(int64) + 1})
			}
			lines = append(lines, [3]any{int64(10 + i), "P3", int64(7)})
			o.lines = lines
			s.put(t, s.orderItem(t, o))
		case 2: // a key move: created_at changes, its key with it
			old := s.orderItem(t, o)
			o.at = o.at.Add(time.Duration(r.IntN(1000)+1) * time.Second)
			_, err := s.db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Delete: &types.Delete{TableName: aws.String(s.table), Key: s.plan.Table.KeyOf(old)}},
				{Put: &types.Put{TableName: aws.String(s.table), Item: s.orderItem(t, o)}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			s.writes += 2
		case 3: // the order deleted, its lines with it
			s.del(t, s.orderItem(t, o))
			delete(s.orders, id)
		}
	}
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// checkExact: verify passes: the source equals the table.
func (s *shop) checkExact(t *testing.T) {
	t.Helper()
	rep, err := verify.Run(context.Background(), verify.Options{Plan: s.plan, Source: s.src, DB: s.db, Table: s.table, Samples: 3, Seed: 1, Settle: 10 * time.Second})
	if err != nil || !rep.OK {
		b, _ := json.MarshalIndent(rep, "", " ")
		t.Fatalf("verify: %v\n%s", err, b)
	}
}

func engines() []struct {
	Name  string
	Fresh func(testing.TB) string
	Exec  func(testing.TB, string, string)
} {
	return testenv.Engines
}

// TestFollowBack: after the switch, an application's writes into the
// table (new items, attribute updates, key moves, deletes, embedded list
// edits, rows that depend on each other by foreign key) flow back into the
// source, and verify passes. On both engines.
func TestFollowBack(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			f := start(t, s.options(t, filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")))
			s.workload(t, 1, 0, 60)
			f.waitFor(t, s.writes)
			f.stop()
			if f.err != nil || !f.rep.OK || f.rep.DeadLetters != 0 {
				t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
			}
			if f.rep.Applied < int64(s.writes) {
				t.Errorf("applied %d item changes, the application made %d", f.rep.Applied, s.writes)
			}
			s.checkExact(t)
		})
	}
}

// TestFollowBackResume: a run stopped while the application goes on
// writing goes on with --resume from its checkpoint: the changes made while
// it was down are applied, none twice, and the source is exact.
func TestFollowBackResume(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			ck, dead := filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")
			f := start(t, s.options(t, ck, dead))
			s.workload(t, 2, 0, 15)
			f.waitFor(t, s.writes)
			f.stop()
			if f.err != nil {
				t.Fatal(f.err)
			}
			first := s.writes
			s.workload(t, 3, 15, 30)
			o := s.options(t, ck, dead)
			o.Resume = true
			g := start(t, o)
			g.waitFor(t, s.writes-first)
			g.stop()
			if g.err != nil || !g.rep.OK || g.rep.DeadLetters != 0 {
				t.Fatalf("follow-back --resume: %v, %+v", g.err, g.rep)
			}
			if g.rep.Applied != int64(s.writes-first) {
				t.Errorf("--resume applied %d item changes, the application made %d while it was down", g.rep.Applied, s.writes-first)
			}
			s.checkExact(t)
		})
	}
}

// TestFollowBackDeadLetters: a change to an item of an entity read from a
// view, an item of no entity and a conflict (the source row changed after
// the switch) each end as a dead letter with its reason, their rows
// untouched; the first past --max-dead-letters stops the run.
func TestFollowBackDeadLetters(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			ck, dead := filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")
			o := s.options(t, ck, dead)
			o.MaxDeadLetters = 3
			f := start(t, o)
			// The source's customer 1 changes after the switch.
			s.exec(t, s.dsn, "UPDATE customers SET name = 'changed in the source' WHERE id = 1")
			s.update(t, mapping.Item{"PK": str("CUSTOMER#1"), "SK": str("PROFILE")}, "SET #n = :n", map[string]types.AttributeValue{":n": str("changed in DynamoDB")})
			s.update(t, mapping.Item{"PK": str("TITLE#P1"), "SK": str("TITLE")}, "SET #i = :n", map[string]types.AttributeValue{":n": str("new title")})
			s.put(t, mapping.Item{"PK": str("NOTHING#1"), "SK": str("X"), "a": str("b")})
			f.waitFor(t, 3)
			f.stop()
			if f.err != nil || f.rep.DeadLetters != 3 || f.rep.Applied != 0 {
				t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
			}
			reasons := deadReasons(t, dead)
			for _, want := range []string{
				"customer: conflict: update customer id=1: the source row no longer holds the item's old image",
				"entity title cannot be followed back: it reads view",
				": the item PK=NOTHING#1 SK=X matches no entity's key templates",
			} {
				if !containsLine(reasons, want) {
					t.Errorf("no dead letter %q among:\n%s", want, strings.Join(reasons, "\n"))
				}
			}
			if n := count(t, s, "SELECT count(*) FROM customers WHERE id = 1 AND name = 'changed in the source'"); n != 1 {
				t.Errorf("the conflicting row was overwritten")
			}
			if n := count(t, s, "SELECT count(*) FROM products WHERE title = 'new title'"); n != 0 {
				t.Errorf("the view's change was written")
			}
			// With --max-dead-letters 0 (the default), the first dead letter
			// stops the run (exit status 1).
			o.Resume, o.MaxDeadLetters = true, 0
			g := start(t, o)
			s.put(t, mapping.Item{"PK": str("NOTHING#2"), "SK": str("X")})
			select {
			case <-g.done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the first dead letter past --max-dead-letters 0 did not stop the run")
			}
			if _, ok := g.err.(*followback.TooManyError); !ok {
				t.Fatalf("the 4th dead letter did not stop the run: %v", g.err)
			}
		})
	}
}

func deadReasons(t *testing.T, path string) []string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var d followback.DeadLetter
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.Keys == nil || d.Sequence == "" {
			t.Errorf("dead letter without its record: %s", sc.Text())
		}
		out = append(out, d.Entity+": "+d.Reason)
	}
	return out
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}

func count(t *testing.T, s *shop, q string) int64 {
	t.Helper()
	conn := testenv.ConnectPostgres
	if s.eng == "mysql" {
		conn = testenv.ConnectMySQL
	}
	n, err := conn(t, s.dsn).Int(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
