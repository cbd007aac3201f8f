package source

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// Writeback writes rows back into the source database (follow-back, the
// way back from DynamoDB). Every update and delete is guarded by the
// row's values as the change found them (RowWrite.Old): it applies only
// where the row still holds them, so a row changed in the source since is
// never overwritten. Not safe for concurrent use.
type Writeback interface {
	// Apply runs ws in one transaction, in order: all of them, or none.
	// The outcome says which; an error is a failure of the database or
	// of the connection, after which nothing of ws is applied.
	Apply(ctx context.Context, ws []RowWrite) (Outcome, error)
	Close() error
}

// WriteOp is what a RowWrite does.
type WriteOp int

// The operations of a RowWrite.
const (
	WriteInsert WriteOp = iota + 1
	WriteUpdate
	WriteDelete
)

// ColumnValue is a column and a canonical value of it (see package
// mapping's doc for the values of each kind).
type ColumnValue struct {
	Column *introspect.Column
	Value  any
}

// RowWrite is one row to write: an insert of New, an update of the row
// holding Old to New's values, or a delete of the row holding Old. Key is
// the row's primary key; Row names the row for people.
type RowWrite struct {
	Op    WriteOp
	Table *introspect.Table
	Key   []ColumnValue
	Old   []ColumnValue
	New   []ColumnValue
	Row   string
}

// OutcomeKind says how Apply ended.
type OutcomeKind int

// The outcomes of Apply.
const (
	// Applied: every write changed its row, or found it already as the
	// write leaves it (a change applied before a restart).
	Applied OutcomeKind = iota + 1
	// Conflict: a row no longer holds the values of Old (it changed in
	// the source), or an inserted row's key holds another row for good;
	// nothing was written.
	Conflict
	// Deferred: the database refused a write for now (a foreign key whose
	// row is not there yet, or still referenced; a key a row holds that
	// another change may yet move away): nothing was written; Apply may
	// succeed later.
	Deferred
)

// Outcome is how Apply ended, with the write it ended at and why.
type Outcome struct {
	Kind   OutcomeKind
	Write  int    // the index of the write that conflicted or was deferred
	Reason string // why, for people
	// Already counts the writes that found their row already as they
	// would leave it.
	Already int
}

// writebacker is a Source that can write rows back: each engine's.
type writebacker interface {
	OpenWriteback(ctx context.Context) (Writeback, error)
}

// OpenWriteback opens a connection to src's database for writing rows
// back. src must be a Source this package opened.
func OpenWriteback(ctx context.Context, src Source) (Writeback, error) {
	if w, ok := src.(writebacker); ok {
		return w.OpenWriteback(ctx)
	}
	return nil, fmt.Errorf("source: writing back into %s is not supported", src.Engine())
}

// WritebackSQL is what an engine's write-back statements say in its own
// way; writebackSQL writes the rest of them, shared.
type WritebackSQL interface {
	// Dialect is the engine's dialect: quoting, placeholders, table
	// references, spatial values from text.
	Dialect() introspect.Dialect
	// InsertEnd ends an INSERT so that a key that exists leaves the row as
	// it is (" ON CONFLICT DO NOTHING"), or is "" where such an insert is
	// refused instead (WritebackTx.DuplicateKey).
	InsertEnd() string
	// Same is the condition that the column col (quoted) of c holds the
	// parameter p, NULLs included.
	Same(c *introspect.Column, col, p string) string
	// Cast is how the parameter p is read in c's type where the
	// comparison would otherwise not be exact; ok is false where the
	// shared form holds.
	Cast(c *introspect.Column, p string) (e string, ok bool)
	// Param is the canonical value v of c as a parameter where the engine
	// reads it in a form of its own; ok is false where the shared form
	// holds.
	Param(c *introspect.Column, v any) (p any, ok bool)
}

// ApplyWrites runs ws in t with the statements of f; the caller commits
// when the outcome is Applied.
func ApplyWrites(ctx context.Context, f WritebackSQL, t WritebackTx, ws []RowWrite) (Outcome, error) {
	return writebackSQL{f: f, d: f.Dialect()}.apply(ctx, t, ws)
}

// writebackSQL is the SQL of each write, and its check, in an engine's
// statements.
type writebackSQL struct {
	f WritebackSQL
	d introspect.Dialect
}

