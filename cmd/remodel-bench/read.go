package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// rawRead reads every entity's rows the way remodel's source readers do —
// the same query (every column, primary-key order), the same driver and
// protocol (pgx in text format; go-sql-driver/mysql through a prepared
// statement), one snapshot transaction per connection, readers connections
// taking entities from one queue — but converts nothing: each raw value is
// only looked at. It returns the rows read.
func rawRead(ctx context.Context, engine introspect.Engine, dsn string, entities []*mapping.Entity, readers int) (int64, error) {
	readers = min(readers, max(1, len(entities)))
	be, ok := benchEngines[engine]
	if !ok {
		return 0, fmt.Errorf("bench: unknown engine %s", engine)
	}
	open, done, err := be.rawReader(dsn)
	if err != nil {
		return 0, err
	}
	defer done()

	scanners := make([]scanner, 0, readers)
	defer func() {
		for _, s := range scanners {
			s.close()
		}
	}()
	for range readers {
		s, err := open(ctx)
		if err != nil {
			return 0, err
		}
		scanners = append(scanners, s)
	}
	jobs := make(chan *mapping.Entity, len(entities))
	for _, e := range entities {
		jobs <- e
	}
	close(jobs)
	var rows, bytes atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for _, s := range scanners {
		g.Go(func() error {
			for e := range jobs {
				n, b, err := s.scan(gctx, source.ScanSQL(engine, e.Table, e.Where)) // the statement remodel runs
				if err != nil {
					return fmt.Errorf("bench: reading %s: %w", e.Table.Name, err)
				}
				rows.Add(n)
				bytes.Add(b)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	if bytes.Load() == 0 && rows.Load() > 0 {
		return 0, fmt.Errorf("bench: read %d rows of no bytes", rows.Load())
	}
	return rows.Load(), nil
}

// scanner is one reader connection inside its snapshot transaction.
type scanner interface {
	// scan runs q and returns the rows and the bytes of their raw values.
	scan(ctx context.Context, q string) (rows, bytes int64, err error)
	close()
}

type pgScanner struct{ conn *pgx.Conn }

func openPGScanner(ctx context.Context, cfg *pgx.ConnConfig) (*pgScanner, error) {
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("bench: connecting to PostgreSQL: %w", err)
	}
	if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		c.Close(ctx)
		return nil, fmt.Errorf("bench: starting a read transaction: %w", err)
	}
	return &pgScanner{c}, nil
}

func (s *pgScanner) scan(ctx context.Context, q string) (int64, int64, error) {
	rows, err := s.conn.Query(ctx, q, pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	var n, b int64
	for rows.Next() {
		n++
		for _, v := range rows.RawValues() {
			b += int64(len(v))
		}
	}
	return n, b, rows.Err()
}

func (s *pgScanner) close() { s.conn.Close(context.Background()) }

type myScanner struct{ conn *sql.Conn }

func openMyScanner(ctx context.Context, db *sql.DB) (*myScanner, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench: connecting to MySQL: %w", err)
	}
	if _, err := c.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
		c.Close()
		return nil, fmt.Errorf("bench: starting a read transaction: %w", err)
	}
	return &myScanner{c}, nil
}

func (s *myScanner) scan(ctx context.Context, q string) (int64, int64, error) {
	stmt, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return 0, 0, err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n, b int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, 0, err
		}
		n++
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				b += int64(len(v))
			case nil:
			default:
				b += 8
			}
		}
	}
	return n, b, rows.Err()
}

func (s *myScanner) close() { s.conn.Close() }

// mysqlConfig reads the DSN forms remodel accepts (mysql://user:pass@host:port/db
// or user:pass@tcp(host:port)/db) with the session settings its source uses.
func mysqlConfig(dsn string) (*mysql.Config, error) {
	var cfg *mysql.Config
	if rest, ok := strings.CutPrefix(dsn, "mysql://"); ok {
		u, err := url.Parse("mysql://" + rest)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("bench: the MySQL DSN is not a valid mysql://user@host:port/db URL")
		}
		addr := u.Host
		if u.Port() == "" {
			addr += ":3306"
		}
		native := "tcp(" + addr + ")/" + strings.TrimPrefix(u.Path, "/")
		if u.RawQuery != "" {
			native += "?" + u.RawQuery
		}
		if cfg, err = mysql.ParseDSN(native); err != nil {
			return nil, fmt.Errorf("bench: parsing the MySQL DSN: %w", err)
		}
		if u.User != nil {
			cfg.User = u.User.Username()
			cfg.Passwd, _ = u.User.Password()
		}
	} else {
		var err error
		if cfg, err = mysql.ParseDSN(dsn); err != nil {
			return nil, fmt.Errorf("bench: the MySQL DSN is not a valid user:pass@tcp(host:port)/db DSN")
		}
	}
	cfg.ParseTime = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	return cfg, nil
}
