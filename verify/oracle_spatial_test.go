package verify_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// spatialEngines are the sources of the spatial suite: PostGIS (a database
// of its own with the extension) and MariaDB.
var spatialEngines = []struct {
	name  string
	fresh func(testing.TB) string
	exec  func(testing.TB, string, string)
	sql   string
}{
	{"postgis", testenv.PostGIS, testenv.ExecPostgres, `
CREATE TABLE places (id int PRIMARY KEY, pt geometry(Point,4326), area geometry, geo geography, shape geometry);
INSERT INTO places VALUES
 (1, 'SRID=4326;POINT(0.1 0.30000000000000004)', 'POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))',
  'POINT(-71.06 42.36)', 'SRID=3857;LINESTRING Z (0 0 1,1 1 2)'),
 (2, NULL, NULL, NULL, NULL),
 (3, 'SRID=4326;POINT EMPTY', 'GEOMETRYCOLLECTION EMPTY', 'SRID=4269;MULTIPOINT((1 2),(3 4))',
  'GEOMETRYCOLLECTION(POINT(1e20 1.2345678901234567e-10),LINESTRING(0 0,1 1))');
`},
	{"mysql", testenv.MySQL, testenv.ExecMySQL, `
CREATE TABLE places (id int PRIMARY KEY, pt POINT NULL, area POLYGON NULL, geo GEOMETRY REF_SYSTEM_ID=4326 NULL, shape GEOMETRY NULL);
INSERT INTO places VALUES
 (1, POINT(0.1, 0.30000000000000004), ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))'),
  ST_GeomFromText('POINT(-71.06 42.36)', 4326), ST_GeomFromText('LINESTRING(0 0,1 1)', 3857)),
 (2, NULL, NULL, NULL, NULL),
 (3, POINT(0, 0), NULL, ST_GeomFromText('MULTIPOINT(1 2,3 4)', 4269),
  ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1e20 1.2345678901234567e-10),LINESTRING(0 0,1 1))'));
`},
}

// spatialMapping maps the places three times: WKT (no type), B and M.
const spatialMapping = `version: 1
table: {name: places, key: {pk: PK}}
entities:
  wkt: {from: places, pk: "W#{id}"}
  bin:
    from: places
    pk: "B#{id}"
    attributes: {types: {pt: B, area: B, geo: B, shape: B}}
  geo:
    from: places
    pk: "G#{id}"
    attributes: {types: {pt: M, area: M, geo: M, shape: M}}
`

