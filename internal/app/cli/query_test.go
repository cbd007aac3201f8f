package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/erd"
)

// boardSQL is a small game board: players, their plays, who follows whom,
// and a shop's rentals (NULL return_date: still out). The view counts the
// plays of active players. Plain SQL that both engines run.
const boardSQL = `CREATE TABLE users (user_id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, active BOOLEAN NOT NULL);
CREATE TABLE plays (play_id INT PRIMARY KEY, user_id INT NOT NULL, week INT NOT NULL, score INT NOT NULL);
CREATE TABLE friends (user_id INT NOT NULL, friend_id INT NOT NULL, PRIMARY KEY (user_id, friend_id));
CREATE TABLE rentals (rental_id INT PRIMARY KEY, store_id INT NOT NULL, customer_id INT NOT NULL, return_date DATE);
CREATE VIEW active_players AS
  SELECT u.user_id, u.name, count(p.play_id) AS plays
    FROM users u LEFT JOIN plays p ON p.user_id = u.user_id
   WHERE u.active
   GROUP BY u.user_id, u.name;
INSERT INTO users VALUES (1, 'ann', TRUE), (2, 'bob', TRUE), (3, 'cid', TRUE), (4, 'dan', FALSE);
INSERT INTO plays VALUES (1, 1, 1, 10), (2, 1, 1, 30), (3, 1, 2, 20), (4, 2, 1, 5), (5, 2, 2, 50),
  (6, 2, 2, 40), (7, 3, 1, 7), (8, 4, 1, 99);
INSERT INTO friends VALUES (1, 2), (1, 3), (2, 1), (3, 1), (3, 2), (4, 1);
INSERT INTO rentals VALUES (1, 1, 1, '2024-01-02'), (2, 1, 2, NULL), (3, 1, 3, NULL), (4, 2, 1, '2024-02-03'),
  (5, 2, 4, NULL), (6, 3, 2, '2024-03-04');`

// boardMapping has an entity from a view, one from an aggregate query, a
// fan-out join (a play written once per friend of its player), and rentals
// with a conditional attribute feeding a sparse index of open rentals.
const boardMapping = `version: 1
table:
  name: board
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: GSI1PK, sk: SK}
entities:
  player:
    from: active_players
    key: [user_id]
    pk: "USER#{user_id}"
    sk: "PLAYER"
  weekly_best:
    query: SELECT user_id, week, max(score) AS top FROM plays GROUP BY user_id, week
    key: [user_id, week]
    where: top >= 10
    pk: "USER#{user_id}"
    sk: "BEST#{week|pad:3}"
  friend_play:
    query: |
      SELECT f.friend_id, p.user_id, p.play_id, p.score
        FROM plays p JOIN friends f ON f.user_id = p.user_id
    key: [friend_id, play_id]
    pk: "FEED#{friend_id}"
    sk: "PLAY#{play_id|pad:6}"
  rental:
    from: rentals
    pk: "STORE#{store_id}"
    sk: "RENTAL#{rental_id|pad:6}"
    attributes:
      set:
        GSI1PK: {value: "OPEN#{store_id}", when: "return_date IS NULL"}
access_patterns:
  bestByUser:
    query: {pk: "USER#{user_id}", sk: {begins_with: "BEST#"}}
    entity: weekly_best
    sql: SELECT user_id, week, max(score) AS top FROM plays WHERE user_id = {user_id} GROUP BY user_id, week HAVING max(score) >= 10
  feedOf:
    query: {pk: "FEED#{friend_id}"}
    entity: friend_play
    sql: SELECT f.friend_id, p.play_id FROM plays p JOIN friends f ON f.user_id = p.user_id WHERE f.friend_id = {friend_id}
  openRentalsByStore:
    index: GSI1
    query: {pk: "OPEN#{store_id}"}
    entity: rental
    sql: SELECT * FROM rentals WHERE store_id = {store_id} AND return_date IS NULL
  player:
    query: {pk: "USER#{user_id}", sk: PLAYER}
    entity: player
    sql: SELECT * FROM active_players WHERE user_id = {user_id}
`

