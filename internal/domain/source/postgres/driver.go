package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// Driver is PostgreSQL's source.Driver: it owns the postgres:// and
// postgresql:// DSNs.
type Driver struct{}

// Engine is introspect.Postgres.
func (Driver) Engine() introspect.Engine { return introspect.Postgres }

// Forms is the URL form.
func (Driver) Forms() []string { return []string{"postgres://"} }

// Owns reports whether dsn is a postgres:// or postgresql:// URL.
func (Driver) Owns(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the PostgreSQL database dsn names.
func (Driver) Open(ctx context.Context, dsn string, o source.Options) (source.Source, error) {
	s, err := openPostgres(ctx, dsn, o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return s, nil
}

// Identity is postgres://user@host:port/db.
func (Driver) Identity(dsn string) (string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("source: parsing PostgreSQL DSN %s: %s", source.Redact(dsn), pgParseReason(err))
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database), nil
}
