package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The databases the tests create are named prefix_p<pid>_<random>, the
// pid being the test process's: a database whose process is gone is a
// leftover (a test binary killed, a clean-up that did not finish), which
// the first database a process creates on a server sweeps away. Clean-up
// never decides a test's verdict: it has a long deadline, and a drop that
// fails is logged and left to the next sweep.

// cleanupTimeout bounds one drop at the end of a test: long, so that a
// loaded server is waited for.
const cleanupTimeout = 5 * time.Minute

// dbNamePattern matches the names dbName makes; its group is the pid.
var dbNamePattern = regexp.MustCompile(`^(?:remodel_test|postgis_test)_p([0-9]+)_[0-9a-f]{12}$`)

// dbName is a database name for this process: prefix_p<pid>_<random>.
func dbName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s_p%d_%s", prefix, os.Getpid(), hex.EncodeToString(b))
}

// leftover reports whether name is a test database whose process is gone.
func leftover(name string) bool {
	m := dbNamePattern.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// swept records the servers (admin DSNs) this process has swept.
var swept sync.Map

// sweepOnce runs sweep for the server of admin, once per process.
func sweepOnce(t testing.TB, admin string, sweep func(context.Context) ([]string, error)) {
	once, _ := swept.LoadOrStore(admin, new(sync.Once))
	once.(*sync.Once).Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		dropped, err := sweep(ctx)
		if len(dropped) > 0 {
			t.Logf("testenv: dropped %d databases left by test processes that are gone: %v", len(dropped), dropped)
		}
		if err != nil {
			t.Logf("testenv: sweeping leftover databases: %v (left to the next sweep)", err)
		}
	})
}

// sweepPostgres drops the leftover test databases of a PostgreSQL server
// with drop (dropLogical drops their replication slots first).
func sweepPostgres(ctx context.Context, c *pgx.Conn, drop func(context.Context, *pgx.Conn, string) error) ([]string, error) {
	rows, err := c.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'remodel\_test\_p%' OR datname LIKE 'postgis\_test\_p%'`)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, n := range names {
		if !leftover(n) {
			continue
		}
		if err := drop(ctx, c, n); err != nil {
			return dropped, fmt.Errorf("dropping %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}

// sweepMySQL drops the leftover test databases of a MySQL server.
func sweepMySQL(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'remodel\_test\_p%'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var dropped []string
	for _, n := range names {
		if !leftover(n) {
			continue
		}
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n); err != nil {
			return dropped, fmt.Errorf("dropping %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}
