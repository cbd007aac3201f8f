package mapping

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/introspect"
)

// TestCompileErrors compiles every testdata/compile/*.yaml against
// testSchema and pins the whole error text in the matching .golden file.
// Every case parses cleanly: the problems are all found by Compile.
func TestCompileErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/compile/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("found %d cases under testdata/compile, want at least 15", len(files))
	}
	golden.CheckNoStale(t, "compile", ".yaml")
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			f, err := ParseFile(path)
			if err != nil {
				t.Fatalf("the case must parse: %v", err)
			}
			p, err := Compile(f, testSchema())
			if err == nil {
				t.Fatalf("Compile succeeded: %+v", p)
			}
			if p != nil {
				t.Errorf("Compile returned a plan with its error")
			}
			l := errorList(t, err)
			for i, e := range l {
				if e.File != path || e.Line == 0 || e.Col == 0 || e.Path == "" {
					t.Errorf("error %q lacks its file, position or field path", e)
				}
				if i > 0 && (e.Line < l[i-1].Line || e.Line == l[i-1].Line && e.Col < l[i-1].Col) {
					t.Errorf("errors are not in file order: %q after %q", e, l[i-1])
				}
			}
			golden.Check(t, filepath.Join("compile", name+".golden"), []byte(err.Error()+"\n"))
		})
	}
}

