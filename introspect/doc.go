// Package introspect owns the engine-neutral model of a source database's
// schema (its ERD): tables, columns with their declared type, a canonical
// Kind, nullability, enum values and comments, primary keys, unique keys,
// foreign keys, indexes, check constraints, partitions, and row counts
// (exact, estimated or unknown) with sizes. It also selects tables by glob
// patterns (Schema.Filter) and tells whether columns are unique in a table
// (Table.IsUnique).
//
// Each engine's Dialect (Engine.Dialect) lives here, one file per engine
// (dialect_postgres.go, dialect_mysql.go): everything the engine-neutral code
// of the other packages needs to know about an engine's SQL and text forms
// (quoting, table names and the default schema, placeholders, how a column
// is selected and what its text looks like, key range conditions, verify's
// JSON rendering of a row, session settings, statement statistics) and
// about its change stream (whole rows, publication, a kept position). The
// rest of remodel asks the dialect and never compares engines; a test
// (TestNoEngineBranches) keeps it so.
//
// One inspector per engine lives in a sub-package with the same file names
// (introspect/postgres, introspect/mysql). Nothing in this package talks to a
// database; the model is what every later stage (mapping, migrate, verify,
// preview) reasons about; package introspect/erd renders it for people.
//
// The entry point: an engine's Inspector reads a Schema over a connection
// the caller opened, postgres.New(conn).Inspect(ctx) with a pgx connection
// or mysql.New(db).Inspect(ctx) with a database/sql one (see the Example);
// migrate.OpenSource opens a source whose Inspect does the same.
package introspect
