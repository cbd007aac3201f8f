package mapping

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/introspect"
)

// TestInvertPlaceholder: every formatter that keeps its value is undone:
// the value rendered and parsed back is the value.
func TestInvertPlaceholder(t *testing.T) {
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	ts6 := time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.UTC)
	ts0 := time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC)
	ts3 := time.Date(2030, 1, 2, 3, 4, 5, 678000000, time.UTC)
	i := col("n", "bigint", introspect.KindInt)
	dec := col("d", "numeric(12,2)", introspect.KindDecimal)
	date := col("day", "date", introspect.KindDate)
	tsc := precision(col("ts", "timestamp(6) without time zone", introspect.KindTimestamp), 6)
	ts0c := precision(col("ts", "timestamp(0) without time zone", introspect.KindTimestamp), 0)
	ts3c := precision(col("ts", "timestamp(3) with time zone", introspect.KindTimestampTZ), 3)
	str := col("s", "text", introspect.KindString)
	bin := col("b", "bytea", introspect.KindBytes)
	for _, tt := range []struct {
		c    *introspect.Column
		tmpl string
		v    any
	}{
		{i, "{n}", int64(-42)},
		{i, "{n}", "123456789012345678901234567890"},
		{i, "{n|pad:9}", int64(42)},
		{i, "{n|pad:3}", int64(0)},
		{i, "{n|desc:10}", int64(42)},
		{i, "{n|desc:20}", int64(9_000_000_000_000_000_000)},
		{dec, "{d}", "1234.5"},
		{dec, "{d|pad:6}", "12.05"},
		{dec, "{d|desc:6}", "900.24"},
		{date, "{day}", day},
		{date, "{day|iso}", day},
		{date, "{day|date}", day},
		{date, "{day|desc}", day},
		{date, "{day|unix}", day},
		{tsc, "{ts}", ts6},
		{tsc, "{ts|iso}", ts6},
		{tsc, "{ts|desc}", ts6},
		{ts0c, "{ts|unix}", ts0},
		{ts3c, "{ts|unixms}", ts3},
		{ts3c, "{ts}", ts3},
		{str, "{s}", "a#b"},
		{date, "{day|iso|default:none}", nil},
		{str, "{s|default:none}", "x"},
		{bin, "{b|hex}", []byte{0, 1, 0xfe}},
		{bin, "{b|base64}", []byte("hello")},
		{col("f", "boolean", introspect.KindBool), "{f}", true},
	} {
		t.Run(tt.c.Name+tt.tmpl, func(t *testing.T) {
			tmpl, err := ParseTemplate(tt.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tmpl.bind([]*introspect.Column{tt.c})
			if err != nil {
				t.Fatal(err)
			}
			text, err := b.render([]any{tt.v})
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.parseKey(text, func(int) (any, bool) { return nil, false })
			if err != nil || len(got) != 1 {
				t.Fatalf("parse %q: %v, %d parses", text, err, len(got))
			}
			if !sameCanon(got[0][0], tt.v) {
				t.Errorf("%q parses back as %#v, want %#v", text, got[0][0], tt.v)
			}
		})
	}
}

