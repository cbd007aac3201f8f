// Package mysql owns reading the schema of a MySQL or MariaDB database into
// the engine-neutral model of package introspect: which tables are listed,
// how declared column types map to introspect.Kind and their
// fractional-second precision, MariaDB's JSON columns, enum and set members,
// comments, primary keys, unique keys, foreign keys, indexes, check
// constraints, partitions, row counts and sizes.
//
// The Inspector reads only information_schema, for the database the
// connection has selected (DATABASE(); a DSN without a database name is an
// error), binding every value as a query parameter. Table.Schema is that
// database's name; a foreign key may reference a table of another database,
// which its RefSchema then names.
//
// What is listed: the database's tables of TABLE_TYPE 'BASE TABLE' and, on
// MariaDB, 'SYSTEM VERSIONED' (a system-versioned table is an ordinary table
// with hidden history; its current rows are what SELECT returns), and views
// (TABLE_TYPE 'VIEW'), with Table.View set and the columns
// information_schema.COLUMNS gives them. Sequences and temporary tables are
// not listed. A MariaDB JSON column seen through a view is longtext (the
// json_valid check belongs to the table), so text.
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
//
// QueryColumns (query.go) describes the result of a SELECT statement from
// the metadata the server sends with an empty result (LIMIT 0): a type
// name, unsigned, decimals, NOT NULL. It carries no display width, so a
// tinyint(1) in a query's result is an integer; MariaDB's JSON is
// text; and text comes converted to the connection's character set.
// Values are the members of an ENUM or SET column, parsed from COLUMN_TYPE
// (a quote doubled; a backslash escaping a backslash, \0, \n, \r, \Z).
//
// Keys and indexes: Indexes come from information_schema.STATISTICS, by
// name (bytewise), with key parts in order, DESC (COLLATION 'D'), a prefix
// length (SUB_PART) and, on MySQL 8.0.13+, a functional key part's
// EXPRESSION; the primary key's index is PRIMARY. UniqueKeys are the unique
// indexes other than PRIMARY on whole columns (no prefix, no expression).
// Checks are the CHECK constraints by name, except the json_valid(`col`)
// check MariaDB adds to a column declared JSON (the column's kind says it).
// Comments are TABLE_COMMENT and COLUMN_COMMENT.
//
// Partitions come from information_schema.PARTITIONS in their declared
// order, subpartitions under their partition; the strategy is
// PARTITION_METHOD in lower case, the key PARTITION_EXPRESSION, the bound
// built from PARTITION_DESCRIPTION (VALUES LESS THAN (...), VALUES IN
// (...)).
//
// Rows (see introspect.Size): TABLE_ROWS, exact for MyISAM, Aria and MEMORY,
// an estimate above 0 for InnoDB. A table InnoDB says is empty is counted
// with COUNT(*) when the count limit allows (Inspector.CountLimit,
// introspect.DefaultCountLimit by default: the smallest such tables by
// DATA_LENGTH first, while they add up to at most the limit), and its rows
// are unknown otherwise. A partitioned table's rows, DATA_LENGTH and
// INDEX_LENGTH are the sums over its partitions (InnoDB's figure for the
// whole table is not); a partition InnoDB says is empty has unknown rows
// unless its table was counted empty.
package mysql
