package migrate

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
	_ "github.com/remodel-dev/remodel/internal/domain/source/engines" // the engines source.Open opens
)

// Source is an open source database, PostgreSQL or MySQL/MariaDB, as
// OpenSource returns it: Options.Source here and verify.Options.Source take
// it, its Inspect reads the schema (the introspect.Schema mapping.Compile
// checks a mapping against), and Close ends its connections.
type Source = source.Source

// OpenSource connects to the source database a DSN names:
// postgres://user:pass@host:port/db, mysql://user:pass@host:port/db, or
// go-sql-driver's user:pass@tcp(host:port)/db. Each connection and set-up
// step (reading the schema, opening a snapshot) must be answered within
// 30 s; reads of rows have no deadline. The error names the DSN without its
// password.
func OpenSource(ctx context.Context, dsn string) (Source, error) {
	return source.Open(ctx, dsn)
}
