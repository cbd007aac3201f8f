package initmap

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// MeasureRows is how many rows of a table init reads to count the distinct
// values of its columns itself (MeasureDistinct): a table of at most that
// many rows is counted whole (exact figures); of a larger one, the first
// MeasureRows rows the source returns, which give a lower bound of its
// distinct values.
const MeasureRows = 1_000_000

// Measured are init's own counts of the distinct values of the columns its
// design decides on (the columns of each one-column foreign key, the first
// column of each index, the columns a statement of the statistics compares
// to a parameter), by table and column. They do not depend on the source's
// statistics (pg_stats, InnoDB's CARDINALITY), which are missing in a
// database that was never analysed and stale in one loaded since its last
// ANALYZE: the design is the same before and after ANALYZE.
type Measured map[string]Count

// Count is what init counted of one column.
type Count struct {
	// Rows is how many rows were read; Distinct how many distinct non-NULL
	// values they hold; NonNull how many of them are not NULL (the entries
	// an index of the column would have).
	Rows, Distinct, NonNull int64
	// Sample is set when the table holds more rows than were read (the
	// first MeasureRows): Distinct is then a lower bound of the table's.
	Sample bool
	// Last is the largest value of a date or timestamp column in the rows
	// read, as the source prints it, when it is of the year FarYear or
	// later; AtLast how many of those rows are of that year or later, and
	// FarValues how many distinct values they hold (1: each holds Last,
	// a sentinel that marks the current rows). Measured.Last returns them.
	Last              string
	AtLast, FarValues int64
}

// FarYear is the year from which the largest value of a date or
// timestamp column is taken for a sentinel rather than a time: no event
// happens then, so a value like the employees sample's to_date =
// '9999-01-01' stands for "not ended yet" and marks the current rows.
const FarYear = 2999

func measuredID(t *introspect.Table, col string) string { return t.QualifiedName() + "\x00" + col }

// Get returns what was counted of column col of table t, and whether it
// was.
func (m Measured) Get(t *introspect.Table, col string) (Count, bool) {
	c, ok := m[measuredID(t, col)]
	return c, ok
}

// Put records what was counted of column col of table t.
func (m Measured) Put(t *introspect.Table, col string, c Count) { m[measuredID(t, col)] = c }

func lastID(t *introspect.Table, col string) string { return measuredID(t, col) + "\x00last" }

// Last returns what init read of the largest value of the date or
// timestamp column col of table t (Rows, Sample, Last and AtLast), and
// whether that value is far in the future (FarYear). It is kept apart
// from the distinct counts (Get): a column whose distinct values were not
// counted may have it.
func (m Measured) Last(t *introspect.Table, col string) (Count, bool) {
	c, ok := m[lastID(t, col)]
	return c, ok
}

// PutLast records the largest value of column col of table t.
func (m Measured) PutLast(t *introspect.Table, col string, c Count) { m[lastID(t, col)] = c }

// how says how a count was made, for the comments.
func (c Count) how() string {
	if c.Sample {
		return fmt.Sprintf("counted by init in the first %d rows read, a sample: at least that many values", c.Rows)
	}
	return "counted by init in every row"
}

// lastHow says how the largest value of a column was read, for the
// comments.
func (c Count) lastHow() string {
	if c.Sample {
		return fmt.Sprintf("counted by init in the first %d rows read, a sample", c.Rows)
	}
	return "counted by init in every row"
}

// measuredColumns are the columns of t whose distinct values the design
// may decide on: a one-column foreign key's (declared, or declared on
// some partitions), the first column of each index that is not unique,
// each nullable date or timestamp (its NULLs are the open rows) and the
// columns the statements compare to a parameter (st may be nil).
func measuredColumns(t *introspect.Table, st *Statistics) []string {
	var cols []string
	add := func(c string) {
		if col := t.Column(c); col != nil && col.Expr == "" && col.Read == "" && !slices.Contains(cols, c) &&
			templatable(t, c) == "" {
			cols = append(cols, c)
		}
	}
	for _, fk := range t.ForeignKeys {
		if len(fk.Columns) == 1 {
			add(fk.Columns[0])
		}
	}
	for _, fk := range t.PartitionForeignKeys {
		if len(fk.Columns) == 1 {
			add(fk.Columns[0])
		}
	}
	for _, ix := range t.Indexes {
		if !ix.Unique && !ix.Primary && len(ix.Columns) > 0 && ix.Columns[0].Column != "" {
			add(ix.Columns[0].Column)
		}
	}
	for _, c := range t.Columns { // how many rows are open (openRows)
		if c.Nullable && (c.Kind == introspect.KindDate || c.Kind == introspect.KindTimestamp || c.Kind == introspect.KindTimestampTZ) {
			add(c.Name)
		}
	}
	if st != nil {
		for _, s := range st.Statements {
			q, why := parseStatement(s.SQL)
			if why != "" || !strings.EqualFold(q.table, t.Name) {
				continue
			}
			for _, c := range q.eq {
				if n, ok := columnNamed(t, c); ok {
					add(n)
				}
			}
		}
	}
	return cols
}

