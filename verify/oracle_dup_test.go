package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

func TestParseDocument(t *testing.T) {
	for _, tc := range []struct {
		in, dup, err string
		want         string // jsonText of the document, when it parses
	}{
		{in: `{"a":1,"b":[1,{"c":-0.50}]}`, want: `{"a":1,"b":[1,{"c":-0.50}]}`},
		{in: `null`, want: `null`},
		{in: `{"a":1,"a":2}`, dup: `$.a`},
		{in: `{"x":[{"k":true},{"k_2":1,"k_2":1}]}`, dup: `$.x[1].k_2`},
		{in: `{"o":{"a b":1,"a b":2}}`, dup: `$.o["a b"]`},
		{in: `{"":1,"":2}`, dup: `$[""]`},
		{in: `{"2x":{},"2x":{}}`, dup: `$["2x"]`},
		{in: `{"a":1} {}`, err: "data after the document"},
		{in: `{"a":`, err: "EOF"},
	} {
		doc, dup, err := parseDocument(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseDocument(%s): error %v, want one saying %q", tc.in, err, tc.err)
			}
		case dup != tc.dup || err != nil:
			t.Errorf("parseDocument(%s): duplicate %q, error %v; want %q", tc.in, dup, err, tc.dup)
		case tc.dup == "" && jsonText(doc) != tc.want:
			t.Errorf("parseDocument(%s) = %s, want %s", tc.in, jsonText(doc), tc.want)
		}
	}
	if _, _, err := parseDocument(map[string]any{"a": 1}); err == nil {
		t.Error("parseDocument took a parsed object for a document's text")
	}
}

// TestOracleSeesRepeatedJSONKeys: a JSON document with a key twice cannot
// be stored as a map, so migrate rejects its row; if that rejection
// regressed into keeping one of the values (as the engines' own JSON
// functions do), migrate and verify's rendering would share the bug, and
// only the oracle could see it. On each engine, the item query must hand
// the oracle the document's text with both keys, and the oracle must
// report an item holding either value, while a document without a repeated
// key is compared as before.
func TestOracleSeesRepeatedJSONKeys(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, `CREATE TABLE docs (id int PRIMARY KEY, doc json NULL);
INSERT INTO docs VALUES (1, '{"a": 1, "a": 2}'), (2, '{"a": 1, "b": {"c": [1, 2]}}'), (3, 'null'), (4, NULL);`)
			rows := map[string]rowJSON{}
			var q *itemQuery
			ncols := 0
			oracleRows(t, dsn, "version: 1\ntable: {name: docs, key: {pk: PK, sk: SK}}\nentities:\n  doc: {from: docs, pk: \"D#{id}\", sk: \"D#\"}\n",
				func(iq *itemQuery, e *mapping.Entity, row []any, js rowJSON) {
					q, ncols = iq, len(row)
					rows[e.SourceKey(row)] = js
				})
			num := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
			doc := func(kv map[string]types.AttributeValue) mapping.Item {
				return mapping.Item{"doc": &types.AttributeValueMemberM{Value: kv}}
			}
			noDoc := mapping.Item{}
			nested := doc(map[string]types.AttributeValue{"a": num("1"), "b": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"c": &types.AttributeValueMemberL{Value: []types.AttributeValue{num("1"), num("2")}}}}})
			for _, tc := range []struct {
				row  string
				item mapping.Item
				want string // a word of the finding's note or "differ"; "" for none
			}{
				{"id=1", doc(map[string]types.AttributeValue{"a": num("2")}), "the key $.a twice"},
				{"id=1", doc(map[string]types.AttributeValue{"a": num("1")}), "the key $.a twice"},
				{"id=2", nested, ""},
				{"id=2", doc(map[string]types.AttributeValue{"a": num("1")}), "differ"},
				{"id=3", mapping.Item{"doc": &types.AttributeValueMemberNULL{Value: true}}, ""},
				{"id=3", noDoc, "differ"},
				{"id=4", noDoc, ""},
			} {
				js, ok := rows[tc.row]
				if !ok {
					t.Fatalf("no row %s in %v", tc.row, rows)
				}
				row := make([]any, ncols)
				if tc.row != "id=4" {
					row[1] = "not NULL" // only whether the column is NULL is read
				}
				// The id attribute is the oracle's too; it is not what this test is about.
				got := q.oracle.check(js, row, tc.item, map[string]bool{"id": true})
				switch {
				case tc.want == "" && len(got) != 0:
					t.Errorf("%s with %v: findings %+v, want none", tc.row, av.Text(tc.item["doc"]), got)
				case tc.want == "differ" && (len(got) != 1 || got[0].note != ""):
					t.Errorf("%s with %v: findings %+v, want one difference", tc.row, av.Text(tc.item["doc"]), got)
				case tc.want != "" && tc.want != "differ" && (len(got) != 1 || !strings.Contains(got[0].note, tc.want)):
					t.Errorf("%s with %v: findings %+v, want one saying %q", tc.row, av.Text(tc.item["doc"]), got, tc.want)
				}
			}
		})
	}
}

