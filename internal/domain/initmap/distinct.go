package initmap

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/source"
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
}

func measuredID(t *introspect.Table, col string) string { return t.QualifiedName() + "\x00" + col }

// Get returns what was counted of column col of table t, and whether it
// was.
func (m Measured) Get(t *introspect.Table, col string) (Count, bool) {
	c, ok := m[measuredID(t, col)]
	return c, ok
}

// Put records what was counted of column col of table t.
func (m Measured) Put(t *introspect.Table, col string, c Count) { m[measuredID(t, col)] = c }

// how says how a count was made, for the comments.
func (c Count) how() string {
	if c.Sample {
		return fmt.Sprintf("counted by init in the first %d rows read, a sample: at least that many values", c.Rows)
	}
	return "counted by init in every row"
}

// measuredColumns are the columns of t whose distinct values the design
// may decide on: a one-column foreign key's (declared, or declared on
// some partitions), the first column of each index that is not unique,
// and the columns the statements compare to a parameter (st may be nil).
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

// MeasureDistinct counts, for every table of s, the distinct values of the
// columns the design decides on (measuredColumns), in one snapshot: one
// query a table, reading at most MeasureRows rows (SELECT count(*),
// count(DISTINCT c), ... FROM (SELECT ... LIMIT MeasureRows+1)). A table
// whose rows cannot be read (no privilege) is left uncounted: the design
// then says so where it decides on it.
func MeasureDistinct(ctx context.Context, src source.Source, s *introspect.Schema, st *Statistics) (Measured, error) {
	out := Measured{}
	type job struct {
		t    *introspect.Table
		cols []string
	}
	var todo []job
	for _, t := range s.Tables {
		if t.View {
			continue
		}
		if cols := measuredColumns(t, st); len(cols) > 0 {
			todo = append(todo, job{t, cols})
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
		q := distinctSQL(d, j.t, j.cols)
		var counts []int64
		err := r.Guard(ctx, func() error {
			return r.Query(ctx, q, nil, asText, func(_ []string, row []any) error {
				counts = counts[:0]
				for _, v := range row {
					n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
					if err != nil {
						return fmt.Errorf("unexpected count %v", v)
					}
					counts = append(counts, n)
				}
				return nil
			})
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("counting distinct values of %s: %w", j.t.QualifiedName(), err)
			}
			continue // not readable: left uncounted, and said where it matters
		}
		if len(counts) != 2*len(j.cols)+1 {
			continue
		}
		rows, sample := counts[0], counts[0] > MeasureRows
		if sample {
			rows = MeasureRows
		}
		for i, c := range j.cols {
			out.Put(j.t, c, Count{Rows: rows, Distinct: counts[2*i+1], NonNull: min(rows, counts[2*i+2]), Sample: sample})
		}
	}
	return out, nil
}

// distinctSQL counts the rows read and the distinct and non-NULL values of each column
// in at most MeasureRows+1 rows of t (one more than are counted, to tell a
// table read whole from a sample of one).
func distinctSQL(d introspect.Dialect, t *introspect.Table, cols []string) string {
	q := d.QuoteIdent
	sel, counts := "", "count(*)"
	for i, c := range cols {
		if i > 0 {
			sel += ", "
		}
		sel += q(c) + " AS " + q("c"+strconv.Itoa(i))
		counts += ", count(DISTINCT " + q("c"+strconv.Itoa(i)) + "), count(" + q("c"+strconv.Itoa(i)) + ")"
	}
	return "SELECT " + counts + " FROM (SELECT " + sel + " FROM " + d.TableRef(t) +
		" LIMIT " + strconv.Itoa(MeasureRows+1) + ") AS s"
}
