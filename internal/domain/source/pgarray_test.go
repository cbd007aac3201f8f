package source

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParsePGArray(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []any
	}{
		{`{}`, []any{}},
		{`{1}`, []any{"1"}},
		{`{1,2,3}`, []any{"1", "2", "3"}},
		{`{NULL}`, []any{nil}},
		{`{1,NULL,null,Null}`, []any{"1", nil, nil, nil}},
		{`{"NULL"}`, []any{"NULL"}},
		{`{""}`, []any{""}},
		{`{"",""}`, []any{"", ""}},
		{`{"a,b","c"}`, []any{"a,b", "c"}},
		{`{"say \"hi\""}`, []any{`say "hi"`}},
		{`{"back\\slash"}`, []any{`back\slash`}},
		{`{"\\x0102"}`, []any{`\x0102`}},
		{`{"{braces}"}`, []any{"{braces}"}},
		{`{"a b"," lead","trail "}`, []any{"a b", " lead", "trail "}},
		{`{"\\",","}`, []any{`\`, ","}},
		{`{"\a\b"}`, []any{"ab"}},
		{`{Zoë,東京,🚀}`, []any{"Zoë", "東京", "🚀"}},
		{"{\u00a0a\u00a0,b\u0085}", []any{"\u00a0a\u00a0", "b\u0085"}}, // PostgreSQL quotes ASCII white space only
		{`{ a , b }`, []any{"a", "b"}},                                 // array_in ignores white space around unquoted elements
		{`{2024-01-02,"2024-01-02 03:04:05+00"}`, []any{"2024-01-02", "2024-01-02 03:04:05+00"}},
		{`{{1,2},{3,4}}`, []any{[]any{"1", "2"}, []any{"3", "4"}}},
		{`{{NULL,"a,b"},{"}",c}}`, []any{[]any{nil, "a,b"}, []any{"}", "c"}}},
		{`{{{1}},{{2}}}`, []any{[]any{[]any{"1"}}, []any{[]any{"2"}}}},
		{`[0:1]={1,2}`, []any{"1", "2"}},
		{`[-2:-1]={NULL,x}`, []any{nil, "x"}},
		{`[1:2][1:1]={{1},{2}}`, []any{[]any{"1"}, []any{"2"}}},
		// A box holds commas: with ',' as the delimiter it falls apart,
		// which is why the column's own delimiter must be used.
		{`{(1,1),(0,0);(2,2),(1,1)}`, []any{"(1", "1)", "(0", "0);(2", "2)", "(1", "1)"}},
	} {
		got, err := parsePGArray(tc.in, ',')
		if err != nil {
			t.Errorf("parsePGArray(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got.elems, tc.want) {
			t.Errorf("parsePGArray(%q) = %#v, want %#v", tc.in, got.elems, tc.want)
		}
	}
}

// TestParsePGArrayDelimiter: box[] (typdelim ';') as PostgreSQL 15 prints it.
func TestParsePGArrayDelimiter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []any
	}{
		{`{}`, []any{}},
		{`{(1,1),(0,0)}`, []any{"(1,1),(0,0)"}},
		{`{(1,1),(0,0);NULL;(3,3),(2,2)}`, []any{"(1,1),(0,0)", nil, "(3,3),(2,2)"}},
		{`{{(1,1),(0,0);(2,2),(1,1)};{(5,5),(4,4);(3,3),(2,2)}}`, []any{
			[]any{"(1,1),(0,0)", "(2,2),(1,1)"}, []any{"(5,5),(4,4)", "(3,3),(2,2)"}}},
		{`{"a;b";c,d}`, []any{"a;b", "c,d"}},
		{`[0:1]={(1,1),(0,0);(2,2),(1,1)}`, []any{"(1,1),(0,0)", "(2,2),(1,1)"}},
	} {
		got, err := parsePGArray(tc.in, ';')
		if err != nil {
			t.Errorf("parsePGArray(%q, ';'): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got.elems, tc.want) {
			t.Errorf("parsePGArray(%q, ';') = %#v, want %#v", tc.in, got.elems, tc.want)
		}
	}
	for _, in := range []string{`{a;;b}`, `{a;b;}`, `{"a";}`, `{{a};}`} {
		if got, err := parsePGArray(in, ';'); err == nil {
			t.Errorf("parsePGArray(%q, ';') = %#v, want an error", in, got.elems)
		}
	}
}

func TestParsePGArrayBounds(t *testing.T) {
	for _, tc := range []struct {
		in          string
		bounds      string
		startsAtOne bool
	}{
		{`{1,2}`, "", true},
		{`{}`, "", true},
		{`[0:2]={7,8,9}`, "[0:2]", false},
		{`[-2:-1]={NULL,x}`, "[-2:-1]", false},
		{`[1:2][0:1]={{1,2},{3,4}}`, "[1:2][0:1]", false},
		{`[2]={1,2}`, "[2]", true}, // array_in's short form: lower bound 1
		{`[1:2]={1,2}`, "[1:2]", true},
	} {
		got, err := parsePGArray(tc.in, ',')
		if err != nil {
			t.Errorf("parsePGArray(%q): %v", tc.in, err)
			continue
		}
		if got.bounds != tc.bounds || got.startsAtOne() != tc.startsAtOne {
			t.Errorf("parsePGArray(%q): bounds %q, starts at one %v; want %q, %v", tc.in, got.bounds, got.startsAtOne(), tc.bounds, tc.startsAtOne)
		}
	}
}

func TestParsePGArrayMalformed(t *testing.T) {
	for _, in := range []string{
		``,
		`1,2`,
		`{`,
		`}`,
		`{1,2`,
		`{1,2,`,
		`{1,2}}`,
		`{1,2}x`,
		`{1,2} `,
		`{1,,2}`,
		`{,}`,
		`{,1}`,
		`{1,}`,
		`{"a}`,
		`{"a\"}`,
		`{"a\`,
		`{"a"b}`,
		`{"a" }`,
		`{{1,2}`,
		`{{1,2},{3,4}`,
		`{{1,2}x}`,
		`[0:1]{1,2}`,
		`[0:1]=`,
		`[0:1]=1,2`,
		`[0:1]={1,2`,
		`[0:x]={1,2}`,
		`[0:1=]{1,2}`,
		`[0:1]x={1,2}`,
		`[a]={1}`,
	} {
		if got, err := parsePGArray(in, ','); err == nil {
			t.Errorf("parsePGArray(%q) = %#v, want an error", in, got.elems)
		} else if !strings.Contains(err.Error(), "array") {
			t.Errorf("parsePGArray(%q) error %q does not say it is about an array", in, err)
		}
	}
}

// renderPGArray writes elems the way PostgreSQL's array_out does: elements
// (and sub-arrays) are separated by delim, and an element is double-quoted
// when it is empty, spells NULL in any case, or contains a quote, a
// backslash, a brace, the delimiter or ASCII white space; inside quotes,
// quotes and backslashes are escaped with a backslash. nil is NULL and []any
// is a sub-array.
func renderPGArray(elems []any, delim byte) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(delim)
		}
		switch x := e.(type) {
		case nil:
			b.WriteString("NULL")
		case []any:
			b.WriteString(renderPGArray(x, delim))
		case string:
			quote := x == "" || strings.EqualFold(x, "NULL") || strings.ContainsAny(x, "\"\\{} \t\n\r\v\f"+string(delim))
			if !quote {
				b.WriteString(x)
				continue
			}
			b.WriteByte('"')
			for j := 0; j < len(x); j++ {
				if x[j] == '"' || x[j] == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(x[j])
			}
			b.WriteByte('"')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// elemsFrom builds array elements from fuzz input: the input is split on
// NUL (which PostgreSQL text cannot hold), and an element that is exactly
// "\x01" stands for NULL.
func elemsFrom(s string) []any {
	parts := strings.Split(s, "\x00")
	out := make([]any, len(parts))
	for i, p := range parts {
		if p == "\x01" {
			out[i] = nil
		} else {
			out[i] = p
		}
	}
	return out
}

func TestRenderPGArrayMatchesPostgres(t *testing.T) {
	// What PostgreSQL 15 prints for
	// SELECT ARRAY[E'\u00a0a', 'b c', '', 'NULL', 'x"y', 'a\b', NULL, 'plain']::text[]
	want := "{\u00a0a,\"b c\",\"\",\"NULL\",\"x\\\"y\",\"a\\\\b\",NULL,plain}"
	got := renderPGArray([]any{"\u00a0a", "b c", "", "NULL", `x"y`, `a\b`, nil, "plain"}, ',')
	if got != want {
		t.Fatalf("renderPGArray = %s, want %s", got, want)
	}
	// SELECT ARRAY['(1,1),(0,0)'::box, NULL, '(3,3),(2,2)']
	want = "{(1,1),(0,0);NULL;(3,3),(2,2)}"
	got = renderPGArray([]any{"(1,1),(0,0)", nil, "(3,3),(2,2)"}, ';')
	if got != want {
		t.Fatalf("renderPGArray(;) = %s, want %s", got, want)
	}
}

func FuzzParsePGArray(f *testing.F) {
	for _, s := range []string{
		"", "a", "a\x00b", "\x01", "a\x00\x01\x00", "NULL", "null\x00Null", "\"", "\\", "{", "}", ",", ";",
		"a b", " a", "a ", "\t", "\u00a0a\u00a0", "b\u0085", "Zoë\x00東京", "{1,2}", "[0:1]={1,2}",
		`{"a\"b",NULL}`, `{{1,2},{3,4}}`, "{\"", "{a,,b}", "{1,2}x",
		"(1,1),(0,0)\x00(2,2),(1,1)", "a;b\x00c,d", "{(1,1),(0,0);(2,2),(1,1)}",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, semicolon bool) {
		// The delimiter: ',' for nearly every type, ';' for box.
		delim := byte(',')
		if semicolon {
			delim = ';'
		}
		// Any input: an array or an error, never a panic.
		if v, err := parsePGArray(s, delim); err == nil {
			checkShape(t, s, v.elems)
		}

		// Round trip of one dimension.
		elems := elemsFrom(s)
		text := renderPGArray(elems, delim)
		got, err := parsePGArray(text, delim)
		if err != nil {
			t.Fatalf("parsePGArray(%q, %q) of %#v: %v", text, delim, elems, err)
		}
		if !reflect.DeepEqual(got.elems, elems) || got.bounds != "" {
			t.Fatalf("parsePGArray(%q, %q) = %#v (bounds %q), want %#v", text, delim, got.elems, got.bounds, elems)
		}

		// Two dimensions, with explicit bounds.
		if len(elems)%2 == 0 {
			grid := make([]any, 0, len(elems)/2)
			for i := 0; i < len(elems); i += 2 {
				grid = append(grid, []any{elems[i], elems[i+1]})
			}
			bounds := "[0:" + strconv.Itoa(len(grid)-1) + "][1:2]"
			text := bounds + "=" + renderPGArray(grid, delim)
			got, err := parsePGArray(text, delim)
			if err != nil {
				t.Fatalf("parsePGArray(%q, %q) of %#v: %v", text, delim, grid, err)
			}
			if !reflect.DeepEqual(got.elems, grid) || got.bounds != bounds || got.startsAtOne() {
				t.Fatalf("parsePGArray(%q, %q) = %#v (bounds %q), want %#v (bounds %q, not from 1)", text, delim, got.elems, got.bounds, grid, bounds)
			}
		}
	})
}

// checkShape checks that a parsed array holds only strings, nils and
// sub-arrays of the same.
func checkShape(t *testing.T, in string, v []any) {
	t.Helper()
	if v == nil {
		t.Fatalf("parsePGArray(%q) returned a nil slice without an error", in)
	}
	for _, e := range v {
		switch x := e.(type) {
		case nil, string:
		case []any:
			checkShape(t, in, x)
		default:
			t.Fatalf("parsePGArray(%q) holds a %T", in, e)
		}
	}
}
