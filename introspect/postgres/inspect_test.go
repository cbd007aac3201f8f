package postgres_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/introspecttest"
	"github.com/remodel-dev/remodel/introspect/postgres"
)

func inspect(t *testing.T, dsn string) *introspect.Schema {
	t.Helper()
	return inspectWith(t, dsn, introspect.DefaultCountLimit)
}

// inspectWith inspects over a connection whose TimeZone is UTC (as
// package source's are), counting tables up to countLimit bytes.
func inspectWith(t *testing.T, dsn string, countLimit int64) *introspect.Schema {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer conn.Close(ctx)
	s, err := postgres.New(conn).CountLimit(countLimit).Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return s
}

func TestSuite(t *testing.T) {
	introspecttest.Run(t, introspecttest.Target{
		Engine:  introspect.Postgres,
		Fresh:   testenv.Postgres,
		Exec:    testenv.ExecPostgres,
		Inspect: inspect,
		QueryColumns: func(t *testing.T, dsn, q string) ([]*introspect.Column, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatalf("connecting: %v", err)
			}
			defer conn.Close(ctx)
			return postgres.New(conn).QueryColumns(ctx, q)
		},
		InspectNoCount: func(t *testing.T, dsn string) *introspect.Schema {
			return inspectWith(t, dsn, 0)
		},
	})
}

