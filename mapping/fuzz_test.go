package mapping

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/introspect"
)

// seedFiles adds the example mapping and every test mapping to a corpus.
func seedFiles(f *testing.F) {
	f.Helper()
	paths := []string{"../examples/personalization/mapping.yaml"}
	for _, glob := range []string{"parse/testdata/errors/*.yaml", "testdata/compile/*.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, m...)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(fullMapping))
	f.Add([]byte(renderMapping))
	f.Add([]byte(embedMapping))          // compiles against testSchema: two embeds
	f.Add([]byte(engineMapping))         // postgres: and mysql: blocks
	f.Add([]byte(fullMapping + ackList)) // acknowledge:
}

// fullMapping uses every field of the format: parse's TestParseFull reads
// the same file.
var fullMapping = func() string {
	data, err := os.ReadFile("parse/testdata/full.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// ackList is an acknowledge: list to append to a mapping.
const ackList = `
acknowledge:
  - {warning: sparse-when, entity: user, index: GSI1, reason: "only some users are in GSI1, on purpose"}
  - {warning: unmapped-table, table: public.audit, reason: "the audit log stays behind"}
`

// sampleValue is a plausible canonical value of a column kind.
func sampleValue(c *introspect.Column) any {
	switch c.Kind {
	case introspect.KindInt:
		return int64(42)
	case introspect.KindDecimal:
		return "12.50"
	case introspect.KindFloat:
		return 2.5
	case introspect.KindBool:
		return true
	case introspect.KindBytes:
		return []byte{0xca, 0xfe}
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		return time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC)
	case introspect.KindJSON:
		return []byte(`{"a":[1,null,"x"]}`)
	case introspect.KindArray:
		return []any{"x", nil}
	case introspect.KindSet:
		return []string{"a"}
	}
	return "text"
}

// FuzzParse: Parse never panics, and reports problems only as an ErrorList
// naming the file. What parses is compiled against testSchema and rendered
// (an entity with embeds with no child rows and with one), which must not
// panic either.
func FuzzParse(f *testing.F) {
	seedFiles(f)
	schema := testSchema()
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.yaml"
		file, err := Parse(name, data)
		if err != nil {
			if file != nil {
				t.Fatalf("a file with the error %v", err)
			}
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
			}
			for _, e := range l {
				if e.File != name {
					t.Fatalf("error %q names file %q", e, e.File)
				}
			}
			return
		}
		if file == nil || file.Name != name || file.Version != 1 || file.Table.PK.Name.Value == "" {
			t.Fatalf("parsed file %+v", file)
		}
		plan, err := Compile(file, schema)
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("compile error %v (%T) is not a non-empty ErrorList", err, err)
			}
			for _, e := range l {
				if e.File != name {
					t.Fatalf("compile error %q names file %q", e, e.File)
				}
			}
			return
		}
		for _, e := range plan.Entities {
			sample := make([]any, len(e.Columns))
			nulls := make([]any, len(e.Columns))
			for i, c := range e.Columns {
				sample[i] = sampleValue(c)
			}
			// An entity with embeds renders a row with its child rows:
			// none, and one for each embed.
			none, one := make([][][]any, len(e.embeds)), make([][][]any, len(e.embeds))
			for i, m := range e.embeds {
				kid := make([]any, len(m.Child.Columns)) // as StreamEmbedded passes it: the child's columns
				for j, c := range m.Child.Columns {
					kid[j] = sampleValue(c)
				}
				none[i], one[i] = [][]any{}, [][]any{kid}
			}
			for _, row := range [][]any{e.WithChildren(sample, none), e.WithChildren(sample, one), e.WithChildren(nulls, none)} {
				item, err := e.Render(row)
				if err != nil {
					var re *RowError
					if !errors.As(err, &re) || item != nil {
						t.Fatalf("render error %v (%T) with item %v", err, err, item)
					}
					continue
				}
				if av.KeyText(item[plan.Table.PK.Name]) == "" || strings.Contains(plan.Table.KeyString(item), "<nil>") {
					t.Fatalf("item without a proper key: %s", plan.Table.KeyString(item))
				}
			}
		}
		for _, ap := range plan.AccessPatterns {
			params := make([]any, len(ap.Params))
			for i, c := range ap.Params {
				params[i] = sampleValue(c)
			}
			_, _ = ap.KeyCondition(params)
			for _, q := range ap.Queries {
				q.SQL.Text(dollar)
			}
		}
	})
}

// unescapeBraces is the literal text of a template without placeholders.
func unescapeBraces(s string) string {
	return strings.NewReplacer("{{", "{", "}}", "}").Replace(s)
}