// spatialWant is each stored spatial attribute, by item key, as fullText
// writes it; an attribute not listed must be left out.
var spatialWant = map[string]map[string]string{
	"postgis": {
		"W#1 pt":    `S "SRID=4326;POINT(0.1 0.30000000000000004)"`,
		"W#1 area":  `S "POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))"`,
		"W#1 geo":   `S "SRID=4326;POINT(-71.06 42.36)"`,
		"W#1 shape": `S "SRID=3857;LINESTRING(0 0 1,1 1 2)"`,
		"W#3 pt":    `S "SRID=4326;POINT EMPTY"`,
		"W#3 area":  `S "GEOMETRYCOLLECTION EMPTY"`,
		"W#3 geo":   `S "SRID=4269;MULTIPOINT(1 2,3 4)"`,
		"W#3 shape": `S "GEOMETRYCOLLECTION(POINT(1e+20 1.2345678901234568e-10),LINESTRING(0 0,1 1))"`,
		// EWKB: little-endian, the SRID flag 0x20000000 and the SRID after the type.
		"B#1 pt":    "B 0101000020e6100000" + "9a9999999999b93f" + "343333333333d33f",
		"B#1 area":  "B 01030000000200000005000000000000000000000000000000000000000000000000002440000000000000000000000000000024400000000000002440000000000000000000000000000024400000000000000000000000000000000004000000000000000000f03f000000000000f03f0000000000000040000000000000f03f00000000000000400000000000000040000000000000f03f000000000000f03f",
		"B#1 geo":   "B 0101000020e6100000" + "a4703d0ad7c351c0" + "ae47e17a142e4540",
		"B#1 shape": "B 01020000a0110f00000200000000000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f0000000000000040",
		"B#3 pt":    "B 0101000020e6100000000000000000f87f000000000000f87f",
		"B#3 area":  "B 010700000000000000",
		"B#3 geo":   "B 0104000020ad100000020000000101000000000000000000f03f0000000000000040010100000000000000000008400000000000001040",
		"B#3 shape": "B 0107000000020000000101000000" + "408cb5781daf1544" + "8b53e2e5bff7e03d" + "01020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f",
		"G#1 pt":    `M {coordinates: L [N 0.1, N 0.30000000000000004], crs: M {properties: M {name: S "EPSG:4326"}, type: S "name"}, type: S "Point"}`,
		"G#1 area":  `M {coordinates: L [L [L [N 0, N 0], L [N 10, N 0], L [N 10, N 10], L [N 0, N 10], L [N 0, N 0]], L [L [N 1, N 1], L [N 2, N 1], L [N 2, N 2], L [N 1, N 1]]], type: S "Polygon"}`,
		"G#1 geo":   `M {coordinates: L [N -71.06, N 42.36], crs: M {properties: M {name: S "EPSG:4326"}, type: S "name"}, type: S "Point"}`,
		"G#1 shape": `M {coordinates: L [L [N 0, N 0, N 1], L [N 1, N 1, N 2]], crs: M {properties: M {name: S "EPSG:3857"}, type: S "name"}, type: S "LineString"}`,
		"G#3 pt":    `M {coordinates: L [], crs: M {properties: M {name: S "EPSG:4326"}, type: S "name"}, type: S "Point"}`,
		"G#3 area":  `M {geometries: L [], type: S "GeometryCollection"}`,
		"G#3 geo":   `M {coordinates: L [L [N 1, N 2], L [N 3, N 4]], crs: M {properties: M {name: S "EPSG:4269"}, type: S "name"}, type: S "MultiPoint"}`,
		"G#3 shape": `M {geometries: L [M {coordinates: L [N 100000000000000000000, N 0.00000000012345678901234568], type: S "Point"}, M {coordinates: L [L [N 0, N 0], L [N 1, N 1]], type: S "LineString"}], type: S "GeometryCollection"}`,
	},
	"mysql": {
		"W#1 pt":    `S "POINT(0.1 0.30000000000000004)"`,
		"W#1 area":  `S "POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1))"`,
		"W#1 geo":   `S "SRID=4326;POINT(-71.06 42.36)"`,
		"W#1 shape": `S "SRID=3857;LINESTRING(0 0,1 1)"`,
		"W#3 pt":    `S "POINT(0 0)"`,
		"W#3 geo":   `S "SRID=4269;MULTIPOINT(1 2,3 4)"`,
		"W#3 shape": `S "GEOMETRYCOLLECTION(POINT(1e20 0.00000000012345678901234568),LINESTRING(0 0,1 1))"`,
		"B#1 pt":    "B 0101000000" + "9a9999999999b93f" + "343333333333d33f",
		"B#1 area":  "B 01030000000200000005000000000000000000000000000000000000000000000000002440000000000000000000000000000024400000000000002440000000000000000000000000000024400000000000000000000000000000000004000000000000000000f03f000000000000f03f0000000000000040000000000000f03f00000000000000400000000000000040000000000000f03f000000000000f03f",
		"B#1 geo":   "B 0101000020e6100000" + "a4703d0ad7c351c0" + "ae47e17a142e4540",
		"B#1 shape": "B 0102000020110f00000200000000000000000000000000000000000000000000000000f03f000000000000f03f",
		"B#3 pt":    "B 010100000000000000000000000000000000000000",
		"B#3 geo":   "B 0104000020ad100000020000000101000000000000000000f03f0000000000000040010100000000000000000008400000000000001040",
		"B#3 shape": "B 0107000000020000000101000000" + "408cb5781daf1544" + "8b53e2e5bff7e03d" + "01020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f",
		"G#1 pt":    `M {coordinates: L [N 0.1, N 0.30000000000000004], type: S "Point"}`,
		"G#1 area":  `M {coordinates: L [L [L [N 0, N 0], L [N 10, N 0], L [N 10, N 10], L [N 0, N 10], L [N 0, N 0]], L [L [N 1, N 1], L [N 2, N 1], L [N 2, N 2], L [N 1, N 1]]], type: S "Polygon"}`,
		"G#1 geo":   `M {coordinates: L [N -71.06, N 42.36], crs: M {properties: M {name: S "EPSG:4326"}, type: S "name"}, type: S "Point"}`,
		"G#1 shape": `M {coordinates: L [L [N 0, N 0], L [N 1, N 1]], crs: M {properties: M {name: S "EPSG:3857"}, type: S "name"}, type: S "LineString"}`,
		"G#3 pt":    `M {coordinates: L [N 0, N 0], type: S "Point"}`,
		"G#3 geo":   `M {coordinates: L [L [N 1, N 2], L [N 3, N 4]], crs: M {properties: M {name: S "EPSG:4269"}, type: S "name"}, type: S "MultiPoint"}`,
		"G#3 shape": `M {geometries: L [M {coordinates: L [N 100000000000000000000, N 0.00000000012345678901234568], type: S "Point"}, M {coordinates: L [L [N 0, N 0], L [N 1, N 1]], type: S "LineString"}], type: S "GeometryCollection"}`,
	},
}

