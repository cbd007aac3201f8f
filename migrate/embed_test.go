package migrate_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

var crewSQL = map[string]string{
	"postgres": `
CREATE TABLE ships (ship_id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE crew (crew_id int PRIMARY KEY, ship_id int NOT NULL REFERENCES ships, rank int NOT NULL, note text NOT NULL);
`,
	"mysql": `
CREATE TABLE ships (ship_id int PRIMARY KEY, name varchar(20) NOT NULL);
CREATE TABLE crew (crew_id int PRIMARY KEY, ship_id int NOT NULL, rank int NOT NULL, note mediumtext NOT NULL,
  FOREIGN KEY (ship_id) REFERENCES ships (ship_id));
`,
}

// Ship 2's crew notes add up to 450 000 bytes: its item with the crew
// embedded is over 400 KB.
const crewData = `
INSERT INTO ships VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO crew VALUES (1, 1, 2, 'a'), (2, 1, 1, 'b'), (3, 2, 1, REPEAT('x', 150000)), (4, 2, 2, REPEAT('y', 150000)),
 (5, 2, 3, REPEAT('z', 150000)), (6, 2, 4, 'short');
`

const crewMapping = `version: 1
table: {name: ships, key: {pk: PK, sk: SK}}
entities:
  ship:
    from: ships
    pk: "SHIP#{ship_id}"
    sk: FULL
    embed:
      crew: {from: crew, order_by: rank desc, attributes: {include: [crew_id, note]}}
  roster:
    from: ships
    pk: "SHIP#{ship_id}"
    sk: ROSTER
    embed:
      crew: {from: crew, where: "rank <= 2", order_by: rank, attributes: {include: [crew_id]}}
`

// TestEmbedSizeRejectsParent: the size check counts the embedded rows, so
// a ship whose crew makes its item too big is rejected, naming the ship;
// two entities with embeds are read side by side, each with a reader of
// its own for the child rows.
func TestEmbedSizeRejectsParent(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := load(t, eng, crewSQL[eng.Name]+crewData, crewMapping)
			db := newDB(t, testenv.DynamoDB(t))
			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable, o.Readers, o.MaxRejects = true, 4, 5
			o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rejected != 1 || rep.ItemsWritten != 5 {
				t.Fatalf("rejected %d, wrote %d; want 1 and 5", rep.Rejected, rep.ItemsWritten)
			}
			rj := rejectLines(t, o.RejectsPath)
			// 450 000 bytes of notes, the keys and names around them.
			if len(rj) != 1 || rj[0].Entity != "ship" || rj[0].Row != "ship_id=2" ||
				rj[0].Reason != "item is 450127 bytes, over DynamoDB's 409600-byte limit" {
				t.Errorf("rejects: %+v", rj)
			}
			_, per := scan(t, db, table)
			if per["ship"] != 2 || per["roster"] != 3 {
				t.Errorf("items per entity: %v", per)
			}
		})
	}
}

// fleetSQL: 1500 ships with a two-column key, each with a crew of three
// (one rank 3 member left out by the roster's where).
var fleetSQL = map[string]string{
	"postgres": `
CREATE TABLE ships (fleet int, ship_id int, name text NOT NULL, PRIMARY KEY (fleet, ship_id));
CREATE TABLE crew (crew_id int PRIMARY KEY, fleet int NOT NULL, ship_id int NOT NULL, rank int NOT NULL,
  FOREIGN KEY (fleet, ship_id) REFERENCES ships);
INSERT INTO ships SELECT g % 3, g, 'ship ' || g FROM generate_series(1, 1500) g;
INSERT INTO crew SELECT g, (g / 3) % 3, g / 3, g % 3 + 1 FROM generate_series(3, 4502) g;
`,
	"mysql": `
CREATE TABLE ships (fleet int, ship_id int, name varchar(20) NOT NULL, PRIMARY KEY (fleet, ship_id));
CREATE TABLE crew (crew_id int PRIMARY KEY, fleet int NOT NULL, ship_id int NOT NULL, rank int NOT NULL,
  FOREIGN KEY (fleet, ship_id) REFERENCES ships (fleet, ship_id));
CREATE TABLE digits (d int PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE VIEW numbers AS SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d AS n FROM digits a, digits b, digits c, digits e;
INSERT INTO ships SELECT n % 3, n, CONCAT('ship ', n) FROM numbers WHERE n BETWEEN 1 AND 1500;
INSERT INTO crew SELECT n, (n DIV 3) % 3, n DIV 3, n % 3 + 1 FROM numbers WHERE n BETWEEN 3 AND 4502;
DROP VIEW numbers;
DROP TABLE digits;
`,
}

const fleetMapping = `version: 1
table: {name: fleet, key: {pk: PK, sk: SK}}
entities:
  ship:
    from: ships
    pk: "SHIP#{fleet}#{ship_id}"
    sk: FULL
    embed:
      crew: {from: crew, order_by: rank desc, attributes: {include: [crew_id, rank]}}
  roster:
    from: ships
    where: "ship_id % 2 = 0"
    pk: "SHIP#{fleet}#{ship_id}"
    sk: ROSTER
    embed:
      crew: {from: crew, where: "rank <= 2", order_by: rank, attributes: {include: [crew_id]}}
`

// TestEmbedResume: an entity with embedded rows advances its checkpoint
// by its own key (it stayed at its start, so every resume read it all
// again), also split into key ranges (--ranges, which read it whole
// before); the resumed run writes only the parents after the checkpoint
// key, each with all its child rows (read from the same key on), and the
// table ends exact, embedded lists included.
func TestEmbedResume(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for i, eng := range testenv.Engines {
		ranges := 1 + 2*i // one engine splits each entity into key ranges
		t.Run(fmt.Sprintf("%s/ranges=%d", eng.Name, ranges), func(t *testing.T) {
			fx := load(t, eng, fleetSQL[eng.Name], fleetMapping)
			o, db, table, ck := stoppedJob(t, fx, endpoint, ranges)
			var settled int64
			midway := false // an entity not done whose checkpoint moved
			shipRanges := 0
			for _, e := range checkpointOf(t, ck)["entities"].([]any) {
				e := e.(map[string]any)
				if e["name"] == "ship" {
					shipRanges++
				}
				rows, _ := e["rows"].(float64)
				if e["done"] != true && rows > 0 {
					midway = true
					if e["after"] == nil {
						t.Errorf("entity %s: %v rows settled but no key", e["name"], rows)
					}
				}
				settled += int64(rows)
			}
			if shipRanges != ranges {
				t.Errorf("the checkpoint has %d key ranges of entity ship, want %d", shipRanges, ranges)
			}
			if !midway {
				t.Fatalf("no entity with embeds settled part of its rows before the stop:\n%s", readFile(t, ck))
			}
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatal(err)
			}
			checkLanded(t, fx, rep, db, table)
			if rep.Earlier == nil || rep.Earlier.Rows != settled {
				t.Errorf("earlier runs: %+v, want the %d rows the checkpoint settled", rep.Earlier, settled)
			}
			if again := rep.RowsRead - rep.Earlier.Rows; again != fx.total-settled {
				t.Errorf("the resumed run read %d rows again, want the %d after the checkpoint", again, fx.total-settled)
			}
			verifyExact(t, fx, db, table)
		})
	}
}
