package mysql

import (
	"errors"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

const spatialSQL = `
CREATE TABLE places (
  id    int PRIMARY KEY,
  pt    POINT NULL,
  area  POLYGON NULL,
  shape GEOMETRY REF_SYSTEM_ID=4326 NULL,
  gc    GEOMETRYCOLLECTION NULL
);
INSERT INTO places VALUES
 (1, POINT(1.5, -2), ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))'),
  ST_GeomFromText('POINT(0.1 1e20)', 4326), ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))')),
 (2, NULL, NULL, NULL, ST_GeomFromText('GEOMETRYCOLLECTION EMPTY')),
 (3, POINT(0, 0), NULL, ST_GeomFromText('LINESTRING(0 0,1 1)'), NULL);
`

// TestMySQLSpatial: spatial columns are read as the engine's WKT, with the
// SRID in front when it is not 0, never as MySQL's internal bytes; a free
// query that selects the column itself gets an error value.
func TestMySQLSpatial(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, spatialSQL)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "places")
	for _, c := range tab.Columns[1:] {
		if c.Kind != introspect.KindGeometry {
			t.Fatalf("column %s: %+v, want KindGeometry", c.Name, c)
		}
	}
	want := [][]any{
		{int64(1), "POINT(1.5 -2)", "POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))",
			"SRID=4326;POINT(0.1 1e20)", "GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))"},
		{int64(2), nil, nil, nil, "GEOMETRYCOLLECTION EMPTY"},
		{int64(3), "POINT(0 0)", nil, "LINESTRING(0 0,1 1)", nil},
	}
	r := sourcetest.Reader(t, ctx, src)
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(want) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		sourcetest.CheckRow(t, "ScanTable row "+canon.Show(want[i][0]), tab.Columns, rows[i], want[i])
	}

	// Sample reads the same text.
	sampled, err := r.Sample(ctx, tab, []string{"shape"}, "id = 1", 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sampled) != 1 || !canon.Equal(sampled[0][0], "SRID=4326;POINT(0.1 1e20)") {
		t.Errorf("Sample(shape) = %v, want the EWKT of row 1", sampled)
	}

	// A free query that selects the columns themselves gets MySQL's
	// internal bytes: error values, also under a name that is no column
	// (and for POINT(0 0), whose bytes happen to be valid UTF-8). With
	// ST_AsText the query reads the same text as the scan.
	_, got := sourcetest.Query(t, ctx, r, tab, "SELECT id, pt, ST_AsText(area) AS area, shape, gc FROM places WHERE id = 3")
	sourcetest.CheckRow(t, "Query of raw spatial columns", tab.Columns, got[0], []any{
		int64(3), errors.New("spatial value arrives in the engine's binary form, not as text: select ST_AsText(pt) AS pt to read it as WKT"),
		nil, errors.New("spatial value arrives in the engine's binary form, not as text: select ST_AsText(shape) AS shape to read it as WKT"), nil})
	var other []any
	err = r.Query(ctx, "SELECT pt AS somewhere FROM places WHERE id = 3", nil, tab.Column, func(_ []string, row []any) error {
		other = append([]any(nil), row...)
		return nil
	})
	if err != nil || len(other) != 1 || !canon.Equal(other[0], errors.New("spatial value arrives in the engine's binary form, not as text: select ST_AsText(somewhere) AS somewhere to read it as WKT")) {
		t.Errorf("Query of a spatial value under another name = %v, %v; want an error value", other, err)
	}
	_, got = sourcetest.Query(t, ctx, r, tab, "SELECT id, ST_AsText(pt) AS pt, ST_AsText(area) AS area, CONCAT('SRID=', ST_SRID(shape), ';', ST_AsText(shape)) AS shape, ST_AsText(gc) AS gc FROM places WHERE id = 1")
	sourcetest.CheckRow(t, "Query with ST_AsText", tab.Columns, got[0], want[0])

	// The item holds the WKT as S; a NULL geometry is left out.
	plan := sourcetest.CompilePlan(t, ctx, src, `version: 1
table: {name: places, key: {pk: PK}}
entities:
  place: {from: places, pk: "PLACE#{id}"}
`)
	e := plan.Entity("place")
	wantItems := []string{
		`{"L":[{"S":"POINT(1.5 -2)"},{"S":"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))"},{"S":"SRID=4326;POINT(0.1 1e20)"},{"S":"GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))"}]}`,
		`{"L":[{"S":"GEOMETRYCOLLECTION EMPTY"}]}`,
		`{"L":[{"S":"POINT(0 0)"},{"S":"LINESTRING(0 0,1 1)"}]}`,
	}
	for i, row := range rows {
		item, err := e.Render(row)
		if err != nil {
			t.Fatalf("Render(id %v): %v", row[0], err)
		}
		var l []any
		for _, c := range tab.Columns[1:] {
			if av, ok := item[c.Name]; ok {
				l = append(l, sourcetest.AVPlain(av))
			}
		}
		if got := sourcetest.JSONText(t, map[string]any{"L": l}); got != wantItems[i] {
			t.Errorf("item of id %v: spatial attributes %s, want %s", row[0], got, wantItems[i])
		}
	}
}