// TestOracleSeesInvalidText: text that is not UTF-8 (a PostgreSQL SQL_ASCII
// database) cannot be an S, so migrate rejects its row; had that regressed
// into replacing each bad byte with U+FFFD, migrate and verify's rendering
// would agree, and a JSON decoder reading the engine's rendering would
// make the same replacement. The oracle must report the column instead,
// and still compare the row's other columns and valid rows as before.
func TestOracleSeesInvalidText(t *testing.T) {
	dsn := testenv.PostgresWith(t, "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	testenv.ExecPostgres(t, dsn, `CREATE TABLE words (id int PRIMARY KEY, note text, n int);
INSERT INTO words VALUES (1, E'caf\xe9', 7), (2, 'café', 8);`)
	var got []string
	oracleRows(t, dsn, "version: 1\ntable: {name: words, key: {pk: PK}}\nentities:\n  word: {from: words, pk: \"W#{id}\"}\n",
		func(q *itemQuery, e *mapping.Entity, row []any, js rowJSON) {
			id := e.SourceKey(row)
			note := map[string]string{"id=1": "caf\uFFFD", "id=2": "café"}[id]
			n := map[string]string{"id=1": "7", "id=2": "9"}[id] // row 2's n differs
			item := mapping.Item{"id": &types.AttributeValueMemberN{Value: id[3:]}, "note": &types.AttributeValueMemberS{Value: note}, "n": &types.AttributeValueMemberN{Value: n}}
			for _, f := range q.oracle.check(js, []any{1, "x", 1}, item, nil) {
				got = append(got, id+" "+f.attr+" want "+f.want+" "+f.note)
			}
		})
	want := []string{
		`id=1 note want "caf\xe9" the source's value is not UTF-8 text: no S holds it, so the row should have been rejected (or the column typed B)`,
		"id=2 n want 8 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// oracleRows runs the item query of the mapping's first entity on the
// database at dsn, and calls fn with the query and each row: its decoded
// columns and the engine's JSON rendering as the oracle reads it.
func oracleRows(t *testing.T, dsn, mappingText string, fn func(q *itemQuery, e *mapping.Entity, row []any, js rowJSON)) {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := mapping.Parse("mapping.yaml", []byte(mappingText))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	e := plan.Entities[0]
	q := newItemQuery(src.Engine(), e)
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	ncols := len(e.Table.Columns)
	err = snap.Readers()[0].Query(ctx, q.sql, nil, q.kindOf, func(_ []string, vals []any) error {
		js, err := parseRowJSON(vals[ncols])
		if err != nil {
			return err
		}
		fn(q, e, vals[:ncols], js)
		return nil
	})
	if err != nil {
		t.Fatalf("item query %s: %v", q.sql, err)
	}
}

// TestOracleRepeatedKeyKeptAsText: a column typed JSON keeps the engine's
// text, so a document holding a key twice is stored whole; the oracle
// checks the stored text is that document's, and reports another.
func TestOracleRepeatedKeyKeptAsText(t *testing.T) {
	col := &introspect.Column{Name: "doc", Type: "json", Kind: introspect.KindJSON}
	o := &oracle{engine: introspect.Postgres, keys: []string{"doc"}, raw: []bool{true},
		attrs: []mapping.ColumnAttribute{{Attr: "doc", Column: col, Index: 0, Type: mapping.TypeJSON}}}
	const text = `{"a": 1, "a": 2}`
	js := rowJSON{"doc": text}
	for _, tc := range []struct {
		stored types.AttributeValue
		bad    bool
	}{
		{&types.AttributeValueMemberS{Value: text}, false},
		{&types.AttributeValueMemberS{Value: `{"a": 2}`}, true},
		{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberN{Value: "2"}}}, true},
		{nil, true},
	} {
		item := mapping.Item{}
		if tc.stored != nil {
			item["doc"] = tc.stored
		}
		if got := o.check(js, []any{"not NULL"}, item, nil); (len(got) != 0) != tc.bad {
			t.Errorf("stored %s: findings %+v, want bad %v", av.Text(tc.stored), got, tc.bad)
		}
	}
}