// WritebackTx is one transaction of a write back, as an engine runs
// statements and tells its refusals apart.
type WritebackTx interface {
	// Exec runs q and counts the rows it changed (or found).
	Exec(ctx context.Context, q string, args []any) (int64, error)
	// Exists says whether q (a SELECT) returns a row.
	Exists(ctx context.Context, q string, args []any) (bool, error)
	// DuplicateKey says whether err is the refusal of an insert's key that
	// another row holds, which undoes the statement alone and leaves the
	// transaction going on (MySQL's; PostgreSQL's insert does nothing).
	DuplicateKey(err error) bool
	// Deferral is why the database refused a write for now (a foreign key,
	// a key that another row holds), or "" for an error that is a failure.
	Deferral(err error) string
}

// apply runs ws in t; the caller commits when the outcome is Applied.
func (w writebackSQL) apply(ctx context.Context, t WritebackTx, ws []RowWrite) (Outcome, error) {
	out := Outcome{Kind: Applied}
	for i, rw := range ws {
		q, args := w.statement(rw)
		n, err := t.Exec(ctx, q, args)
		if err != nil && rw.Op == WriteInsert && t.DuplicateKey(err) {
			// MySQL's insert of a key that exists (PostgreSQL's does
			// nothing): the row may be this very insert, applied before a
			// restart; checked below as an insert that changed nothing.
			n, err = 0, nil
		}
		if err != nil {
			if why := t.Deferral(err); why != "" {
				return Outcome{Kind: Deferred, Write: i, Reason: fmt.Sprintf("%s %s: %s", opName(rw.Op), rw.Row, why)}, nil
			}
			return Outcome{}, fmt.Errorf("source: writing back (%s %s): %w", opName(rw.Op), rw.Row, err)
		}
		if n > 0 {
			continue
		}
		// Nothing changed: the row is already as the write leaves it (a
		// change applied before a restart), or it is another row now.
		already, err := w.already(ctx, t, rw)
		if err != nil {
			return Outcome{}, fmt.Errorf("source: writing back (%s %s): %w", opName(rw.Op), rw.Row, err)
		}
		switch {
		case already:
			out.Already++
		case rw.Op == WriteInsert:
			return Outcome{Kind: Deferred, Write: i, Reason: fmt.Sprintf("insert %s: a row with its key exists and holds other values (it may yet be moved away or deleted by a later change)", rw.Row)}, nil
		case rw.Op == WriteUpdate:
			return Outcome{Kind: Conflict, Write: i, Reason: fmt.Sprintf("update %s: the source row no longer holds the item's old image (changed or deleted in the source since)", rw.Row)}, nil
		default:
			return Outcome{Kind: Conflict, Write: i, Reason: fmt.Sprintf("delete %s: the source row no longer holds the item's old image (changed in the source since)", rw.Row)}, nil
		}
	}
	return out, nil
}

func opName(op WriteOp) string {
	return map[WriteOp]string{WriteInsert: "insert", WriteUpdate: "update", WriteDelete: "delete"}[op]
}

// statement is the SQL of a write and its arguments.
func (w writebackSQL) statement(rw RowWrite) (string, []any) {
	table := w.d.TableRef(rw.Table)
	var args []any
	arg := func(cv ColumnValue) string {
		args = append(args, w.value(cv))
		return w.cast(cv.Column, w.d.Placeholder(len(args)))
	}
	switch rw.Op {
	case WriteInsert:
		cols := make([]string, len(rw.New))
		vals := make([]string, len(rw.New))
		for i, cv := range rw.New {
			cols[i] = w.d.QuoteIdent(cv.Column.Name)
			vals[i] = arg(cv)
		}
		q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
		return q + w.f.InsertEnd(), args
	case WriteUpdate:
		sets := make([]string, len(rw.New))
		for i, cv := range rw.New {
			sets[i] = w.d.QuoteIdent(cv.Column.Name) + " = " + arg(cv)
		}
		q := "UPDATE " + table + " SET " + strings.Join(sets, ", ")
		return q + " WHERE " + w.guard(rw.Old, arg), args
	default:
		return "DELETE FROM " + table + " WHERE " + w.guard(rw.Old, arg), args
	}
}

