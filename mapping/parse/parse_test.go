package parse

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

// TestParseErrors parses every testdata/errors/*.yaml and pins the whole
// error text in the matching .golden file.
func TestParseErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("found %d cases under testdata/errors, want at least 30", len(files))
	}
	golden.CheckNoStale(t, "errors", ".yaml")
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(path, data)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", f)
			}
			if f != nil {
				t.Errorf("Parse returned a file with its error")
			}
			for _, e := range errorList(t, err) {
				if e.File != path {
					t.Errorf("error %q names file %q, want %q", e, e.File, path)
				}
				if (e.Line == 0) != (e.Col == 0) {
					t.Errorf("error %q has line %d but column %d", e, e.Line, e.Col)
				}
			}
			golden.Check(t, filepath.Join("errors", name+".golden"), []byte(err.Error()+"\n"))
		})
	}
}

// TestParseErrorFields pins the parts of the most important parse errors
// field by field, independently of the golden files.
func TestParseErrorFields(t *testing.T) {
	const base = "version: 1\ntable:\n  name: shop\n  key: {pk: PK, sk: SK}\nentities:\n  user:\n"
	tests := []struct {
		name string
		src  string
		want []Error
	}{
		{
			name: "unknown field points at the key and lists the known fields",
			src:  base + "    from: users\n    pk: \"USER#{user_id}\"\n    sk: \"USER#\"\n    wher: x\n",
			want: []Error{{Line: 10, Col: 5, Path: "entities.user", Msg: `unknown field "wher" (known fields: attributes, embed, from, key, mysql, pk, postgres, query, sk, ttl, where)`}},
		},
		{
			name: "duplicate key points at the second key",
			src:  base + "    from: users\n    pk: \"USER#{user_id}\"\n    sk: \"USER#\"\n    from: users\n",
			want: []Error{{Line: 10, Col: 5, Path: "entities.user.from", Msg: "duplicate field"}},
		},
		{
			name: "list where a map is expected",
			src:  base + "    from: users\n    pk: \"USER#{user_id}\"\n    sk: \"USER#\"\n    attributes: [email]\n",
			want: []Error{{Line: 10, Col: 17, Path: "entities.user.attributes", Msg: "expected a map, got a list"}},
		},
		{
			name: "missing pk",
			src:  base + "    from: users\n    sk: \"USER#\"\n",
			want: []Error{{Line: 7, Col: 5, Path: "entities.user", Msg: `missing required field "pk"`}},
		},
		{
			name: "bad version",
			src:  "version: 3\ntable: {name: shop, key: {pk: PK}}\nentities: {user: {from: users, pk: x}}\n",
			want: []Error{{Line: 1, Col: 10, Path: "version", Msg: "unsupported version 3 (this remodel reads version 1)"}},
		},
		{
			name: "yaml syntax error carries its line",
			src:  "version: 1\ntable:\n  name: shop\n  key: [PK\nentities: {}\n",
			want: []Error{{Line: 4, Col: 1, Msg: "did not find expected ',' or ']'"}},
		},
		{
			name: "yaml syntax error on the first line",
			src:  "version: 1: 2\n",
			want: []Error{{Msg: "mapping values are not allowed in this context"}},
		},
		{
			name: "empty",
			src:  "",
			want: []Error{{Msg: "the file is empty"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("m.yaml", []byte(tt.src))
			l := errorList(t, err)
			var got []Error
			for _, e := range l {
				got = append(got, *e)
			}
			for i := range tt.want {
				tt.want[i].File = "m.yaml"
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{File: "m.yaml", Line: 3, Col: 7, Path: "table.name", Msg: "bad"}, "m.yaml:3:7: table.name: bad"},
		{Error{File: "m.yaml", Line: 3, Col: 7, Msg: "bad"}, "m.yaml:3:7: bad"},
		{Error{File: "m.yaml", Msg: "the file is empty"}, "m.yaml: the file is empty"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	l := ErrorList{{File: "a", Line: 1, Col: 2, Msg: "x"}, {File: "a", Line: 3, Col: 4, Path: "p", Msg: "y"}}
	if got, want := l.Error(), "a:1:2: x\na:3:4: p: y"; got != want {
		t.Errorf("ErrorList: got %q, want %q", got, want)
	}
}

// fullMapping uses every field of the format (mapping's FuzzParse seeds
// from the same file).
var fullMapping = func() string {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

func TestParseFull(t *testing.T) {
	f, err := Parse("m.yaml", []byte(fullMapping))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "m.yaml" || f.Version != 1 {
		t.Errorf("name %q version %d", f.Name, f.Version)
	}
	tb := f.Table
	if tb.Name != (Str{"shop", Pos{3, 9}}) {
		t.Errorf("table name %+v", tb.Name)
	}
	if tb.PK.Name.Value != "PK" || tb.PK.Type != "S" || tb.SK == nil || tb.SK.Name.Value != "SK" || tb.SK.Type != "S" {
		t.Errorf("key %+v %+v", tb.PK, tb.SK)
	}
	if !tb.Billing.Provisioned || tb.Billing.Read != 5 || tb.Billing.Write != 7 || tb.Billing.Line != 5 {
		t.Errorf("billing %+v", tb.Billing)
	}
	if tb.TTL.Value != "expiresAt" || tb.EntityAttribute.Value != "kind" {
		t.Errorf("ttl %q entity attribute %q", tb.TTL.Value, tb.EntityAttribute.Value)
	}
	if len(tb.Indexes) != 3 {
		t.Fatalf("%d indexes", len(tb.Indexes))
	}
	if ix := tb.Indexes[1]; ix.Name.Value != "ByScore" || len(ix.PK) != 1 || ix.PK[0].Type != "S" || len(ix.SK) != 1 || ix.SK[0].Name.Value != "score" || ix.SK[0].Type != "N" || ix.Local {
		t.Errorf("index 1 %+v", ix)
	}
	if ix := tb.Indexes[2]; !ix.Local || ix.PK != nil || len(ix.SK) != 1 || ix.SK[0].Name.Value != "date" || ix.Pos != (Pos{11, 7}) {
		t.Errorf("index 2 %+v", ix)
	}

	if len(f.Entities) != 2 || f.Entities[0].Name.Value != "user" || f.Entities[1].Name.Value != "other" {
		t.Fatalf("entities %+v", f.Entities)
	}
	u := f.Entities[0]
	if u.Name.Pos != (Pos{13, 3}) || u.Pos != (Pos{14, 5}) {
		t.Errorf("user positions %+v %+v", u.Name.Pos, u.Pos)
	}
	if u.From.Value != "users" || u.Where.Value != "is_active" || u.PK.Value != "USER#{user_id}" || u.SK.Value != "USER#" {
		t.Errorf("user %+v", u)
	}
	if u.Include == nil || len(u.Include) != 0 {
		t.Errorf("include: [] must be an empty, non-nil list, got %#v", u.Include)
	}
	wantRename := []KV{
		{Str{"created_at", Pos{20, 16}}, Str{"createdAt", Pos{20, 28}}},
		{Str{"email", Pos{20, 39}}, Str{"Email", Pos{20, 46}}},
	}
	if !reflect.DeepEqual(u.Rename, wantRename) {
		t.Errorf("rename %+v", u.Rename)
	}
	if len(u.Set) != 2 || u.Set[0].Key.Value != "data" || u.Set[0].Value.Value != "EMAIL#{email|lower}" || u.Set[1].Key.Value != "game" {
		t.Errorf("set %+v", u.Set)
	}
	o := f.Entities[1]
	if o.Include != nil || len(o.Exclude) != 2 || o.SK.Value != "" || o.SK.Line != 25 {
		t.Errorf("other %+v", o)
	}

	ops := map[string]string{"eq": "", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "bw": "begins_with", "btw": "between"}
	if len(f.AccessPatterns) != len(ops) {
		t.Fatalf("%d access patterns", len(f.AccessPatterns))
	}
	for _, ap := range f.AccessPatterns {
		if ap.SK == nil || ap.SK.Op != ops[ap.Name.Value] {
			t.Errorf("%s: sk %+v, want op %s", ap.Name.Value, ap.SK, ops[ap.Name.Value])
		}
	}
	eq := f.AccessPatterns[0]
	if len(eq.SK.Eq) != 1 || eq.SK.Eq[0].Value != "USER#" || len(eq.PK) != 1 || eq.PK[0].Value != "USER#{user_id}" || eq.PKPos != (Pos{29, 17}) {
		t.Errorf("eq key condition %+v %+v", eq.PK, eq.SK)
	}
	if eq.Entity.Value != "user" || len(eq.SQL) != 1 || eq.SQL[0].Key.Value != "" || eq.SQL[0].Value.Value != "SELECT * FROM users WHERE user_id = {user_id}" {
		t.Errorf("eq %+v", eq)
	}
	btw := f.AccessPatterns[6]
	if btw.Index.Value != "ByScore" || len(btw.SK.Values) != 2 || btw.SK.Values[1].Value != "9" || btw.Params.Value != "SELECT 1" {
		t.Errorf("btw %+v", btw)
	}
	if len(btw.SQL) != 2 || btw.SQL[0].Key.Value != "user" || btw.SQL[1].Value.Value != "y" {
		t.Errorf("btw sql %+v", btw.SQL)
	}

	// A top-level field for YAML anchors is not part of the format.
	_, err = Parse("m.yaml", []byte(fullMapping+"defaults: &d {from: users}\n"))
	if got, want := err.Error(), `m.yaml:42:1: unknown field "defaults" (known fields: access_patterns, acknowledge, entities, table, version)`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseDefaultsAndAliases(t *testing.T) {
	src := `version: 1
table: {name: shop, key: {pk: PK}}
entities:
  user: &u {from: users, pk: "USER#{user_id}"}
  user2: *u
`
	f, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.Table.EntityAttribute.Value != "_type" {
		t.Errorf("entity attribute defaults to %q, want _type", f.Table.EntityAttribute.Value)
	}
	if f.Table.SK != nil || f.Table.Billing.Provisioned || len(f.Table.Indexes) != 0 || f.Table.TTL.Value != "" {
		t.Errorf("table %+v", f.Table)
	}
	if len(f.Entities) != 2 || f.Entities[1].From.Value != "users" || f.Entities[1].PK.Value != "USER#{user_id}" {
		t.Errorf("alias not followed: %+v", f.Entities)
	}
}

func TestParseFile(t *testing.T) {
	f, err := ParseFile("../../examples/personalization/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "../../examples/personalization/mapping.yaml" || len(f.Entities) != 5 || len(f.AccessPatterns) != 6 {
		t.Errorf("%s: %d entities, %d access patterns", f.Name, len(f.Entities), len(f.AccessPatterns))
	}
	_, err = ParseFile("testdata/no-such-file.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), "mapping: reading testdata/no-such-file.yaml: ") {
		t.Errorf("missing file: %v", err)
	}
}

// errorList asserts that err is a non-empty ErrorList and returns it.
func errorList(t *testing.T, err error) ErrorList {
	t.Helper()
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
	}
	return l
}
