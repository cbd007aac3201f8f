package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	pginspect "github.com/remodel-dev/remodel/introspect/postgres"
)

type pgSource struct {
	cfg  *pgx.ConnConfig
	conn *pgx.Conn // for Inspect
	source.Deadlines
	vis     sync.Mutex // WaitVisible's, and visConn's
	visConn *pgx.Conn
}

func openPostgres(ctx context.Context, dsn string, o source.Options) (*pgSource, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("source: parsing PostgreSQL DSN %s: %s", source.Redact(dsn), pgParseReason(err))
	}
	// Canonical text forms, whatever the server's defaults are.
	for k, v := range pgDialect.SessionSettings() {
		cfg.RuntimeParams[k] = v
	}
	cfg.RuntimeParams["application_name"] = "remodel"
	// The DSN's connect_timeout bounds each attempt (sslmode=prefer makes
	// two, a host name with several addresses one each); the deadline
	// bounds them all together.
	s := &pgSource{cfg: cfg, Deadlines: source.NewDeadlines(o, cfg.ConnectTimeout, "connect_timeout in the DSN")}
	if s.conn, err = s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *pgSource) connect(ctx context.Context) (*pgx.Conn, error) {
	var c *pgx.Conn
	err := s.Deadlines.Connect(ctx, func(ctx context.Context) (err error) {
		c, err = pgx.ConnectConfig(ctx, s.cfg)
		return err
	})
	if err != nil {
		var na *source.NoAnswerError
		if !errors.As(err, &na) {
			err = unwrapPG(err)
		}
		return nil, fmt.Errorf("source: connecting to PostgreSQL at %s:%d as %s: %w", s.cfg.Host, s.cfg.Port, s.cfg.User, err)
	}
	return c, nil
}

// where names the server in errors.
func (s *pgSource) where() string {
	return fmt.Sprintf("PostgreSQL at %s:%d", s.cfg.Host, s.cfg.Port)
}

// step runs the set-up step fn with its deadline (deadlines.step).
func (s *pgSource) step(ctx context.Context, doing string, fn func(context.Context) error) error {
	return s.Deadlines.Step(ctx, doing, s.where(), fn)
}

// exec runs the set-up statement q on c with its deadline.
func (s *pgSource) exec(ctx context.Context, c *pgx.Conn, doing, q string) error {
	return source.Worded(doing, s.step(ctx, doing, func(ctx context.Context) error {
		_, err := c.Exec(ctx, q)
		return err
	}))
}

// pgParseReason is the reason of a pgconn.ParseConfigError without the
// DSN it repeats ("cannot parse `dsn`: reason (cause)"). Its own cause alone
// is not enough: many parse errors ("invalid port") have none.
func pgParseReason(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "cannot parse `"); ok {
		if i := strings.LastIndex(rest, "`: "); i >= 0 {
			return rest[i+len("`: "):]
		}
	}
	if u := errors.Unwrap(err); u != nil {
		return u.Error()
	}
	return "not a valid DSN"
}

// unwrapPG drops pgconn's connect error wrapper, which may repeat the DSN.
func unwrapPG(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if u := errors.Unwrap(ce); u != nil {
			return oneLine(u)
		}
	}
	return err
}

// oneLine keeps the errors pgx joined (one per attempt: sslmode=prefer
// tries with TLS, then without) on one line, each different message once:
// a refused connection was printed twice, on two lines.
func oneLine(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var msgs []string
	seen := map[string]bool{}
	for _, e := range j.Unwrap() {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return j.Unwrap()[0]
	}
	return joined{strings.Join(msgs, "; "), j.Unwrap()}
}

// joined is errors joined on one line; errors.Is and As still see each.
type joined struct {
	msg  string
	errs []error
}

func (e joined) Error() string   { return e.msg }
func (e joined) Unwrap() []error { return e.errs }

func (s *pgSource) Engine() introspect.Engine { return introspect.Postgres }

func (s *pgSource) Inspect(ctx context.Context) (*introspect.Schema, error) {
	var schema *introspect.Schema
	err := s.step(ctx, "reading the schema", func(ctx context.Context) (err error) {
		schema, err = pginspect.New(s.conn).Inspect(ctx)
		return err
	})
	return schema, err
}

func (s *pgSource) Close() error {
	s.closeVisible()
	return s.conn.Close(context.Background())
}

// Snapshot exports a snapshot from a REPEATABLE READ transaction and imports
// it into n reader transactions: all see exactly the same cut.
func (s *pgSource) Snapshot(ctx context.Context, n int) (source.Snapshot, error) {
	snap := &pgSnapshot{src: s}
	fail := func(err error) (source.Snapshot, error) {
		snap.Close()
		return nil, err
	}
	var err error
	if snap.coord, err = s.connect(ctx); err != nil {
		return fail(err)
	}
	begin := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	if err := s.exec(ctx, snap.coord, "starting the snapshot transaction", begin); err != nil {
		return fail(err)
	}
	var id string
	if err := source.Worded("exporting the snapshot", s.step(ctx, "exporting the snapshot", func(ctx context.Context) error {
		return snap.coord.QueryRow(ctx, "SELECT pg_export_snapshot()").Scan(&id)
	})); err != nil {
		return fail(err)
	}
	if err := s.importSnapshot(ctx, snap, n, id); err != nil {
		return fail(err)
	}
	return snap, nil
}