// TestQueryEntities migrates and verifies entities from a view, an
// aggregate query and a fan-out join, and a conditional attribute feeding
// a sparse index, on both engines; then breaks items on purpose and shows
// that verify names them.
func TestQueryEntities(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, boardSQL)
			db, table := testenv.DynamoDBTable(t)
			m := writeFile(t, "board.yaml", boardMapping)
			base := []string{"--source", dsn, "-m", m}
			dyn := append(append([]string{}, base...), "--endpoint-url", endpoint, "--table", table)

			code, out, errOut := remodel(t, append([]string{"validate"}, base...)...)
			if code != exitOK || !strings.Contains(out, "valid against") {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, append([]string{"preview", "--entity", "weekly_best,friend_play", "--rows", "2"}, base...)...)
			for _, want := range []string{
				"entity weekly_best (from query): PK = USER#{user_id}",
				`{"PK":{"S":"USER#1"},"SK":{"S":"BEST#001"},"_type":{"S":"weekly_best"},"top":{"N":"30"},"user_id":{"N":"1"},"week":{"N":"1"}}`,
				`{"PK":{"S":"FEED#1"},"SK":{"S":"PLAY#000004"},"_type":{"S":"friend_play"},"friend_id":{"N":"1"},"play_id":{"N":"4"},"score":{"N":"5"},"user_id":{"N":"2"}}`,
			} {
				if code != exitOK || !strings.Contains(out, want) {
					t.Errorf("preview: exit %d, no %s in\n%s%s", code, want, out, errOut)
				}
			}
			code, out, errOut = remodel(t, append([]string{"migrate", "--create-table", "--output", "json"}, dyn...)...)
			if code != exitOK {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			// player: 3 active users; weekly_best: 6 (user, week) pairs less
			// (2, 1) whose best is 5 and (3, 1) whose best is 7; friend_play:
			// one item per play and friend of its player: user 1 has 2
			// friends and 3 plays, user 2 1 friend and 3 plays, user 3 2
			// friends and 1 play, user 4 1 friend and 1 play; rental: 6.
			for entity, want := range map[string]int{"player": 3, "weekly_best": 4, "friend_play": 2*3 + 1*3 + 2*1 + 1*1, "rental": 6} {
				if !regexp.MustCompile(`"name": "` + entity + `",\s*"rows": ` + fmt.Sprint(want) + `,\s*"items": ` + fmt.Sprint(want) + `,\s*"rejected": 0`).MatchString(out) {
					t.Errorf("migrate: entity %s: want %d rows read and items written; report:\n%s", entity, want, out)
				}
			}
			verifyArgs := append([]string{"verify", "--seed", "3", "--samples", "5"}, dyn...)
			code, out, errOut = remodel(t, verifyArgs...)
			if code != exitOK || !strings.HasPrefix(out, "verify PASS") {
				t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
			}

			// The sparse index holds exactly the open rentals.
			if got := indexKeys(t, db, table, "GSI1"); got != "STORE#1/RENTAL#000002 STORE#1/RENTAL#000003 STORE#2/RENTAL#000005" {
				t.Errorf("GSI1 holds %s, want the three rentals without a return date", got)
			}

			ctx := context.Background()
			key := func(pk, sk string) map[string]types.AttributeValue {
				return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}
			}

			t.Run("a fan-out item deleted", func(t *testing.T) {
				k := key("FEED#2", "PLAY#000001")
				saved, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k})
				if err != nil || saved.Item == nil {
					t.Fatalf("GetItem: %v, %v", saved, err)
				}
				if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: k}); err != nil {
					t.Fatal(err)
				}
				defer putItem(t, db, table, saved.Item)
				code, out, errOut := remodel(t, verifyArgs...)
				for _, want := range []string{
					"entity friend_play: 12 source rows, the table holds 11 items",
					"missing item PK=FEED#2 SK=PLAY#000001 (entity friend_play, row friend_id=2, play_id=1)",
					"the Query misses item PK=FEED#2 SK=PLAY#000001 (entity friend_play) that the SQL returns",
				} {
					if !strings.Contains(out, want) {
						t.Errorf("verify does not say %q:\n%s", want, out)
					}
				}
				if code != exitFailed || !strings.HasPrefix(out, "verify FAIL") {
					t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
				}
			})

			t.Run("a conditional attribute written although its condition is false", func(t *testing.T) {
				k := key("STORE#1", "RENTAL#000001") // returned 2024-01-02
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k,
					UpdateExpression:          aws.String("SET GSI1PK = :v"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "OPEN#1"}}})
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k, UpdateExpression: aws.String("REMOVE GSI1PK")})
					if err != nil {
						t.Fatal(err)
					}
				}()
				code, out, errOut := remodel(t, append(verifyArgs, "--gsi-settle", "1s")...)
				for _, want := range []string{
					"item PK=STORE#1 SK=RENTAL#000001 (entity rental, row rental_id=1) differs: GSI1PK is unexpected (S \"OPEN#1\")",
					"{store_id=1}: the Query returns item PK=STORE#1 SK=RENTAL#000001 (entity rental) that the SQL does not",
				} {
					if !strings.Contains(out, want) {
						t.Errorf("verify does not say %q:\n%s", want, out)
					}
				}
				if code != exitFailed {
					t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
				}
			})

			code, out, errOut = remodel(t, verifyArgs...)
			if code != exitOK {
				t.Fatalf("verify after the items were restored: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// indexKeys lists the table keys of the items an index holds, sorted.
func indexKeys(t *testing.T, db dynamo.API, table, index string) string {
	t.Helper()
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(index)})
	if err != nil {
		t.Fatalf("scanning %s: %v", index, err)
	}
	var keys []string
	for _, it := range out.Items {
		keys = append(keys, it["PK"].(*types.AttributeValueMemberS).Value+"/"+it["SK"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

func putItem(t *testing.T, db dynamo.API, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// TestQueryEntityDuplicateKeys: a key that does not identify the rows of a
// fan-out join (play_id alone, when a play is written once per friend) is
// a mistake of the mapping: every row of a repeated key is rejected with
// the reason, none is written, and verify accepts exactly those rejects.
func TestQueryEntityDuplicateKeys(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, boardSQL)
			_, table := testenv.DynamoDBTable(t)
			m := writeFile(t, "board.yaml", strings.Replace(boardMapping, "key: [friend_id, play_id]", "key: [play_id]", 1))
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			dyn := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table}
			code, out, errOut := remodel(t, append([]string{"migrate", "--create-table", "--max-rejects", "100", "--rejects", rejects}, dyn...)...)
			if code != exitOK {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			b, err := os.ReadFile(rejects)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			// Plays 1, 2 and 3 (user 1, two friends) and 7 (user 3, two
			// friends) come twice each; 4, 5, 6 and 8 once.
			const why = ` rows have this key (play_id): the key columns must identify a row of the query (add the columns that tell them apart to key:)"}`
			var want []string
			for _, id := range []int{1, 1, 2, 2, 3, 3, 7, 7} {
				want = append(want, fmt.Sprintf(`{"entity":"friend_play","row":"play_id=%d","reason":"2`, id)+why)
			}
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("rejects:\n%s\nwant\n%s", b, strings.Join(want, "\n"))
			}
			code, out, errOut = remodel(t, append([]string{"verify", "--rejects", rejects}, dyn...)...)
			if code != exitOK {
				t.Errorf("verify --rejects: exit %d\n%s%s", code, out, errOut)
			}
			code, out, _ = remodel(t, append([]string{"verify"}, dyn...)...)
			if code != exitFailed || !strings.Contains(out, "row play_id=7 of entity friend_play cannot become an item: 2 rows have this key (play_id)") {
				t.Errorf("verify without the rejects: exit %d\n%s", code, out)
			}
		})
	}
}

