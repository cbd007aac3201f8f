package mapping

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/introspect"
)

// embedSchema is testSchema with the tables the embed cases need: a child
// with two foreign keys to users (and a money column), and one without a
// primary key.
func embedSchema() *introspect.Schema {
	s := testSchema()
	bigint := func(n string) *introspect.Column { return col(n, "bigint", introspect.KindInt) }
	s.Tables = append(s.Tables, &introspect.Table{
		Schema: "public", Name: "friends",
		Columns:    []*introspect.Column{bigint("user_id"), bigint("friend_id"), nullable(col("balance", "money", introspect.KindString))},
		PrimaryKey: []string{"user_id", "friend_id"},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "fk_user", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"user_id"}},
			{Name: "fk_friend", Columns: []string{"friend_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"user_id"}},
		},
	}, &introspect.Table{
		Schema: "public", Name: "nokey",
		Columns: []*introspect.Column{bigint("user_id"), nullable(col("note", "text", introspect.KindString))},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "fk_nokey", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"user_id"}},
		},
	})
	return s
}

// TestCompileEmbedErrors compiles every testdata/embed/*.yaml against
// embedSchema and pins the whole error text in the matching .golden file.
func TestCompileEmbedErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/embed/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d cases under testdata/embed", len(files))
	}
	golden.CheckNoStale(t, "embed", ".yaml")
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			f, err := ParseFile(path)
			if err != nil {
				t.Fatalf("the case must parse: %v", err)
			}
			_, err = Compile(f, embedSchema())
			for _, e := range errorList(t, err) {
				if e.File != path || e.Line == 0 || e.Col == 0 || e.Path == "" {
					t.Errorf("error %q lacks its file, position or field path", e)
				}
			}
			golden.Check(t, filepath.Join("embed", name+".golden"), []byte(err.Error()+"\n"))
		})
	}
}

const embedMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  user:
    from: users
    attributes: {include: [name]}
    pk: "USER#{user_id}"
    sk: "USER#"
    embed:
      settings:
        from: personal
        attributes: {include: [service, setting_type, settings]}
        order_by: service desc
      by_type:
        from: personal
        map_key: setting_type
        attributes: {include: [service]}
