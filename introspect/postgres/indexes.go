package postgres

import (
	"context"
	"sort"

	"github.com/remodel-dev/remodel/introspect"
)

// indexesQuery returns one row per key part (and INCLUDE column) of every
// index of the given tables, with the constraint the index stands behind
// (a primary key or unique constraint), if any. indkey and indoption are
// int2vectors, subscripted from 0; a key part that is an expression has
// attnum 0. Bit 0 of indoption is DESC.
const indexesQuery = `
SELECT i.indrelid, ic.relname::text, am.amname::text, i.indisunique, i.indisprimary, i.indisvalid,
       coalesce(pg_catalog.pg_get_expr(i.indpred, i.indrelid, true), ''),
       coalesce(con.conname::text, ''), i.indnkeyatts::int4,
       k.ord::int4, coalesce(a.attname::text, ''),
       pg_catalog.pg_get_indexdef(i.indexrelid, k.ord::int4, true),
       coalesce(i.indoption[k.ord - 1], 0)::int4
  FROM pg_catalog.pg_index AS i
  JOIN pg_catalog.pg_class AS ic ON ic.oid = i.indexrelid
  JOIN pg_catalog.pg_am AS am ON am.oid = ic.relam
  LEFT JOIN pg_catalog.pg_constraint AS con
    ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u')
 CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
  LEFT JOIN pg_catalog.pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
 WHERE i.indrelid = ANY ($1::oid[])
 ORDER BY i.indrelid, ic.relname, k.ord`

// indexes reads every index of the tables into Table.Indexes and derives
// Table.UniqueKeys from them: a unique index that is valid, not the
// primary key's, has no predicate and only plain columns as key parts is a
// unique key, named after its constraint when it has one.
func (i *Inspector) indexes(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, indexesQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	type state struct {
		valid      bool
		constraint string
	}
	var (
		cur   *introspect.Index
		curT  *introspect.Table
		st    state
		flush = func() {
			if cur == nil {
				return
			}
			curT.Indexes = append(curT.Indexes, *cur)
			if k, ok := uniqueKey(*cur, st.valid, st.constraint); ok {
				curT.UniqueKeys = append(curT.UniqueKeys, k)
			}
			cur = nil
		}
	)
	for rows.Next() {
		var (
			relid                                  uint32
			name, method, where, con, attname, def string
			unique, primary, valid                 bool
			nkey, ord, option                      int32
		)
		if err := rows.Scan(&relid, &name, &method, &unique, &primary, &valid, &where, &con, &nkey, &ord, &attname, &def, &option); err != nil {
			return err
		}
		t := byOID[relid]
		if t == nil {
			continue
		}
		if cur == nil || curT != t || cur.Name != name {
			flush()
			cur = &introspect.Index{Name: name, Unique: unique, Primary: primary, Method: method, Where: where, Columns: []introspect.IndexColumn{}}
			curT, st = t, state{valid: valid, constraint: con}
		}
		if ord > nkey {
			cur.Include = append(cur.Include, attname)
			continue
		}
		part := introspect.IndexColumn{Column: attname, Desc: option&1 != 0}
		if attname == "" {
			part.Expression = def
		}
		cur.Columns = append(cur.Columns, part)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	flush()
	for _, t := range byOID {
		sortUniqueKeys(t.UniqueKeys)
	}
	return nil
}

// uniqueKey returns the unique key an index enforces, if it is one.
func uniqueKey(ix introspect.Index, valid bool, constraint string) (introspect.UniqueKey, bool) {
	if !ix.Unique || ix.Primary || !valid || ix.Where != "" {
		return introspect.UniqueKey{}, false
	}
	k := introspect.UniqueKey{Name: ix.Name, Columns: make([]string, 0, len(ix.Columns))}
	if constraint != "" {
		k.Name = constraint
	}
	for _, c := range ix.Columns {
		if c.Column == "" {
			return introspect.UniqueKey{}, false
		}
		k.Columns = append(k.Columns, c.Column)
	}
	return k, true
}

func sortUniqueKeys(keys []introspect.UniqueKey) {
	sort.SliceStable(keys, func(a, b int) bool { return keys[a].Name < keys[b].Name })
}

// checksQuery returns the CHECK constraints of the given tables. A check
// declared on a partitioned table is on the table itself; those of its
// partitions are not the table's (partitions are not listed).
const checksQuery = `
SELECT con.conrelid, con.conname::text, pg_catalog.pg_get_expr(con.conbin, con.conrelid, true)
  FROM pg_catalog.pg_constraint AS con
 WHERE con.contype = 'c'
   AND con.conrelid = ANY ($1::oid[])
 ORDER BY con.conrelid, con.conname`

func (i *Inspector) checks(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, checksQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			relid uint32
			c     introspect.Check
		)
		if err := rows.Scan(&relid, &c.Name, &c.Expression); err != nil {
			return err
		}
		if t := byOID[relid]; t != nil {
			t.Checks = append(t.Checks, c)
		}
	}
	return rows.Err()
}
