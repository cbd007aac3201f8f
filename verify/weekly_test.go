package verify_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// The scores of two games over three weeks, in a global index whose
// partition key is (game, week N) and whose sort key is (score N, at): a
// "weekly top 10" is a Query on it in descending order with limit 10.
const weeklyMapping = `version: 1
table:
  name: scores
  key: {pk: PK, sk: SK}
  indexes:
    - name: WeeklyTop
      pk: [game, {name: week, type: N}]
      sk: [{name: score, type: N}, at]
entities:
  score:
    from: scores
    pk: "SCORE#{score_id}"
    sk: "SCORE#"
    attributes:
      set: {at: "{played_at|iso}"}
access_patterns:
  weeklyTop10:
    index: WeeklyTop
    query: {pk: ["{game}", "{week}"]}
    order: desc
    limit: 10
    sql: >-
      SELECT * FROM scores WHERE game = {game} AND week = {week} AND played_at IS NOT NULL
      ORDER BY score DESC, played_at DESC LIMIT 10
  atLeast:
    index: WeeklyTop
    query: {pk: ["{game}", "{week}"], sk: {gte: "{score}"}}
    order: asc
    sql: >-
      SELECT * FROM scores WHERE game = {game} AND week = {week} AND score >= {score}
      AND played_at IS NOT NULL ORDER BY score, played_at
  sameScoreUntil:
    index: WeeklyTop
    query: {pk: ["{game}", "{week}"], sk: {eq: "{score}", lte: "{played_at|iso}"}}
    sql: SELECT * FROM scores WHERE game = {game} AND week = {week} AND score = {score} AND played_at <= {played_at}
`

// weeklySQL: chess in week 1 has ties in its top 10 (scores 2 and 3 are
// equal in score and time; so are 10, 11 and 12, across the 10th place),
// score 14 has no time and score 15 no week: neither is in the index,
// though 14 has three of its four key attributes. The other five game-weeks
// have 12 scores each.
func weeklySQL(engine string) string {
	ts := "TIMESTAMP(3)"
	if engine == "mysql" {
		ts = "DATETIME(3)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE scores (score_id INT PRIMARY KEY, game VARCHAR(20) NOT NULL, week INT, player VARCHAR(20) NOT NULL, score INT NOT NULL, played_at %s NULL);\n", ts)
	b.WriteString("INSERT INTO scores VALUES ")
	at := func(min int) string { return fmt.Sprintf("'2025-03-03 10:%02d:00.250'", min) }
	chess := []struct{ score, min int }{{100, 1}, {95, 2}, {95, 2}, {90, 3}, {85, 4}, {80, 5}, {75, 6}, {70, 7}, {65, 8}, {60, 9}, {60, 9}, {60, 9}, {20, 10}}
	var rows []string
	for i, c := range chess {
		rows = append(rows, fmt.Sprintf("(%d, 'chess', 1, 'p%d', %d, %s)", i+1, i+1, c.score, at(c.min)))
	}
	rows = append(rows, "(14, 'chess', 1, 'p14', 200, NULL)", "(15, 'chess', NULL, 'p15', 150, "+at(11)+")")
	id := 100
	for _, g := range []string{"chess", "go"} {
		for w := 1; w <= 3; w++ {
			if g == "chess" && w == 1 {
				continue
			}
			for i := range 12 {
				id++
				rows = append(rows, fmt.Sprintf("(%d, '%s', %d, 'p%d', %d, '2025-03-%02d %02d:%02d:00')", id, g, w, id, (i*37+w*11+len(g)*7)%50+10, w*7, i, id%60))
			}
		}
	}
	b.WriteString(strings.Join(rows, ",\n"))
	b.WriteString(";\n")
	return b.String()
}

const weeklyRows = 15 + 5*12

