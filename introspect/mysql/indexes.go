package mysql

import (
	"context"
	"database/sql"
	"sort"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// indexesQuery lists the key parts of every index of database db. EXPRESSION
// (a functional key part, MySQL 8.0.13+) is selected only where the server
// has it: the %s is "EXPRESSION" or "NULL".
const indexesQuery = `
SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, SUB_PART, INDEX_TYPE, %s
  FROM information_schema.STATISTICS
 WHERE TABLE_SCHEMA = ?
 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`

// indexes reads every index into Table.Indexes and derives Table.UniqueKeys
// from them: a unique index other than PRIMARY whose key parts are whole
// columns (no prefix, no expression) is a unique key. MySQL has no unique
// constraint apart from its index, which carries the constraint's name.
func (i *Inspector) indexes(ctx context.Context, db string, byName map[string]*introspect.Table) error {
	has, err := i.tableColumns(ctx, "STATISTICS")
	if err != nil {
		return err
	}
	expr := "NULL"
	if has["EXPRESSION"] {
		expr = "EXPRESSION"
	}
	rows, err := i.q.QueryContext(ctx, strings.Replace(indexesQuery, "%s", expr, 1), db)
	if err != nil {
		return err
	}
	defer rows.Close()
	type key struct{ table, index string }
	found := map[key]*introspect.Index{}
	var order []key
	for rows.Next() {
		var (
			table, name, method           string
			nonUnique, seq                int64
			column, collation, expression sql.NullString
			subPart                       sql.NullInt64
		)
		if err := rows.Scan(&table, &name, &nonUnique, &seq, &column, &collation, &subPart, &method, &expression); err != nil {
			return err
		}
		if byName[table] == nil {
			continue
		}
		k := key{table, name}
		ix := found[k]
		if ix == nil {
			ix = &introspect.Index{Name: name, Unique: nonUnique == 0, Primary: name == "PRIMARY", Method: method, Columns: []introspect.IndexColumn{}}
			found[k] = ix
			order = append(order, k)
		}
		part := introspect.IndexColumn{Desc: collation.String == "D", Prefix: int(subPart.Int64)}
		if column.Valid {
			part.Column = column.String
		} else {
			part.Expression = expression.String
		}
		ix.Columns = append(ix.Columns, part)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// Bytewise, whatever the collation of information_schema.
	sort.Slice(order, func(a, b int) bool {
		if order[a].table != order[b].table {
			return order[a].table < order[b].table
		}
		return order[a].index < order[b].index
	})
	for _, k := range order {
		t, ix := byName[k.table], found[k]
		t.Indexes = append(t.Indexes, *ix)
		if uk, ok := uniqueKey(*ix); ok {
			t.UniqueKeys = append(t.UniqueKeys, uk)
		}
	}
	return nil
}

// uniqueKey returns the unique key an index enforces, if it is one.
func uniqueKey(ix introspect.Index) (introspect.UniqueKey, bool) {
	if !ix.Unique || ix.Primary {
		return introspect.UniqueKey{}, false
	}
	k := introspect.UniqueKey{Name: ix.Name, Columns: make([]string, 0, len(ix.Columns))}
	for _, c := range ix.Columns {
		if c.Column == "" || c.Prefix != 0 {
			return introspect.UniqueKey{}, false
		}
		k.Columns = append(k.Columns, c.Column)
	}
	return k, true
}
