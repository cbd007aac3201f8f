package followback_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

const spatialSchema = `
CREATE TABLE places (id int PRIMARY KEY, name text, geom geometry(Point,4326), area geography(Polygon,4326), shape geometry);
INSERT INTO places VALUES
  (1, 'a', 'SRID=4326;POINT(0.1 0.30000000000000004)', 'SRID=4326;POLYGON((0 0,1 0,1 1,0 0))', 'LINESTRING(0 0 1,1 1 2)'),
  (2, 'b', NULL, NULL, 'POINT EMPTY');
`

const spatialMapping = `version: 1
table: {name: places, key: {pk: PK, sk: SK}}
entities:
  place: {from: places, pk: "PLACE#{id}", sk: P}
`

// TestFollowBackSpatial (PostGIS): a spatial value written into an item
// as its EWKT (geometry with a typmod, geography, a geometry of any type
// and SRID, Z coordinates, an empty one) flows back into the column
// through PostGIS's own reading of the text, coordinates exact; updates
// and deletes are guarded by the geometry the row holds. Verify passes.
func TestFollowBackSpatial(t *testing.T) {
	s := newRig(t, testenv.PostGIS(t), spatialSchema, spatialMapping, testenv.ExecPostgres)
	dir := t.TempDir()
	f := start(t, s.options(t, filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")))
	key := func(id string) mapping.Item { return mapping.Item{"PK": str("PLACE#" + id), "SK": str("P")} }
	update := func(id, expr string, vals map[string]types.AttributeValue) {
		t.Helper()
		in := &dynamodb.UpdateItemInput{TableName: aws.String(s.Table), Key: key(id), UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals}
		if strings.Contains(expr, "#n") {
			in.ExpressionAttributeNames = map[string]string{"#n": "name"}
		}
		_, err := s.DB.UpdateItem(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		s.Writes++
	}
	update("1", "SET geom = :g, area = :a, shape = :s", map[string]types.AttributeValue{
		":g": str("SRID=4326;POINT(2.5 -0.0000001)"),
		":a": str("SRID=4326;POLYGON((0 0,2 0,2 2,0 0))"),
		":s": str("SRID=3857;LINESTRING(0 0 1,1 1 2.000000000000001)"),
	})
	update("2", "SET #n = :n", map[string]types.AttributeValue{":n": str("renamed")})
	update("2", "SET shape = :s", map[string]types.AttributeValue{":s": str("GEOMETRYCOLLECTION EMPTY")})
	it, err := s.Plan.Entity("place").Render([]any{int64(3), "c", "SRID=4326;POINT(1 2)", nil, "POLYGON((0 0,1 0,1 1,0 0))"})
	if err != nil {
		t.Fatal(err)
	}
	s.Put(t, it)
	f.waitFor(t, s.Writes)
	f.stop()
	if f.err != nil || !f.rep.OK || f.rep.DeadLetters != 0 {
		t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
	}
	s.checkExact(t)
	for q, want := range map[string]int64{
		`SELECT count(*) FROM places WHERE id = 1 AND ST_AsEWKT(geom, 100) = 'SRID=4326;POINT(2.5 -0.0000001)'
		   AND ST_AsEWKT(area, 100) = 'SRID=4326;POLYGON((0 0,2 0,2 2,0 0))' AND ST_AsEWKT(shape, 100) = 'SRID=3857;LINESTRING(0 0 1,1 1 2.000000000000001)'`: 1,
		`SELECT count(*) FROM places WHERE id = 2 AND name = 'renamed' AND ST_AsEWKT(shape) = 'GEOMETRYCOLLECTION EMPTY'`:                           1,
		`SELECT count(*) FROM places WHERE id = 3 AND ST_AsEWKT(geom) = 'SRID=4326;POINT(1 2)' AND ST_AsEWKT(shape) = 'POLYGON((0 0,1 0,1 1,0 0))'`: 1,
	} {
		if got := count(t, s, q); got != want {
			t.Errorf("%s: %d rows, want %d", q, got, want)
		}
	}
}
