// Package shopwork is the shop the follow-back tests write back from: its
// schema and rows on either engine, its mapping (customers, orders with
// their lines embedded, favourites: a join, titles: an entity read from a
// view), and the seeded workload an application writes into its table
// through the AWS SDK after the switch. The followback package's tests and
// the CLI's kill -9 test of follow-back share it.
package shopwork

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// SchemaSQL is the shop's schema; %s is the engine's timestamp type
// (Timestamp gives it).
const SchemaSQL = `
CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(100) NOT NULL, email varchar(100));
CREATE TABLE products (sku varchar(20) PRIMARY KEY, title varchar(100));
CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(id), created_at %s NOT NULL, total numeric(12,2), status varchar(20));
CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders(id), line_no int NOT NULL, sku varchar(20) NOT NULL, qty int NOT NULL, PRIMARY KEY (order_id, line_no));
CREATE TABLE favourites (customer_id bigint NOT NULL REFERENCES customers(id), sku varchar(20) NOT NULL REFERENCES products(sku), PRIMARY KEY (customer_id, sku));
CREATE VIEW titles AS SELECT sku, title FROM products;
`

// Mapping is the shop's mapping file.
const Mapping = `version: 1
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

// Base is the time the shop's orders are made around.
var Base = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// Order is the application's view of an order.
type Order struct {
	ID, Customer int64
	At           time.Time
	Total        string
	Status       string
	Lines        [][3]any // line_no, sku, qty
}

// Timestamp is the engine's type of orders.created_at.
func Timestamp(eng string) string {
	if eng == "mysql" {
		return "datetime(6)"
	}
	return "timestamp(6)"
}

// Source is the script that makes the shop on engine eng (its schema and
// rows: 20 customers, 5 products, 40 orders with 1 to 3 lines, 20
// favourites), and its orders.
func Source(eng string) (string, map[int64]*Order) {
	var b strings.Builder
	b.WriteString(fmt.Sprintf(SchemaSQL, Timestamp(eng)))
	b.WriteString("INSERT INTO customers VALUES ")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%s(%d, 'customer %d', 'c%d@example.com')", comma(i), i, i, i)
	}
	b.WriteString(";\nINSERT INTO products VALUES ('P1','one'),('P2','two'),('P3','three'),('P4','four'),('P5','five');\n")
	orders := map[int64]*Order{}
	b.WriteString("INSERT INTO orders VALUES ")
	for i := int64(1); i <= 40; i++ {
		o := &Order{ID: i, Customer: i%20 + 1, At: Base.Add(time.Duration(i)*time.Minute + time.Duration(i*37)*time.Microsecond), Total: fmt.Sprintf("%d.%02d", i*3, i%100), Status: "new"}
		for l := int64(1); l <= i%3+1; l++ {
			o.Lines = append(o.Lines, [3]any{l, fmt.Sprintf("P%d", (i+l)%5+1), l})
		}
		orders[i] = o
		fmt.Fprintf(&b, "%s(%d, %d, '%s', %s, 'new')", comma(int(i)), i, o.Customer, o.At.Format("2006-01-02 15:04:05.000000"), o.Total)
	}
	b.WriteString(";\nINSERT INTO order_lines VALUES ")
	n := 0
	for i := int64(1); i <= 40; i++ {
		for _, l := range orders[i].Lines {
			n++
			fmt.Fprintf(&b, "%s(%d, %d, '%s', %d)", comma(n), i, l[0], l[1], l[2])
		}
	}
	b.WriteString(";\nINSERT INTO favourites VALUES ")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%s(%d, 'P%d')", comma(i), i, i%5+1)
	}
	b.WriteString(";\n")
	return b.String(), orders
}

func comma(i int) string {
	if i == 1 {
		return ""
	}
	return ", "
}

// App is the application writing into the shop's table after the switch.
type App struct {
	Plan   *mapping.Plan
	DB     *dynamodb.Client
	Table  string
	Orders map[int64]*Order // the application's view of the orders
	Writes int              // item writes made (each one stream record)
}

// Render is the item of entity whose columns hold vals (and whose
// embedded list holds kids).
func (a *App) Render(t testing.TB, entity string, vals map[string]any, kids [][]any) mapping.Item {
	t.Helper()
	e := a.Plan.Entity(entity)
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

// OrderItem is the item of order o, its lines embedded.
func (a *App) OrderItem(t testing.TB, o *Order) mapping.Item {
	var kids [][]any
	for _, l := range o.Lines {
		kids = append(kids, []any{o.ID, l[0], l[1], l[2], o.ID})
	}
	return a.Render(t, "order", map[string]any{"id": o.ID, "customer_id": o.Customer, "created_at": o.At, "total": o.Total, "status": o.Status}, kids)
}

// Put puts an item.
func (a *App) Put(t testing.TB, it mapping.Item) {
	t.Helper()
	if _, err := a.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(a.Table), Item: it}); err != nil {
		t.Fatal(err)
	}
	a.Writes++
}

// Del deletes the item of key.
func (a *App) Del(t testing.TB, key mapping.Item) {
	t.Helper()
	if _, err := a.DB.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(a.Table), Key: a.Plan.Table.KeyOf(key)}); err != nil {
		t.Fatal(err)
	}
	a.Writes++
}

// Update updates the item of key with expr (#n, #s, #t and #i are name,
// status, total and title).
func (a *App) Update(t testing.TB, key mapping.Item, expr string, vals map[string]types.AttributeValue) {
	t.Helper()
	names := map[string]string{}
	for k, v := range map[string]string{"#n": "name", "#s": "status", "#t": "total", "#i": "title"} {
		if strings.Contains(expr, k) {
			names[k] = v
		}
	}
	in := &dynamodb.UpdateItemInput{TableName: aws.String(a.Table), Key: a.Plan.Table.KeyOf(key), UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	_, err := a.DB.UpdateItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	a.Writes++
}

// Workload writes rounds from to from+n-1 of seeded changes into the
// table as an application would: new customers with orders and
// favourites, attribute updates, key moves, deletes, embedded list edits.
// A round's numbers are its own (new customer 100+i, new order 1000+i):
// rounds of one shop are written once each.
func (a *App) Workload(t testing.TB, seed uint64, from, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	for i := from; i < from+n; i++ {
		a.Round(t, r, i)
	}
}

// Round writes round i of a workload, its random choices from r.
func (a *App) Round(t testing.TB, r *rand.Rand, i int) {
	t.Helper()
	cid := int64(100 + i)
	a.Put(t, a.Render(t, "customer", map[string]any{"id": cid, "name": fmt.Sprintf("new %d", i), "email": nil}, nil))
	o := &Order{ID: int64(1000 + i), Customer: cid, At: Base.Add(time.Duration(i) * time.Hour), Total: fmt.Sprintf("%d.50", i), Status: "new",
		Lines: [][3]any{{int64(1), "P1", int64(1)}, {int64(2), "P2", int64(2)}}}
	a.Orders[o.ID] = o
	a.Put(t, a.OrderItem(t, o))
	a.Put(t, a.Render(t, "favourite", map[string]any{"customer_id": cid, "sku": fmt.Sprintf("P%d", r.IntN(5)+1)}, nil))
	// An attribute update of an old customer.
	c := int64(r.IntN(20) + 1)
	a.Update(t, mapping.Item{"PK": Str(fmt.Sprintf("CUSTOMER#%d", c)), "SK": Str("PROFILE")}, "SET #n = :n", map[string]types.AttributeValue{":n": Str(fmt.Sprintf("renamed %d", i))})
	// An order: status and total, or its lines, or its key moved.
	id := int64(r.IntN(40) + 1)
	o = a.Orders[id]
	if o == nil {
		return
	}
	switch r.IntN(4) {
	case 0:
		o.Status, o.Total = fmt.Sprintf("status %d", i), fmt.Sprintf("%d.25", i)
		a.Update(t, a.OrderItem(t, o), "SET #s = :s, #t = :t", map[string]types.AttributeValue{":s": Str(o.Status), ":t": &types.AttributeValueMemberN{Value: o.Total}})
	case 1: // the lines: one changed, one removed, one added
		lines := [][3]any{}
		for j, l := range o.Lines {
			if j == 1 {
				continue
			}
			lines = append(lines, [3]any{l[0], l[1], l[2].(int64) + 1})
		}
		lines = append(lines, [3]any{int64(10 + i), "P3", int64(7)})
		o.Lines = lines
		a.Put(t, a.OrderItem(t, o))
	case 2: // a key move: created_at changes, its key with it
		old := a.OrderItem(t, o)
		o.At = o.At.Add(time.Duration(r.IntN(1000)+1) * time.Second)
		_, err := a.DB.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String(a.Table), Key: a.Plan.Table.KeyOf(old)}},
			{Put: &types.Put{TableName: aws.String(a.Table), Item: a.OrderItem(t, o)}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		a.Writes += 2
	case 3: // the order deleted, its lines with it
		a.Del(t, a.OrderItem(t, o))
		delete(a.Orders, id)
	}
}

// Str is a string attribute value.
func Str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
