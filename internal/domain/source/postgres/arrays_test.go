package postgres

import (
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

const arrayShapesSQL = `
CREATE TABLE shapes (
  id    integer PRIMARY KEY,
  boxes box[],
  grid  integer[],
  tags  text[]
);
INSERT INTO shapes VALUES
 (1, ARRAY['(1,1),(0,0)'::box, NULL, '(3,3),(2,2)'], '{{1,2},{3,4}}', '{a,"b;c"}'),
 (2, '{{"(1,1),(0,0)";"(2,2),(1,1)"};{"(5,5),(4,4)";"(3,3),(2,2)"}}', '{{{1}},{{2}}}', '{}'),
 (3, '[0:1]={"(1,1),(0,0)";"(2,2),(1,1)"}', '[0:2]={7,8,9}', '[1:1][0:1]={{x,y}}'),
 (4, '{}', '[1:2]={7,8}', NULL);
`

// TestPostgresArrayShapes: box[] (elements separated by ';'), arrays of
// several dimensions and arrays that do not start at 1, read from
// PostgreSQL and converted to attribute values.
func TestPostgresArrayShapes(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, arrayShapesSQL)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "shapes")
	if c := tab.Column("boxes"); c.Kind != introspect.KindArray || c.Delim != ";" {
		t.Fatalf("boxes: %+v, want an array with delimiter ;", c)
	}
	if c := tab.Column("grid"); c.Delim != "" {
		t.Fatalf("grid: %+v, want the default delimiter", c)
	}

	bounds := func(b string) error {
		return &boundsError{b}
	}
	want := [][]any{
		{int64(1), []any{"(1,1),(0,0)", nil, "(3,3),(2,2)"},
			[]any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}, []any{"a", "b;c"}},
		{int64(2), []any{[]any{"(1,1),(0,0)", "(2,2),(1,1)"}, []any{"(5,5),(4,4)", "(3,3),(2,2)"}},
			[]any{[]any{[]any{int64(1)}}, []any{[]any{int64(2)}}}, []any{}},
		{int64(3), bounds("[0:1]"), bounds("[0:2]"), bounds("[1:1][0:1]")},
		{int64(4), []any{}, []any{int64(7), int64(8)}, nil},
	}
	r := sourcetest.Reader(t, ctx, src)
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(want) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		sourcetest.CheckRow(t, "ScanTable row "+canon.Show(want[i][0]), tab.Columns, rows[i], want[i])
	}
	_, got := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM shapes ORDER BY id")
	sourcetest.CheckSameRows(t, "Query vs ScanTable", tab.Columns, got, rows)

	// What mapping makes of them: a list per dimension, NULL elements kept;
	// the arrays that do not start at 1 are errors naming their bounds.
	wantAV := map[string][]string{
		"boxes": {`{"L":[{"S":"(1,1),(0,0)"},{"NULL":true},{"S":"(3,3),(2,2)"}]}`,
			`{"L":[{"L":[{"S":"(1,1),(0,0)"},{"S":"(2,2),(1,1)"}]},{"L":[{"S":"(5,5),(4,4)"},{"S":"(3,3),(2,2)"}]}]}`,
			"error: array bounds [0:1] do not start at 1: a list cannot say where it starts", `{"L":[]}`},
		"grid": {`{"L":[{"L":[{"N":"1"},{"N":"2"}]},{"L":[{"N":"3"},{"N":"4"}]}]}`,
			`{"L":[{"L":[{"L":[{"N":"1"}]}]},{"L":[{"L":[{"N":"2"}]}]}]}`,
			"error: array bounds [0:2] do not start at 1: a list cannot say where it starts", `{"L":[{"N":"7"},{"N":"8"}]}`},
		"tags": {`{"L":[{"S":"a"},{"S":"b;c"}]}`, `{"L":[]}`,
			"error: array bounds [1:1][0:1] do not start at 1: a list cannot say where it starts", "<nil>"},
	}
	for i, c := range tab.Columns[1:] {
		for j, row := range rows {
			av, err := mapping.Convert(c, row[i+1])
			got := sourcetest.AVJSON(t, av)
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != wantAV[c.Name][j] {
				t.Errorf("Convert(%s of row %d) = %s, want %s", c.Name, j+1, got, wantAV[c.Name][j])
			}
		}
	}

	// The row that does not start at 1 is rejected, naming the column and
	// its bounds; the others become items.
	plan := sourcetest.CompilePlan(t, ctx, src, `version: 1
table: {name: shapes, key: {pk: PK}}
entities:
  shape: {from: shapes, pk: "SHAPE#{id}"}
`)
	e := plan.Entity("shape")
	for _, row := range rows {
		item, err := e.Render(row)
		if row[0] != int64(3) {
			if err != nil {
				t.Errorf("Render(id %v): %v", row[0], err)
			}
			continue
		}
		const reason = "column boxes (box[]): array bounds [0:1] do not start at 1: a list cannot say where it starts"
		re, ok := err.(*mapping.RowError)
		if !ok || re.Key != "id=3" || re.Reason != reason {
			t.Errorf("Render(id 3) = %v, %v; want the row rejected: %s", item, err, reason)
		}
	}
}

// boundsError is the error value an array that does not start at 1
// decodes to.
type boundsError struct{ bounds string }

func (e *boundsError) Error() string {
	return "array bounds " + e.bounds + " do not start at 1: a list cannot say where it starts"
}
