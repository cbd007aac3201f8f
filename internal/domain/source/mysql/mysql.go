package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	myinspect "github.com/remodel-dev/remodel/introspect/mysql"
)

type mySource struct {
	db    *sql.DB
	cfg   *mysql.Config
	stall atomic.Int64 // AllowStall's duration
	source.Deadlines
	visMu   sync.Mutex
	ordered *bool // binlog_order_commits, once WaitVisible has read it
}

// minStall is the least time a reader connection's result stream may be
// left unread: it covers migrate's and verify's default retries (two
// minutes per batch) and a request timeout.
const minStall = 10 * time.Minute

// netTimeout is the session net_write_timeout and net_read_timeout of a
// snapshot's reader connections, in seconds: the stall allowed and a
// minute, at least minStall, at most a year (the server's limit).
func (s *mySource) AllowStall(d time.Duration) { s.stall.Store(int64(d)) }

func (s *mySource) netTimeout() int64 {
	d := max(minStall, time.Duration(s.stall.Load())+time.Minute)
	return min(int64((d+time.Second-1)/time.Second), 365*24*3600)
}

// mysqlConfig reads mysql://user:pass@host:port/db?param=value or the
// go-sql-driver form user:pass@tcp(host:port)/db?param=value.
func mysqlConfig(dsn string) (*mysql.Config, error) {
	if !strings.HasPrefix(dsn, "mysql://") {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("source: parsing MySQL DSN %s: not a valid user:pass@tcp(host:port)/db DSN", source.Redact(dsn))
		}
		return cfg, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("source: parsing MySQL DSN %s: not a valid URL", source.Redact(dsn))
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = u.Hostname() + ":3306"
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	q := u.Query()
	if len(q) > 0 {
		// Let the driver read the remaining options the way it documents them.
		native, err := mysql.ParseDSN("tcp(" + cfg.Addr + ")/?" + q.Encode())
		if err != nil {
			return nil, fmt.Errorf("source: parsing MySQL DSN %s: %w", source.Redact(dsn), err)
		}
		native.User, native.Passwd, native.DBName = cfg.User, cfg.Passwd, cfg.DBName
		cfg = native
	}
	return cfg, nil
}

func openMySQL(ctx context.Context, dsn string, o source.Options) (*mySource, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.DBName == "" {
		return nil, fmt.Errorf("source: the MySQL DSN %s names no database", source.Redact(dsn))
	}
	cfg.ParseTime = false // dates arrive as text and are decoded by kind (zero dates included)
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	for k, v := range myDialect.SessionSettings() { // TIMESTAMP values read as UTC
		cfg.Params[k] = v
	}
	// The DSN's timeout bounds the driver's dial; the deadline bounds the
	// dial and the handshake together, as its own or --source-timeout.
	s := &mySource{cfg: cfg, Deadlines: source.NewDeadlines(o, cfg.Timeout, "timeout in the DSN")}
	if cfg.Timeout <= 0 {
		cfg.Timeout = s.Deadlines.ConnectTimeout()
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("source: configuring MySQL: %w", err)
	}
	s.db = sql.OpenDB(conn)
	if err := s.Deadlines.Connect(ctx, s.db.PingContext); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("source: connecting to MySQL at %s as %s: %w", cfg.Addr, cfg.User, err)
	}
	return s, nil
}

// where names the server in errors.
func (s *mySource) where() string { return "MySQL at " + s.cfg.Addr }

// step runs the set-up step fn with its deadline (deadlines.step).
func (s *mySource) step(ctx context.Context, doing string, fn func(context.Context) error) error {
	return s.Deadlines.Step(ctx, doing, s.where(), fn)
}