func TestTypes(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN money_amount AS numeric(12,2) NOT NULL CHECK (VALUE >= 0);
CREATE DOMAIN amount_alias AS money_amount;
CREATE DOMAIN stamp2 AS timestamptz(2);
CREATE DOMAIN tags_t AS text[];
CREATE DOMAIN box_d AS box;
CREATE TABLE everything (
	id        bigserial PRIMARY KEY,
	small     smallint,
	big       int8 NOT NULL,
	real_     real,
	flag      bool,
	tags      text[],
	scores    integer[] NOT NULL,
	grid      int4[][],
	stamps    timestamp(1)[],
	moods     mood[],
	tagdom    tags_t,
	feeling   mood,
	price     money_amount,
	price2    amount_alias,
	at2       stamp2,
	t         time,
	ttz       timetz(4),
	ts        timestamp,
	tstz      timestamptz(0),
	j         json,
	uid       uuid,
	addr      inet,
	net       cidr,
	span      interval,
	cash      money,
	doc       xml,
	search    tsvector,
	pt        point,
	boxes     box[],
	boxds     box_d[],
	ch        char(3),
	vc        character varying(10),
	bits      bit varying(8),
	r         int4range,
	gone      text,
	gen       bigint GENERATED ALWAYS AS (big * 2) STORED
);
ALTER TABLE everything DROP COLUMN gone;
`)
	s := inspect(t, dsn)
	introspecttest.CheckColumns(t, introspecttest.MustTable(t, s, "everything"), []introspect.Column{
		{Name: "id", Type: "bigint", Kind: introspect.KindInt},
		{Name: "small", Type: "smallint", Kind: introspect.KindInt, Nullable: true},
		{Name: "big", Type: "bigint", Kind: introspect.KindInt},
		{Name: "real_", Type: "real", Kind: introspect.KindFloat, Nullable: true},
		{Name: "flag", Type: "boolean", Kind: introspect.KindBool, Nullable: true},
		{Name: "tags", Type: "text[]", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true},
		{Name: "scores", Type: "integer[]", Kind: introspect.KindArray, Elem: introspect.KindInt},
		{Name: "grid", Type: "integer[]", Kind: introspect.KindArray, Elem: introspect.KindInt, Nullable: true},
		{Name: "stamps", Type: "timestamp(1) without time zone[]", Kind: introspect.KindArray, Elem: introspect.KindTimestamp, Nullable: true, Precision: 1},
		{Name: "moods", Type: "mood[]", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true, Values: []string{"sad", "ok", "happy"}},
		{Name: "tagdom", Type: "tags_t", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true},
		{Name: "feeling", Type: "mood", Kind: introspect.KindString, Nullable: true, Values: []string{"sad", "ok", "happy"}},
		// A domain takes its base type's kind; its NOT NULL makes the
		// column non-nullable, through a domain over a domain too.
		{Name: "price", Type: "money_amount", Kind: introspect.KindDecimal},
		{Name: "price2", Type: "amount_alias", Kind: introspect.KindDecimal},
		{Name: "at2", Type: "stamp2", Kind: introspect.KindTimestampTZ, Nullable: true, Precision: 2},
		{Name: "t", Type: "time without time zone", Kind: introspect.KindTime, Nullable: true, Precision: 6},
		{Name: "ttz", Type: "time(4) with time zone", Kind: introspect.KindTime, Nullable: true, Precision: 4},
		{Name: "ts", Type: "timestamp without time zone", Kind: introspect.KindTimestamp, Nullable: true, Precision: 6},
		{Name: "tstz", Type: "timestamp(0) with time zone", Kind: introspect.KindTimestampTZ, Nullable: true, Precision: 0},
		{Name: "j", Type: "json", Kind: introspect.KindJSON, Nullable: true},
		{Name: "uid", Type: "uuid", Kind: introspect.KindString, Nullable: true},
		{Name: "addr", Type: "inet", Kind: introspect.KindString, Nullable: true},
		{Name: "net", Type: "cidr", Kind: introspect.KindString, Nullable: true},
		{Name: "span", Type: "interval", Kind: introspect.KindString, Nullable: true},
		{Name: "cash", Type: "money", Kind: introspect.KindString, Nullable: true},
		{Name: "doc", Type: "xml", Kind: introspect.KindString, Nullable: true},
		{Name: "search", Type: "tsvector", Kind: introspect.KindString, Nullable: true},
		{Name: "pt", Type: "point", Kind: introspect.KindString, Nullable: true},
		// box[] elements are separated by ';' (pg_type.typdelim), and an
		// array of a domain over box takes the domain's copy of it.
		{Name: "boxes", Type: "box[]", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true, Delim: ";"},
		{Name: "boxds", Type: "box_d[]", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true, Delim: ";"},
		{Name: "ch", Type: "character(3)", Kind: introspect.KindString, Nullable: true},
		{Name: "vc", Type: "character varying(10)", Kind: introspect.KindString, Nullable: true},
		{Name: "bits", Type: "bit varying(8)", Kind: introspect.KindString, Nullable: true},
		{Name: "r", Type: "int4range", Kind: introspect.KindString, Nullable: true},
		{Name: "gen", Type: "bigint", Kind: introspect.KindInt, Nullable: true},
	})
}

func TestPartitionsAndSchemas(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE customers (id int PRIMARY KEY);
CREATE TABLE payments (
	customer_id int NOT NULL REFERENCES customers (id),
	paid_on     date NOT NULL,
	amount      numeric(8,2) NOT NULL,
	PRIMARY KEY (customer_id, paid_on)
) PARTITION BY RANGE (paid_on);
CREATE TABLE payments_2023 PARTITION OF payments FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE payments_2024 PARTITION OF payments FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')
	PARTITION BY RANGE (paid_on);
CREATE TABLE payments_2024_h1 PARTITION OF payments_2024 FOR VALUES FROM ('2024-01-01') TO ('2024-07-01');
CREATE TABLE payments_2024_h2 PARTITION OF payments_2024 FOR VALUES FROM ('2024-07-01') TO ('2025-01-01');

-- Foreign keys declared on every partition but not on the parent (as
-- Pagila's payment does) belong to the parent; one declared on some
-- partitions only does not.
CREATE TABLE staff (id int PRIMARY KEY);
CREATE TABLE rentals (
	rental_id   int NOT NULL,
	staff_id    int NOT NULL,
	customer_id int NOT NULL,
	rented_on   date NOT NULL,
	PRIMARY KEY (rental_id, rented_on)
) PARTITION BY RANGE (rented_on);
-- rentals_b first, so that the name that sorts first is not the first seen.
CREATE TABLE rentals_b PARTITION OF rentals FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE rentals_a PARTITION OF rentals FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
ALTER TABLE rentals_b ADD CONSTRAINT rentals_b_staff_fk FOREIGN KEY (staff_id) REFERENCES staff (id);
ALTER TABLE rentals_a ADD CONSTRAINT rentals_a_staff_fk FOREIGN KEY (staff_id) REFERENCES staff (id);
-- Referencing a partitioned table: PostgreSQL adds hidden copies of each
-- of these per partition of payments, which are not foreign keys of their own.
ALTER TABLE rentals_b ADD CONSTRAINT rentals_b_payment_fk FOREIGN KEY (customer_id, rented_on) REFERENCES payments (customer_id, paid_on);
ALTER TABLE rentals_a ADD CONSTRAINT rentals_a_payment_fk FOREIGN KEY (customer_id, rented_on) REFERENCES payments (customer_id, paid_on);
ALTER TABLE rentals_b ADD CONSTRAINT rentals_b_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id);

CREATE SCHEMA billing;
-- A foreign key that references a partitioned table: PostgreSQL adds a
-- hidden copy of it per partition, which must not be listed.
CREATE TABLE billing.refunds (
	refund_id   int PRIMARY KEY,
	customer_id int NOT NULL,
	paid_on     date NOT NULL,
	CONSTRAINT refunds_payment_fk FOREIGN KEY (customer_id, paid_on) REFERENCES payments (customer_id, paid_on),
	CONSTRAINT refunds_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id)
);
-- Same name as a table in public.
CREATE TABLE billing.customers (id int PRIMARY KEY);
CREATE VIEW payment_totals AS SELECT customer_id, sum(amount) FROM payments GROUP BY customer_id;
CREATE MATERIALIZED VIEW payment_days AS SELECT DISTINCT paid_on FROM payments;
CREATE SEQUENCE invoice_numbers;

INSERT INTO customers SELECT g FROM generate_series(1, 10) AS g;
INSERT INTO payments SELECT g, DATE '2023-03-01' + g, 1 FROM generate_series(1, 10) AS g;
INSERT INTO payments SELECT g, DATE '2024-02-01' + g, 1 FROM generate_series(1, 5) AS g;
INSERT INTO payments SELECT g, DATE '2024-08-01' + g, 1 FROM generate_series(1, 2) AS g;
ANALYZE;
`)
	// A temporary table lives in a pg_temp_N schema and only for its
	// session; inspect over the session that has one.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TEMPORARY TABLE scratch (x int)"); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.New(conn).Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}

	var got []string
	for _, tbl := range s.Tables {
		name := tbl.QualifiedName()
		if tbl.View {
			name += " (view)"
		}
		got = append(got, name)
	}
	want := []string{"billing.customers", "billing.refunds", "public.customers", "public.payment_days (view)", "public.payment_totals (view)", "public.payments", "public.rentals", "public.staff"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tables = %q, want %q (views and materialized views marked; no partitions, sequences or temporary tables)", got, want)
	}
	introspecttest.CheckColumns(t, introspecttest.MustTable(t, s, "payment_totals"), []introspect.Column{
		{Name: "customer_id", Kind: introspect.KindInt, Nullable: true},
		{Name: "sum", Kind: introspect.KindDecimal, Nullable: true},
	})

	payments := introspecttest.MustTable(t, s, "public.payments")
	if got := introspecttest.RowsString(payments.Size); got != "about 17" {
		t.Errorf("payments: rows %s, want about 17 (the sum over its leaf partitions)", got)
	}
	if got := introspecttest.RowsString(introspecttest.MustTable(t, s, "public.customers").Size); got != "about 10" {
		t.Errorf("customers: rows %s, want about 10", got)
	}
	// The partitions, two levels of them, are under the table with their
	// bounds and rows.
	type part struct{ name, bound, rows, sub string }
	var parts []part
	var walk func(prefix string, p *introspect.Partitioning)
	walk = func(prefix string, p *introspect.Partitioning) {
		for _, c := range p.Partitions {
			sub := ""
			if c.Partitioning != nil {
				sub = c.Partitioning.Strategy + " (" + c.Partitioning.Key + ")"
			}
			parts = append(parts, part{prefix + c.Schema + "." + c.Name, c.Bound, introspecttest.RowsString(c.Size), sub})
			if c.Partitioning != nil {
				walk(prefix+"  ", c.Partitioning)
			}
		}
	}
	if p := payments.Partitioning; p == nil || p.Strategy != "range" || p.Key != "paid_on" {
		t.Fatalf("payments: Partitioning = %+v, want range (paid_on)", p)
	}
	walk("", payments.Partitioning)
	wantParts := []part{
		{"public.payments_2023", "FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')", "about 10", ""},
		{"public.payments_2024", "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')", "about 7", "range (paid_on)"},
		{"  public.payments_2024_h1", "FOR VALUES FROM ('2024-01-01') TO ('2024-07-01')", "about 5", ""},
		{"  public.payments_2024_h2", "FOR VALUES FROM ('2024-07-01') TO ('2025-01-01')", "about 2", ""},
	}
	if !reflect.DeepEqual(parts, wantParts) {
		t.Errorf("payments: partitions\n got  %q\n want %q", parts, wantParts)
	}
	introspecttest.CheckColumns(t, payments, []introspect.Column{
		{Name: "customer_id", Type: "integer", Kind: introspect.KindInt},
		{Name: "paid_on", Type: "date", Kind: introspect.KindDate},
		{Name: "amount", Type: "numeric(8,2)", Kind: introspect.KindDecimal},
	})
	if got, want := payments.PrimaryKey, []string{"customer_id", "paid_on"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("payments: PrimaryKey = %q, want %q", got, want)
	}
	introspecttest.CheckForeignKeys(t, payments, []introspect.ForeignKey{{
		Name: "payments_customer_id_fkey", Columns: []string{"customer_id"},
		RefSchema: "public", RefTable: "customers", RefColumns: []string{"id"},
	}})
	introspecttest.CheckForeignKeys(t, introspecttest.MustTable(t, s, "rentals"), []introspect.ForeignKey{
		{
			Name: "rentals_a_payment_fk", Columns: []string{"customer_id", "rented_on"},
			RefSchema: "public", RefTable: "payments", RefColumns: []string{"customer_id", "paid_on"},
		},
		{
			Name: "rentals_a_staff_fk", Columns: []string{"staff_id"},
			RefSchema: "public", RefTable: "staff", RefColumns: []string{"id"},
		},
	})
	// rentals_b_customer_fk is on one of the two partitions: reported
	// apart, with the partition that lacks it.
	wantPartial := []introspect.PartitionForeignKey{{
		ForeignKey: introspect.ForeignKey{
			Name: "rentals_b_customer_fk", Columns: []string{"customer_id"},
			RefSchema: "public", RefTable: "customers", RefColumns: []string{"id"},
		},
		DeclaredOn: []introspect.PartitionName{{Schema: "public", Name: "rentals_b"}},
		MissingOn:  []introspect.PartitionName{{Schema: "public", Name: "rentals_a"}},
	}}
	if got := introspecttest.MustTable(t, s, "rentals").PartitionForeignKeys; !reflect.DeepEqual(got, wantPartial) {
		t.Errorf("rentals: PartitionForeignKeys\n got  %+v\n want %+v", got, wantPartial)
	}
	if got := payments.PartitionForeignKeys; got != nil {
		t.Errorf("payments: PartitionForeignKeys = %+v, want none (its key is the parent's)", got)
	}
	introspecttest.CheckForeignKeys(t, introspecttest.MustTable(t, s, "billing.refunds"), []introspect.ForeignKey{
		{
			Name: "refunds_customer_fk", Columns: []string{"customer_id"},
			RefSchema: "public", RefTable: "customers", RefColumns: []string{"id"},
		},
		{
			Name: "refunds_payment_fk", Columns: []string{"customer_id", "paid_on"},
			RefSchema: "public", RefTable: "payments", RefColumns: []string{"customer_id", "paid_on"},
		},
	})

	// An unqualified name prefers public; the other one needs its schema.
	if tbl := introspecttest.MustTable(t, s, "customers"); tbl.Schema != "public" {
		t.Errorf(`Table("customers") = %s, want public.customers`, tbl.QualifiedName())
	}
	if tbl := introspecttest.MustTable(t, s, "refunds"); tbl.Schema != "billing" {
		t.Errorf(`Table("refunds") = %s, want billing.refunds`, tbl.QualifiedName())
	}
}