// fullText renders an attribute value whole (verify.Text cuts long ones):
// maps with sorted keys, binary in hex, numbers as stored.
func fullText(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S %q", x.Value)
	case *types.AttributeValueMemberN:
		return "N " + x.Value
	case *types.AttributeValueMemberB:
		return "B " + hex.EncodeToString(x.Value)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			parts[i] = fullText(e)
		}
		return "L [" + strings.Join(parts, ", ") + "]"
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(x.Value))
		for k := range x.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + fullText(x.Value[k])
		}
		return "M {" + strings.Join(parts, ", ") + "}"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", av)
}

// migrateSpatial loads the engine's places and migrates them with
// spatialMapping.
func migrateSpatial(t *testing.T, i int) verify.Options {
	t.Helper()
	eng := spatialEngines[i]
	ctx := context.Background()
	dsn := eng.fresh(t)
	eng.exec(t, dsn, eng.sql)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compileWithQueries(t, src, spatialMapping)
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if rep.ItemsWritten != 9 || rep.Rejected != 0 {
		t.Fatalf("migrate wrote %d items and rejected %d rows: %+v", rep.ItemsWritten, rep.Rejected, rep.Rejections)
	}
	return verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 100}
}

// TestSpatialAttributes: PostGIS geometry and geography columns (typmod
// forms, SRID 0 and not, Z, empty geometries, NULL) and MariaDB spatial
// columns are stored as EWKT text by default, as (E)WKB typed B and as
// GeoJSON maps typed M, every coordinate exact; verify passes that, and a
// conversion bug planted in each form on each engine is found by the
// oracle, which reads the engine's own renderings of the column.
func TestSpatialAttributes(t *testing.T) {
	for i, eng := range spatialEngines {
		t.Run(eng.name, func(t *testing.T) {
			t.Run("stored as documented, verify passes", func(t *testing.T) {
				o := migrateSpatial(t, i)
				out, err := o.DB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(o.Table)})
				if err != nil {
					t.Fatal(err)
				}
				want := spatialWant[eng.name]
				got := map[string]string{}
				for _, it := range out.Items {
					pk := av.KeyText(it["PK"])
					for _, col := range []string{"pt", "area", "geo", "shape"} {
						if av, ok := it[col]; ok {
							got[pk+" "+col] = fullText(av)
						}
					}
				}
				for _, k := range slices.Sorted(maps.Keys(want)) {
					if got[k] != want[k] {
						t.Errorf("%s is\n  %s\nwant\n  %s", k, got[k], want[k])
					}
				}
				for k, v := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("%s is %s, want it left out", k, v)
					}
				}
				rep := run(t, o)
				if !rep.OK || len(rep.Items) != 3 {
					t.Fatalf("verify did not pass the faithful migration:\n%s", text(rep))
				}
				for _, it := range rep.Items {
					if it.Compared != 3 {
						t.Fatalf("verify compared %d items of %s, want 3:\n%s", it.Compared, it.Entity, text(rep))
					}
				}
			})

			t.Run("planted bugs in each spatial form", func(t *testing.T) {
				restore := mapping.SetConvertHook(plantSpatial)
				defer restore()
				o := migrateSpatial(t, i)
				rep := run(t, o)
				var got []string
				for _, it := range rep.Items {
					for _, p := range it.Problems.List {
						if p.Kind != verify.KindValueMismatch {
							t.Errorf("a %s problem: %s", p.Kind, p.Message)
						}
						got = append(got, it.Entity+" "+p.SourceKey+" "+p.Attribute)
					}
				}
				sort.Strings(got)
				want := []string{"bin id=1 geo", "geo id=1 area", "geo id=3 geo", "wkt id=1 pt"}
				if !slices.Equal(got, want) {
					t.Fatalf("problems %q\nwant %q\n%s", got, want, text(rep))
				}
			})
		})
	}
}

