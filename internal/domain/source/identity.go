package source

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Identity names the database a DSN points at, without its password or
// connection options: postgres://user@host:port/db or
// mysql://user@host:port/db. Two DSNs spelled differently for the same
// database (a URL and the go-sql-driver form, options added) have the same
// identity. migrate's checkpoint records it, so that a resumed run reads
// the database the interrupted one read.
func Identity(dsn string) (string, error) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return "", fmt.Errorf("source: parsing PostgreSQL DSN %s: %s", Redact(dsn), pgParseReason(err))
		}
		return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database), nil
	}
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("mysql://%s@%s/%s", cfg.User, cfg.Addr, cfg.DBName), nil
}