// TestCompileUnknownIncludeColumn is the case: an unknown column in
// attributes.include names the file, the line, the column and the column.
func TestCompileUnknownIncludeColumn(t *testing.T) {
	src := `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "USER#"
    attributes:
      include:
        - email
        - emial
`
	f, err := Parse("mappings/shop.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(f, testSchema())
	l := errorList(t, err)
	if len(l) != 1 {
		t.Fatalf("want one error, got %d:\n%v", len(l), err)
	}
	e := l[0]
	if e.File != "mappings/shop.yaml" {
		t.Errorf("file %q", e.File)
	}
	if e.Line != 11 || e.Col != 11 {
		t.Errorf("position %d:%d, want 11:11 (the list item emial)", e.Line, e.Col)
	}
	if e.Path != "entities.user.attributes.include[1]" {
		t.Errorf("path %q", e.Path)
	}
	if !strings.Contains(e.Msg, `"emial"`) {
		t.Errorf("message %q does not name the column emial", e.Msg)
	}
	want := `mappings/shop.yaml:11:11: entities.user.attributes.include[1]: table users has no column "emial" (columns: user_id, email, name, is_active, created_at)`
	if got := err.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCompilePersonalization(t *testing.T) {
	f, err := ParseFile("../examples/personalization/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := personalizationSchema()
	p, err := Compile(f, s)
	if err != nil {
		t.Fatal(err)
	}
	if p.File != f || p.Schema != s {
		t.Errorf("plan does not keep its file and schema")
	}
	tb := p.Table
	if tb.Name != "personalization" || tb.PK != (KeyAttr{"PK", "S"}) || *tb.SK != (KeyAttr{"SK", "S"}) || tb.EntityAttr != "_type" || tb.Billing.Provisioned || tb.TTL != "" {
		t.Errorf("table %+v", tb)
	}
	if len(tb.Indexes) != 2 {
		t.Fatalf("indexes %+v", tb.Indexes)
	}
	if ix := tb.Index("GSI1"); ix == nil || !reflect.DeepEqual(ix.PK, []KeyAttr{{"SK", "S"}}) || !reflect.DeepEqual(ix.SK, []KeyAttr{{"PK", "S"}}) || ix.Local {
		t.Errorf("GSI1 %+v", ix)
	}
	if ix := tb.Index("GSI2"); ix == nil || !reflect.DeepEqual(ix.PK, []KeyAttr{{"data", "S"}}) || !reflect.DeepEqual(ix.SK, []KeyAttr{{"SK", "S"}}) {
		t.Errorf("GSI2 %+v", ix)
	}
	if tb.Index("GSI3") != nil {
		t.Errorf("Index(GSI3) is not nil")
	}
	var names []string
	for _, e := range p.Entities {
		names = append(names, e.Name)
	}
	if want := []string{"user", "service", "personal", "subscribe", "subscribe_user"}; !reflect.DeepEqual(names, want) {
		t.Errorf("entities %v, want %v", names, want)
	}
	if e := p.Entity("personal"); e == nil || e.Table.Name != "personal" || len(e.Columns) != 5 {
		t.Errorf("personal %+v", e)
	}
	if p.Entity("nobody") != nil {
		t.Errorf("Entity(nobody) is not nil")
	}
	pk, sk := p.Entity("subscribe_user").KeyTemplates()
	if pk != "USER#{user_id}" || sk != "SUBSCRIBE#{service}#{content_type}#{content_origin_id}" {
		t.Errorf("key templates %q %q", pk, sk)
	}
}

func TestCompileOptions(t *testing.T) {
	src := `version: 1
table:
  name: things-table.v1
  key: {pk: PK, sk: {name: SK, type: N}}
  billing: {provisioned: {read: 3, write: 4}}
  ttl: expiresAt
  entity_attribute: entity
  indexes:
    - {name: ByPrice, pk: code, sk: {name: price, type: N}}
    - {name: ByBlob, pk: {name: blob, type: B}}
    - {name: ByDay, local: true, sk: day}
entities:
  thing:
    from: public.things
    where: "id > 0"
    pk: "THING#{id}"
    sk: "{id}"
    attributes:
      exclude: [doc, tags]
      set: {expiresAt: "{id}", label: "L#{code|upper}"}
`
	p := compileString(t, src, testSchema())
	tb := p.Table
	if tb.Name != "things-table.v1" || *tb.SK != (KeyAttr{"SK", "N"}) || !tb.Billing.Provisioned || tb.Billing.Read != 3 || tb.Billing.Write != 4 || tb.TTL != "expiresAt" || tb.EntityAttr != "entity" {
		t.Errorf("table %+v", tb)
	}
	if ix := tb.Index("ByDay"); ix == nil || !ix.Local || !reflect.DeepEqual(ix.PK, []KeyAttr{tb.PK}) || !reflect.DeepEqual(ix.SK, []KeyAttr{{"day", "S"}}) {
		t.Errorf("ByDay %+v", ix)
	}
	e := p.Entity("thing")
	if e.Where != "id > 0" || e.Table.QualifiedName() != "public.things" {
		t.Errorf("entity %+v", e)
	}
	var attrs []string
	for _, a := range e.attrs {
		attrs = append(attrs, a.name)
	}
	if want := []string{"id", "code", "price", "score", "flag", "blob", "day", "at", "ts", "tstz", "opts"}; !reflect.DeepEqual(attrs, want) {
		t.Errorf("attributes %v, want %v", attrs, want)
	}
	keys := map[string]bool{}
	for _, a := range e.attrs {
		keys[a.name] = a.limit > 0
		if a.name == "day" && a.limit != MaxSKSize {
			t.Errorf("day, a local index sort key, has limit %d, want %d", a.limit, MaxSKSize)
		}
	}
	if !keys["code"] || !keys["price"] || !keys["blob"] || !keys["day"] || keys["id"] || keys["score"] {
		t.Errorf("index key attributes %v", keys)
	}
	if len(e.sets) != 2 || e.sets[0].typ != "N" || e.sets[1].typ != "" {
		t.Errorf("sets %+v", e.sets)
	}
}

// TestCompileNoPrimaryKey: a table without a primary key names its rows by
// every column.
func TestCompileNoPrimaryKey(t *testing.T) {
	s := &introspect.Schema{Engine: introspect.MySQL, Tables: []*introspect.Table{{
		Schema: "app", Name: "log",
		Columns: []*introspect.Column{col("at", "datetime", introspect.KindTimestamp), col("msg", "text", introspect.KindString)},
	}}}
	p := compileString(t, "version: 1\ntable: {name: logs, key: {pk: PK}}\nentities:\n  log: {from: log, pk: \"LOG#{msg}\"}\n", s)
	e := p.Entities[0]
	if got := e.SourceKey([]any{"2024-01-02T03:04:05", "hello"}); got != "at=2024-01-02T03:04:05, msg=hello" {
		t.Errorf("source key %q", got)
	}
}
