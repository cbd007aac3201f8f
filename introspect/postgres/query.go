package postgres

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/introspect"
)

// formatTypesQuery names each (type, typmod) pair as format_type does for a
// table column, in the order given.
const formatTypesQuery = `
SELECT pg_catalog.format_type(x.t, x.m)
  FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS x(t, m, i)
 ORDER BY x.i`

// QueryColumns describes the result columns of the SELECT statement q
// without running it: PostgreSQL prepares it (read as a derived table,
// introspect.DerivedTable), which gives each result column its type and type modifier,
// and the type is resolved as a table column's is (domains, arrays and
// their delimiters, time precisions). Type is format_type's name.
// PostgreSQL does not say whether a result column can be NULL (an outer
// join can make any column NULL), so every column is Nullable.
//
// A statement PostgreSQL refuses returns its *pgconn.PgError. q runs as
// the unnamed prepared statement of the Inspector's connection.
func (i *Inspector) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	sd, err := i.conn.PgConn().Prepare(ctx, "", "SELECT * FROM "+introspect.DerivedTable(q), nil)
	if err != nil {
		return nil, err
	}
	owner := &introspect.Table{Name: "query", Query: q}
	cols := make([]column, len(sd.Fields))
	oids := make([]uint32, len(sd.Fields))
	mods := make([]int32, len(sd.Fields))
	out := make([]*introspect.Column, len(sd.Fields))
	for n, f := range sd.Fields {
		out[n] = &introspect.Column{Name: f.Name}
		cols[n] = column{col: out[n], table: owner, typid: f.DataTypeOID, typmod: f.TypeModifier}
		oids[n], mods[n] = f.DataTypeOID, f.TypeModifier
	}
	if len(cols) == 0 {
		return out, nil
	}
	rows, err := i.conn.Query(ctx, formatTypesQuery, oids, mods)
	if err != nil {
		return nil, fmt.Errorf("introspect/postgres: naming the query's column types: %w", err)
	}
	n := 0
	for rows.Next() {
		if n < len(out) {
			if err := rows.Scan(&out[n].Type); err != nil {
				rows.Close()
				return nil, fmt.Errorf("introspect/postgres: naming the query's column types: %w", err)
			}
		}
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("introspect/postgres: naming the query's column types: %w", err)
	}
	if n != len(out) {
		return nil, fmt.Errorf("introspect/postgres: naming the query's column types: %d names for %d columns", n, len(out))
	}
	if err := i.resolveTypes(ctx, cols); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading the query's column types: %w", err)
	}
	for _, c := range out {
		c.Nullable = true
	}
	return out, nil
}
