package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// Querier is what the Inspector reads through. *sql.DB, *sql.Conn and
// *sql.Tx all satisfy it; use a *sql.Conn or *sql.Tx to read over the same
// session as other work (a consistent-snapshot transaction, for example).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Inspector reads the schema of the database a MySQL or MariaDB connection
// has selected. It implements introspect.Inspector.
type Inspector struct {
	q          Querier
	countLimit int64
}

var _ introspect.Inspector = (*Inspector)(nil)

// New returns an Inspector that reads through q, normally the *sql.DB of a
// go-sql-driver/mysql DSN that names a database. The caller owns q: the
// Inspector never closes it and changes no session state. With a pool the
// database name is read once and then bound into every query, so it does
// not matter which pooled connection serves which query.
func New(q Querier) *Inspector {
	return &Inspector{q: q, countLimit: introspect.DefaultCountLimit}
}

// CountLimit sets how many bytes of table data Inspect may read, in all, to
// count the rows of tables whose statistics say nothing
// (introspect.DefaultCountLimit unless set; 0 counts none). It returns i.
func (i *Inspector) CountLimit(bytes int64) *Inspector {
	i.countLimit = bytes
	return i
}

// tableTypes are the TABLE_TYPEs listed; 'SYSTEM VERSIONED' is MariaDB's.
// The last one is a view's.
var tableTypes = []any{"BASE TABLE", "SYSTEM VERSIONED", "VIEW"}

const tablesQuery = `
SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, ENGINE, TABLE_COMMENT, TABLE_TYPE
  FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN (?, ?, ?)`

const columnsQuery = `
SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, DATETIME_PRECISION,
       CHARACTER_SET_NAME, COLUMN_COMMENT
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = ?
 ORDER BY TABLE_NAME, ORDINAL_POSITION`

// primaryKeysQuery and foreignKeysQuery read KEY_COLUMN_USAGE alone: MariaDB
// shows a user with only SELECT on the tables no rows of TABLE_CONSTRAINTS
// and REFERENTIAL_CONSTRAINTS (root sees them), while KEY_COLUMN_USAGE lists
// the same keys to both. A primary key's constraint is always named
// PRIMARY (no other index may take the name); a foreign key's columns are
// those with a REFERENCED_TABLE_NAME.
const primaryKeysQuery = `
SELECT TABLE_NAME, COLUMN_NAME
  FROM information_schema.KEY_COLUMN_USAGE
 WHERE TABLE_SCHEMA = ? AND CONSTRAINT_NAME = 'PRIMARY'
 ORDER BY TABLE_NAME, ORDINAL_POSITION`

const foreignKeysQuery = `
SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME,
       REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
  FROM information_schema.KEY_COLUMN_USAGE
 WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL
 ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`

// checkColumnsQuery lists the columns an information_schema table
// (CHECK_CONSTRAINTS, STATISTICS) has on this server, if it has the table at
// all.
const checkColumnsQuery = `
SELECT COLUMN_NAME
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`

// mariaDBChecksQuery is for servers whose CHECK_CONSTRAINTS names the table
// (MariaDB 10.2.22+). MariaDB scopes constraint names to a table, and a
// column-level constraint is named after its column.
const mariaDBChecksQuery = `
SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE
  FROM information_schema.CHECK_CONSTRAINTS
 WHERE CONSTRAINT_SCHEMA = ?`

// mySQLChecksQuery is for MySQL 8.0.16+, whose CHECK_CONSTRAINTS lacks the
// table name; check constraint names are unique in a MySQL database.
const mySQLChecksQuery = `
SELECT c.TABLE_NAME, k.CONSTRAINT_NAME, k.CHECK_CLAUSE
  FROM information_schema.TABLE_CONSTRAINTS AS c
  JOIN information_schema.CHECK_CONSTRAINTS AS k
    ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA
   AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME
 WHERE c.TABLE_SCHEMA = ? AND c.CONSTRAINT_TYPE = ?`

// errNoDatabase is returned when the connection has no database selected.
var errNoDatabase = errors.New("no database selected: name one in the DSN")

// column is a COLUMNS row whose kind may still change (MariaDB JSON).
type column struct {
	table    *introspect.Table
	col      *introspect.Column
	dataType string
}

