package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestWarningsQuotedParams: a {name} inside a '…' string of an access
// pattern's sql or params is a literal, and warns at that SQL; one outside
// quotes, {{…}} and braces that are not a name (JSON, an array) do not.
func TestWarningsQuotedParams(t *testing.T) {
	tests := []struct {
		name, sql, params string
		engine            introspect.Engine
		want              []string
	}{
		{name: "quoted", sql: `SELECT * FROM items WHERE serial = '{serial}'`,
			want: []string{`m.yaml:12:10: warning: access_patterns.find.sql: {serial} is inside quotes: there it is the literal text {serial}, not a parameter; write it without the quotes (a parameter is bound with its value, no quoting needed) [quoted-parameter]`}},
		{name: "inside a longer string", sql: `SELECT * FROM items WHERE serial LIKE 'S-{ serial }%'`,
			want: []string{`m.yaml:12:10: warning: access_patterns.find.sql: {serial} is inside quotes: there it is the literal text {serial}, not a parameter; write it without the quotes (a parameter is bound with its value, no quoting needed) [quoted-parameter]`}},
		{name: "in params", sql: `SELECT * FROM items WHERE serial = {serial}`, params: `SELECT serial FROM items WHERE serial <> '{serial}'`,
			want: []string{`m.yaml:13:13: warning: access_patterns.find.params: {serial} is inside quotes: there it is the literal text {serial}, not a parameter; write it without the quotes (a parameter is bound with its value, no quoting needed) [quoted-parameter]`}},
		{name: "MySQL escapes", engine: introspect.MySQL, sql: `SELECT * FROM items WHERE serial = 'it\'s {serial}'`,
			want: []string{`m.yaml:12:10: warning: access_patterns.find.sql: {serial} is inside quotes: there it is the literal text {serial}, not a parameter; write it without the quotes (a parameter is bound with its value, no quoting needed) [quoted-parameter]`}},
		{name: "bound", sql: `SELECT * FROM items WHERE serial = {serial}`},
		{name: "escaped braces", sql: `SELECT * FROM items WHERE serial = {serial} AND note <> '{{serial}}'`},
		{name: "JSON and arrays", sql: `SELECT * FROM items WHERE serial = {serial} AND tags <> '{a,b}' AND doc <> '{"serial": 1}'`},
		{name: "identifier", sql: `SELECT "{serial}" FROM items WHERE serial = {serial}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := `version: 1
table:
  name: shop
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{serial}"
access_patterns:
  find:
    query: {pk: "ITEM#{serial}"}
    sql: ` + yamlQuote(tc.sql) + "\n"
			if tc.params != "" {
				src += "    params: " + yamlQuote(tc.params) + "\n"
			}
			f, err := mapping.Parse("m.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			engine := tc.engine
			if engine == "" {
				engine = introspect.Postgres
			}
			s := &introspect.Schema{Engine: engine, Database: "shop", Tables: []*introspect.Table{
				{Name: "items", PrimaryKey: []string{"serial"}, Columns: []*introspect.Column{{Name: "serial", Type: "text", Kind: introspect.KindString}}},
			}}
			for _, schema := range []*introspect.Schema{s, nil} {
				var got []string
				for _, w := range Warnings(f, schema) {
					got = append(got, w.String())
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("schema %v: got:\n%s\nwant:\n%s", schema != nil, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			}
		})
	}
}

// yamlQuote writes s as a YAML double-quoted scalar.
func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
