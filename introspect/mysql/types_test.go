package mysql

import (
	"reflect"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		dataType, columnType string
		want                 introspect.Kind
	}{
		{"tinyint", "tinyint(1)", introspect.KindBool},
		{"TINYINT", "TINYINT(1)", introspect.KindBool},
		{"tinyint", "tinyint", introspect.KindInt},    // MySQL 8.0.19+: declared TINYINT or TINYINT(4)
		{"tinyint", "tinyint(4)", introspect.KindInt}, // MariaDB, MySQL 5.7
		{"tinyint", "tinyint(1) unsigned", introspect.KindInt},
		{"tinyint", "tinyint(1) unsigned zerofill", introspect.KindInt},
		{"smallint", "smallint(6)", introspect.KindInt},
		{"mediumint", "mediumint unsigned", introspect.KindInt},
		{"int", "int(11)", introspect.KindInt},
		{"bigint", "bigint(20) unsigned", introspect.KindInt},
		{"year", "year(4)", introspect.KindInt},
		{"bit", "bit(1)", introspect.KindInt},
		{"bit", "bit(64)", introspect.KindInt},
		{"decimal", "decimal(10,2)", introspect.KindDecimal},
		{"float", "float", introspect.KindFloat},
		{"double", "double", introspect.KindFloat},
		{"char", "char(3)", introspect.KindString},
		{"varchar", "varchar(64)", introspect.KindString},
		{"tinytext", "tinytext", introspect.KindString},
		{"text", "text", introspect.KindString},
		{"mediumtext", "mediumtext", introspect.KindString},
		{"longtext", "longtext", introspect.KindString},
		{"enum", "enum('a','b')", introspect.KindString},
		{"set", "set('a','b')", introspect.KindSet},
		{"binary", "binary(16)", introspect.KindBytes},
		{"varbinary", "varbinary(255)", introspect.KindBytes},
		{"tinyblob", "tinyblob", introspect.KindBytes},
		{"blob", "blob", introspect.KindBytes},
		{"mediumblob", "mediumblob", introspect.KindBytes},
		{"longblob", "longblob", introspect.KindBytes},
		{"date", "date", introspect.KindDate},
		{"time", "time(3)", introspect.KindTime},
		{"datetime", "datetime(6)", introspect.KindTimestamp},
		{"timestamp", "timestamp", introspect.KindTimestampTZ},
		{"json", "json", introspect.KindJSON},
		{"geometry", "geometry", introspect.KindGeometry},
		{"point", "point", introspect.KindGeometry},
		{"linestring", "linestring", introspect.KindGeometry},
		{"polygon", "polygon", introspect.KindGeometry},
		{"multipoint", "multipoint", introspect.KindGeometry},
		{"multilinestring", "multilinestring", introspect.KindGeometry},
		{"multipolygon", "multipolygon", introspect.KindGeometry},
		{"geometrycollection", "geometrycollection", introspect.KindGeometry}, // MariaDB
		{"geomcollection", "geomcollection", introspect.KindGeometry},         // MySQL 8
		{"uuid", "uuid", introspect.KindString},
		{"inet6", "inet6", introspect.KindString},
	} {
		if got := kindOf(tc.dataType, tc.columnType); got != tc.want {
			t.Errorf("kindOf(%q, %q) = %q, want %q", tc.dataType, tc.columnType, got, tc.want)
		}
	}
}

func TestNonUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "utf8mb4": "", "utf8mb3": "", "utf8": "", "UTF8MB4": "", "binary": "",
		"latin1": "latin1", "ascii": "ascii", "cp1251": "cp1251", "ucs2": "ucs2",
	} {
		if got := nonUTF8(in); got != want {
			t.Errorf("nonUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONValidColumns(t *testing.T) {
	for _, tc := range []struct {
		clause string
		want   []string
	}{
		{"json_valid(`j`)", []string{"j"}},
		{"JSON_VALID( `j` )", []string{"j"}},
		{"(json_valid(`j`))", []string{"j"}},
		{"json_valid(`odd``name`)", []string{"odd`name"}},
		{"json_valid(`my and col`)", []string{"my and col"}},
		{"json_valid(`u`) and `id` > 0", []string{"u"}},
		{"`id` > 0 AND (json_valid(`a`) && json_valid(`b`))", []string{"a", "b"}},
		{"(json_valid(`a`)) and ((json_valid(`b`)))", []string{"a", "b"}},
		{"`brand` = 'x and y' and json_valid(`c`)", []string{"c"}},
		// Not guaranteed valid JSON:
		{"json_valid(`u`) or `u` = ''", nil},
		{"json_valid(`u`) and `id` > 0 or `id` < 0", nil},
		{"json_valid(`u`) xor 1", nil},
		{"json_valid(`u`) || 1", nil},
		{"not json_valid(`u`)", nil},
		{"json_valid(concat(`u`,''))", nil},
		{"json_valid(`a`) + json_valid(`b`)", nil},
		{"json_valid(`a` + `b`)", nil},
		{"`id` > 0", nil},
		{"", nil},
		{"(json_valid(`a`)", nil},
	} {
		if got := jsonValidColumns(tc.clause); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("jsonValidColumns(%q) = %q, want %q", tc.clause, got, tc.want)
		}
	}
}

func FuzzJSONValidColumns(f *testing.F) {
	for _, s := range []string{"json_valid(`j`)", "json_valid(`u`) and `id` > 0", "(a or b) and 'x''y' && \"q\\\"\"", "((("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, clause string) {
		_ = jsonValidColumns(clause) // must not panic or loop
	})
}

func TestChecksQuery(t *testing.T) {
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	for _, tc := range []struct {
		name string
		has  map[string]bool
		want string
	}{
		{"MariaDB 10.5.10+", set("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "TABLE_NAME", "CONSTRAINT_NAME", "LEVEL", "CHECK_CLAUSE"), mariaDBChecksQuery},
		{"MariaDB 10.2.22", set("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "TABLE_NAME", "CONSTRAINT_NAME", "CHECK_CLAUSE"), mariaDBChecksQuery},
		{"MySQL 8.0.16+", set("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "CHECK_CLAUSE"), mySQLChecksQuery},
		{"no CHECK_CONSTRAINTS", set(), ""},
	} {
		got, args := checksQuery(tc.has, "db")
		if got != tc.want {
			t.Errorf("%s: checksQuery picked %q, want %q", tc.name, got, tc.want)
		}
		if got != "" && (len(args) == 0 || args[0] != "db") {
			t.Errorf("%s: args = %v, want the database first", tc.name, args)
		}
	}
}

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		columnType string
		want       []string
	}{
		{"enum('a','b')", []string{"a", "b"}},
		{"set('read','write')", []string{"read", "write"}},
		// How the server writes a quote, a backslash, a comma, a newline, a
		// tab (as itself), an empty member and a parenthesis.
		{`enum('it''s','b\\c','x,y','new\nline','tab` + "\t" + `x','','(p)')`, []string{"it's", `b\c`, "x,y", "new\nline", "tab\tx", "", "(p)"}},
		{`enum('\0\r\Z')`, []string{"\x00\r\x1a"}},
		{"ENUM('A')", []string{"A"}},
	} {
		got, err := members(tc.columnType)
		if err != nil {
			t.Errorf("members(%q): %v", tc.columnType, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("members(%q) = %q, want %q", tc.columnType, got, tc.want)
		}
	}
	for columnType, want := range map[string]string{
		"enum":          `no member list in type "enum"`,
		"enum(a)":       `type "enum(a)": member 1 does not start with a quote`,
		"enum('a)":      `type "enum('a)": member 1 is not closed`,
		"enum('a' 'b')": `type "enum('a' 'b')": unexpected ' ' after member 1`,
		"enum('a',)":    `type "enum('a',)": a comma ends the member list`,
		"set('a','b'x)": `type "set('a','b'x)": unexpected 'x' after member 2`,
	} {
		if _, err := members(columnType); err == nil || err.Error() != want {
			t.Errorf("members(%q) error = %v, want %q", columnType, err, want)
		}
	}
}
