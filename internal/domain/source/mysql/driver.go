package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// Driver is MySQL's (and MariaDB's) source.Driver: it owns the mysql://
// DSNs and go-sql-driver's user:pass@tcp(host:port)/db form.
type Driver struct{}

// Engine is introspect.MySQL.
func (Driver) Engine() introspect.Engine { return introspect.MySQL }

// Forms are the URL form and go-sql-driver's.
func (Driver) Forms() []string { return []string{"mysql://", "user:pass@tcp(host:port)/db"} }

// Owns reports whether dsn is a mysql:// URL or in go-sql-driver's form
// with a tcp or unix address.
func (Driver) Owns(dsn string) bool {
	return strings.HasPrefix(dsn, "mysql://") || strings.Contains(dsn, "@tcp(") || strings.Contains(dsn, "@unix(")
}

// Open connects to the MySQL database dsn names.
func (Driver) Open(ctx context.Context, dsn string, o source.Options) (source.Source, error) {
	s, err := openMySQL(ctx, dsn, o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return s, nil
}

// Identity is mysql://user@host:port/db.
func (Driver) Identity(dsn string) (string, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("mysql://%s@%s/%s", cfg.User, cfg.Addr, cfg.DBName), nil
}