// importSnapshot opens n readers in snap, each in a transaction that
// imports the exported snapshot id.
func (s *pgSource) importSnapshot(ctx context.Context, snap *pgSnapshot, n int, id string) error {
	for i := 0; i < n; i++ {
		c, err := s.connect(ctx)
		if err != nil {
			return err
		}
		snap.readers = append(snap.readers, &pgReader{conn: c})
		if err := s.exec(ctx, c, "starting a reader transaction", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
			return err
		}
		if err := s.exec(ctx, c, "importing snapshot "+id, "SET TRANSACTION SNAPSHOT '"+id+"'"); err != nil {
			return err
		}
	}
	return nil
}

type pgSnapshot struct {
	src     *pgSource
	coord   *pgx.Conn
	readers []*pgReader
}

func (s *pgSnapshot) Readers() []source.Reader {
	out := make([]source.Reader, len(s.readers))
	for i, r := range s.readers {
		out[i] = r
	}
	return out
}

func (s *pgSnapshot) Warning() string { return "" }

func (s *pgSnapshot) Close() error {
	ctx := context.Background()
	for _, r := range s.readers {
		r.conn.Close(ctx) // closing ends the read-only transaction
	}
	if s.coord != nil {
		s.coord.Close(ctx)
	}
	return nil
}

type pgReader struct {
	conn *pgx.Conn
}

// pgDialect is what the PostgreSQL readers write their SQL and decode
// their values by.
var pgDialect = introspect.Postgres.Dialect()

func pgIdent(s string) string { return pgDialect.QuoteIdent(s) }

// pgTable is what a statement reads t from: the qualified table or view, or
// a query as a derived table named q.
func pgTable(t *introspect.Table) string { return source.FromRef(pgDialect, t) }

// pgLabel names t in errors.
func pgLabel(t *introspect.Table) string { return t.Label() }

func (r *pgReader) Placeholder(i int) string { return pgDialect.Placeholder(i) }

func (r *pgReader) ScanTable(ctx context.Context, t *introspect.Table, w string, limit int, fn func([]any) error) error {
	q := source.ScanStatement(t, w, limit, pgIdent, pgDialect.ReadColumn, pgTable(t))
	err := r.query(ctx, q, nil, func(_ []pgconn.FieldDescription, raw [][]byte, row []any) error {
		source.DecodeRow(t.Columns, raw, row, pgDialect)
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s: %w", pgLabel(t), err)
	}
	return nil
}

// query runs q in text result format and hands each row's raw values to fn
// with a reusable row slice.
func (r *pgReader) query(ctx context.Context, q string, args []any, fn func([]pgconn.FieldDescription, [][]byte, []any) error) error {
	rows, err := r.conn.Query(ctx, q, append([]any{pgx.QueryResultFormats{pgx.TextFormatCode}}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	row := make([]any, len(fields))
	for rows.Next() {
		if err := fn(fields, rows.RawValues(), row); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r *pgReader) Count(ctx context.Context, t *introspect.Table, w string) (int64, error) {
	var n int64
	if err := r.conn.QueryRow(ctx, "SELECT count(*) FROM "+pgTable(t)+source.WhereClause(w)).Scan(&n); err != nil {
		return 0, fmt.Errorf("source: counting %s: %w", pgLabel(t), err)
	}
	return n, nil
}

func (r *pgReader) Sample(ctx context.Context, t *introspect.Table, cols []string, w string, n int, seed int64) ([][]any, error) {
	q, kinds := source.SampleStatement(t, cols, w, n, pgIdent, pgDialect.ReadColumn, pgTable(t), seed)
	var out [][]any
	err := r.query(ctx, q, nil, func(_ []pgconn.FieldDescription, raw [][]byte, _ []any) error {
		row := make([]any, len(cols))
		for i := range cols {
			row[i] = source.DecodeText(kinds[i], raw[i], pgDialect)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: sampling %s: %w", pgLabel(t), err)
	}
	return out, nil
}

func (r *pgReader) Query(ctx context.Context, q string, args []any, kindOf func(string) *introspect.Column, fn func([]string, []any) error) error {
	var names []string
	var cols []*introspect.Column
	return r.query(ctx, q, args, func(fields []pgconn.FieldDescription, raw [][]byte, row []any) error {
		if names == nil {
			for _, f := range fields {
				names = append(names, f.Name)
				cols = append(cols, kindOf(f.Name))
			}
		}
		for i := range fields {
			row[i] = source.DecodeText(cols[i], raw[i], pgDialect)
		}
		return fn(names, row)
	})
}
