package initmap

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// PartitionKeys are init's check of the foreign keys that only some
// partitions of a table declare (introspect.Table.PartitionForeignKeys),
// by table and key (partitionKeyID). The database does not hold the rows
// of the other partitions to such a key, so init reads them: a key that
// every one of those rows keeps (its columns NULL, or the referenced row
// there) holds for the whole table in its data, and the design takes it
// as the table's (Generate); a key that some row breaks is left out.
type PartitionKeys map[string]PartitionKeyCheck

// PartitionKeyCheck is what the check found for one key in the
// partitions that do not declare it.
type PartitionKeyCheck struct {
	// Rows is how many rows those partitions hold.
	Rows int64
	// Broken is how many of them have the key's columns all set and no
	// row in the referenced table with those values.
	Broken int64
}

func partitionKeyID(t *introspect.Table, fk introspect.ForeignKey) string {
	return t.QualifiedName() + "\x00" + fk.Name
}

// Put records what the check found for foreign key fk of table t.
func (k PartitionKeys) Put(t *introspect.Table, fk introspect.ForeignKey, c PartitionKeyCheck) {
	k[partitionKeyID(t, fk)] = c
}

// Get returns what the check found for foreign key fk of table t, and
// whether it was checked.
func (k PartitionKeys) Get(t *introspect.Table, fk introspect.ForeignKey) (PartitionKeyCheck, bool) {
	c, ok := k[partitionKeyID(t, fk)]
	return c, ok
}

// CheckPartitionKeys reads, for every foreign key that only some
// partitions of a table of s declare, the rows of the partitions that do
// not declare it, in one snapshot: a full read of those partitions, with
// one lookup of the referenced table per row.
func CheckPartitionKeys(ctx context.Context, src source.Source, s *introspect.Schema) (PartitionKeys, error) {
	out := PartitionKeys{}
	var todo []*introspect.Table
	for _, t := range s.Tables {
		if len(t.PartitionForeignKeys) > 0 {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return nil, fmt.Errorf("checking foreign keys declared on some partitions: %w", err)
	}
	defer snap.Close()
	r := snap.Readers()[0]
	d := s.Engine.Dialect()
	for _, t := range todo {
		for _, fk := range t.PartitionForeignKeys {
			var c PartitionKeyCheck
			for _, leaf := range fk.MissingOn {
				q := brokenRowsSQL(d, leaf, fk.ForeignKey)
				err := r.Guard(ctx, func() error {
					return r.Query(ctx, q, nil, asText, func(_ []string, row []any) error {
						rows, err1 := strconv.ParseInt(fmt.Sprint(row[0]), 10, 64)
						broken, err2 := strconv.ParseInt(fmt.Sprint(row[1]), 10, 64)
						if err1 != nil || err2 != nil {
							return fmt.Errorf("unexpected counts %v, %v", row[0], row[1])
						}
						c.Rows += rows
						c.Broken += broken
						return nil
					})
				})
				if err != nil {
					return nil, fmt.Errorf("checking foreign key %s of %s on partition %s: %w", fk.Name, t.QualifiedName(), leaf, err)
				}
			}
			out.Put(t, fk.ForeignKey, c)
		}
	}
	return out, nil
}

// brokenRowsSQL counts the rows of leaf, and those whose values of fk's
// columns are all set with no referenced row (a row the key would refuse).
func brokenRowsSQL(d introspect.Dialect, leaf introspect.PartitionName, fk introspect.ForeignKey) string {
	q := d.QuoteIdent
	var set, match []string
	for i, c := range fk.Columns {
		set = append(set, "c."+q(c)+" IS NOT NULL")
		match = append(match, "p."+q(fk.RefColumns[i])+" = c."+q(c))
	}
	ref := d.TableRef(&introspect.Table{Schema: fk.RefSchema, Name: fk.RefTable})
	return "SELECT count(*), COALESCE(sum(CASE WHEN " + strings.Join(set, " AND ") +
		" AND NOT EXISTS (SELECT 1 FROM " + ref + " AS p WHERE " + strings.Join(match, " AND ") +
		") THEN 1 ELSE 0 END), 0) FROM " + d.TableRef(&introspect.Table{Schema: leaf.Schema, Name: leaf.Name}) + " AS c"
}

// adoptPartitionKeys returns s with the foreign keys that only some
// partitions declare, and that the check found kept by every row of the
// others, added to their table's foreign keys (a copy of the table), and
// the notes that say, per table, what was decided for each such key.
func adoptPartitionKeys(s *introspect.Schema, checked PartitionKeys) (*introspect.Schema, map[string][]string) {
	notes := map[string][]string{}
	var out *introspect.Schema
	for i, t := range s.Tables {
		if len(t.PartitionForeignKeys) == 0 {
			continue
		}
		var adopted []introspect.ForeignKey
		for _, fk := range t.PartitionForeignKeys {
			of := fmt.Sprintf("foreign key %s (%s, to %s) is declared on %d of the %d partitions of %s, not on %s",
				fk.Name, strings.Join(fk.Columns, ", "), fk.RefTable, len(fk.DeclaredOn), len(fk.DeclaredOn)+len(fk.MissingOn),
				t.Name, partitionList(fk.MissingOn))
			c, ok := checked.Get(t, fk.ForeignKey)
			switch {
			case !ok:
				notes[t.QualifiedName()] = append(notes[t.QualifiedName()], of+
					": their rows were not checked, so the design does not take it as the table's")
			case c.Broken > 0:
				notes[t.QualifiedName()] = append(notes[t.QualifiedName()], fmt.Sprintf(
					"%s: %d of their %d rows have no %s row for it, so the design does not take it as the table's",
					of, c.Broken, c.Rows, fk.RefTable))
			default:
				adopted = append(adopted, fk.ForeignKey)
				notes[t.QualifiedName()] = append(notes[t.QualifiedName()], fmt.Sprintf(
					"%s: init read their %d rows, and each one keeps it (its %s row is there, or its columns are NULL), so the design takes it as the table's",
					of, c.Rows, fk.RefTable))
			}
		}
		if len(adopted) == 0 {
			continue
		}
		if out == nil {
			cp := *s
			cp.Tables = append([]*introspect.Table(nil), s.Tables...)
			out = &cp
		}
		ct := *t
		ct.ForeignKeys = append(append([]introspect.ForeignKey(nil), t.ForeignKeys...), adopted...)
		out.Tables[i] = &ct
	}
	if out == nil {
		out = s
	}
	return out, notes
}

func partitionList(names []introspect.PartitionName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = n.Name
	}
	return strings.Join(s, ", ")
}