// TestWeeklyTop10 migrates the scores into a table with a multi-attribute
// global index on both engines, shows that DynamoDB created the index with
// its four key attributes in order and left out the items that lack one,
// that verify passes the ordered and limited patterns (ties included), and
// that it fails with a query_order problem naming the position when a
// stored score puts an item in another place, or when the limit hides a
// wrong first item.
func TestWeeklyTop10(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, weeklySQL(eng.Name))
			db, table := testenv.DynamoDBTable(t)
			src, err := source.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { src.Close() })
			plan := compile(t, src, weeklyMapping)
			rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
			if err != nil {
				t.Fatalf("migrate: %v", err)
			}
			if rep.ItemsWritten != weeklyRows {
				t.Fatalf("migrate wrote %d items, want %d", rep.ItemsWritten, weeklyRows)
			}
			if err := migrate.CheckTable(ctx, db, &plan.Table, table); err != nil {
				t.Fatalf("CheckTable on the table migrate created: %v", err)
			}
			o := verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 10, Seed: 1, Settle: time.Second}

			t.Run("the index has four key attributes and leaves out items without one", func(t *testing.T) {
				out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
				if err != nil {
					t.Fatal(err)
				}
				var ks []string
				for _, k := range out.Table.GlobalSecondaryIndexes[0].KeySchema {
					ks = append(ks, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
				}
				if want := []string{"game HASH", "week HASH", "score RANGE", "at RANGE"}; !slices.Equal(ks, want) {
					t.Errorf("key schema %v, want %v", ks, want)
				}
				n, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("WeeklyTop"), Select: types.SelectCount})
				if err != nil {
					t.Fatal(err)
				}
				if n.Count != weeklyRows-2 {
					t.Errorf("the index holds %d items, want %d: all but score 14 (no at) and 15 (no week)", n.Count, weeklyRows-2)
				}
				it, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key("SCORE#14", "SCORE#")})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := it.Item["at"]; ok || it.Item["game"] == nil || it.Item["week"] == nil || it.Item["score"] == nil {
					t.Errorf("score 14 should have game, week and score but no at: %v", it.Item)
				}
			})

			t.Run("passes", func(t *testing.T) {
				rep := run(t, o)
				if !rep.OK {
					t.Fatalf("verify failed on an untouched migration:\n%s", text(rep))
				}
				for _, p := range rep.Patterns {
					if p.Samples < 5 || p.Items == 0 {
						t.Errorf("%s checked %d samples and %d items: it proved little", p.Name, p.Samples, p.Items)
					}
					if p.Name == "weeklyTop10" && !slices.Contains(p.Params, "{game=chess, week=1}") {
						t.Errorf("weeklyTop10 did not check chess in week 1 (the ties): %v", p.Params)
					}
				}
			})

			setScore := func(t *testing.T, id string, score string) {
				t.Helper()
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(table), Key: key(id, "SCORE#"),
					UpdateExpression:          aws.String("SET score = :s"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberN{Value: score}},
					ConditionExpression:       aws.String("attribute_exists(PK)"),
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			orderProblem := func(t *testing.T, rep *verify.Report) verify.Problem {
				t.Helper()
				for _, p := range problemsOf(rep, verify.KindQueryOrder) {
					if p.Pattern == "weeklyTop10" && p.Params == "{game=chess, week=1}" {
						return p
					}
				}
				t.Fatalf("no query_order problem of weeklyTop10 for chess in week 1:\n%s", text(rep))
				return verify.Problem{}
			}

			t.Run("a stored score out of place", func(t *testing.T) {
				setScore(t, "SCORE#4", "99") // 90 in the source: now second, not fourth
				t.Cleanup(func() { setScore(t, "SCORE#4", "90") })
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed with score 4 out of place:\n%s", text(rep))
				}
				p := orderProblem(t, rep)
				if p.Key != "PK=SCORE#4 SK=SCORE#" || p.Got != p.Key || (p.Want != "PK=SCORE#2 SK=SCORE#" && p.Want != "PK=SCORE#3 SK=SCORE#") {
					t.Errorf("problem %+v: want the Query's SCORE#4 where the SQL has SCORE#2 or #3", p)
				}
				// The Query returns scores 2 and 3 (a tie) third and fourth, in
				// an order DynamoDB does not define.
				wantMsg := fmt.Sprintf("{game=chess, week=1}: position 2 of the desc order: the SQL returns %s, the Query PK=SCORE#4 SK=SCORE# (score=99, at=2025-03-03T10:03:00.250000Z); the Query returns it at position ", p.Want)
				if p.Message != wantMsg+"3" && p.Message != wantMsg+"4" {
					t.Errorf("message\n%s\nwant\n%s3 (or 4)", p.Message, wantMsg)
				}
			})

			t.Run("the limit hides a wrong first item", func(t *testing.T) {
				setScore(t, "SCORE#13", "500") // 20 in the source: not in the top 10
				t.Cleanup(func() { setScore(t, "SCORE#13", "20") })
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed with score 13 first:\n%s", text(rep))
				}
				p := orderProblem(t, rep)
				want := "{game=chess, week=1}: position 1 of the desc order: the SQL returns PK=SCORE#1 SK=SCORE#, the Query PK=SCORE#13 SK=SCORE# (score=500, at=2025-03-03T10:10:00.250000Z); the Query returns it at position 2"
				if p.Message != want || p.Want != "PK=SCORE#1 SK=SCORE#" || p.Got != "PK=SCORE#13 SK=SCORE#" {
					t.Errorf("problem %+v\nwant message %s", p, want)
				}
				var extra, missing bool
				for _, p := range problemsOf(rep, verify.KindQueryExtra) {
					extra = extra || p.Pattern == "weeklyTop10" && p.Key == "PK=SCORE#13 SK=SCORE#"
				}
				for _, p := range problemsOf(rep, verify.KindQueryMissing) {
					missing = missing || p.Pattern == "weeklyTop10" && strings.Contains("PK=SCORE#10 SK=SCORE# PK=SCORE#11 SK=SCORE# PK=SCORE#12 SK=SCORE#", p.Key)
				}
				if !extra || !missing {
					t.Errorf("want SCORE#13 extra (%v) and the SQL's 10th, a score of 60, missing (%v):\n%s", extra, missing, text(rep))
				}
			})
		})
	}
}