func TestInspectErrorIsWrapped(t *testing.T) {
	dsn := testenv.Postgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	conn.Close(ctx)
	_, err = postgres.New(conn).Inspect(ctx)
	if err == nil {
		t.Fatal("Inspect on a closed connection succeeded")
	}
	const prefix = "introspect/postgres: reading the current database: "
	if got := err.Error(); len(got) < len(prefix) || got[:len(prefix)] != prefix {
		t.Errorf("error = %q, want it to start with %q", got, prefix)
	}
}

// TestPagila inspects the schema of Pagila, a sample database nobody here
// wrote: a partitioned payment table, a domain, an enum, an array and a
// tsvector.
func TestPagila(t *testing.T) {
	path := testenv.Dataset(t, "pagila/pagila-schema.sql")
	ddl, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, string(ddl))
	s := inspect(t, dsn)

	var tables, views []string
	for _, tbl := range s.Tables {
		if tbl.View {
			views = append(views, tbl.Name)
		} else {
			tables = append(tables, tbl.Name)
		}
	}
	want := "actor address category city country customer film film_actor film_category inventory language payment rental staff store"
	if got := strings.Join(tables, " "); got != want {
		t.Errorf("tables = %s, want %s", got, want)
	}
	wantViews := "actor_info customer_list film_list nicer_but_slower_film_list rental_by_category sales_by_film_category sales_by_store staff_list"
	if got := strings.Join(views, " "); got != wantViews {
		t.Errorf("views = %s, want %s", got, wantViews)
	}
	payment := introspecttest.MustTable(t, s, "payment")
	if got := strings.Join(payment.PrimaryKey, ","); got != "payment_date,payment_id" {
		t.Errorf("payment: PrimaryKey = %s, want payment_date,payment_id", got)
	}
	// Pagila declares payment's foreign keys on its partitions only, and
	// on six of its seven: payment_p2022_07 has none, so they do not hold
	// for the table and are reported apart, naming the partitions.
	introspecttest.CheckForeignKeys(t, payment, nil)
	var partial []string
	for _, fk := range payment.PartitionForeignKeys {
		partial = append(partial, fmt.Sprintf("%s(%s)->%s on %d, missing on %s", fk.Name, strings.Join(fk.Columns, ","),
			fk.RefTable, len(fk.DeclaredOn), introspect.PartitionNames(fk.MissingOn)))
	}
	wantPartial := []string{
		"payment_p2022_01_customer_id_fkey(customer_id)->customer on 6, missing on public.payment_p2022_07",
		"payment_p2022_01_rental_id_fkey(rental_id)->rental on 6, missing on public.payment_p2022_07",
		"payment_p2022_01_staff_id_fkey(staff_id)->staff on 6, missing on public.payment_p2022_07",
	}
	if !reflect.DeepEqual(partial, wantPartial) {
		t.Errorf("payment: PartitionForeignKeys\n got  %q\n want %q", partial, wantPartial)
	}
	// Its partitions are under it, not tables of their own.
	if p := payment.Partitioning; p == nil || p.Strategy != "range" || p.Key != "payment_date" || len(p.Partitions) != 7 ||
		p.Partitions[0].Name != "payment_p2022_01" || p.Partitions[6].Name != "payment_p2022_07" {
		t.Errorf("payment: Partitioning = %+v, want range (payment_date) with payment_p2022_01 to _07", p)
	}
	introspecttest.CheckForeignKeys(t, introspecttest.MustTable(t, s, "rental"), []introspect.ForeignKey{
		{Name: "rental_customer_id_fkey", Columns: []string{"customer_id"}, RefSchema: "public", RefTable: "customer", RefColumns: []string{"customer_id"}},
		{Name: "rental_inventory_id_fkey", Columns: []string{"inventory_id"}, RefSchema: "public", RefTable: "inventory", RefColumns: []string{"inventory_id"}},
		{Name: "rental_staff_id_fkey", Columns: []string{"staff_id"}, RefSchema: "public", RefTable: "staff", RefColumns: []string{"staff_id"}},
	})
	film := introspecttest.MustTable(t, s, "film")
	for name, want := range map[string]introspect.Column{
		"release_year":     {Name: "release_year", Type: "year", Kind: introspect.KindInt, Nullable: true},
		"rating":           {Name: "rating", Type: "mpaa_rating", Kind: introspect.KindString, Nullable: true, Values: []string{"G", "PG", "PG-13", "R", "NC-17"}},
		"special_features": {Name: "special_features", Type: "text[]", Kind: introspect.KindArray, Elem: introspect.KindString, Nullable: true},
		"fulltext":         {Name: "fulltext", Type: "tsvector", Kind: introspect.KindString},
		"rental_rate":      {Name: "rental_rate", Type: "numeric(4,2)", Kind: introspect.KindDecimal},
		"last_update":      {Name: "last_update", Type: "timestamp with time zone", Kind: introspect.KindTimestampTZ, Precision: 6},
	} {
		if got := film.Column(name); got == nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("film.%s = %+v, want %+v", name, got, want)
		}
	}
	if got := strings.Join(introspecttest.MustTable(t, s, "film_actor").PrimaryKey, ","); got != "actor_id,film_id" {
		t.Errorf("film_actor: PrimaryKey = %s, want actor_id,film_id", got)
	}
}

// TestExtensionTablesLeftOut: the tables and views an extension owns
// (PostGIS's spatial_ref_sys, geometry_columns, geography_columns) are not
// the application's and are not listed; a table with a geometry column is.
func TestExtensionTablesLeftOut(t *testing.T) {
	dsn := testenv.PostGIS(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE place (id int PRIMARY KEY, at geometry(Point, 4326))`)
	var names []string
	for _, tb := range inspect(t, dsn).Tables {
		names = append(names, tb.Name)
	}
	if want := []string{"place"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables %q, want %q (extension-owned relations left out)", names, want)
	}
}
