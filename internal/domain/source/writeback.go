package source

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
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
	openWriteback(ctx context.Context) (Writeback, error)
}

// OpenWriteback opens a connection to src's database for writing rows
// back. src must be a Source this package opened.
func OpenWriteback(ctx context.Context, src Source) (Writeback, error) {
	if w, ok := src.(writebacker); ok {
		return w.openWriteback(ctx)
	}
	return nil, fmt.Errorf("source: writing back into %s is not supported", src.Engine())
}

// openWriteback is PostgreSQL's writeback connection.
func (s *pgSource) openWriteback(ctx context.Context) (Writeback, error) {
	cfg := s.cfg.Copy()
	// Values are sent as text literals the server reads in the column's
	// type (an unknown-typed literal), whatever the column.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("source: connecting to PostgreSQL at %s:%d as %s to write back: %w", cfg.Host, cfg.Port, cfg.User, unwrapPG(err))
	}
	return &pgWriteback{c: c}, nil
}

// openWriteback is MySQL's writeback connection.
func (s *mySource) openWriteback(ctx context.Context) (Writeback, error) {
	cfg := s.cfg.Clone()
	cfg.ClientFoundRows = true // an UPDATE that changes nothing still counts the row it found
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("source: configuring MySQL to write back: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("source: connecting to MySQL at %s as %s to write back: %w", cfg.Addr, cfg.User, err)
	}
	return &myWriteback{db: db}, nil
}

// stmtSQL is the SQL of one write, and its check: the statements of a
// dialect (writeback_sql.go).
type writebackSQL struct {
	d       introspect.Dialect
	postgre bool
}

// tx is one transaction of Apply, as the two engines run statements.
type tx interface {
	exec(ctx context.Context, q string, args []any) (int64, error)
	exists(ctx context.Context, q string, args []any) (bool, error)
}

