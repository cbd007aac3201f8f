package mapping

import (
	"reflect"
	"strconv"
	"testing"
)

func dollar(i int) string { return "$" + strconv.Itoa(i) }
func question(int) string { return "?" }

func TestParseSQL(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		params []string
		pg     string // Text with $1, $2, ...
		my     string // Text with ?
	}{
		{"no parameters", "SELECT 1", nil, "SELECT 1", "SELECT 1"},
		{"two parameters", "SELECT * FROM t WHERE a = {a} AND b = {b}", []string{"a", "b"},
			"SELECT * FROM t WHERE a = $1 AND b = $2", "SELECT * FROM t WHERE a = ? AND b = ?"},
		{"repeated parameter binds twice", "WHERE a = {a} OR b = {a}", []string{"a", "a"}, "WHERE a = $1 OR b = $2", "WHERE a = ? OR b = ?"},
		{"spaces in braces", "a = { a }", []string{"a"}, "a = $1", "a = ?"},
		{"parameter at both ends", "{a}{b}", []string{"a", "b"}, "$1$2", "??"},
		{"single quotes", "WHERE s = '{x}' AND a = {a}", []string{"a"}, "WHERE s = '{x}' AND a = $1", "WHERE s = '{x}' AND a = ?"},
		{"double quotes", `SELECT "{x}" FROM t WHERE a = {a}`, []string{"a"}, `SELECT "{x}" FROM t WHERE a = $1`, `SELECT "{x}" FROM t WHERE a = ?`},
		{"backticks", "SELECT `{x}` FROM t WHERE a = {a}", []string{"a"}, "SELECT `{x}` FROM t WHERE a = $1", "SELECT `{x}` FROM t WHERE a = ?"},
		{"doubled single quote", "WHERE s = 'it''s {x}' AND a = {a}", []string{"a"}, "WHERE s = 'it''s {x}' AND a = $1", "WHERE s = 'it''s {x}' AND a = ?"},
		{"doubled double quote", `SELECT "a""{x}" FROM t WHERE a = {a}`, []string{"a"}, `SELECT "a""{x}" FROM t WHERE a = $1`, `SELECT "a""{x}" FROM t WHERE a = ?`},
		{"doubled backtick", "SELECT `a``{x}` FROM t", nil, "SELECT `a``{x}` FROM t", "SELECT `a``{x}` FROM t"},
		{"backslash escape in single quotes", `WHERE s = 'it\'s {x}' AND a = {a}`, []string{"a"}, `WHERE s = 'it\'s {x}' AND a = $1`, `WHERE s = 'it\'s {x}' AND a = ?`},
		{"escaped backslash ends the string", `WHERE s = 'a\\' AND a = {a}`, []string{"a"}, `WHERE s = 'a\\' AND a = $1`, `WHERE s = 'a\\' AND a = ?`},
		{"no backslash escape in double quotes", `SELECT "a\" FROM t WHERE a = {a}`, []string{"a"}, `SELECT "a\" FROM t WHERE a = $1`, `SELECT "a\" FROM t WHERE a = ?`},
		{"json literal", `WHERE doc @> '{"a": 1}' AND id = {id}`, []string{"id"}, `WHERE doc @> '{"a": 1}' AND id = $1`, `WHERE doc @> '{"a": 1}' AND id = ?`},
		{"array literal", "WHERE tags && '{a,b}' AND id = {id}", []string{"id"}, "WHERE tags && '{a,b}' AND id = $1", "WHERE tags && '{a,b}' AND id = ?"},
		{"line comment", "SELECT 1 -- {x} isn't a parameter\nWHERE a = {a}", []string{"a"},
			"SELECT 1 -- {x} isn't a parameter\nWHERE a = $1", "SELECT 1 -- {x} isn't a parameter\nWHERE a = ?"},
		{"line comment at the end", "WHERE a = {a} -- {x}", []string{"a"}, "WHERE a = $1 -- {x}", "WHERE a = ? -- {x}"},
		{"block comment", "SELECT /* {x} 'y */ {a}", []string{"a"}, "SELECT /* {x} 'y */ $1", "SELECT /* {x} 'y */ ?"},
		{"minus is not a comment", "WHERE a = 1-{a}", []string{"a"}, "WHERE a = 1-$1", "WHERE a = 1-?"},
		{"literal braces", "SELECT '{{' || {{x}} || {a}", []string{"a"}, "SELECT '{{' || {x} || $1", "SELECT '{{' || {x} || ?"},
		{"lone closing brace", "SELECT } {a}", []string{"a"}, "SELECT } $1", "SELECT } ?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseSQL(tt.src, true)
			if err != nil {
				t.Fatal(err)
			}
			if q.Src != tt.src {
				t.Errorf("Src %q", q.Src)
			}
			if !reflect.DeepEqual(q.Params(), tt.params) {
				t.Errorf("Params %q, want %q", q.Params(), tt.params)
			}
			text, names := q.Text(dollar)
			if text != tt.pg {
				t.Errorf("Text($n) = %q, want %q", text, tt.pg)
			}
			if !reflect.DeepEqual(names, tt.params) {
				t.Errorf("binding names %q, want %q", names, tt.params)
			}
			text, names = q.Text(question)
			if text != tt.my {
				t.Errorf("Text(?) = %q, want %q", text, tt.my)
			}
			if !reflect.DeepEqual(names, tt.params) {
				t.Errorf("binding names %q, want %q", names, tt.params)
			}
		})
	}
}

func TestParseSQLErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"WHERE s = 'abc", "unterminated ' quote at offset 10"},
		{`SELECT "abc`, `unterminated " quote at offset 7`},
		{"SELECT `abc", "unterminated ` quote at offset 7"},
		{`WHERE s = 'abc\'`, "unterminated ' quote at offset 10"},
		{"SELECT /* {x}", "unterminated /* comment at offset 7"},
		{"WHERE a = {a", "unclosed { at offset 10"},
		{"WHERE a = {}", "bad parameter {} at offset 10: write {name}"},
		{"WHERE a = {a|lower}", "bad parameter {a|lower} at offset 10: write {name}"},
		{"WHERE a = {a:int}", "bad parameter {a:int} at offset 10: write {name}"},
		{"WHERE a = {a b}", "bad parameter {a b} at offset 10: write {name}"},
		{"WHERE a = {a{b}", "bad parameter {a{b} at offset 10: write {name}"},
		{"WHERE a = {a\nb}", "bad parameter {a\nb} at offset 10: write {name}"},
	}
	for _, tt := range tests {
		q, err := ParseSQL(tt.src, true)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseSQL(%q): %v, %v; want error %q", tt.src, q, err, tt.want)
		}
	}
}

// In PostgreSQL's standard strings a backslash is an ordinary character:
// 'a\' ends the string, and the placeholder after it is a parameter.
func TestParseSQLPostgresBackslash(t *testing.T) {
	q, err := ParseSQL(`WHERE s = 'a\' AND a = {a}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, names := q.Text(dollar); got != `WHERE s = 'a\' AND a = $1` || len(names) != 1 {
		t.Errorf("Text = %q %q", got, names)
	}
	if _, err := ParseSQL(`WHERE s = 'a\' AND a = {a}`, true); err == nil {
		t.Errorf("with backslash escapes the quote does not end, so the string is unterminated")
	}
}