// TestValidateQueryEntities: validate --source has the database describe
// each query and prepare each where and set condition; what it refuses is
// reported at its field with the database's message, with every other
// problem, at once.
func TestValidateQueryEntities(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, boardSQL)
			bad := strings.NewReplacer(
				"max(score) AS top FROM plays GROUP BY", "max(scor) AS top FROM plays GROUP BY",
				`when: "return_date IS NULL"`, `when: "returned_on IS NULL"`,
				"key: [friend_id, play_id]", "key: [friend_id, play]",
				"FROM plays p JOIN friends f ON f.user_id = p.user_id\n", "FROM plays p JOIN friends f ON f.user_id = p.user_id\n    where: points > 1\n",
			).Replace(boardMapping)
			m := writeFile(t, "bad.yaml", bad)
			code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
			if code != exitFailed || out != "" {
				t.Fatalf("validate: exit %d, stdout %q", code, out)
			}
			want := map[string][]string{
				"postgres": {
					m + `:14:12: entities.weekly_best.query: the source database refuses it: column "scor" does not exist (SQLSTATE 42703); hint: Perhaps you meant to reference the column "plays.score".`,
					m + `:23:12: entities.friend_play.where: the source database refuses it: column "points" does not exist (SQLSTATE 42703)`,
					m + `:24:22: entities.friend_play.key[1]: the query returns no column "play" (columns: friend_id, user_id, play_id, score)`,
					m + `:33:50: entities.rental.attributes.set.GSI1PK.when: the source database refuses it: column "returned_on" does not exist (SQLSTATE 42703)`,
				},
				"mysql": {
					m + `:14:12: entities.weekly_best.query: the source database refuses it: Error 1054 (42S22): Unknown column 'scor' in 'SELECT'`,
					m + `:23:12: entities.friend_play.where: the source database refuses it: Error 1054 (42S22): Unknown column 'points' in 'WHERE'`,
					m + `:24:22: entities.friend_play.key[1]: the query returns no column "play" (columns: friend_id, user_id, play_id, score)`,
					m + `:33:50: entities.rental.attributes.set.GSI1PK.when: the source database refuses it: Error 1054 (42S22): Unknown column 'returned_on' in 'SELECT'`,
				},
			}[eng.Name]
			var wantErr strings.Builder
			for _, w := range want {
				wantErr.WriteString("remodel: " + w + "\n")
			}
			if errOut != wantErr.String() {
				t.Errorf("validate said\n%s\nwant\n%s", errOut, wantErr.String())
			}
			// migrate and verify stop on the refused query before anything
			// is written, naming it (exit 3: the mapping does not match the
			// source).
			code, _, errOut = remodel(t, "preview", "--source", dsn, "-m", m)
			if code != exitError || !strings.HasPrefix(errOut, "remodel: "+want[0]+"\n") {
				t.Errorf("preview: exit %d\n%s", code, errOut)
			}
		})
	}
}

// TestWriteSchemaViews: introspect's text names views as views, without a
// row count, and counts tables and views apart.
func TestWriteSchemaViews(t *testing.T) {
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "d", Tables: []*introspect.Table{
		{Schema: "public", Name: "active_players", View: true, Columns: []*introspect.Column{{Name: "user_id", Type: "integer", Kind: introspect.KindInt, Nullable: true}}},
		{Schema: "public", Name: "users", Size: introspect.EstimatedRows(4), PrimaryKey: []string{"user_id"}, Columns: []*introspect.Column{{Name: "user_id", Type: "integer", Kind: introspect.KindInt}}},
	}}
	var b strings.Builder
	if err := erd.Text(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"database d (postgres), 1 tables, 1 views\n", "\nview public.active_players (no primary key: an entity from it names its key columns)\n", "\ntable public.users (about 4 rows"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("erd.Text:\n%s\nwant it to contain %q", b.String(), want)
		}
	}
}