// TestParseKey: keys of several placeholders split where the text says;
// a text two splits render is ambiguous; a text none renders is nothing;
// a lossy placeholder is a wildcard, or checked against a known value.
func TestParseKey(t *testing.T) {
	cols := []*introspect.Column{
		col("id", "bigint", introspect.KindInt),
		precision(col("at", "timestamp(6) without time zone", introspect.KindTimestamp), 6),
		col("a", "text", introspect.KindString),
		col("b", "text", introspect.KindString),
	}
	none := func(int) (any, bool) { return nil, false }
	for _, tt := range []struct {
		tmpl, key string
		known     func(int) (any, bool)
		want      string // the parses, "" for none
	}{
		{"ORDER#{at|iso}#{id|pad:9}", "ORDER#2024-01-02T03:04:05.000006Z#000000042", none, "[0=42 1=2024-01-02T03:04:05.000006Z]"},
		{"ORDER#{at|iso}#{id|pad:9}", "ORDER#2024-01-02T03:04:05Z#000000042", none, ""},
		{"ORDER#{id|pad:9}", "ORDER#0000000042", none, ""},
		{"{id|pad:3}{a}", "007bond", none, "[0=7 2=bond]"},
		{"{a}#{b}", "x#y#z", none, "[2=x 3=y#z] [2=x#y 3=z]"},
		{"{a}#{b}", "x#y#z", func(i int) (any, bool) { return "x#y", i == 2 }, "[3=z]"},
		{"S#{a|lower}#{id}", "S#whatever#5", none, "[0=5]"},
		{"S#{a|upper}#{id}", "S#ABC#5", func(i int) (any, bool) { return "abc", i == 2 }, "[0=5]"},
		{"S#{a|upper}#{id}", "S#ABD#5", func(i int) (any, bool) { return "abc", i == 2 }, ""},
		{"{a|default:none}", "none", none, "[2=<nil>] [2=none]"},
		// A lossy placeholder of a column known from nowhere else matches
		// anything: RowOf's rendering of the row again refuses what it
		// does not render.
		{"{id|shard:4}#{id}", "3#1", none, "[0=1]"},
	} {
		t.Run(tt.tmpl+" "+tt.key, func(t *testing.T) {
			tmpl, err := ParseTemplate(tt.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tmpl.bind(cols)
			if err != nil {
				t.Fatal(err)
			}
			found, err := b.parseKey(tt.key, tt.known)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range found {
				got = append(got, assignmentText(a))
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("parses = %q, want %q", s, tt.want)
			}
		})
	}
}

func assignmentText(a assignment) string {
	var parts []string
	for i := 0; i < 8; i++ {
		if v, ok := a[i]; ok {
			if tm, ok := v.(time.Time); ok {
				v = tm.Format(time.RFC3339Nano)
			}
			parts = append(parts, fmt.Sprintf("%d=%v", i, v))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// FuzzParseKey: whatever the key, every parse renders that key again, and
// a key rendered from values parses back as those values.
func FuzzParseKey(f *testing.F) {
	cols := []*introspect.Column{
		col("id", "bigint", introspect.KindInt),
		precision(col("at", "timestamp(6) without time zone", introspect.KindTimestamp), 6),
		col("s", "text", introspect.KindString),
		col("d", "numeric(10,2)", introspect.KindDecimal),
	}
	templates := []string{
		"ORDER#{at|iso}#{id|pad:9}", "{s}#{id}", "{id|desc:12}{s}", "X{d|pad:5}#{s|default:none}", "{at|desc}#{d|desc:6}", "{s}{id}",
	}
	var bs []*bound
	for _, src := range templates {
		tm, err := ParseTemplate(src)
		if err != nil {
			f.Fatal(err)
		}
		b, err := tm.bind(cols)
		if err != nil {
			f.Fatal(err)
		}
		bs = append(bs, b)
	}
	f.Add(uint8(0), "ORDER#2024-01-02T03:04:05.000006Z#000000042", int64(42), "a#b", int64(1700000000123456))
	f.Add(uint8(1), "x#5", int64(-1), "", int64(0))
	f.Add(uint8(3), "X00012.50#none", int64(7), "none", int64(-5))
	// more parses than are kept: an error, never a list without the row
	f.Add(uint8(5), "", int64(37), "111111111", int64(88))
	f.Fuzz(func(t *testing.T, which uint8, key string, id int64, s string, micros int64) {
		b := bs[int(which)%len(bs)]
		found, err := b.parseKey(key, func(int) (any, bool) { return nil, false })
		if err != nil {
			return
		}
		for _, a := range found {
			row := make([]any, len(cols))
			for i, v := range a {
				row[i] = v
			}
			if got, err := b.render(row); err != nil || got != key {
				t.Fatalf("%s: %q parses as %v, which renders %q (%v)", b.t.Src, key, a, got, err)
			}
		}
		at := time.UnixMicro(micros % 253402300799000000).UTC()
		if id < 0 {
			id = -id
		}
		row := []any{id % 1_000_000_000, at, s, "12.5"}
		text, err := b.render(row)
		if err != nil {
			return
		}
		found, err = b.parseKey(text, func(int) (any, bool) { return nil, false })
		if err != nil {
			return
		}
		for _, a := range found {
			ok := true
			for i, v := range a {
				ok = ok && sameCanon(v, row[i])
			}
			if ok {
				return
			}
		}
		t.Fatalf("%s: %q rendered from %v: none of the parses %v is the row", b.t.Src, text, row, found)
	})
}

const inverseSchemaNote = "shop: customers, orders with embedded lines, favourites (a join of customers and products), a view"

// elem sets the element kind of array column c.
func elem(c *introspect.Column, k introspect.Kind) *introspect.Column { c.Elem = k; return c }

func shopSchema() *introspect.Schema {
	bigint := func(n string) *introspect.Column { return col(n, "bigint", introspect.KindInt) }
	text := func(n string) *introspect.Column { return nullable(col(n, "text", introspect.KindString)) }
	return &introspect.Schema{
		Engine: introspect.Postgres, Database: "shop",
		Tables: []*introspect.Table{
			{Schema: "public", Name: "customers", Columns: []*introspect.Column{bigint("id"), text("name"), text("email")}, PrimaryKey: []string{"id"}},
			{Schema: "public", Name: "products", Columns: []*introspect.Column{col("sku", "text", introspect.KindString), text("title")}, PrimaryKey: []string{"sku"}},
			{Schema: "public", Name: "orders", Columns: []*introspect.Column{
				bigint("id"), bigint("customer_id"),
				precision(col("created_at", "timestamp(6) without time zone", introspect.KindTimestamp), 6),
				nullable(col("total", "numeric(12,2)", introspect.KindDecimal)), text("status"), nullable(elem(col("tags", "text[]", introspect.KindArray), introspect.KindString)),
			}, PrimaryKey: []string{"id"}, ForeignKeys: []introspect.ForeignKey{{Name: "fk_c", Columns: []string{"customer_id"}, RefSchema: "public", RefTable: "customers", RefColumns: []string{"id"}}}},
			{Schema: "public", Name: "order_lines", Columns: []*introspect.Column{bigint("order_id"), bigint("line_no"), col("sku", "text", introspect.KindString), bigint("qty")},
				PrimaryKey: []string{"order_id", "line_no"}, ForeignKeys: []introspect.ForeignKey{{Name: "fk_o", Columns: []string{"order_id"}, RefSchema: "public", RefTable: "orders", RefColumns: []string{"id"}}}},
			{Schema: "public", Name: "favourites", Columns: []*introspect.Column{bigint("customer_id"), col("sku", "text", introspect.KindString), nullable(precision(col("since", "date", introspect.KindDate), 0))},
				PrimaryKey: []string{"customer_id", "sku"}},
			{Schema: "public", Name: "big_orders", View: true, Columns: []*introspect.Column{bigint("id"), nullable(col("total", "numeric(12,2)", introspect.KindDecimal))}},
		},
	}
}

const shopMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  customer: {from: customers, pk: "CUSTOMER#{id}", sk: PROFILE, attributes: {set: {email_lc: "{email|lower}"}}}
  order:
    from: orders
    pk: "CUSTOMER#{customer_id}"
    sk: "ORDER#{created_at|iso}#{id|pad:9}"
    attributes: {exclude: [id, customer_id, created_at, tags]}
    embed:
      lines: {from: order_lines, on: order_id, order_by: line_no}
  favourite: {from: favourites, pk: "CUSTOMER#{customer_id}", sk: "FAV#{sku}", attributes: {exclude: [customer_id, sku]}}
  big: {from: big_orders, key: [id], pk: "BIG#{id}", sk: BIG}
  tagged: {from: orders, pk: "TAGGED#{id}", sk: "T", attributes: {include: [id, tags]}}
  tagset: {from: orders, pk: "TAGSET#{id}", sk: "T", attributes: {include: [id, tags], types: {tags: SS}}}
  hashed: {from: customers, pk: "H#{id|shard:8}", sk: "C#{name}", attributes: {include: [name]}}
`

// TestRowOfAndChanges: items of each entity read back into their rows,
// and item changes into the row changes that bring the source along
// (golden: testdata/inverse/changes.golden); items the mapping cannot make
// are refused with the reason.
func TestRowOfAndChanges(t *testing.T) {
	p := compileString(t, shopMapping, shopSchema())
	at := time.Date(2024, 5, 6, 7, 8, 9, 10000, time.UTC)
	order := p.Entity("order")
	row := []any{int64(7), int64(3), at, "12.5", "new", nil, [][]any{
		{int64(7), int64(1), "SKU-A", int64(2), int64(7)},
		{int64(7), int64(2), "SKU-B", int64(1), int64(7)},
	}}
	item, err := order.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	show := func(what string, old, new Item) {
		fmt.Fprintf(&out, "## %s\n", what)
		var o, n *Row
		for _, x := range []struct {
			it  Item
			dst **Row
		}{{old, &o}, {new, &n}} {
			if x.it == nil {
				continue
			}
			es := p.MatchItem(x.it)
			if len(es) != 1 {
				fmt.Fprintf(&out, "matches %d entities (%s)\n", len(es), EntityNames(es))
				return
			}
			r, err := es[0].RowOf(x.it)
			if err != nil {
				fmt.Fprintf(&out, "refused: %v\n", err)
				return
			}
			*x.dst = r
		}
		for _, c := range RowChanges(o, n) {
			fmt.Fprintf(&out, "%s: key %s; old %s; new %s\n", c, cvText(c.Key), cvText(c.Old), cvText(c.New))
		}
	}
	edit := func(f func(Item)) Item {
		c := make(Item, len(item))
		for k, v := range item {
			c[k] = v
		}
		f(c)
		return c
	}
	line := func(no, qty int, sku string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: Item{"line_no": n(no), "qty": n(qty), "sku": s(sku)}}
	}
	show("insert of an order with two lines", nil, item)
	show("update of the status, a line's quantity, a line added, a line removed", item, edit(func(c Item) {
		c["status"] = s("paid")
		c["lines"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{line(1, 5, "SKU-A"), line(3, 1, "SKU-C")}}
	}))
	show("key move: created_at changes, the order's id stays", item, edit(func(c Item) {
		c["SK"] = s("ORDER#2024-05-07T00:00:00.000000Z#000000007")
	}))
	show("delete", item, nil)
	show("an attribute the mapping does not write", nil, edit(func(c Item) { c["colour"] = s("red") }))
	show("a total finer than numeric(12,2)", nil, edit(func(c Item) { c["total"] = n2("1.005") }))
	show("a key that is no key of the templates", nil, edit(func(c Item) { c["SK"] = s("ORDER#yesterday#7") }))
	show("the entity attribute names another entity", nil, edit(func(c Item) { c["_type"] = s("customer") }))
	show("a set attribute that disagrees with its column", nil, Item{"PK": s("CUSTOMER#1"), "SK": s("PROFILE"), "_type": s("customer"), "id": n(1), "name": s("Ann"), "email": s("Ann@x"), "email_lc": s("ann@y")})
	show("a customer", nil, Item{"PK": s("CUSTOMER#1"), "SK": s("PROFILE"), "_type": s("customer"), "id": n(1), "name": s("Ann"), "email": s("Ann@x"), "email_lc": s("ann@x")})
	show("a favourite (a join row)", nil, Item{"PK": s("CUSTOMER#1"), "SK": s("FAV#SKU-A"), "_type": s("favourite"), "since": s("2024-01-02")})
	show("an item of a view", nil, Item{"PK": s("BIG#1"), "SK": s("BIG"), "_type": s("big"), "id": n(1)})
	show("an item of no entity", nil, Item{"PK": s("NOTHING#1"), "SK": s("X")})
	golden.Check(t, "inverse/changes.golden", []byte(out.String()))
}

func s(v string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: v} }
func n(v int) types.AttributeValue     { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
func n2(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func cvText(cvs []ColumnValue) string {
	var parts []string
	for _, cv := range cvs {
		v := cv.Value
		if tm, ok := v.(time.Time); ok {
			v = tm.Format(time.RFC3339Nano)
		}
		parts = append(parts, fmt.Sprintf("%s=%v", cv.Column.Name, v))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// TestFollowBackSupport: validate's line names the entities written back
// and why each other one is not.
func TestFollowBackSupport(t *testing.T) {
	p := compileString(t, shopMapping, shopSchema())
	golden.Check(t, "inverse/support.golden", []byte(inverseSchemaNote+"\n"+p.FollowBackSupport()+"\n"))
}

// TestArrayValueOf: a PostgreSQL array's list reads back into the array,
// every element as its element type holds it (NULL elements, a second
// dimension, an empty array, JSON documents); a list the array could not
// have become, or an element finer than the element type keeps, is
// refused.
func TestArrayValueOf(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	arr := func(typ string, k introspect.Kind, p int) *introspect.Column {
		return precision(elem(col("a", typ, introspect.KindArray), k), p)
	}
	for _, tc := range []struct {
		c *introspect.Column
		v []any
	}{
		{arr("text[]", introspect.KindString, 0), []any{"a", "b,c", `q"uote`, `back\slash`, nil, ""}},
		{arr("integer[]", introspect.KindInt, 0), []any{int64(1), nil, int64(-3)}},
		{arr("integer[]", introspect.KindInt, 0), []any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}},
		{arr("integer[]", introspect.KindInt, 0), []any{}},
		{arr("numeric(8,2)[]", introspect.KindDecimal, 0), []any{"1.5", "-2.25"}},
		{arr("double precision[]", introspect.KindFloat, 0), []any{0.30000000000000004, 1e100}},
		{arr("boolean[]", introspect.KindBool, 0), []any{true, false, nil}},
		{arr("timestamp(6) with time zone[]", introspect.KindTimestampTZ, 6), []any{at}},
		{arr("jsonb[]", introspect.KindJSON, 0), []any{[]byte(`{"a":[1,2]}`), []byte(`[1,"x"]`)}},
	} {
		av, err := Convert(tc.c, tc.v)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.c.Type, tc.v, err)
		}
		for _, typ := range []ColType{"", TypeL} {
			back, err := ValueOf(tc.c, typ, av)
			if err != nil {
				t.Fatalf("%s %v as %q: %v", tc.c.Type, tc.v, typ, err)
			}
			again, err := Convert(tc.c, back)
			if err != nil || !EqualValue(again, av) {
				t.Errorf("%s: %v read back as %v, which converts to %v (%v)", tc.c.Type, tc.v, back, again, err)
			}
		}
	}
	num := arr("numeric(8,2)[]", introspect.KindDecimal, 0)
	for _, av := range []types.AttributeValue{
		&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1.234"}}}, // finer than numeric(8,2)
		&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "1"}}},     // not a number
		&types.AttributeValueMemberS{Value: "{1,2}"},                                                              // not a list
	} {
		if v, err := ValueOf(num, "", av); err == nil {
			t.Errorf("%s read back as %v: want an error", describeAV(av), v)
		}
	}
	if why := invertibleKind(arr("text[]", introspect.KindString, 0), TypeSS); !strings.Contains(why, "neither the array's order nor its duplicates") {
		t.Errorf("text[] as SS: %q", why)
	}
}