// plantSpatial is a bug in each spatial form: WKT with 15 significant
// digits (PostGIS's default), WKB read in the wrong byte order, a GeoJSON
// polygon that lost its hole, a GeoJSON crs dropped.
func plantSpatial(e *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		if a.Attr == "pt" && strings.Contains(x.Value, "0.30000000000000004") {
			return &types.AttributeValueMemberS{Value: strings.Replace(x.Value, "0.30000000000000004", "0.3", 1)}
		}
	case *types.AttributeValueMemberB:
		if a.Attr == "geo" && len(x.Value) == 25 { // row 1's point with its SRID
			b := slices.Clone(x.Value)
			b[9], b[16] = b[16], b[9]
			return &types.AttributeValueMemberB{Value: b}
		}
	case *types.AttributeValueMemberM:
		coords, _ := x.Value["coordinates"].(*types.AttributeValueMemberL)
		switch {
		case a.Attr == "area" && coords != nil && len(coords.Value) == 2:
			m := maps.Clone(x.Value)
			m["coordinates"] = &types.AttributeValueMemberL{Value: coords.Value[:1]}
			return &types.AttributeValueMemberM{Value: m}
		case a.Attr == "geo" && coords != nil && len(coords.Value) == 2 && x.Value["crs"] != nil:
			if _, multi := coords.Value[0].(*types.AttributeValueMemberL); multi {
				m := maps.Clone(x.Value)
				delete(m, "crs")
				return &types.AttributeValueMemberM{Value: m}
			}
		}
	}
	return av
}