// TestLimitReadsPages: DynamoDB's Limit caps the items one page evaluates,
// and a page ends at 1 MB, so the first 8 items of 300 KB each take three
// pages; verify reads pages until it has the 8 the pattern asks for.
func TestLimitReadsPages(t *testing.T) {
	eng := testenv.Engines[0]
	ctx := context.Background()
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, `CREATE TABLE posts (id INT PRIMARY KEY, board TEXT NOT NULL, body TEXT NOT NULL);
INSERT INTO posts SELECT i, 'b' || (i % 2), repeat(chr(97 + i % 26), 300000) FROM generate_series(1, 24) AS i;`)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compile(t, src, `version: 1
table:
  name: posts
  key: {pk: PK, sk: {name: SK, type: N}}
entities:
  post: {from: posts, pk: "BOARD#{board}", sk: "{id}"}
access_patterns:
  latest8:
    query: {pk: "BOARD#{board}"}
    order: desc
    limit: 8
    sql: SELECT * FROM posts WHERE board = {board} ORDER BY id DESC LIMIT 8
  noSQLLimit:
    query: {pk: "BOARD#{board}"}
    order: desc
    limit: 8
    sql: SELECT * FROM posts WHERE board = {board} ORDER BY id DESC
`)
	if _, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true}); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	page, err := db.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(table), KeyConditionExpression: aws.String("PK = :b"), Limit: aws.Int32(8), ScanIndexForward: aws.Bool(false),
		ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberS{Value: "BOARD#b0"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) >= 8 || page.LastEvaluatedKey == nil {
		t.Fatalf("one page with Limit 8 holds %d items: the test needs bigger items", len(page.Items))
	}
	rep := run(t, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 2, Seed: 1, SkipItems: true})
	if p := rep.Patterns[0]; !p.OK || p.Samples != 2 || p.Items != 16 {
		t.Fatalf("verify read %+v, want 2 samples of 8 items each:\n%s", p, text(rep))
	}
	// A SQL without LIMIT returns every row of the board: the pattern cannot
	// be checked, and verify says why.
	p := rep.Patterns[1]
	want := "{board=b0}: the SQL returns 12 rows, more than the pattern's limit 8: end it with LIMIT 8"
	if rep.OK || p.OK || p.Problems.Total != 2 || p.Problems.List[0].Kind != verify.KindPatternError || p.Problems.List[0].Message != want {
		t.Fatalf("noSQLLimit %+v, want 2 pattern errors, the first %q", p, want)
	}
}