// apply runs ws in t; the caller commits when the outcome is Applied.
func (w writebackSQL) apply(ctx context.Context, t tx, ws []RowWrite) (Outcome, error) {
	out := Outcome{Kind: Applied}
	for i, rw := range ws {
		q, args := w.statement(rw)
		n, err := t.exec(ctx, q, args)
		if err != nil && rw.Op == WriteInsert && duplicateKey(err) {
			// MySQL's insert of a key that exists (PostgreSQL's does
			// nothing): the row may be this very insert, applied before a
			// restart; checked below as an insert that changed nothing.
			n, err = 0, nil
		}
		if err != nil {
			if why := w.deferral(err); why != "" {
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
		if w.postgre {
			q += " ON CONFLICT DO NOTHING"
		}
		return q, args
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
// included: IS NOT DISTINCT FROM on PostgreSQL, <=> on MySQL.
func (w writebackSQL) guard(cvs []ColumnValue, arg func(ColumnValue) string) string {
	conds := make([]string, len(cvs))
	for i, cv := range cvs {
		col := w.d.QuoteIdent(cv.Column.Name)
		if w.postgre {
			if cv.Column.Kind == introspect.KindJSON { // json has no equality; jsonb compares by value
				col += "::jsonb"
			}
			conds[i] = col + " IS NOT DISTINCT FROM " + arg(cv)
		} else {
			conds[i] = col + " <=> " + arg(cv)
		}
	}
	return strings.Join(conds, " AND ")
}

// cast is how a parameter is read in the column's type where the
// comparison would otherwise not be exact.
func (w writebackSQL) cast(c *introspect.Column, p string) string {
	switch {
	case w.postgre && c.Kind == introspect.KindJSON:
		return p + "::jsonb"
	case !w.postgre && c.Kind == introspect.KindJSON:
		return "CAST(" + p + " AS JSON)"
	case !w.postgre && c.Kind == introspect.KindDecimal: // text against a decimal compares as a double
		return "CAST(" + p + " AS DECIMAL(65,30))"
	}
	return p
}

// already says whether the row rw writes is already as rw leaves it: an
// inserted or updated row holding its new values, a deleted row gone.
func (w writebackSQL) already(ctx context.Context, t tx, rw RowWrite) (bool, error) {
	var args []any
	arg := func(cv ColumnValue) string {
		args = append(args, w.value(cv))
		return w.cast(cv.Column, w.d.Placeholder(len(args)))
	}
	table := w.d.TableRef(rw.Table)
	switch rw.Op {
	case WriteDelete:
		found, err := t.exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(rw.Key, arg), args)
		return !found, err
	case WriteUpdate:
		return t.exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(merged(rw.Old, rw.New), arg), args)
	default:
		return t.exists(ctx, "SELECT 1 FROM "+table+" WHERE "+w.guard(rw.New, arg), args)
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
	switch x := cv.Value.(type) {
	case nil:
		return nil
	case time.Time:
		switch c.Kind {
		case introspect.KindDate:
			return x.Format("2006-01-02")
		case introspect.KindTimestampTZ:
			if w.postgre {
				return x.UTC().Format("2006-01-02 15:04:05.999999999") + "+00"
			}
		}
		return x.UTC().Format("2006-01-02 15:04:05.999999999")
	case bool:
		if !w.postgre {
			if x {
				return int64(1)
			}
			return int64(0)
		}
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		if c.Kind == introspect.KindJSON {
			return string(x)
		}
		return x
	case []string: // a MySQL SET
		return strings.Join(x, ",")
	case int64:
		if w.postgre {
			return strconv.FormatInt(x, 10)
		}
		return x
	}
	return cv.Value
}

// pgWriteback writes back into PostgreSQL.
type pgWriteback struct{ c *pgx.Conn }

func (p *pgWriteback) Apply(ctx context.Context, ws []RowWrite) (Outcome, error) {
	t, err := p.c.Begin(ctx)
	if err != nil {
		return Outcome{}, fmt.Errorf("source: writing back: beginning a transaction: %w", unwrapPG(err))
	}
	defer t.Rollback(context.Background())
	out, err := writebackSQL{d: introspect.Postgres.Dialect(), postgre: true}.apply(ctx, pgTx{t}, ws)
	if err != nil || out.Kind != Applied {
		return out, err
	}
	if err := t.Commit(ctx); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23503" { // a deferred foreign key
			return Outcome{Kind: Deferred, Reason: pe.Message}, nil
		}
		return Outcome{}, fmt.Errorf("source: writing back: committing: %w", unwrapPG(err))
	}
	return out, nil
}

func (p *pgWriteback) Close() error { return p.c.Close(context.Background()) }

type pgTx struct{ t pgx.Tx }

func (t pgTx) exec(ctx context.Context, q string, args []any) (int64, error) {
	tag, err := t.t.Exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (t pgTx) exists(ctx context.Context, q string, args []any) (bool, error) {
	rows, err := t.t.Query(ctx, q+" LIMIT 1", args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

// myWriteback writes back into MySQL or MariaDB.
type myWriteback struct{ db *sql.DB }

func (m *myWriteback) Apply(ctx context.Context, ws []RowWrite) (Outcome, error) {
	t, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return Outcome{}, fmt.Errorf("source: writing back: beginning a transaction: %w", err)
	}
	defer t.Rollback()
	out, err := writebackSQL{d: introspect.MySQL.Dialect()}.apply(ctx, myTx{t}, ws)
	if err != nil || out.Kind != Applied {
		return out, err
	}
	if err := t.Commit(); err != nil {
		return Outcome{}, fmt.Errorf("source: writing back: committing: %w", err)
	}
	return out, nil
}

func (m *myWriteback) Close() error { return m.db.Close() }

type myTx struct{ t *sql.Tx }

func (t myTx) exec(ctx context.Context, q string, args []any) (int64, error) {
	res, err := t.t.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t myTx) exists(ctx context.Context, q string, args []any) (bool, error) {
	rows, err := t.t.QueryContext(ctx, q+" LIMIT 1", args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

// duplicateKey says whether err is MySQL's refusal of a key another row
// holds (the statement alone is undone; the transaction goes on).
func duplicateKey(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062
}

// deferral is why the database refused a write for now (a foreign key, a
// key that another row holds), or "" for an error that is a failure.
func (w writebackSQL) deferral(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23503", "23505": // foreign_key_violation, unique_violation (of an update's new key)
			return pe.Message
		}
		return ""
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1451, 1452, 1062: // a row still referenced, a referenced row missing, a duplicate key
			return me.Message
		}
	}
	return ""
}