// lastColumns are the date and timestamp columns of t whose largest value
// init reads (a far-future one marks the current rows: openRows).
func lastColumns(t *introspect.Table) []string {
	var cols []string
	for _, c := range t.Columns {
		if c.Expr == "" && c.Read == "" && (c.Kind == introspect.KindDate || c.Kind == introspect.KindTimestamp || c.Kind == introspect.KindTimestampTZ) {
			cols = append(cols, c.Name)
		}
	}
	return cols
}

// MeasureDistinct counts, for every table of s, the distinct values of the
// columns the design decides on (measuredColumns), in one snapshot: one
// query a table, reading at most MeasureRows rows (SELECT count(*),
// count(DISTINCT c), ... FROM (SELECT ... LIMIT MeasureRows+1)). The same
// query, in the same rows, reads the largest value of each date and
// timestamp column (lastColumns) and counts the rows, and the distinct
// values, of the year FarYear or later (Measured.Last). A table whose rows
// cannot be read (no privilege) is left uncounted: the design then says so
// where it decides on it.
func MeasureDistinct(ctx context.Context, src source.Source, s *introspect.Schema, st *Statistics) (Measured, error) {
	out := Measured{}
	type job struct {
		t           *introspect.Table
		cols, lasts []string
	}
	var todo []job
	for _, t := range s.Tables {
		if t.View {
			continue
		}
		if cols, lasts := measuredColumns(t, st), lastColumns(t); len(cols)+len(lasts) > 0 {
			todo = append(todo, job{t, cols, lasts})
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return nil, fmt.Errorf("counting distinct values: %w", err)
	}
	defer snap.Close()
	r := snap.Readers()[0]
	d := s.Engine.Dialect()
	for _, j := range todo {
		row, err := queryRow(ctx, r, distinctSQL(d, j.t, j.cols, j.lasts))
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("counting distinct values of %s: %w", j.t.QualifiedName(), err)
			}
			continue // not readable: left uncounted, and said where it matters
		}
		if len(row) != 2*len(j.cols)+1+3*len(j.lasts) {
			continue
		}
		n, err := counts(row[:2*len(j.cols)+1])
		if err != nil {
			return nil, fmt.Errorf("counting distinct values of %s: %w", j.t.QualifiedName(), err)
		}
		rows, sample := n[0], n[0] > MeasureRows
		if sample {
			rows = MeasureRows
		}
		for i, c := range j.cols {
			out.Put(j.t, c, Count{Rows: rows, Distinct: n[2*i+1], NonNull: min(rows, n[2*i+2]), Sample: sample})
		}
		for i, c := range j.lasts {
			v := row[2*len(j.cols)+1+i*3:][:3]
			far, err := counts(v[1:])
			if err != nil {
				return nil, fmt.Errorf("reading the largest value of %s.%s: %w", j.t.QualifiedName(), c, err)
			}
			if v[0] != nil && far[0] > 0 {
				out.PutLast(j.t, c, Count{Rows: rows, Sample: sample, Last: fmt.Sprint(v[0]), AtLast: far[0], FarValues: far[1]})
			}
		}
	}
	return out, nil
}

// queryRow runs q, which returns one row, and returns its values (nil for
// no row).
func queryRow(ctx context.Context, r source.Reader, q string) ([]any, error) {
	var out []any
	err := r.Guard(ctx, func() error {
		return r.Query(ctx, q, nil, asText, func(_ []string, row []any) error {
			out = slices.Clone(row)
			return nil
		})
	})
	return out, err
}

// counts are the values of a row of counts, as integers.
func counts(row []any) ([]int64, error) {
	n := make([]int64, len(row))
	for i, v := range row {
		var err error
		if n[i], err = strconv.ParseInt(fmt.Sprint(v), 10, 64); err != nil {
			return nil, fmt.Errorf("unexpected count %v", v)
		}
	}
	return n, nil
}

// distinctSQL counts the rows read and the distinct and non-NULL values of
// each column of cols, and reads the largest value of each column of lasts
// and how many rows and distinct values are of the year FarYear or later,
// in at most MeasureRows+1 rows of t (one more than are counted, to tell a
// table read whole from a sample of one). One query reads them all, so
// that every figure is of the same rows (two queries with a LIMIT need not
// read the same ones: PostgreSQL starts a scan of a large table where the
// last one stopped).
func distinctSQL(d introspect.Dialect, t *introspect.Table, cols, lasts []string) string {
	q := d.QuoteIdent
	var sel []string
	agg := "count(*)"
	for i, c := range cols {
		a := q("c" + strconv.Itoa(i))
		sel = append(sel, q(c)+" AS "+a)
		agg += ", count(DISTINCT " + a + "), count(" + a + ")"
	}
	far := sqlText(d, fmt.Sprintf("%04d-01-01", FarYear))
	for i, c := range lasts {
		a := q("l" + strconv.Itoa(i))
		sel = append(sel, q(c)+" AS "+a)
		agg += ", max(" + a + "), count(CASE WHEN " + a + " >= " + far + " THEN 1 END), count(DISTINCT CASE WHEN " + a + " >= " + far + " THEN " + a + " END)"
	}
	if len(sel) == 0 { // the rows alone
		sel = append(sel, "1 AS "+q("c"))
	}
	return "SELECT " + agg + " FROM (SELECT " + strings.Join(sel, ", ") + " FROM " + d.TableRef(t) +
		" LIMIT " + strconv.Itoa(MeasureRows+1) + ") AS s"
}