// Inspect reads every table and view of the selected database (see the
// package comment for which) with its columns, keys and row estimate.
func (i *Inspector) Inspect(ctx context.Context) (*introspect.Schema, error) {
	db, err := i.database(ctx)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading the current database: %w", err)
	}
	s := &introspect.Schema{Engine: introspect.MySQL, Database: db, Tables: []*introspect.Table{}}
	byName, countable, err := i.tables(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading tables: %w", err)
	}
	if len(s.Tables) == 0 {
		return s, nil
	}
	cols, err := i.columns(ctx, db, byName)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading columns: %w", err)
	}
	checks, err := i.checks(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading check constraints: %w", err)
	}
	jsonCols := jsonColumns(checks)
	for _, c := range cols {
		if isText(c.dataType) && jsonCols[c.table.Name][c.col.Name] {
			c.col.Kind = introspect.KindJSON
		}
	}
	addChecks(checks, byName)
	if err := i.primaryKeys(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading primary keys: %w", err)
	}
	if err := i.foreignKeys(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading foreign keys: %w", err)
	}
	if err := i.indexes(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading indexes: %w", err)
	}
	if err := i.partitions(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading partitions: %w", err)
	}
	if err := i.count(ctx, db, s.Tables, countable); err != nil {
		return nil, fmt.Errorf("introspect/mysql: counting rows: %w", err)
	}
	if err := i.distincts(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading column statistics: %w", err)
	}
	return s, nil
}

