package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The change-stream tests (migrate --follow) need servers configured
// otherwise than the shared ones, which are never reconfigured:
// scripts/pg-logical.sh runs a PostgreSQL with wal_level=logical and
// scripts/mariadb-binlog.sh a MariaDB with a binlog of full row images, each
// on its own port; `make test` starts both and sets these variables to their
// admin DSNs.
const (
	envPostgresLogical = "REMODEL_TEST_POSTGRES_LOGICAL"
	envMySQLBinlog     = "REMODEL_TEST_MYSQL_BINLOG"
)

// PostgresLogical creates a fresh database on the PostgreSQL server with
// wal_level=logical (REMODEL_TEST_POSTGRES_LOGICAL) and returns its DSN; its
// user may create replication slots and open replication connections. The
// database is dropped when the test ends, with its replication slots (the
// sessions streaming from them are ended first).
func PostgresLogical(t testing.TB) string {
	t.Helper()
	return postgresDB(t, envPostgresLogical, "remodel_test", "", dropLogical)
}

// MySQLBinlog creates a fresh database on the MariaDB server whose binlog
// records full row images (REMODEL_TEST_MYSQL_BINLOG) and returns its DSN in
// mysql:// URL form. The database is dropped when the test ends.
func MySQLBinlog(t testing.TB) string {
	t.Helper()
	return mysqlDB(t, envMySQLBinlog)
}

// dropLogical drops the database name after its logical replication slots:
// PostgreSQL refuses to drop a database one of whose slots is in use. The
// sessions using them (walsenders) are ended, which frees the slots a moment
// later, so it tries again until none is left or ctx ends.
func dropLogical(ctx context.Context, c *pgx.Conn, name string) error {
	for {
		// pg_terminate_backend with a timeout waits for the session to end.
		_, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
			WHERE datname = $1 AND backend_type = 'walsender'`, name)
		if err == nil {
			_, err = c.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
				WHERE database = $1 AND NOT active`, name)
		}
		var left int
		if qerr := c.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE database = $1`, name).Scan(&left); qerr != nil {
			return fmt.Errorf("listing its replication slots: %w", qerr)
		}
		if left == 0 {
			break
		}
		// A slot still held, or taken again: wait for it to be free.
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d replication slots still in use (%v): %w", left, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return dropPostgres(ctx, c, name)
}
