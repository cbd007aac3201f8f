// Package initmap owns remodel init: writing a starting mapping file from a
// source's ERD (an introspect.Schema), deterministic (the same ERD gives the
// same bytes) and explained in YAML comments.
//
// The design it writes, for a table of the ERD:
//
//   - every table is an entity keyed by its primary key (a table without one
//     by a unique key whose columns are NOT NULL, named with key:; without
//     such a key, and every view, it is left out with a comment saying why);
//     a partitioned table is mapped once, as its parent, with the foreign
//     keys only some of its partitions declare when CheckPartitionKeys read
//     the other partitions' rows and every one keeps them;
//   - a root entity's item is PK = SK = NAME#{key} in an item collection of
//     its own;
//   - a leaf table (no other table refers to it) with a NOT NULL foreign key
//     to the whole key of a root is placed in that root's item collection:
//     PK = PARENT#{fk}, SK = NAME#{key}; so is a table other tables refer
//     to when every one of them is placed in that same collection;
//   - a placed child with a NOT NULL foreign key to a sibling placed in
//     the same collection and read by its own key through GSI1 keeps its
//     GSI1 entry in the sibling's GSI1 partition (the sibling with its
//     children: no index for that key), and is read by its key within its
//     parent's collection;
//   - a join table (its primary key is exactly two such foreign keys) is
//     written as adjacency items, PK = A#{a}, SK = B#{b};
//   - GSI1 (pk GSI1PK, sk GSI1SK) is sparse on purpose: only the adjacency
//     items (GSI1PK = B#{b}: the other side) and the placed items whose
//     table key does not hold their whole key (GSI1PK = NAME#{key}: read
//     by their key) write its attributes; no other item is in it;
//   - GSI1 projects all attributes (its patterns read whole rows) unless
//     it holds only join tables' adjacency items, whose key columns its
//     keys hold: then the keys only (KEYS_ONLY) or the keys and the join
//     tables' other columns (INCLUDE); the other indexes project ALL;
//   - every other foreign key, and every unique key, gets an overloaded
//     global index of its own slot (GSI2, GSI3, ...: attributes GSInPK and
//     GSInSK, set from templates), for the children by parent and for the
//     lookup by the unique key, except a foreign key of one column whose
//     statistics (introspect.Column.Distinct, next to the table's rows)
//     say it has at most FewValues values with RowsPerValue rows each or
//     more (a hot index partition, a Query reading a large share of the
//     table), and a unique key of a placed, time-sorted child that holds
//     its parent's foreign key and its time (a Query of the collection with
//     begins_with answers it); the comments give the figures;
//   - a non-unique index of the source on columns no foreign key holds
//     (film by title) is a hint: a pattern is derived from it as from a
//     statement (below), with the same rules and figures; a partial index
//     gives a sparse path (its predicate as when:), and so do the open
//     rows of a placed table, a nullable date or timestamp NULL in at most
//     OpenShare of its rows (rental's return_date), and its current rows,
//     a date or timestamp whose one far-future value (FarYear) at most
//     OpenShare of its rows hold (employees' to_date = '9999-01-01'):
//     indexHints, openRows;
//   - the sparse-index warnings validate gives on the design (nullable
//     foreign keys) are listed under acknowledge:, each with its reason,
//     so that validate --strict passes;
//   - an access pattern, with its SQL, for each path: an entity by its key,
//     a parent with its children (one Query for the item collection), the
//     children by parent (both sides of an N:M), and the lookup by each
//     unique key.
//
// Statement statistics: ReadStatistics reads the SELECT statements the
// source ran most often (PostgreSQL pg_stat_statements, MySQL/MariaDB
// performance_schema digests), in one short transaction of one connection
// (package source); Generate lists them in a comment, each with the access
// pattern that answers it (same table, same columns compared to a
// parameter, same range and order), or one it derives from it, or why there
// is none. A pattern is derived from a SELECT of one table whose condition
// is equalities joined by AND, with at most one range and an ORDER BY of one
// date, time, timestamp or number column (parseStatement reads
// pg_stat_statements' $n and MySQL's digests): the entity gets its next
// overloaded index slot (pk the equality columns, sk the date or time
// column, else its own key) or, for a number, an index NUMn of its own with
// a number (N) sort key, and the pattern, commented with the statement and
// its calls, queries it.
//
// From (init --from FILE) starts instead from a design made elsewhere: the
// DynamoDB MCP server's schema.json (from_mcp.go; remodel's own export adds
// remodel.source, where each entity's rows come from, which the format has
// no place for; without it tables and columns are matched by name) or the
// migrationContract.json of AWS's database-modernization workshop
// (from_contract.go: foreign-key and lookup-table joins become the entity's
// query). Both are read into one model that is written as a mapping; every
// construct without a remodel equivalent is a note, written as a comment
// and returned for stderr.
// Everything else here works on the schema (and the statistics) alone: the
// caller introspects, filters the tables and passes them.
package initmap