// FuzzParseTemplate: ParseTemplate never panics; a template without
// placeholders renders its literal text with {{ and }} unescaped; one with
// placeholders binds and renders without panicking.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{
		"", "USER#", "USER#{user_id}", "SUBSCRIBE#{service}#{content_type}#{content_origin_id}",
		"{{literal}}", "{{{x}}}", "{a}}}}", "{", "}", "{}", "{ a | lower }", "{n|pad:10}", "{n|desc:38}",
		"{t|iso}{t|date}{t|unix}{t|unixms}", "{b|hex}{b|base64}", "{x|default:none|upper}", "{x|shard:8}",
		"{x|pad:0}", "{x|nope}", "{a b}", "{a{b}", "EMAIL#{email|lower}", "{x|default:a:b}",
	} {
		f.Add(s)
	}
	kinds := []introspect.Kind{introspect.KindString, introspect.KindInt, introspect.KindDecimal, introspect.KindBytes, introspect.KindTimestampTZ, introspect.KindDate}
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := ParseTemplate(src)
		if err != nil {
			if tm != nil {
				t.Fatalf("template with error %v", err)
			}
			return
		}
		if tm.Src != src {
			t.Fatalf("Src %q", tm.Src)
		}
		fields := tm.Fields()
		if tm.Constant() != (len(fields) == 0) {
			t.Fatalf("Constant %v with fields %q", tm.Constant(), fields)
		}
		if tm.Constant() {
			b, err := tm.bind(nil)
			if err != nil {
				t.Fatalf("bind: %v", err)
			}
			got, err := b.render(nil)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if want := unescapeBraces(src); got != want {
				t.Fatalf("%q renders %q, want %q", src, got, want)
			}
			if tm.Prefix() != got {
				t.Fatalf("Prefix %q, want the whole text %q", tm.Prefix(), got)
			}
			return
		}
		if !strings.HasPrefix(unescapeBraces(src), tm.Prefix()) {
			t.Fatalf("Prefix %q does not start %q", tm.Prefix(), src)
		}
		for _, k := range kinds {
			var cols []*introspect.Column
			seen := map[string]bool{}
			for _, name := range fields {
				if !seen[name] {
					seen[name] = true
					cols = append(cols, &introspect.Column{Name: name, Type: string(k), Kind: k, Precision: 3})
				}
			}
			b, err := tm.bind(cols)
			if err != nil {
				continue
			}
			row := make([]any, len(cols))
			for i, c := range cols {
				row[i] = sampleValue(c)
			}
			_, _ = b.render(row)
			_, _ = b.render(make([]any, len(cols)))
		}
	})
}

// FuzzParseSQL: ParseSQL never panics; Text binds as many parameters as
// Params lists, in the same order, numbering placeholders 1, 2, ...
func FuzzParseSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM users WHERE user_id = {user_id}",
		"SELECT * FROM personal WHERE user_id = {user_id} AND service = {service} AND setting_type = {setting_type}",
		"WHERE s = '{x}' AND a = {a}", `SELECT "{x}" FROM t`, "SELECT `{x}`", "'it''s {x}'", `'it\'s {x}' {a}`,
		"-- {x}\n{a}", "/* {x} */ {a}", "/* {x}", "{{x}} {a} }}", "'unterminated", "{a", "{}", "{a|b}",
		`WHERE doc @> '{"a": 1}' AND id = {id}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		q, err := ParseSQL(src, true)
		if err != nil {
			if q != nil {
				t.Fatalf("template with error %v", err)
			}
			return
		}
		params := q.Params()
		var seq []int
		_, names := q.Text(func(i int) string { seq = append(seq, i); return "?" })
		if len(names) != len(params) || !reflect.DeepEqual(names, params) && len(params) > 0 {
			t.Fatalf("Text binds %q, Params lists %q", names, params)
		}
		for i, n := range seq {
			if n != i+1 {
				t.Fatalf("placeholder numbers %v", seq)
			}
		}
		for _, p := range params {
			if p == "" || strings.ContainsAny(p, "{}|: \t\n") {
				t.Fatalf("parameter name %q", p)
			}
		}
		if len(params) == 0 {
			text, _ := q.Text(dollar)
			if !strings.Contains(src, "{{") && !strings.Contains(src, "}}") && text != src {
				t.Fatalf("SQL without parameters or braces changed: %q became %q", src, text)
			}
		}
	})
}

// FuzzNormalizeNumber: normalizeNumber never panics; what it accepts keeps
// its exact value, fits DynamoDB's rules and normalizes to itself.
func FuzzNormalizeNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "0012.3400", "1e5", "1.5E-3", "1E-130", "1E-131", "9.9999999999999999999999999999999999999E+125", "1E+126", "NaN", "-Infinity", ".5", "5.", "+7", "1e", "--1", "12345678901234567890123456789012345678", "123456789012345678901234567890123456789"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := normalizeNumber(s)
		if err != nil {
			return
		}
		again, err := normalizeNumber(n)
		if err != nil || again != n {
			t.Fatalf("%q normalizes to %q, which normalizes to %q, %v", s, n, again, err)
		}
		if len(n) > 60+4+len("E-130") {
			t.Fatalf("%q normalizes to %d characters: %q", s, len(n), n)
		}
		if n == "0" { // the mantissa is all zeros; the exponent can be anything
			mant, _, _ := strings.Cut(strings.ToLower(s), "e")
			if strings.ContainsAny(mant, "123456789") {
				t.Fatalf("%q normalizes to 0", s)
			}
			return
		}
		want, ok := new(big.Rat).SetString(s)
		got, ok2 := new(big.Rat).SetString(n)
		if ok && ok2 && want.Cmp(got) != 0 {
			t.Fatalf("%q normalizes to %q, another value", s, n)
		}
		if !ok2 {
			t.Fatalf("%q normalizes to %q, which is not a number", s, n)
		}
	})
}
