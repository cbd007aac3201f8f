package mapping

import (
	"fmt"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/remodel-dev/remodel/introspect"
)

// Stream passes the rows that scan reads (in key order, as the source's
// ScanTable gives them) on to fn, one by one.
//
// When the entity's key is one the source does not enforce (key: on a
// view, a query or a table), two rows may share it, and then neither names
// its row: the mapping is wrong, not the data (a join that fans out needs
// the joined table's key in key:). Stream holds rows back until the next
// row's key differs, and passes every row of a key that several rows share
// with a *RowError saying so; such rows must not become items. Rows arrive
// in key order, so rows with the same key come one after another, except
// under a collation that sorts different texts as equal (MySQL's _ci: "a",
// "A", "a" in any order). There (keyCollated) Stream holds the rows whose
// key texts are equal ignoring case, accents, width and trailing spaces
// (collationGroup), and a key repeated anywhere among them rejects each of
// its rows: otherwise the key collision check would reject only the later
// one, and the rejected-rows file would name a row by a key that also names
// a row that has its item.
//
// row is only valid during the call to fn, as in the source's ScanTable.
func (e *Entity) Stream(scan func(fn func(row []any) error) error, fn func(row []any, dup *RowError) error) error {
	if !e.keyDeclared {
		return scan(func(row []any) error { return fn(row, nil) })
	}
	var (
		held    [][]any // the rows of the current group
		keys    []string
		heldKey string // the group's key
		group   func(row []any, exact string) string
	)
	if e.keyCollated {
		group = e.collationGroup()
	}
	flush := func() error {
		if len(held) == 1 {
			return fn(held[0], nil)
		}
		n := map[string]int{}
		for _, k := range keys {
			n[k]++
		}
		for i, r := range held {
			if n[keys[i]] == 1 {
				if err := fn(r, nil); err != nil {
					return err
				}
				continue
			}
			err := &RowError{Entity: e.Name, Key: keys[i], Reason: fmt.Sprintf(
				"%d rows have this key (%s): the key columns must identify a row of the %s (add the columns that tell them apart to key:)",
				n[keys[i]], e.keyNames(), e.what())}
			if err := fn(r, err); err != nil {
				return err
			}
		}
		return nil
	}
	err := scan(func(row []any) error {
		k := e.SourceKey(row)
		g := k
		if group != nil {
			g = group(row, k)
		}
		if len(held) > 0 && g != heldKey {
			if err := flush(); err != nil {
				return err
			}
			held, keys = held[:0], keys[:0]
		}
		heldKey = g
		held = append(held, append([]any(nil), row...))
		keys = append(keys, k)
		return nil
	})
	if err != nil || len(held) == 0 {
		return err
	}
	return flush()
}

// collationGroup returns what rows of e whose keys a case- and
// accent-insensitive collation may find equal have in common: each text key
// value without its trailing spaces, as the Unicode collation keys it
// ignoring case, accents and width; the other key values as SourceKey
// writes them (exact is the row's SourceKey). A group at least as coarse
// as the engine's collation holds every repeat; one that is coarser only
// holds more rows back.
func (e *Entity) collationGroup() func(row []any, exact string) string {
	coll := collate.New(language.Und, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
	var buf collate.Buffer
	return func(row []any, exact string) string {
		var b strings.Builder
		text := false
		for _, k := range e.keyCols {
			s, ok := row[k].(string)
			if !ok || e.Columns[k].Kind != introspect.KindString {
				continue
			}
			text = true
			buf.Reset()
			b.Write(coll.KeyFromString(&buf, strings.TrimRight(s, " ")))
			b.WriteByte(0)
		}
		if !text {
			return exact
		}
		for _, k := range e.keyCols { // the key's other values, exactly
			if _, ok := row[k].(string); !ok || e.Columns[k].Kind != introspect.KindString {
				fmt.Fprintf(&b, "%v\x00", row[k])
			}
		}
		return b.String()
	}
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