// conn takes a connection from the pool, opening one with the connect
// deadline if none is idle.
func (s *mySource) conn(ctx context.Context) (*sql.Conn, error) {
	var c *sql.Conn
	err := s.Deadlines.Connect(ctx, func(ctx context.Context) (err error) {
		c, err = s.db.Conn(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("source: opening a connection to %s as %s: %w", s.where(), s.cfg.User, err)
	}
	return c, nil
}

// exec runs the set-up statement q on c with its deadline.
func (s *mySource) exec(ctx context.Context, c *sql.Conn, doing, q string) error {
	return source.Worded(doing, s.step(ctx, doing, func(ctx context.Context) error {
		_, err := c.ExecContext(ctx, q)
		return err
	}))
}

func (s *mySource) Engine() introspect.Engine { return introspect.MySQL }

func (s *mySource) Inspect(ctx context.Context) (*introspect.Schema, error) {
	var schema *introspect.Schema
	err := s.step(ctx, "reading the schema", func(ctx context.Context) (err error) {
		schema, err = myinspect.New(s.db).Inspect(ctx)
		return err
	})
	return schema, err
}

func (s *mySource) Close() error { return s.db.Close() }

// Snapshot starts n transactions WITH CONSISTENT SNAPSHOT. While they start,
// a FLUSH TABLES WITH READ LOCK holds writers back so that all n see the
// same cut (as mysqldump does); without the RELOAD privilege each reader's
// snapshot is taken a moment apart, and Warning says so.
func (s *mySource) Snapshot(ctx context.Context, n int) (source.Snapshot, error) {
	// One reader needs no lock to line up with others.
	snap, err := s.snapshot(ctx, n, n > 1, nil)
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshot opens Snapshot's n readers, under the global read lock when lock
// (and the server grants it). atCut, when not nil, runs once every reader
// has its snapshot, before the lock is released; locked says whether it is
// held (StartFollow reads the binlog position of the cut there).
func (s *mySource) snapshot(ctx context.Context, n int, lock bool, atCut func(ctx context.Context, snap *mySnapshot, locked bool) error) (*mySnapshot, error) {
	snap := &mySnapshot{src: s, Deadlines: s.Deadlines}
	fail := func(err error) (*mySnapshot, error) {
		snap.Close()
		return nil, err
	}
	locked := false
	if lock {
		unlock, err := s.readLock(ctx, snap, n)
		if err != nil {
			return fail(err)
		}
		defer unlock() // releases writers once every reader has its snapshot
		// readLock words a lock the server refused as the warning.
		locked = snap.warning == ""
	}
	for i := 0; i < n; i++ {
		c, err := s.conn(ctx)
		if err != nil {
			return fail(err)
		}
		snap.readers = append(snap.readers, &myReader{conn: c})
		// A row stream whose consumer waits on retries is not read for that
		// long: the server must not drop it after its 60 s default.
		net := fmt.Sprintf("SET SESSION net_write_timeout = %d, net_read_timeout = %d", s.netTimeout(), s.netTimeout())
		for _, q := range []string{
			net,
			"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
			"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
		} {
			if err := s.exec(ctx, c, "starting a reader transaction", q); err != nil {
				return fail(err)
			}
		}
	}
	if atCut != nil {
		if err := atCut(ctx, snap, locked); err != nil {
			return fail(err)
		}
	}
	return snap, nil
}

// readLock takes FLUSH TABLES WITH READ LOCK for the n readers of snap to
// start their transactions under, or, when the server refuses it, says in
// snap's warning that they do not. unlock releases the lock and gives the
// connection back.
func (s *mySource) readLock(ctx context.Context, snap *mySnapshot, n int) (unlock func(), err error) {
	coord, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	// FLUSH TABLES WITH READ LOCK waits behind running statements and
	// blocks every writer while it waits: give up after a few seconds and
	// fall back to snapshots taken a moment apart.
	if err := s.exec(ctx, coord, "setting lock_wait_timeout", "SET SESSION lock_wait_timeout = 5"); err != nil {
		coord.Close()
		return nil, err
	}
	locked := false
	err = s.step(ctx, "taking the global read lock", func(ctx context.Context) error {
		_, err := coord.ExecContext(ctx, "FLUSH TABLES WITH READ LOCK")
		return err
	})
	var na *source.NoAnswerError
	switch {
	case err == nil:
		locked = true
	case errors.As(err, &na):
		coord.Close()
		return nil, err
	default:
		snap.warning = fmt.Sprintf("no global read lock (%v): each of the %d reader connections took its snapshot at its own start, a moment apart", err, n)
	}
	return func() {
		// coord goes back to the pool: with the lock still held it would
		// block every writer of the server, and its short lock_wait_timeout
		// would surprise the next user.
		ctx, cancel := s.CleanUp()
		defer cancel()
		defer coord.Close()
		if locked {
			if _, err := coord.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
				_ = coord.Raw(func(any) error { return driver.ErrBadConn }) // close it instead
				return
			}
		}
		if _, err := coord.ExecContext(ctx, "SET SESSION lock_wait_timeout = DEFAULT"); err != nil {
			_ = coord.Raw(func(any) error { return driver.ErrBadConn })
		}
	}, nil
}

type mySnapshot struct {
	src     *mySource
	readers []*myReader
	warning string
	source.Deadlines
}

func (s *mySnapshot) Readers() []source.Reader {
	out := make([]source.Reader, len(s.readers))
	for i, r := range s.readers {
		out[i] = r
	}
	return out
}

func (s *mySnapshot) Warning() string { return s.warning }

func (s *mySnapshot) Close() error {
	for _, r := range s.readers {
		ctx, cancel := s.CleanUp()
		_, _ = r.conn.ExecContext(ctx, "ROLLBACK")
		cancel()
		r.conn.Close()
	}
	return nil
}

type myReader struct {
	conn *sql.Conn
}

// myDialect is what the MySQL readers write their SQL and decode their
// values by.
var myDialect = introspect.MySQL.Dialect()

func myIdent(s string) string { return myDialect.QuoteIdent(s) }

// myTable is what a statement reads t from: the table or view of the
// connection's database, or a query as a derived table named q.
func myTable(t *introspect.Table) string { return source.FromRef(myDialect, t) }

// myLabel names t in errors: "table items", "view v", "query x".
func myLabel(t *introspect.Table) string {
	switch {
	case t.Query != "":
		return t.Label()
	case t.View:
		return "view " + t.Name
	}
	return "table " + t.Name
}

func (r *myReader) Placeholder(i int) string { return myDialect.Placeholder(i) }

// unconvertible turns the marked bytes myDialect.ReadColumn selects for text that does
// not convert to UTF-8 into an error value; everything else passes.
func unconvertible(c *introspect.Column, v any) any {
	if c == nil || c.Charset == "" || c.Read != "" {
		return v // a column read as bytes keeps its mark for decodeReadAs
	}
	b, ok := v.([]byte)
	if !ok || len(b) == 0 || b[0] != 0xff {
		return v
	}
	return &source.UnconvertibleTextError{Charset: c.Charset, Text: string(b[1:])}
}

func (r *myReader) ScanTable(ctx context.Context, t *introspect.Table, w string, limit int, fn func([]any) error) error {
	q := source.ScanStatement(t, w, limit, myIdent, myDialect.ReadColumn, myTable(t))
	err := r.query(ctx, q, nil, func(_ []string, vals []any, row []any) error {
		for i, c := range t.Columns {
			row[i] = source.DecodeBinary(c, unconvertible(c, vals[i]), myDialect)
		}
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s: %w", myLabel(t), err)
	}
	return nil
}

// query runs q as a prepared statement, with or without args, so that every
// read uses the binary protocol: in the text protocol MariaDB prints a FLOAT
// with 6 significant digits (16777216 reads as 16777200), and a table scan
// would not read what a verification query with parameters reads.
func (r *myReader) query(ctx context.Context, q string, args []any, fn func(names []string, vals []any, row []any) error) error {
	stmt, err := r.conn.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	// A spatial column arrives in MySQL's internal form (an SRID, then
	// WKB): bytes that are not text, whatever column kindOf names. Table
	// scans select WKT instead (myDialect.ReadColumn); a free query that did not gets an
	// error value in place of the bytes.
	var spatial []error
	for i, ct := range types {
		if ct.DatabaseTypeName() == "GEOMETRY" {
			if spatial == nil {
				spatial = make([]error, len(types))
			}
			spatial[i] = source.SpatialNotText(names[i])
		}
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]any, len(names))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, e := range spatial {
			if e != nil && vals[i] != nil {
				vals[i] = e
			}
		}
		if err := fn(names, vals, row); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r *myReader) Count(ctx context.Context, t *introspect.Table, w string) (int64, error) {
	var n int64
	if err := r.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+myTable(t)+source.WhereClause(w)).Scan(&n); err != nil {
		return 0, fmt.Errorf("source: counting %s: %w", myLabel(t), err)
	}
	return n, nil
}

func (r *myReader) Sample(ctx context.Context, t *introspect.Table, cols []string, w string, n int, seed int64) ([][]any, error) {
	q, kinds := source.SampleStatement(t, cols, w, n, myIdent, myDialect.ReadColumn, myTable(t), seed)
	var out [][]any
	err := r.query(ctx, q, nil, func(_ []string, vals []any, _ []any) error {
		row := make([]any, len(cols))
		for i := range cols {
			row[i] = source.DecodeBinary(kinds[i], unconvertible(kinds[i], vals[i]), myDialect)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: sampling %s: %w", myLabel(t), err)
	}
	return out, nil
}

func (r *myReader) Query(ctx context.Context, q string, args []any, kindOf func(string) *introspect.Column, fn func([]string, []any) error) error {
	var cols []*introspect.Column
	return r.query(ctx, q, args, func(names []string, vals []any, row []any) error {
		if cols == nil {
			for _, n := range names {
				cols = append(cols, kindOf(n))
			}
		}
		for i := range names {
			row[i] = source.DecodeBinary(cols[i], vals[i], myDialect)
		}
		return fn(names, row)
	})
}
