package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// playersSQL: players and the servers each first connected to (child rows
// with a foreign key), a player without servers, and a player excluded by
// the entity's where whose servers must not be embedded anywhere.
var playersSQL = map[string]string{
	"postgres": `
CREATE TABLE players (player_id int PRIMARY KEY, name text NOT NULL, banned boolean NOT NULL DEFAULT false);
CREATE TABLE servers (
  player_id int NOT NULL REFERENCES players, server_id varchar(10) NOT NULL, region text NOT NULL,
  first_at timestamp(3) NOT NULL, level numeric(6,2), note text,
  PRIMARY KEY (player_id, server_id));
`,
	"mysql": `
CREATE TABLE players (player_id int PRIMARY KEY, name varchar(50) NOT NULL, banned boolean NOT NULL DEFAULT false);
CREATE TABLE servers (
  player_id int NOT NULL, server_id varchar(10) NOT NULL, region varchar(20) NOT NULL,
  first_at datetime(3) NOT NULL, level decimal(6,2) NULL, note text NULL,
  PRIMARY KEY (player_id, server_id), FOREIGN KEY (player_id) REFERENCES players (player_id));
`,
}

const playersData = `
INSERT INTO players VALUES (1, 'Ada', false), (2, 'Bo', false), (3, 'Cy', false), (4, 'Di', true);
INSERT INTO servers VALUES
 (1, 'kr-1', 'seoul', '2024-01-02 03:04:05.123', 10.50, NULL),
 (1, 'jp-2', 'tokyo', '2024-03-01 00:00:00', NULL, 'second'),
 (1, 'us-9', 'oregon', '2023-12-31 23:59:59.999', 3, 'first'),
 (3, 'kr-1', 'seoul', '2025-05-05 05:05:05', 1, 'zoë'),
 (4, 'kr-2', 'seoul', '2025-01-01 00:00:00', 2, 'banned');
`

const playersMapping = `version: 1
table: {name: players, key: {pk: PK, sk: SK}}
entities:
  player:
    from: players
    where: NOT banned
    pk: "PLAYER#{player_id}"
    sk: PROFILE
    embed:
      servers:
        from: servers
        attributes:
          exclude: [note]
          rename: {server_id: id}
        order_by: first_at desc
      notes:
        from: servers
        on: [player_id]
        where: note IS NOT NULL
        attributes: {include: [note]}
        map_key: server_id
`

// TestEmbedded: child rows folded into their parent's item, in the order
// the mapping gives, read beside the parent's rows in one snapshot; verify
// passes on a faithful migration and names a missing embedded row, a
// changed embedded value and a wrong order, each found both by comparing
// with the rendered item and by the oracle (the engine's own JSON
// aggregate of the child rows).
func TestEmbedded(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := context.Background()
			o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, playersSQL[eng.Name]+playersData, playersMapping)
			get := func(id string) map[string]types.AttributeValue { return getItem(t, o, "PLAYER#"+id, "PROFILE") }

			// What migrate wrote: newest first, NULLs left out, the link
			// columns not repeated; a map keyed by server_id; a player
			// without servers has neither attribute; player 4's servers
			// are nowhere.
			one := get("1")
			if got, want := wireText(one["servers"]), `{"L":[`+
				`{"M":{"first_at":{"S":"2024-03-01T00:00:00.000"},"id":{"S":"jp-2"},"region":{"S":"tokyo"}}},`+
				`{"M":{"first_at":{"S":"2024-01-02T03:04:05.123"},"id":{"S":"kr-1"},"level":{"N":"10.5"},"region":{"S":"seoul"}}},`+
				`{"M":{"first_at":{"S":"2023-12-31T23:59:59.999"},"id":{"S":"us-9"},"level":{"N":"3"},"region":{"S":"oregon"}}}]}`; got != want {
				t.Errorf("player 1's servers:\n got %s\nwant %s", got, want)
			}
			if got, want := wireText(one["notes"]), `{"M":{"jp-2":{"M":{"note":{"S":"second"}}},"us-9":{"M":{"note":{"S":"first"}}}}}`; got != want {
				t.Errorf("player 1's notes:\n got %s\nwant %s", got, want)
			}
			if two := get("2"); two == nil || two["servers"] != nil || two["notes"] != nil {
				t.Errorf("player 2 has no servers: %v", two)
			}
			if got := wireText(get("3")["servers"]); !strings.Contains(got, `"kr-1"`) || strings.Contains(got, "kr-2") {
				t.Errorf("player 3's servers: %s", got)
			}
			if get("4") != nil {
				t.Errorf("player 4 is excluded by where, but has an item")
			}

			// preview reads them the same way.
			res, err := preview.Run(ctx, o.Plan, o.Source, 2, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if its := res.Entities[0].Items; len(its) != 2 || !strings.Contains(string(its[0]), `"jp-2"`) || strings.Contains(string(its[1]), "servers") {
				t.Errorf("preview of 2 rows: %s", its)
			}

			if rep := run(t, o); !rep.OK {
				t.Fatalf("verify of a faithful migration:\n%s", text(rep))
			}

			breakOne := func(name string, change func(item map[string]types.AttributeValue), wantDiff, wantOracle string) {
				breakItem(t, o, "PLAYER#1", "PROFILE", "player_id=1", name, change, wantDiff, wantOracle)
			}
			list := func(item map[string]types.AttributeValue) *types.AttributeValueMemberL {
				return item["servers"].(*types.AttributeValueMemberL)
			}
			breakOne("a missing embedded row", func(item map[string]types.AttributeValue) {
				l := list(item)
				l.Value = l.Value[:2]
			}, "servers", "servers")
			breakOne("a changed embedded value", func(item map[string]types.AttributeValue) {
				el := list(item).Value[1].(*types.AttributeValueMemberM)
				el.Value["level"] = &types.AttributeValueMemberN{Value: "10.51"}
			}, "servers", "servers[1].level")
			breakOne("a wrong order", func(item map[string]types.AttributeValue) {
				l := list(item)
				l.Value[0], l.Value[2] = l.Value[2], l.Value[0]
			}, "servers", "servers[0].first_at servers[0].id servers[0].level servers[0].region servers[2].first_at servers[2].id servers[2].level servers[2].region")
			breakOne("a changed map element", func(item map[string]types.AttributeValue) {
				el := item["notes"].(*types.AttributeValueMemberM).Value["us-9"].(*types.AttributeValueMemberM)
				el.Value["note"] = &types.AttributeValueMemberS{Value: "First"}
			}, "notes", "notes.us-9.note")
		})
	}
}

// wireText is an attribute value in DynamoDB JSON, map keys sorted.
func wireText(v types.AttributeValue) string {
	if v == nil {
		return "<nil>"
	}
	return string(av.MarshalValue(v))
}