`

// child is a row of personal: user_id, service, setting_type, settings, updated_at.
func child(user int64, service, typ, doc string) []any {
	return []any{user, service, typ, []byte(doc), nil, user}
}

// TestStreamEmbedded merges the parent's rows with each embed's child rows
// (which carry the parent's key after the child's columns) and renders
// them; a child row whose parent never comes stops the read.
func TestStreamEmbedded(t *testing.T) {
	p := compileString(t, embedMapping, testSchema())
	e := p.Entity("user")
	if n := len(e.Embeds()); n != 2 || p.MaxEmbeds() != 2 {
		t.Fatalf("%d embeds", n)
	}
	parents := [][]any{{int64(1), "a@x", "Ada", true, nil}, {int64(2), "b@x", "Bo", true, nil}, {int64(3), "c@x", "Cy", true, nil}}
	kids := [][]any{child(1, "news", "font", `{"size":1}`), child(1, "mail", "theme", `"dark"`), child(3, "news", "font", `{}`)}
	stream := func(kids [][]any) ([]string, error) {
		var out []string
		err := e.StreamEmbedded(context.Background(), func(fn func([]any) error) error {
			for _, r := range parents {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}, func(_ context.Context, i int, fn func([]any) error) error {
			for _, k := range kids {
				if err := fn(k); err != nil {
					return err
				}
			}
			return nil
		}, func(row []any, k [][][]any, dup *RowError) error {
			item, err := e.Render(e.WithChildren(row, k))
			if err != nil {
				return err
			}
			out = append(out, itemText(item))
			return nil
		})
		return out, err
	}
	got, err := stream(kids)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"PK":{"S":"USER#1"},"SK":{"S":"USER#"},"_type":{"S":"user"},"by_type":{"M":{"font":{"M":{"service":{"S":"news"}}},"theme":{"M":{"service":{"S":"mail"}}}}},"name":{"S":"Ada"},"settings":{"L":[{"M":{"service":{"S":"news"},"setting_type":{"S":"font"},"settings":{"M":{"size":{"N":"1"}}}}},{"M":{"service":{"S":"mail"},"setting_type":{"S":"theme"},"settings":{"S":"dark"}}}]}}`,
		`{"PK":{"S":"USER#2"},"SK":{"S":"USER#"},"_type":{"S":"user"},"name":{"S":"Bo"}}`,
		`{"PK":{"S":"USER#3"},"SK":{"S":"USER#"},"_type":{"S":"user"},"by_type":{"M":{"font":{"M":{"service":{"S":"news"}}}}},"name":{"S":"Cy"},"settings":{"L":[{"M":{"service":{"S":"news"},"setting_type":{"S":"font"},"settings":{"M":{}}}}]}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Child rows out of the parent's order (user 3's row first): user 1's
	// row is left over when the parents end, and the read fails naming it.
	_, err = stream([][]any{kids[2], kids[0]})
	if err == nil || !strings.Contains(err.Error(), "embed settings: row user_id=1, service=news, setting_type=font of table public.personal belongs to the row user_id=1, which did not come where the child rows put it") {
		t.Errorf("out of order: %v", err)
	}
	// A child scan that fails stops the read with its error.
	err = e.StreamEmbedded(context.Background(), func(fn func([]any) error) error { return fn(parents[0]) },
		func(context.Context, int, func([]any) error) error { return errors.New("connection lost") },
		func([]any, [][][]any, *RowError) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "reading the rows of embed settings (table public.personal): connection lost") {
		t.Errorf("failing child scan: %v", err)
	}
	// Render without the child rows is a caller's mistake, not a reject.
	if _, err := e.Render(parents[0]); err == nil || errors.As(err, new(*RowError)) {
		t.Errorf("Render without child rows: %v", err)
	}
}

// TestEmbedRejects: what cannot be stored rejects the parent row, naming
// it and the child row.
func TestEmbedRejects(t *testing.T) {
	p := compileString(t, embedMapping, testSchema())
	e := p.Entity("user")
	parent := []any{int64(7), "a@x", "Ada", true, nil}
	big := `"` + strings.Repeat("x", 150*1024) + `"`
	for _, tc := range []struct {
		name string
		kids [][]any
		want string
	}{
		{"over 400 KB with its children", [][]any{child(7, "a", "t1", big), child(7, "b", "t2", big), child(7, "c", "t3", big)},
			"entity user, row user_id=7: item is 461"},
		{"a map key twice", [][]any{child(7, "a", "font", `1`), child(7, "b", "font", `2`)},
			"entity user, row user_id=7: embed by_type: two rows of table public.personal have the map key setting_type=font (a map keeps one value per key)"},
		{"an empty map key", [][]any{child(7, "a", "", `1`)},
			"entity user, row user_id=7: embed by_type: row user_id=7, service=a, setting_type= of table public.personal has an empty map key (setting_type; DynamoDB refuses an empty attribute name)"},
		{"a NULL map key", [][]any{{int64(7), "a", nil, []byte(`1`), nil, int64(7)}},
			"entity user, row user_id=7: embed by_type: row user_id=7, service=a, setting_type=NULL of table public.personal has no map key (setting_type is NULL)"},
		{"a value that cannot be stored", [][]any{child(7, "a", "t", `{"":1}`)},
			"entity user, row user_id=7: embed settings: row user_id=7, service=a, setting_type=t of table public.personal: column settings (jsonb): json: the object at $ has an empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Render(e.WithChildren(parent, [][][]any{tc.kids, tc.kids}))
			var re *RowError
			if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func itemText(item Item) string {
	m := map[string]any{}
	for k, v := range item {
		m[k] = wire(v)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

const embedTypesMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  user:
    from: users
    attributes: {include: [name]}
    pk: "USER#{user_id}"
    sk: "USER#"
    embed:
      things:
        from: things
        on: [id]
        map_key: code
        attributes:
          include: [code, price, flag, blob, day, tstz, doc, tags, opts]
          rename: {tstz: at}
          types: {code: N, price: S, flag: S, blob: B, day: unix, tstz: unixms, doc: JSON, tags: SS, opts: L}
`