// guard is the condition that a row holds every value of cvs, NULLs
// included.
func (w writebackSQL) guard(cvs []ColumnValue, arg func(ColumnValue) string) string {
	conds := make([]string, len(cvs))
	for i, cv := range cvs {
		conds[i] = w.f.Same(cv.Column, w.d.QuoteIdent(cv.Column.Name), arg(cv))
	}
	return strings.Join(conds, " AND ")
}

// cast is how a parameter is read in the column's type where the
// comparison would otherwise not be exact.
func (w writebackSQL) cast(c *introspect.Column, p string) string {
	if e, ok := w.f.Cast(c, p); ok {
		return e
	}
	if c.Kind == introspect.KindGeometry { // its EWKT, read by the engine's own function
		if e := w.d.SpatialFromText(c, p); e != "" {
			return e
		}
	}
	return p
}

// already says whether the row rw writes is already as rw leaves it: an
// inserted or updated row holding its new values, a deleted row gone.
func (w writebackSQL) already(ctx context.Context, t WritebackTx, rw RowWrite) (bool, error) {
	var args []any
	arg := func(cv ColumnValue) string {
		args = append(args, w.value(cv))
		return w.cast(cv.Column, w.d.Placeholder(len(args)))
	}
	table := w.d.TableRef(rw.Table)
	switch rw.Op {
	case WriteDelete:
		found, err := t.Exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(rw.Key, arg), args)
		return !found, err
	case WriteUpdate:
		return t.Exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(merged(rw.Old, rw.New), arg), args)
	default:
		return t.Exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(rw.New, arg), args)
	}
}

// merged is old with the values of new in place of its columns'.
func merged(old, new []ColumnValue) []ColumnValue {
	out := append([]ColumnValue(nil), old...)
	for _, n := range new {
		found := false
		for i := range out {
			if out[i].Column.Name == n.Column.Name {
				out[i].Value, found = n.Value, true
			}
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

// value is a canonical value as the statement's parameter: text in the
// form the engine reads for the column's type, numbers and bytes as they
// are.
func (w writebackSQL) value(cv ColumnValue) any {
	c := cv.Column
	if p, ok := w.f.Param(c, cv.Value); ok {
		return p
	}
	switch x := cv.Value.(type) {
	case nil:
		return nil
	case time.Time:
		if c.Kind == introspect.KindDate {
			return x.Format("2006-01-02")
		}
		return x.UTC().Format("2006-01-02 15:04:05.999999999")
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		if c.Kind == introspect.KindJSON {
			return string(x)
		}
		return x
	case []string: // a MySQL SET
		return strings.Join(x, ",")
	case []any: // a PostgreSQL array
		return w.arrayText(c, x)
	}
	return cv.Value
}

// arrayText is the text of a PostgreSQL array of column c with the
// elements elems (nested arrays as []any): {"a","b",NULL}, every element
// quoted (a backslash before each " and \) in the text the element's type
// reads, separated by the element type's delimiter.
func (w writebackSQL) arrayText(c *introspect.Column, elems []any) string {
	elem := &introspect.Column{Name: c.Name, Kind: c.Elem, Precision: c.Precision}
	delim := ","
	if c.Delim != "" {
		delim = c.Delim
	}
	var b strings.Builder
	var write func([]any)
	write = func(xs []any) {
		b.WriteByte('{')
		for i, x := range xs {
			if i > 0 {
				b.WriteString(delim)
			}
			switch v := x.(type) {
			case nil:
				b.WriteString("NULL")
			case []any:
				write(v)
			default:
				b.WriteString(quoteArrayElement(w.elementText(elem, v)))
			}
		}
		b.WriteByte('}')
	}
	write(elems)
	return b.String()
}

// elementText is the text of one array element.
func (w writebackSQL) elementText(elem *introspect.Column, v any) string {
	switch x := w.value(ColumnValue{Column: elem, Value: v}).(type) {
	case string:
		return x
	case []byte: // bytea, in its hex form
		return `\x` + hex.EncodeToString(x)
	default:
		return fmt.Sprint(x)
	}
}

// quoteArrayElement is s in double quotes, a backslash before each " and \.
func quoteArrayElement(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
