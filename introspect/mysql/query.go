package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// QueryColumns describes the result columns of the SELECT statement q from
// the metadata the server sends with its result, read as a derived table
// with LIMIT 0 (SELECT * FROM (q) AS q LIMIT 0, which MySQL documents as
// a way to learn a query's column types: it returns no rows). Each column gets a Type built from the
// metadata, the Kind that Type has in a table, and the NOT NULL flag the
// server reports.
//
// The metadata is less than a table's definition: a tinyint(1) arrives as
// tinyint and is an integer, not a boolean; MariaDB's JSON (a longtext
// with a json_valid check) arrives as a text type and is text; text arrives in
// the connection's character set, as the server converts it (Charset is
// empty). A view keeps the width and the character set (its columns are
// read from information_schema.COLUMNS); MariaDB's JSON is text there too.
//
// A statement the server refuses returns its *mysql.MySQLError.
func (i *Inspector) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	rows, err := i.q.QueryContext(ctx, "SELECT * FROM "+introspect.DerivedTable(q)+" LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, fmt.Errorf("introspect/mysql: reading the query's column types: %w", err)
	}
	for rows.Next() { // LIMIT 0: none
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*introspect.Column, len(types))
	for n, ct := range types {
		out[n] = resultColumn(ct)
	}
	return out, nil
}

// resultColumn is the column a result's metadata describes.
func resultColumn(ct *sql.ColumnType) *introspect.Column {
	name := strings.ToUpper(ct.DatabaseTypeName())
	unsigned := strings.HasPrefix(name, "UNSIGNED ")
	dataType := strings.ToLower(strings.TrimPrefix(name, "UNSIGNED "))
	prec, scale, hasSize := ct.DecimalSize()
	nullable, ok := ct.Nullable()
	return metadataColumn(ct.Name(), dataType, unsigned, prec, scale, hasSize, nullable || !ok)
}

// metadataColumn builds a column from a result column's metadata: the
// driver's type name (lower case, without "unsigned"), whether it is
// unsigned, its precision and scale (decimals; for time types, scale is the
// fractional-second digits) and nullability.
func metadataColumn(name, dataType string, unsigned bool, prec, scale int64, hasSize, nullable bool) *introspect.Column {
	columnType := dataType
	precision := 0
	switch dataType {
	case "":
		dataType, columnType = "unknown", "unknown"
	case "decimal":
		if hasSize {
			columnType = fmt.Sprintf("decimal(%d,%d)", prec, scale)
		}
	case "datetime", "timestamp", "time":
		if hasSize && scale > 0 {
			precision = int(min(scale, 6))
			columnType = fmt.Sprintf("%s(%d)", dataType, precision)
		}
	}
	if unsigned {
		columnType += " unsigned"
	}
	c := &introspect.Column{Name: name, Type: columnType, Kind: kindOf(dataType, columnType), Nullable: nullable}
	if c.Kind.HasFraction() {
		c.Precision = precision
	}
	return c
}
