// Package postgres owns reading the schema of a PostgreSQL database into the
// engine-neutral model of package introspect: which relations count as
// tables, how declared types (including arrays and domains) map to
// introspect.Kind and their fractional-second precision, primary keys,
// foreign keys and row estimates.
//
// The Inspector reads only the system catalogs (pg_class, pg_attribute,
// pg_type, pg_constraint, ...) over a connection the caller opened and owns;
// it never writes and never changes session state, so it may run on a
// connection that is inside a transaction (for example one that exported or
// imported a snapshot). Every query binds its values as parameters.
//
// What is listed:
//
//   - ordinary tables and partitioned parent tables (relkind 'r' and 'p') of
//     every schema except information_schema and the schemas whose names
//     start with "pg_" (pg_catalog, pg_toast*, and the pg_temp_* schemas of
//     other sessions' temporary tables; PostgreSQL reserves the "pg_" prefix,
//     so no user schema is left out);
//   - partitions are not listed: their partitioned parent stands for them.
//     Its RowEstimate is the sum over its leaf partitions, and a foreign key
//     that every leaf partition has (declared on each, not on the parent) is
//     reported for the parent, named after the first such constraint by
//     name; one that only some partitions have is not reported, as it does
//     not hold for the table (Pagila's payment is such a case);
//   - views, materialized views, foreign tables and sequences are not listed.
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
// Tables come in order of schema then name, columns in attribute order
// (dropped columns are skipped), primary key columns in key order, foreign
// keys by constraint name with their columns paired in constraint order.
// Names compare bytewise (the "name" type sorts with the C collation).
//
// Requires PostgreSQL 12 or later (pg_partition_tree).
package postgres
