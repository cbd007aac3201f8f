package verify_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/verify"
)

// TestOracleSeesRevertedFixes plants, in the conversion path migrate and
// verify's rendering share, the silent changes issue 6 fixed, as the old
// code made them: a PostgreSQL box[] split at commas instead of its ';'
// delimiter, and a MySQL spatial value written as its internal bytes forced
// into a string. The rendered item has the same bug, so only the oracle (the
// engine's own JSON rendering of the row) can see it; verify must fail and
// name the attribute.
func TestOracleSeesRevertedFixes(t *testing.T) {
	cases := []struct {
		engine, schema, mapping, attr string
		plant                         func(*mapping.Entity, mapping.ColumnAttribute, types.AttributeValue) types.AttributeValue
	}{
		{"postgres", `CREATE TABLE shapes (id int PRIMARY KEY, boxes box[]);
INSERT INTO shapes VALUES (1, ARRAY['((1,1),(0,0))'::box, '((2,2),(1,1))'::box]), (2, NULL);`,
			"version: 1\ntable: {name: shapes, key: {pk: PK, sk: SK}}\nentities:\n  shape: {from: shapes, pk: \"S#{id}\", sk: \"S#\"}\n", "boxes",
			func(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
				l, ok := av.(*types.AttributeValueMemberL)
				if a.Attr != "boxes" || !ok {
					return av
				}
				var out []types.AttributeValue // the elements split at every comma
				for _, e := range l.Value {
					for _, f := range strings.Split(e.(*types.AttributeValueMemberS).Value, ",") {
						out = append(out, &types.AttributeValueMemberS{Value: f})
					}
				}
				return &types.AttributeValueMemberL{Value: out}
			}},
		{"mysql", `CREATE TABLE places (id int PRIMARY KEY, pt POINT NULL);
INSERT INTO places VALUES (1, POINT(1.5, -2)), (2, NULL);`,
			"version: 1\ntable: {name: places, key: {pk: PK, sk: SK}}\nentities:\n  place: {from: places, pk: \"P#{id}\", sk: \"P#\"}\n", "pt",
			func(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
				if s, ok := av.(*types.AttributeValueMemberS); ok && a.Attr == "pt" && s.Value == "POINT(1.5 -2)" {
					// MySQL's internal form: SRID 0, then WKB, read as text.
					raw := "\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf8?\x00\x00\x00\x00\x00\x00\x00\xc0"
					return &types.AttributeValueMemberS{Value: strings.ToValidUTF8(raw, "\uFFFD")}
				}
				return av
			}},
	}
	for _, c := range cases {
		t.Run(c.engine, func(t *testing.T) {
			var eng = testenv.Engines[0]
			for _, e := range testenv.Engines {
				if e.Name == c.engine {
					eng = e
				}
			}
			restore := mapping.SetConvertHook(c.plant)
			defer restore()
			o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, c.schema, c.mapping)
			rep := run(t, o)
			if rep.OK {
				t.Fatalf("verify passed a migration with the old silent change planted:\n%s", text(rep))
			}
			got := foundIn(rep)
			if len(got) != 1 || got[0].kind != string(verify.KindValueMismatch) || got[0].attr != c.attr || got[0].row != "id=1" {
				t.Fatalf("problems:\n%s\nwant one value mismatch of %s in row id=1\n%s", show(got), c.attr, text(rep))
			}
			restore()
			if rep := run(t, o); rep.OK {
				t.Fatalf("verify passed the changed items with the hook removed:\n%s", text(rep))
			}
		})
	}
}
