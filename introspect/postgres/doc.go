// Package postgres owns reading the schema of a PostgreSQL database into the
// engine-neutral model of package introspect: which relations count as
// tables, how declared types (including arrays and domains) map to
// introspect.Kind and their fractional-second precision, enum values,
// comments, primary keys, unique keys, foreign keys, indexes, check
// constraints, partitions, row counts and sizes.
//
// The Inspector reads only the system catalogs (pg_class, pg_attribute,
// pg_type, pg_constraint, ...) over a connection the caller opened and owns;
// it never writes and never changes session state, so it may run on a
// connection that is inside a transaction (for example one that exported or
// imported a snapshot). Every query binds its values as parameters; the one
// statement it builds, a count(*) (see Rows), names its table as a quoted
// identifier.
//
// What is listed:
//
//   - ordinary tables and partitioned parent tables (relkind 'r' and 'p') of
//     every schema except information_schema and the schemas whose names
//     start with "pg_" (pg_catalog, pg_toast*, and the pg_temp_* schemas of
//     other sessions' temporary tables; PostgreSQL reserves the "pg_" prefix,
//     so no user schema is left out);
//   - partitions are not listed as tables: their partitioned parent stands
//     for them and lists them in Partitioning (strategy and key from
//     pg_get_partkeydef, each partition's bound from pg_get_expr(relpartbound)
//     in the session's TimeZone, by name, partitions of partitions under
//     theirs). A foreign key declared on the parent is the parent's; one
//     that every leaf partition has (declared on each, not on the parent) is
//     reported for the parent too, named after the first such constraint by
//     name; one that only some partitions have does not hold for the table
//     and is reported apart, in PartitionForeignKeys, with the partitions
//     that declare it and those that do not (Pagila's payment). Indexes and
//     checks are the parent's own (a partitioned index; a CHECK on the
//     parent);
//   - views and materialized views (relkind 'v' and 'm') are listed with
//     Table.View set: they have no primary key, PostgreSQL reports every
//     view column as nullable, and their rows are never counted;
//   - foreign tables and sequences are not listed, nor the tables and views
//     an extension created and owns (pg_depend deptype 'e': PostGIS's
//     spatial_ref_sys, geometry_columns and geography_columns), which are
//     the extension's, not the application's data.
//
// Columns: Type is format_type(atttypid, atttypmod); a domain takes its base
// type's Kind, an array is KindArray with its element's kind in Elem (and,
// for an array of a time kind, the element's precision in Precision, and
// when the element type's delimiter (pg_type.typdelim) is not a comma, that
// delimiter in Delim: box[] prints its elements separated by ';'). PostGIS's
// geometry and geography are KindGeometry in whatever schema PostGIS lives
// (untested here: the test servers have no PostGIS).
// Precision of time, timetz, timestamp and timestamptz is the declared
// one, 6 when none is. A column is not Nullable when it is NOT NULL or its
// domain (or a domain under it) is, as information_schema.columns reports.
// The type mapping is in types.go.
//
// Enum values: a column of an enum type, of a domain over one, or an array
// of one, has the enum's labels in Values, in their sort order.
//
// Keys and indexes: Indexes are every index of the table (pg_index) by
// name, with key parts in order (a plain column, or the expression as
// pg_get_indexdef prints it), DESC from indoption, INCLUDE columns, the
// access method and a partial index's predicate. UniqueKeys are the unique
// indexes that are valid, not the primary key's, without a predicate and
// on plain columns only, named after their UNIQUE constraint when they have
// one. Checks are the CHECK constraints with pg_get_expr's text. Comments
// are obj_description and col_description.
//
// Rows (see introspect.Size), per table or leaf partition: a heap with no
// pages holds exactly 0 rows; statistics of a VACUUM or ANALYZE that saw
// rows (reltuples > 0 and relpages > 0) give an estimate scaled to the
// heap's size now, as the planner does; otherwise (never analysed, or
// analysed while empty) the table is counted with count(*) when the session
// may read it (SELECT privilege, no row-level security) and the count limit
// allows (Inspector.CountLimit, introspect.DefaultCountLimit by default: the
// smallest such heaps first, while they add up to at most the limit), and
// its rows are unknown when not. A foreign table's rows are
// unknown. A partitioned table sums its partitions. DataBytes is
// pg_table_size, IndexBytes pg_indexes_size.
//
// Tables come in order of schema then name, columns in attribute order
// (dropped columns are skipped), primary key columns in key order, foreign
// keys by constraint name with their columns paired in constraint order.
// Names compare bytewise (the "name" type sorts with the C collation).
//
// QueryColumns (query.go) describes the result of a SELECT statement
// without running it: PostgreSQL prepares it and reports each result
// column's type and modifier, resolved as a table column's is. An aggregate
// loses the modifier (max over a timestamp(3) is a timestamp, precision 6),
// and every result column is nullable: PostgreSQL does not say otherwise.
//
// Requires PostgreSQL 12 or later (pg_partition_tree).
package postgres
