package migrate_test

import (
	"path/filepath"
	"testing"

	"github.com/remodel-dev/remodel/internal/testenv"
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
