package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// pgSchemaFix is what to do when a followed table's columns change.
const pgSchemaFix = "a schema change of a followed table during a followed migration is not supported: freeze DDL on the mapped tables from the copy to the switch, and migrate again"

// pgTypeMod is a column's type as a relation describes it.
type pgTypeMod struct {
	oid uint32
	mod int32
}

// generatedColumns reads the generated columns of tables, by table
// (schema.name): pgoutput does not send them. A server older than
// PostgreSQL 12 has none.
func (s *pgSource) generatedColumns(ctx context.Context, tables []*introspect.Table) (map[string]map[string]bool, error) {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = pgIdent(t.Schema) + "." + pgIdent(t.Name)
	}
	out := map[string]map[string]bool{}
	err := s.step(ctx, "reading the generated columns", func(ctx context.Context) error {
		rows, err := s.conn.Query(ctx, `SELECT n.nspname::text, c.relname::text, a.attname::text
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE a.attrelid IN (SELECT to_regclass(x) FROM unnest($1::text[]) AS x)
			  AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''`, names)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var schema, table, col string
			if err := rows.Scan(&schema, &table, &col); err != nil {
				return err
			}
			if out[schema+"."+table] == nil {
				out[schema+"."+table] = map[string]bool{}
			}
			out[schema+"."+table][col] = true
		}
		return rows.Err()
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42703" { // no attgenerated: before PostgreSQL 12
		return out, nil
	}
	return out, source.Worded("reading the generated columns of the followed tables on "+s.where(), err)
}

// relation records the columns of a relation the stream describes. A
// followed table's relation whose columns are not those remodel
// introspected (one dropped, renamed, added, or of another type) is a
// *StopError: its changes no longer fit the mapping.
func (st *pgStream) relation(ctx context.Context, m *pglogrepl.RelationMessage) error {
	r := &pgRelation{t: st.tables[m.Namespace+"."+m.RelationName]}
	if r.t != nil {
		if err := st.checkRelation(ctx, r.t, m); err != nil {
			return err
		}
	}
	for _, c := range m.Columns {
		idx := -1
		if r.t != nil {
			for i, tc := range r.t.Columns {
				if tc.Name == c.Name && tc.Expr == "" {
					idx = i
					break
				}
			}
		}
		r.idx = append(r.idx, idx)
	}
	st.rels[m.RelationID] = r
	return nil
}

// checkRelation compares the columns of t's relation m with those remodel
// introspected: every stored column but the generated ones, of the same
// type (format_type).
func (st *pgStream) checkRelation(ctx context.Context, t *introspect.Table, m *pglogrepl.RelationMessage) error {
	types, err := st.typeNames(ctx, m.Columns)
	if err != nil {
		return err
	}
	want := map[string]string{} // stored column: its type
	for _, c := range t.Columns {
		if c.Expr == "" && c.From == "" && !st.generated[t.Schema+"."+t.Name][c.Name] {
			want[c.Name] = c.Type
		}
	}
	var added, changed, names []string
	got := map[string]bool{}
	for i, c := range m.Columns {
		names = append(names, c.Name)
		got[c.Name] = true
		typ, ok := want[c.Name]
		switch {
		case !ok:
			added = append(added, "column "+c.Name+" was added")
		case types[i] != typ:
			changed = append(changed, fmt.Sprintf("column %s's type changed from %s to %s", c.Name, typ, types[i]))
		}
	}
	var dropped []string
	for _, c := range t.Columns {
		if _, ok := want[c.Name]; ok && !got[c.Name] {
			dropped = append(dropped, "column "+c.Name+" was dropped")
			if len(added) > 0 {
				dropped[len(dropped)-1] += " or renamed"
			}
		}
	}
	what := append(append(dropped, added...), changed...)
	if len(what) == 0 {
		return nil
	}
	return &source.StopError{
		Table: t.QualifiedName(),
		What:  strings.Join(what, ", ") + " (the stream's columns are now " + strings.Join(names, ", ") + ")",
		Fix:   pgSchemaFix,
	}
}

// typeNames are the types of a relation's columns as format_type writes
// them (as remodel introspected them), read on the stream's own
// connection once per type.
func (st *pgStream) typeNames(ctx context.Context, cols []*pglogrepl.RelationMessageColumn) ([]string, error) {
	var oids []uint32
	var mods []int32
	for _, c := range cols {
		if _, ok := st.types[pgTypeMod{c.DataType, c.TypeModifier}]; !ok {
			oids, mods = append(oids, c.DataType), append(mods, c.TypeModifier)
		}
	}
	if len(oids) > 0 {
		err := st.onAdmin(ctx, "reading the types of a followed table's columns", func(ctx context.Context, c *pgx.Conn) error {
			rows, err := c.Query(ctx, "SELECT o, m, format_type(o, m) FROM unnest($1::oid[], $2::int4[]) AS u(o, m)", oids, mods)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k pgTypeMod
				var name string
				if err := rows.Scan(&k.oid, &k.mod, &name); err != nil {
					return err
				}
				st.types[k] = name
			}
			return rows.Err()
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = st.types[pgTypeMod{c.DataType, c.TypeModifier}]
	}
	return out, nil
}