func (i *Inspector) database(ctx context.Context) (string, error) {
	rows, err := i.q.QueryContext(ctx, "SELECT DATABASE()")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var db sql.NullString
	if rows.Next() {
		if err := rows.Scan(&db); err != nil {
			return "", err
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if !db.Valid || db.String == "" {
		return "", errNoDatabase
	}
	return db.String, nil
}

// tables lists the tables into s and returns them by name, and the set of
// those that have a storage engine (which COUNT(*) may read).
func (i *Inspector) tables(ctx context.Context, s *introspect.Schema) (map[string]*introspect.Table, map[*introspect.Table]bool, error) {
	rows, err := i.q.QueryContext(ctx, tablesQuery, append([]any{s.Database}, tableTypes...)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	byName := map[string]*introspect.Table{}
	counts := map[*introspect.Table]bool{}
	for rows.Next() {
		var (
			name, comment, typ string
			est, data, idx     sql.NullInt64
			engine             sql.NullString
		)
		if err := rows.Scan(&name, &est, &data, &idx, &engine, &comment, &typ); err != nil {
			return nil, nil, err
		}
		t := &introspect.Table{Schema: s.Database, Name: name, Comment: comment, Columns: []*introspect.Column{}, View: typ == "VIEW"}
		if !t.View { // a view's rows are never counted: unknown
			t.Size = rowsFromStats(est, engine.String)
			if engine.Valid {
				counts[t] = true
			}
			t.DataBytes, t.IndexBytes = max(data.Int64, 0), max(idx.Int64, 0)
		}
		s.Tables = append(s.Tables, t)
		byName[name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	// Bytewise, like PostgreSQL's "name" ordering, rather than the
	// information_schema collation, which differs between servers.
	sort.Slice(s.Tables, func(a, b int) bool { return s.Tables[a].Name < s.Tables[b].Name })
	return byName, counts, nil
}

func (i *Inspector) columns(ctx context.Context, db string, byName map[string]*introspect.Table) ([]column, error) {
	rows, err := i.q.QueryContext(ctx, columnsQuery, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var (
			table, name, dataType, columnType, nullable string
			precision                                   sql.NullInt64
			charset                                     sql.NullString
			comment                                     string
		)
		if err := rows.Scan(&table, &name, &dataType, &columnType, &nullable, &precision, &charset, &comment); err != nil {
			return nil, err
		}
		t := byName[table]
		if t == nil {
			continue // a table created since the tables were listed
		}
		c := &introspect.Column{
			Name:     name,
			Type:     columnType,
			Kind:     kindOf(dataType, columnType),
			Nullable: nullable == "YES",
			Charset:  nonUTF8(charset.String),
			Comment:  comment,
		}
		if dt := strings.ToLower(dataType); dt == "enum" || dt == "set" {
			values, err := members(columnType)
			if err != nil {
				return nil, fmt.Errorf("column %s of %s: %w", name, table, err)
			}
			c.Values = values
		}
		if c.Kind.HasFraction() {
			c.Precision = int(max(precision.Int64, 0))
		}
		t.Columns = append(t.Columns, c)
		cols = append(cols, column{table: t, col: c, dataType: dataType})
	}
	return cols, rows.Err()
}

// check is a CHECK constraint of a table.
type check struct {
	table, name, clause string
}

// checks returns the CHECK constraints of database db. A server without
// information_schema.CHECK_CONSTRAINTS has none.
func (i *Inspector) checks(ctx context.Context, db string) ([]check, error) {
	has, err := i.tableColumns(ctx, "CHECK_CONSTRAINTS")
	if err != nil {
		return nil, err
	}
	query, args := checksQuery(has, db)
	if query == "" {
		return nil, nil
	}
	rows, err := i.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []check
	for rows.Next() {
		var c check
		if err := rows.Scan(&c.table, &c.name, &c.clause); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// jsonColumns returns, per table, the columns a CHECK constraint requires to
// hold valid JSON.
func jsonColumns(checks []check) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, c := range checks {
		for _, col := range jsonValidColumns(c.clause) {
			if out[c.table] == nil {
				out[c.table] = map[string]bool{}
			}
			out[c.table][col] = true
		}
	}
	return out
}

// addChecks gives the tables their CHECK constraints, by name, leaving out
// the one MariaDB adds for a column declared JSON: named after the column,
// exactly json_valid(`column`), on a column that is KindJSON (the column's
// kind says it already).
func addChecks(checks []check, byName map[string]*introspect.Table) {
	for _, c := range checks {
		t := byName[c.table]
		if t == nil {
			continue
		}
		if col, ok := jsonValidArg(c.clause); ok && col == c.name {
			if tc := t.Column(col); tc != nil && tc.Kind == introspect.KindJSON {
				continue
			}
		}
		t.Checks = append(t.Checks, introspect.Check{Name: c.name, Expression: c.clause})
	}
	for _, t := range byName {
		sort.SliceStable(t.Checks, func(a, b int) bool { return t.Checks[a].Name < t.Checks[b].Name })
	}
}

// checksQuery picks the query that lists the CHECK clauses of database db
// with their table, given the columns the server's
// information_schema.CHECK_CONSTRAINTS has (none: the server has no such
// table, and query is "").
func checksQuery(has map[string]bool, db string) (query string, args []any) {
	switch {
	case has["TABLE_NAME"] && has["CHECK_CLAUSE"]:
		return mariaDBChecksQuery, []any{db}
	case has["CONSTRAINT_SCHEMA"] && has["CONSTRAINT_NAME"] && has["CHECK_CLAUSE"]:
		return mySQLChecksQuery, []any{db, "CHECK"}
	}
	return "", nil
}

// tableColumns returns the columns information_schema.table has on this
// server (none when it has no such table).
func (i *Inspector) tableColumns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := i.q.QueryContext(ctx, checkColumnsQuery, "information_schema", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	has := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		has[name] = true
	}
	return has, rows.Err()
}

func (i *Inspector) primaryKeys(ctx context.Context, db string, byName map[string]*introspect.Table) error {
	rows, err := i.q.QueryContext(ctx, primaryKeysQuery, db)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			return err
		}
		if t := byName[table]; t != nil {
			t.PrimaryKey = append(t.PrimaryKey, col)
		}
	}
	return rows.Err()
}

func (i *Inspector) foreignKeys(ctx context.Context, db string, byName map[string]*introspect.Table) error {
	rows, err := i.q.QueryContext(ctx, foreignKeysQuery, db)
	if err != nil {
		return err
	}
	defer rows.Close()
	type key struct{ table, name string }
	index := map[key]int{} // position in the table's ForeignKeys
	for rows.Next() {
		var table, name, col, refSchema, refTable, refCol string
		if err := rows.Scan(&table, &name, &col, &refSchema, &refTable, &refCol); err != nil {
			return err
		}
		t := byName[table]
		if t == nil {
			continue
		}
		k := key{table, name}
		n, ok := index[k]
		if !ok {
			n = len(t.ForeignKeys)
			index[k] = n
			t.ForeignKeys = append(t.ForeignKeys, introspect.ForeignKey{Name: name, RefSchema: refSchema, RefTable: refTable})
		}
		fk := &t.ForeignKeys[n]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, refCol)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range byName {
		sort.SliceStable(t.ForeignKeys, func(a, b int) bool { return t.ForeignKeys[a].Name < t.ForeignKeys[b].Name })
	}
	return nil
}