// TestEmbedTypes: attributes.types on an embed converts each element's
// keys as on an entity (ConvertAs); the map key stays the column's text;
// a value the type cannot hold rejects the parent row, naming the embed,
// the child row and the column with its type.
func TestEmbedTypes(t *testing.T) {
	p := compileString(t, embedTypesMapping, embedSchema())
	e := p.Entity("user")
	attrs := e.Embeds()[0].Attributes()
	var typed []string
	for _, a := range attrs {
		typed = append(typed, a.Attr+":"+string(a.Type))
	}
	if got, want := strings.Join(typed, " "), "code:N price:S flag:S blob:B day:unix at:unixms doc:JSON tags:SS opts:L"; got != want {
		t.Errorf("Attributes: %s, want %s", got, want)
	}
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	at := time.Date(2024, 1, 2, 3, 4, 5, 123e6, time.UTC)
	// things: id, code, price, score, flag, blob, day, at, ts, tstz, doc, tags, opts; then the parent's key.
	thing := func(code string, price string, tstz time.Time, tags []any) []any {
		return []any{int64(7), code, price, 1.5, true, []byte{0, 1}, day, nil, nil, tstz, []byte(`{"a": [1, 2.50]}`), tags, []string{"b", "a"}, int64(7)}
	}
	parent := []any{int64(7), "a@x", "Ada", true, nil}
	item, err := e.Render(e.WithChildren(parent, [][][]any{{thing("012.50", "1.50", at, []any{"x", "y"}), thing("-0", "2", at, []any{})}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := itemText(Item{"things": item["things"]}), `{"things":{"M":{`+
		`"-0":{"M":{"at":{"N":"1704164645123"},"blob":{"B":"AAE="},"code":{"N":"0"},"day":{"N":"1704153600"},"doc":{"S":"{\"a\": [1, 2.50]}"},"flag":{"S":"true"},"opts":{"L":[{"S":"b"},{"S":"a"}]},"price":{"S":"2"}}},`+
		`"012.50":{"M":{"at":{"N":"1704164645123"},"blob":{"B":"AAE="},"code":{"N":"12.5"},"day":{"N":"1704153600"},"doc":{"S":"{\"a\": [1, 2.50]}"},"flag":{"S":"true"},"opts":{"L":[{"S":"b"},{"S":"a"}]},"price":{"S":"1.5"},"tags":{"SS":["x","y"]}}}}}}`; got != want {
		t.Errorf("typed elements:\n got %s\nwant %s", got, want)
	}
	for _, tc := range []struct {
		name string
		kid  []any
		want string
	}{
		{"text that is not a number", thing("twelve", "1", at, nil),
			"entity user, row user_id=7: embed things: row id=7 of table public.things: column code (text) as N: text \"twelve\" is not a number"},
		{"a fraction unixms cannot hold", thing("1", "1", at.Add(1), nil),
			"entity user, row user_id=7: embed things: row id=7 of table public.things: column tstz (timestamp(3) with time zone) as unixms: 2024-01-02T03:04:05.123000001Z has a fraction of a millisecond"},
		{"a set member twice", thing("1", "1", at, []any{"x", "x"}),
			"entity user, row user_id=7: embed things: row id=7 of table public.things: column tags (text[]) as SS: elements 1 and 2 are both \"x\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Render(e.WithChildren(parent, [][][]any{{tc.kid}}))
			var re *RowError
			if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
