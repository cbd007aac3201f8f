package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// exactEngines keep an exact row count, which TABLE_ROWS reports.
var exactEngines = map[string]bool{"myisam": true, "aria": true, "memory": true}

// rowsFromStats decides a table's (or a partition's) rows from TABLE_ROWS:
// exact for the engines that keep a count, an estimate (InnoDB's) when it
// is above 0. InnoDB may report 0 for a table that has rows (statistics not
// yet gathered, or cached by MySQL 8): then the rows are unknown until
// counted.
func rowsFromStats(tableRows sql.NullInt64, engine string) introspect.Size {
	switch {
	case !tableRows.Valid:
		return introspect.Size{}
	case exactEngines[strings.ToLower(engine)]:
		return introspect.ExactRows(max(tableRows.Int64, 0))
	case tableRows.Int64 > 0:
		return introspect.EstimatedRows(tableRows.Int64)
	}
	return introspect.Size{}
}

// count counts the rows of the tables whose rows are unknown and that have
// a storage engine (countable; not a view): the smallest (by DATA_LENGTH)
// first, while they take at most the count limit in all, so that an
// Inspect reads at most that much however many tables need it.
func (i *Inspector) count(ctx context.Context, db string, tables []*introspect.Table, countable map[*introspect.Table]bool) error {
	var todo []*introspect.Table
	for _, t := range tables {
		if t.RowEstimate == nil && countable[t] {
			todo = append(todo, t)
		}
	}
	sort.SliceStable(todo, func(a, b int) bool {
		if todo[a].DataBytes != todo[b].DataBytes {
			return todo[a].DataBytes < todo[b].DataBytes
		}
		return todo[a].Name < todo[b].Name
	})
	var spent int64
	for _, t := range todo {
		if spent+t.DataBytes > i.countLimit {
			break
		}
		spent += t.DataBytes
		rows, err := i.q.QueryContext(ctx, "SELECT COUNT(*) FROM "+quoteIdent(db)+"."+quoteIdent(t.Name))
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		var n int64
		if rows.Next() {
			err = rows.Scan(&n)
		}
		if err == nil {
			err = rows.Err()
		}
		rows.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		data, idx := t.DataBytes, t.IndexBytes
		t.Size = introspect.ExactRows(n)
		t.DataBytes, t.IndexBytes = data, idx
		if t.Partitioning != nil && n == 0 {
			zeroPartitions(t.Partitioning)
		}
	}
	return nil
}

// zeroPartitions marks every partition of a table known to be empty as
// holding exactly no rows.
func zeroPartitions(p *introspect.Partitioning) {
	for _, part := range p.Partitions {
		data, idx := part.DataBytes, part.IndexBytes
		part.Size = introspect.ExactRows(0)
		part.DataBytes, part.IndexBytes = data, idx
		if part.Partitioning != nil {
			zeroPartitions(part.Partitioning)
		}
	}
}

func quoteIdent(s string) string { return introspect.MySQL.Dialect().QuoteIdent(s) }

const partitionsQuery = `
SELECT p.TABLE_NAME, p.PARTITION_NAME, p.SUBPARTITION_NAME, p.PARTITION_METHOD, p.SUBPARTITION_METHOD,
       p.PARTITION_EXPRESSION, p.SUBPARTITION_EXPRESSION, p.PARTITION_DESCRIPTION,
       p.TABLE_ROWS, p.DATA_LENGTH, p.INDEX_LENGTH, t.ENGINE
  FROM information_schema.PARTITIONS AS p
  JOIN information_schema.TABLES AS t ON t.TABLE_SCHEMA = p.TABLE_SCHEMA AND t.TABLE_NAME = p.TABLE_NAME
 WHERE p.TABLE_SCHEMA = ? AND p.PARTITION_NAME IS NOT NULL
 ORDER BY p.TABLE_NAME, p.PARTITION_ORDINAL_POSITION, p.SUBPARTITION_ORDINAL_POSITION`

