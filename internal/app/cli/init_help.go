package cli

// initLong is init's --help text.
const initLong = `init reads the source's ERD and writes a starting mapping file, explained in
YAML comments, for you to read and change; the same ERD always gives the same
file. The design it writes:

  - every table is an entity keyed by its primary key, PK = SK = NAME#{key},
    an item collection of its own; a table without a primary key is keyed by
    a unique key of NOT NULL columns (key:), or left out with a comment
    saying why, as views are; a partitioned table is mapped as its parent;
  - a table no other table refers to, with a NOT NULL foreign key to the
    whole key of a parent, is placed in the parent's item collection
    (PK = PARENT#{fk}, SK = NAME#{key});
  - a join table (its primary key is two such foreign keys) becomes
    adjacency items (PK = A#{a}, SK = B#{b}), read from the other side
    through the inverted index GSI1 (pk SK, sk PK);
  - every other foreign key and every unique key gets a path through an
    overloaded global index (GSI2, GSI3, ...: attributes GSInPK, GSInSK),
    except a foreign key whose column has at most 10 values with 100 rows
    each or more (a hot index partition): init counts the distinct values
    itself (every row of a table of at most 1000000 rows, the first 1000000
    of a larger one), so the design does not depend on whether the source
    was analysed, and the comments say which figures it counted and how;
  - access patterns with their SQL: each entity by its key, a parent with
    its item collection, the children by parent on both sides of each
    relationship, and each unique key's lookup.

The mapping validates, migrates and verifies as written; the keys follow
the foreign keys, not your application's queries, so change it to fit them.
Where the source keeps statement statistics (PostgreSQL pg_stat_statements,
MySQL/MariaDB performance_schema), a comment lists the SELECT statements run
most often, each with the access pattern that answers it, or a pattern derived
from it, or why there is none. A pattern is derived from a SELECT of one table
with equality conditions joined by AND (and at most one range on, or an ORDER
BY of, a date, timestamp or number column) that no pattern answers: a Query of
its entity's next overloaded index (pk the equality columns, sk the range or
order column), or of an index NUMn of its own with a number sort key, with the
statement's SQL, at the end of access_patterns.

--from FILE starts instead from a design made elsewhere: the DynamoDB MCP
server's schema.json (what export --output dynamodb-mcp writes, and AWS's
modeler) or the migrationContract.json of AWS's database-modernization
workshop. Its entities, key templates, indexes and access patterns (Query and
GetItem) become the mapping's, matched to the source's tables and columns;
a file with several tables is mapped one table at a time (--name TABLE).
Every construct of the file with no remodel equivalent (a range condition's
free parameters, a chain join, a calculation, a date format, ...) is named in
the file's comments and on stderr, and the mapping is validated against the
source as validate --source does: its problems are appended to the file as
comments and printed, and the exit status is then 1 (docs/exports.md).

--include PATTERN keeps only the tables that match (repeat it for several),
--exclude PATTERN leaves tables out, as for introspect (--table PATTERN, the
spelling before --include, works for one release, with a warning). The file goes to
stdout, or to --output-file FILE, which must not exist unless --force is
given.`

// initExamples are the examples init's --help shows.
const initExamples = `  remodel init --source $DSN --output-file mapping.yaml
  remodel init --source $DSN --exclude 'tmp_*' --name shop --output-file mapping.yaml --force
  remodel init --source $DSN --include 'order*' --include customer > mapping.yaml
  remodel init --source $DSN --from schema.json --output-file mapping.yaml
  remodel init --source $DSN --from migrationContract.json --name Users -o mapping.yaml`