// TestSpatialFollowBack: a spatial column's text (EWKT, the default S)
// is written back where the engine reads it back (PostGIS), its value the
// text itself; on MySQL/MariaDB, and typed B or M, the entity is not
// followed back, and says why.
func TestSpatialFollowBack(t *testing.T) {
	const m = `version: 1
table: {name: places, key: {pk: PK, sk: SK}}
entities:
  place: {from: places, pk: "PLACE#{id}", sk: P}
  placeb: {from: places, pk: "PB#{id}", sk: P, attributes: {types: {geom: B}}}
`
	schema := func(e introspect.Engine, typ string) *introspect.Schema {
		return &introspect.Schema{Engine: e, Database: "d", Tables: []*introspect.Table{{Schema: "public", Name: "places",
			Columns: []*introspect.Column{col("id", "integer", introspect.KindInt), nullable(col("geom", typ, introspect.KindGeometry))}, PrimaryKey: []string{"id"}}}}
	}
	pg := compileString(t, m, schema(introspect.Postgres, "geometry(Point,4326)"))
	if err := pg.Entity("place").FollowBack(); err != nil {
		t.Errorf("PostGIS: %v", err)
	}
	it := Item{"PK": &types.AttributeValueMemberS{Value: "PLACE#1"}, "SK": &types.AttributeValueMemberS{Value: "P"}, "_type": &types.AttributeValueMemberS{Value: "place"},
		"id": &types.AttributeValueMemberN{Value: "1"}, "geom": &types.AttributeValueMemberS{Value: "SRID=4326;POINT(0.1 0.30000000000000004)"}}
	r, err := pg.Entity("place").RowOf(it)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Values); !strings.Contains(got, "SRID=4326;POINT(0.1 0.30000000000000004)") {
		t.Errorf("the row read back holds %s", got)
	}
	if err := pg.Entity("placeb").FollowBack(); err == nil || !strings.Contains(err.Error(), "column geom is read in another form (type B)") {
		t.Errorf("PostGIS, typed B: %v", err)
	}
	my := compileString(t, m, schema(introspect.MySQL, "point"))
	if err := my.Entity("place").FollowBack(); err == nil || !strings.Contains(err.Error(), "spatial value (point), which follow-back does not write back on this engine") {
		t.Errorf("MySQL: %v", err)
	}
}