// partitions reads the partitions (and subpartitions) of the partitioned
// tables, in their declared order.
func (i *Inspector) partitions(ctx context.Context, db string, byName map[string]*introspect.Table) error {
	rows, err := i.q.QueryContext(ctx, partitionsQuery, db)
	if err != nil {
		return err
	}
	defer rows.Close()
	leafRows := map[*introspect.Table]sql.NullInt64{}
	engines := map[*introspect.Table]string{}
	for rows.Next() {
		var (
			table, part                                 string
			sub, method, subMethod, expr, subExpr, desc sql.NullString
			tableRows, data, idx                        sql.NullInt64
			engine                                      sql.NullString
		)
		if err := rows.Scan(&table, &part, &sub, &method, &subMethod, &expr, &subExpr, &desc, &tableRows, &data, &idx, &engine); err != nil {
			return err
		}
		t := byName[table]
		if t == nil {
			continue
		}
		if t.Partitioning == nil {
			t.Partitioning = &introspect.Partitioning{
				Strategy: strings.ToLower(method.String), Key: expr.String, Partitions: []*introspect.Partition{},
			}
		}
		ps := t.Partitioning.Partitions
		var p *introspect.Partition
		if n := len(ps); n > 0 && ps[n-1].Name == part {
			p = ps[n-1]
		} else {
			p = &introspect.Partition{Name: part, Bound: bound(method.String, desc.String)}
			t.Partitioning.Partitions = append(ps, p)
		}
		size := rowsFromStats(tableRows, engine.String)
		size.DataBytes, size.IndexBytes = max(data.Int64, 0), max(idx.Int64, 0)
		sum := leafRows[t]
		sum.Int64 += max(tableRows.Int64, 0)
		sum.Valid = sum.Valid || tableRows.Valid
		leafRows[t], engines[t] = sum, engine.String
		if !sub.Valid {
			p.Size = size
			continue
		}
		if p.Partitioning == nil {
			p.Partitioning = &introspect.Partitioning{
				Strategy: strings.ToLower(subMethod.String), Key: subExpr.String, Partitions: []*introspect.Partition{},
			}
			p.Size = introspect.ExactRows(0)
		}
		p.Partitioning.Partitions = append(p.Partitioning.Partitions, &introspect.Partition{Name: sub.String, Size: size})
		p.Size.Add(size)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// InnoDB's TABLE_ROWS and DATA_LENGTH for a partitioned table are
	// not the sums over its partitions (an empty one reports a few rows):
	// the sums are the better figures.
	for t, sum := range leafRows {
		t.Size = rowsFromStats(sum, engines[t])
		for _, p := range t.Partitioning.Partitions {
			t.DataBytes += p.DataBytes
			t.IndexBytes += p.IndexBytes
		}
	}
	return nil
}

// bound spells a partition's PARTITION_DESCRIPTION as its definition does.
func bound(method, desc string) string {
	m := strings.ToUpper(method)
	switch {
	case desc == "":
		return ""
	case strings.HasPrefix(m, "RANGE") && desc == "MAXVALUE":
		return "VALUES LESS THAN MAXVALUE"
	case strings.HasPrefix(m, "RANGE"):
		return "VALUES LESS THAN (" + desc + ")"
	case strings.HasPrefix(m, "LIST"):
		return "VALUES IN (" + desc + ")"
	}
	return desc
}

// distinctQuery reads the engine's estimate of the distinct values of the
// first key part of each index, when it is a whole column (no prefix): its
// CARDINALITY (InnoDB's from sampled pages, refreshed by ANALYZE TABLE and
// its automatic statistics).
const distinctQuery = `
SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, CARDINALITY
  FROM information_schema.STATISTICS
 WHERE TABLE_SCHEMA = ? AND SEQ_IN_INDEX = 1 AND SUB_PART IS NULL
   AND COLUMN_NAME IS NOT NULL AND CARDINALITY IS NOT NULL
 ORDER BY TABLE_NAME, INDEX_NAME`

// distincts sets the Distinct of each column an index begins with (after
// indexes and the row counts), the largest estimate when several indexes
// begin with it. A table's estimates are left unknown when they are stale:
// a unique index of one column whose CARDINALITY is under half the table's
// rows (InnoDB keeps the figures of its last sampling, 2 for every index of
// a table filled since it was created empty, until it samples again). A
// CARDINALITY of 0 is no sampling at all, not a count.
func (i *Inspector) distincts(ctx context.Context, db string, byName map[string]*introspect.Table) error {
	rows, err := i.q.QueryContext(ctx, distinctQuery, db)
	if err != nil {
		return err
	}
	defer rows.Close()
	type est struct {
		index, column string
		n             int64
	}
	byTable := map[*introspect.Table][]est{}
	for rows.Next() {
		var (
			table, index, column string
			card                 sql.NullInt64
		)
		if err := rows.Scan(&table, &index, &column, &card); err != nil {
			return err
		}
		if t := byName[table]; t != nil && card.Valid && card.Int64 > 0 && t.Column(column) != nil {
			byTable[t] = append(byTable[t], est{index, column, card.Int64})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for t, ests := range byTable {
		n, _, known := t.Rows()
		if !known || stale(t, n, ests, func(e est) (string, int64) { return e.index, e.n }) {
			continue
		}
		for _, e := range ests {
			if c := t.Column(e.column); c.Distinct == nil || *c.Distinct < e.n {
				d := e.n
				c.Distinct = &d
			}
		}
	}
	return nil
}

// stale says whether a unique index of one column of t has an estimate
// under half the table's rows.
func stale[E any](t *introspect.Table, rows int64, ests []E, get func(E) (string, int64)) bool {
	for _, e := range ests {
		name, n := get(e)
		for _, ix := range t.Indexes {
			if ix.Name == name && ix.Unique && len(ix.Columns) == 1 && n*2 < rows {
				return true
			}
		}
	}
	return false
}
