package mapping

import "fmt"

// Stream passes the rows that scan reads (in key order, as the source's
// ScanTable gives them) on to fn, one by one.
//
// When the entity's key is one the source does not enforce (key: on a
// view, a query or a table), two rows may share it, and then neither names
// its row: the mapping is wrong, not the data (a join that fans out needs
// the joined table's key in key:). Stream holds each row back until the
// next row's key differs, and passes every row of a key that several rows
// share with a *RowError saying so; such rows must not become items. Rows
// arrive in key order, so rows with the same key come one after another;
// under a collation that sorts different texts as equal (MySQL's _ci:
// "a", "A", "a") two equal keys can have another between them, and then
// only the table key they render can collide (which migrate's key
// collision check reports).
//
// row is only valid during the call to fn, as in the source's ScanTable.
func (e *Entity) Stream(scan func(fn func(row []any) error) error, fn func(row []any, dup *RowError) error) error {
	if !e.keyDeclared {
		return scan(func(row []any) error { return fn(row, nil) })
	}
	var (
		held    [][]any // the rows of the current key
		heldKey string
	)
	flush := func() error {
		if len(held) == 1 {
			return fn(held[0], nil)
		}
		for _, r := range held {
			err := &RowError{Entity: e.Name, Key: heldKey, Reason: fmt.Sprintf(
				"%d rows have this key (%s): the key columns must identify a row of the %s (add the columns that tell them apart to key:)",
				len(held), e.keyNames(), e.what())}
			if err := fn(r, err); err != nil {
				return err
			}
		}
		return nil
	}
	err := scan(func(row []any) error {
		k := e.SourceKey(row)
		if len(held) > 0 && k != heldKey {
			if err := flush(); err != nil {
				return err
			}
			held = held[:0]
		}
		heldKey = k
		held = append(held, append([]any(nil), row...))
		return nil
	})
	if err != nil || len(held) == 0 {
		return err
	}
	return flush()
}

// keyNames lists the key columns: "user_id, week".
func (e *Entity) keyNames() string {
	s := ""
	for i, k := range e.keyCols {
		if i > 0 {
			s += ", "
		}
		s += e.Columns[k].Name
	}
	return s
}

// what names what the entity reads: "query", "view", "table".
func (e *Entity) what() string {
	switch {
	case e.Table.Query != "":
		return "query"
	case e.Table.View:
		return "view"
	}
	return "table"
}
