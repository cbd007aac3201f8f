// Package source owns the connection to the source database: opening it
// from a DSN (postgres://, mysql:// or the go-sql-driver form) without ever
// printing its password, consistent snapshots shared by several reader
// connections, streaming the rows of a table, a view or a query (read as a
// derived table) in key order (a column descending where Table.KeyDesc
// says: an embed's order_by), with conditions the mapping adds evaluated
// in the same statement (introspect.Column.Expr), or only the rows of a key
// range (after one key, up to another, in that order: ranges.go),
// describing a query's
// result columns (QueryColumns), running
// verification SQL with bound parameters, and decoding driver values into
// the canonical Go values that package mapping converts (see its doc).
//
// Both engines are read in text form (PostgreSQL with text result formats,
// MySQL with parseTime off, through prepared statements so that numbers
// arrive in binary and a FLOAT is not rounded to 6 digits) and decoded by the
// column's introspect.Kind, so a value reads the same whether it came from a
// table scan or from an access pattern's SQL.
//
// Nothing is passed on changed: a value that cannot be decoded exactly
// becomes an error value, which rejects its row. Text must be valid UTF-8
// (an *InvalidUTF8Error keeps the bytes for the row's key; JSON documents
// are passed on as bytes and checked by mapping.Convert), and MySQL text in
// another character set must convert to it without loss
// (*UnconvertibleTextError); PostgreSQL
// arrays are split at the element type's delimiter (introspect.Column.Delim)
// and must start at index 1; spatial columns are selected as WKT by the
// engine (ST_AsText, ST_AsEWKT with every coordinate's shortest exact
// digits), a spatial value a free query returns in its binary form is an
// error value, and so is an array of PostGIS values. A column with a Read
// form (introspect.Column.Read, added by package mapping for typed
// attributes) selects its stored column (From) in that form: text as its
// bytes, a spatial value as EWKB or as GeoJSON, money as numeric (see
// readas.go).
//
// What differs between the engines in the SQL the readers write and the
// text they decode (quoting, placeholders, the column reads, key range
// conditions, session settings, bytea hex, BIT bytes, zoned timestamps)
// is the engine's introspect.Dialect; the shared code here asks it and
// never compares engines. What is genuinely one engine's lives in that
// engine's folder, a package of its own: source/postgres and source/mysql
// each hold the engine's Driver (which DSNs are its own, their Identity),
// its reader and snapshots, its change stream and its write-back. Package
// source/engines registers them (Register, as database/sql's drivers are):
// a program that opens a DSN imports it, and a new engine adds its folder
// and a line there. The helpers here that the engines share (decoding,
// the statements of a scan, a sample, key ranges and keys, deadlines,
// write-back statements) are exported for them; source/sourcetest is the
// tests' shared support.
package source
