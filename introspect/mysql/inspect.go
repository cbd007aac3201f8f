package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

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
	q Querier
}

var _ introspect.Inspector = (*Inspector)(nil)

// New returns an Inspector that reads through q, normally the *sql.DB of a
// go-sql-driver/mysql DSN that names a database. The caller owns q: the
// Inspector never closes it and changes no session state. With a pool the
// database name is read once and then bound into every query, so it does
// not matter which pooled connection serves which query.
func New(q Querier) *Inspector {
	return &Inspector{q: q}
}

// tableTypes are the TABLE_TYPEs listed; 'SYSTEM VERSIONED' is MariaDB's.
var tableTypes = []any{"BASE TABLE", "SYSTEM VERSIONED"}

const tablesQuery = `
SELECT TABLE_NAME, TABLE_ROWS
  FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN (?, ?)`

const columnsQuery = `
SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, DATETIME_PRECISION,
       CHARACTER_SET_NAME
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = ?
 ORDER BY TABLE_NAME, ORDINAL_POSITION`

const primaryKeysQuery = `
SELECT k.TABLE_NAME, k.COLUMN_NAME
  FROM information_schema.TABLE_CONSTRAINTS AS c
  JOIN information_schema.KEY_COLUMN_USAGE AS k
    ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA
   AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME
   AND k.TABLE_SCHEMA = c.TABLE_SCHEMA
   AND k.TABLE_NAME = c.TABLE_NAME
 WHERE c.TABLE_SCHEMA = ? AND c.CONSTRAINT_TYPE = ?
 ORDER BY k.TABLE_NAME, k.ORDINAL_POSITION`

const foreignKeysQuery = `
SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME,
       k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME
  FROM information_schema.REFERENTIAL_CONSTRAINTS AS r
  JOIN information_schema.KEY_COLUMN_USAGE AS k
    ON k.CONSTRAINT_SCHEMA = r.CONSTRAINT_SCHEMA
   AND k.CONSTRAINT_NAME = r.CONSTRAINT_NAME
   AND k.TABLE_NAME = r.TABLE_NAME
 WHERE r.CONSTRAINT_SCHEMA = ?
 ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`

// checkColumnsQuery lists the columns information_schema.CHECK_CONSTRAINTS
// has on this server, if it has the table at all.
const checkColumnsQuery = `
SELECT COLUMN_NAME
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`

// mariaDBChecksQuery is for servers whose CHECK_CONSTRAINTS names the table
// (MariaDB 10.2.22+). MariaDB scopes constraint names to a table, and a
// column-level constraint is named after its column.
const mariaDBChecksQuery = `
SELECT TABLE_NAME, CHECK_CLAUSE
  FROM information_schema.CHECK_CONSTRAINTS
 WHERE CONSTRAINT_SCHEMA = ?`

// mySQLChecksQuery is for MySQL 8.0.16+, whose CHECK_CONSTRAINTS lacks the
// table name; check constraint names are unique in a MySQL database.
const mySQLChecksQuery = `
SELECT c.TABLE_NAME, k.CHECK_CLAUSE
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

// Inspect reads every table of the selected database (see the package
// comment for which) with its columns, keys and row estimate.
func (i *Inspector) Inspect(ctx context.Context) (*introspect.Schema, error) {
	db, err := i.database(ctx)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading the current database: %w", err)
	}
	s := &introspect.Schema{Engine: introspect.MySQL, Database: db, Tables: []*introspect.Table{}}
	byName, err := i.tables(ctx, s)
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
	jsonCols, err := i.jsonColumns(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading check constraints: %w", err)
	}
	for _, c := range cols {
		if isText(c.dataType) && jsonCols[c.table.Name][c.col.Name] {
			c.col.Kind = introspect.KindJSON
		}
	}
	if err := i.primaryKeys(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading primary keys: %w", err)
	}
	if err := i.foreignKeys(ctx, db, byName); err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading foreign keys: %w", err)
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

func (i *Inspector) tables(ctx context.Context, s *introspect.Schema) (map[string]*introspect.Table, error) {
	rows, err := i.q.QueryContext(ctx, tablesQuery, append([]any{s.Database}, tableTypes...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := map[string]*introspect.Table{}
	for rows.Next() {
		var (
			name string
			est  sql.NullInt64
		)
		if err := rows.Scan(&name, &est); err != nil {
			return nil, err
		}
		t := &introspect.Table{Schema: s.Database, Name: name, Columns: []*introspect.Column{}, RowEstimate: max(est.Int64, 0)}
		s.Tables = append(s.Tables, t)
		byName[name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Bytewise, like PostgreSQL's "name" ordering, rather than the
	// information_schema collation, which differs between servers.
	sort.Slice(s.Tables, func(a, b int) bool { return s.Tables[a].Name < s.Tables[b].Name })
	return byName, nil
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
		)
		if err := rows.Scan(&table, &name, &dataType, &columnType, &nullable, &precision, &charset); err != nil {
			return nil, err
		}
		t := byName[table]
		if t == nil {
			continue // a view's columns
		}
		c := &introspect.Column{
			Name:     name,
			Type:     columnType,
			Kind:     kindOf(dataType, columnType),
			Nullable: nullable == "YES",
			Charset:  nonUTF8(charset.String),
		}
		if c.Kind.HasFraction() {
			c.Precision = int(max(precision.Int64, 0))
		}
		t.Columns = append(t.Columns, c)
		cols = append(cols, column{table: t, col: c, dataType: dataType})
	}
	return cols, rows.Err()
}

// jsonColumns returns, per table, the columns a CHECK constraint requires to
// hold valid JSON. A server without information_schema.CHECK_CONSTRAINTS
// has none.
func (i *Inspector) jsonColumns(ctx context.Context, db string) (map[string]map[string]bool, error) {
	has, err := i.checkConstraintColumns(ctx)
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
	out := map[string]map[string]bool{}
	for rows.Next() {
		var table, clause string
		if err := rows.Scan(&table, &clause); err != nil {
			return nil, err
		}
		for _, col := range jsonValidColumns(clause) {
			if out[table] == nil {
				out[table] = map[string]bool{}
			}
			out[table][col] = true
		}
	}
	return out, rows.Err()
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

func (i *Inspector) checkConstraintColumns(ctx context.Context) (map[string]bool, error) {
	rows, err := i.q.QueryContext(ctx, checkColumnsQuery, "information_schema", "CHECK_CONSTRAINTS")
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
	rows, err := i.q.QueryContext(ctx, primaryKeysQuery, db, "PRIMARY KEY")
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
