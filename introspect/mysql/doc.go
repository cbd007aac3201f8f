// Package mysql owns reading the schema of a MySQL or MariaDB database into
// the engine-neutral model of package introspect: which tables are listed,
// how declared column types map to introspect.Kind and their
// fractional-second precision, MariaDB's JSON columns, primary keys,
// foreign keys and row estimates.
//
// The Inspector reads only information_schema, for the database the
// connection has selected (DATABASE(); a DSN without a database name is an
// error), binding every value as a query parameter. Table.Schema is that
// database's name; a foreign key may reference a table of another database,
// which its RefSchema then names.
//
// What is listed: the database's tables of TABLE_TYPE 'BASE TABLE' and, on
// MariaDB, 'SYSTEM VERSIONED' (a system-versioned table is an ordinary table
// with hidden history; its current rows are what SELECT returns). Views,
// sequences and temporary tables are not listed.
//
// Tables come sorted by name (bytewise, whatever the server's
// information_schema collation), columns in ordinal order, primary key
// columns in key order, foreign keys by constraint name with their columns
// paired in constraint order (ORDINAL_POSITION).
//
// Type decisions (see types.go):
//
//   - signed tinyint(1) is KindBool: BOOLEAN is an alias for it. MySQL 8.0.19
//     and later drop the display width of integer types in COLUMN_TYPE, but
//     keep it for signed TINYINT(1) precisely so that connectors can go on
//     recognising booleans; a column shown as plain "tinyint" (MySQL 8), or as
//     tinyint(4), or tinyint(1) unsigned, was declared as a small integer and
//     is KindInt;
//   - bit(n), any n, is KindInt (bit(1) is not taken for a boolean: a mapping
//     can ask for BOOL); year is KindInt; unsigned integers are KindInt
//     although bigint unsigned exceeds int64 (Column.Type says "unsigned");
//   - datetime is KindTimestamp, timestamp is KindTimestampTZ (the server
//     stores it in UTC and converts it with the session time zone);
//   - MariaDB's JSON is an alias for longtext with a CHECK (json_valid(col))
//     constraint; a text column (char, varchar or any text type) whose values
//     a CHECK constraint requires to be json_valid, alone or as one term of an
//     AND, is KindJSON. Column.Type stays what the server declares
//     ("longtext"). Servers without information_schema.CHECK_CONSTRAINTS
//     (MySQL before 8.0.16, MariaDB before 10.2.22) simply have no such
//     columns; MySQL 8's own JSON type is recognised by its name.
//   - the spatial types (geometry, point, linestring, polygon, multipoint,
//     multilinestring, multipolygon, geometrycollection, MySQL 8's
//     geomcollection) are KindGeometry;
//   - enum and anything unknown are KindString; set is KindSet.
//
// Charset is CHARACTER_SET_NAME when it is not a UTF-8 character set
// (utf8mb4, utf8mb3) or binary: a latin1 or ascii column, whose text the
// server converts on its way to a utf8mb4 connection.
//
// Precision is DATETIME_PRECISION for time, datetime and timestamp: 0 when
// the column declares none (MySQL's default, unlike PostgreSQL's 6).
package mysql