// TestSpatialRejects (PostGIS): introspect names the typmod forms; a value
// GeoJSON has no form for (a curve, M coordinates, a polyhedral surface)
// rejects its row when typed M, and so does an array of geometries, each
// with its reason, while the other rows are written; an embed refuses M on
// a spatial column, which it would not read as GeoJSON.
func TestSpatialRejects(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.PostGIS(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE odd (id int PRIMARY KEY, c geometry, a geometry[], p geography(Polygon,4326));
INSERT INTO odd VALUES
 (1, 'CIRCULARSTRING(0 0,1 1,2 0)', NULL, NULL),
 (2, 'POINT M (1 2 3)', NULL, NULL),
 (3, NULL, ARRAY['POINT(1 2)'::geometry], NULL),
 (4, 'POINT(1 2)', NULL, 'POLYGON((0 0,1 0,1 1,0 0))'),
 (5, 'POLYHEDRALSURFACE(((0 0 0,0 0 1,0 1 1,0 1 0,0 0 0)))', NULL, NULL),
 (6, 'GEOMETRYCOLLECTION(POINT(1 1),COMPOUNDCURVE((0 0,1 1)))', NULL, NULL);
CREATE TABLE kid (id int PRIMARY KEY, odd_id int REFERENCES odd, g geometry);
`)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	odd, err := schema.Table("odd")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range odd.Columns {
		cols = append(cols, c.Name+" "+c.Type+" "+string(c.Kind)+" "+string(c.Elem))
	}
	if want := []string{"id integer int ", "c geometry geometry ", "a geometry[] array geometry", "p geography(Polygon,4326) geometry "}; !slices.Equal(cols, want) {
		t.Errorf("introspect: %q\nwant %q", cols, want)
	}

	plan := compileWithQueries(t, src, `version: 1
table: {name: odd, key: {pk: PK}}
entities:
  odd: {from: odd, pk: "O#{id}", attributes: {types: {c: M, p: M}}}
`)
	db, table := testenv.DynamoDBTable(t)
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true, MaxRejects: 10})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	var got []string
	for _, r := range rep.Rejections {
		got = append(got, r.Row+": "+r.Reason)
	}
	noForm := "has no GeoJSON form (GeoJSON has no curves, TINs, polyhedral surfaces or M coordinates): type it S (WKT) or B (WKB)"
	want := []string{
		"id=1: column c (geometry) as M: a spatial value of type CIRCULARSTRING " + noForm,
		"id=2: column c (geometry) as M: a spatial value of type POINTM " + noForm,
		"id=3: column a (geometry[]): an array of spatial values is not read (PostgreSQL writes its elements as hex EWKB): leave the column out (attributes.exclude) or select ST_AsEWKT of each element in a query entity",
		"id=5: column c (geometry) as M: a spatial value of type POLYHEDRALSURFACE " + noForm,
		"id=6: column c (geometry) as M: a spatial value of type GEOMETRYCOLLECTION " + noForm,
	}
	if rep.ItemsWritten != 1 || !slices.Equal(got, want) {
		t.Fatalf("migrate wrote %d items (want 1), rejected:\n%s\nwant:\n%s", rep.ItemsWritten, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "O#4"}}})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := fullText(out.Item["p"]), `M {coordinates: L [L [L [N 0, N 0], L [N 1, N 0], L [N 1, N 1], L [N 0, N 0]]], crs: M {properties: M {name: S "EPSG:4326"}, type: S "name"}, type: S "Polygon"}`; g != w {
		t.Errorf("geography(Polygon,4326) as M is %s, want %s", g, w)
	}

	f, err := mapping.Parse("embed.yaml", []byte(`version: 1
table: {name: odd, key: {pk: PK}}
entities:
  odd:
    from: odd
    pk: "O#{id}"
    embed:
      kids: {from: kid, on: [odd_id], attributes: {types: {g: M}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = mapping.Compile(f, schema)
	if err == nil || !strings.Contains(err.Error(), "type M of column g, which is geometry, needs the column read as GeoJSON, which an embed does not do") {
		t.Errorf("an embed's M on a spatial column: %v", err)
	}
}

// TestSpatialEmbed (PostGIS): an embedded geometry column is stored as its
// exact EWKT and verify passes it (its aggregate of the child rows renders
// the column as EWKT, not as to_jsonb's GeoJSON cut to 9 digits, or hex
// EWKB for geography), and finds a coordinate cut in the stored item.
func TestSpatialEmbed(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.PostGIS(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE p (id int PRIMARY KEY);
CREATE TABLE kid (id int PRIMARY KEY, p_id int REFERENCES p, g geometry, h geography);
INSERT INTO p VALUES (1), (2);
INSERT INTO kid VALUES (1, 1, 'SRID=4326;POINT(0.1 0.30000000000000004)', 'POINT(1.5 2.123456789012)'),
 (2, 1, NULL, NULL), (3, 2, 'POLYGON EMPTY', 'LINESTRING(0 0,1 1)');
`)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	plan := compileWithQueries(t, src, `version: 1
table: {name: parents, key: {pk: PK}}
entities:
  p:
    from: p
    pk: "P#{id}"
    embed:
      kids: {from: kid, on: [p_id], order_by: [id]}
`)
	for _, planted := range []bool{false, true} {
		db, table := testenv.DynamoDBTable(t)
		rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
		if err != nil || rep.ItemsWritten != 2 {
			t.Fatalf("migrate: %v, %+v", err, rep)
		}
		key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "P#1"}}
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		want := `L [M {g: S "SRID=4326;POINT(0.1 0.30000000000000004)", h: S "SRID=4326;POINT(1.5 2.123456789012)", id: N 1}, M {id: N 2}]`
		if g := fullText(out.Item["kids"]); g != want {
			t.Errorf("kids of P#1: %s\nwant %s", g, want)
		}
		if planted { // the item as a conversion with 12 significant digits would have written it
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
				UpdateExpression:          aws.String("SET kids[0].h = :h"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":h": &types.AttributeValueMemberS{Value: "SRID=4326;POINT(1.5 2.12345678901)"}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		vrep := run(t, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 100})
		if vrep.OK == planted {
			t.Errorf("verify OK %v with planted %v:\n%s", vrep.OK, planted, text(vrep))
		}
	}
}
