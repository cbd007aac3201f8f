package verify_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// The league: 5 teams and 40 players; players 7, 19 and 33 have no handle,
// which their sort key needs, so migrate rejects them.
const leagueMapping = `version: 1
table:
  name: league
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: SK, sk: PK}
entities:
  team:
    from: teams
    pk: "TEAM#{team_id}"
    sk: "TEAM#"
  player:
    from: players
    pk: "TEAM#{team_id}"
    sk: "PLAYER#{handle}"
access_patterns:
  findTeam:
    query: {pk: "TEAM#{team_id}", sk: "TEAM#"}
    entity: team
    sql: SELECT * FROM teams WHERE team_id = {team_id}
  findPlayersOfTeam:
    query: {pk: "TEAM#{team_id}", sk: {begins_with: "PLAYER#"}}
    entity: player
    sql: SELECT * FROM players WHERE team_id = {team_id}
  findPlayerByHandle:
    index: GSI1
    query: {pk: "PLAYER#{handle}"}
    entity: player
    sql: SELECT * FROM players WHERE handle = {handle}
`

var rejectedPlayers = []int{7, 19, 33}

func leagueSQL() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE teams (team_id INT PRIMARY KEY, name VARCHAR(50) NOT NULL);
CREATE TABLE players (player_id INT PRIMARY KEY, team_id INT NOT NULL, handle VARCHAR(50), score INT NOT NULL);
INSERT INTO teams VALUES (1, 'Ants'), (2, 'Bees'), (3, 'Cats'), (4, 'Dogs'), (5, 'Eels');
INSERT INTO players VALUES `)
	for i := 1; i <= 40; i++ {
		handle := fmt.Sprintf("'p%d'", i)
		for _, r := range rejectedPlayers {
			if i == r {
				handle = "NULL"
			}
		}
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %s, %d)", i, i%5+1, handle, i*10)
	}
	b.WriteString(";\n")
	return b.String()
}

// league loads the league into a fresh database of the engine and migrates
// it with the 3 rejects allowed; it returns verify's options (without
// rejects), the rejects file migrate wrote and the source's DSN.
func league(t *testing.T, engine string, fresh func(testing.TB) string, exec func(testing.TB, string, string)) (verify.Options, string) {
	t.Helper()
	ctx := context.Background()
	dsn := fresh(t)
	exec(t, dsn, leagueSQL())
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compile(t, src, leagueMapping)
	rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: dynamo.New(db), Table: table, CreateTable: true, MaxRejects: 3, RejectsPath: rejects})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if rep.ItemsWritten != 42 || rep.Rejected != 3 {
		t.Fatalf("migrate wrote %d items and rejected %d rows, want 42 and 3", rep.ItemsWritten, rep.Rejected)
	}
	return verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 5, Seed: 1, MaxProblems: 20, Settle: time.Second}, rejects
}

func readRejects(t *testing.T, o verify.Options, path string) *verify.Rejects {
	t.Helper()
	rj, err := verify.ReadRejects(path, o.Plan)
	if err != nil {
		t.Fatal(err)
	}
	return rj
}

// withLines copies the rejects file and appends lines to the copy.
func withLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rejects.jsonl")
	if err := os.WriteFile(out, append(b, strings.Join(lines, "\n")+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func problemsOf(rep *verify.Report, kind verify.Kind) []verify.Problem {
	var out []verify.Problem
	add := func(ps verify.Problems) {
		for _, p := range ps.List {
			if p.Kind == kind {
				out = append(out, p)
			}
		}
	}
	for _, c := range rep.Counts {
		add(c.Problems)
	}
	add(rep.Stray)
	for _, c := range rep.Items {
		add(c.Problems)
	}
	for _, c := range rep.Patterns {
		add(c.Problems)
	}
	return out
}

func countOf(t *testing.T, rep *verify.Report, entity string) verify.CountCheck {
	t.Helper()
	for _, c := range rep.Counts {
		if c.Entity == entity {
			return c
		}
	}
	t.Fatalf("no count check of %s", entity)
	return verify.CountCheck{}
}

func itemsOf(t *testing.T, rep *verify.Report, entity string) verify.ItemCheck {
	t.Helper()
	for _, c := range rep.Items {
		if c.Entity == entity {
			return c
		}
	}
	t.Fatalf("no item check of %s", entity)
	return verify.ItemCheck{}
}

// TestAcceptedRejects migrates the league with 3 rows rejected (a NULL in a
// key column) and shows that verify passes with migrate's rejects file, and
// fails without it, with a forged reject of a present row, with a reject of
// a row the source lacks, and after a non-rejected item is deleted.
func TestAcceptedRejects(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := context.Background()
			o, rejects := league(t, eng.Name, eng.Fresh, eng.Exec)

			t.Run("without the rejects file the rejected rows fail", func(t *testing.T) {
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed with 3 rows missing and no rejects file:\n%s", text(rep))
				}
				if c := countOf(t, rep, "player"); c.OK || c.Source != 40 || c.Items != 37 {
					t.Errorf("player count = %+v, want a failure 40 vs 37", c)
				}
				if n := len(problemsOf(rep, verify.KindUnrenderable)); n != 3+3 {
					// 3 in the item check, and 3 in findPlayersOfTeam: its 5
					// samples are the 5 teams, whose SQL returns every player.
					t.Errorf("%d unrenderable-row problems, want 6:\n%s", n, text(rep))
				}
			})

			t.Run("with the rejects file verify passes and lists them", func(t *testing.T) {
				o := o
				o.Rejects = readRejects(t, o, rejects)
				rep := run(t, o)
				out := text(rep)
				if !rep.OK {
					t.Fatalf("verify failed with migrate's rejects accepted:\n%s", out)
				}
				if c := countOf(t, rep, "player"); c.Source != 40 || c.Rejected != 3 || c.Items != 37 {
					t.Errorf("player count = %+v, want 40 rows - 3 accepted rejects = 37 items", c)
				}
				if rep.Rejects == nil || rep.Rejects.Total != 3 || len(rep.Rejects.Rows) != 3 {
					t.Fatalf("report's accepted rejects = %+v, want 3 rows", rep.Rejects)
				}
				for i, want := range []string{"player_id=7", "player_id=19", "player_id=33"} { // in key order, numbers by value
					if r := rep.Rejects.Rows[i]; r.Entity != "player" || r.Row != want || !strings.Contains(r.Reason, "handle") {
						t.Errorf("accepted reject %d = %+v, want player %s with a reason naming handle", i, r, want)
					}
				}
				if !strings.Contains(out, "accepted rejects: 3 rows of "+rejects) || !strings.Contains(out, "entity player, row player_id=7: ") {
					t.Errorf("the text report does not list the accepted rejects:\n%s", out)
				}
				for _, p := range rep.Patterns {
					if p.Samples == 0 || p.Items == 0 {
						t.Errorf("access pattern %s checked %d samples, %d items", p.Name, p.Samples, p.Items)
					}
				}
			})

			t.Run("a forged reject of a present row fails", func(t *testing.T) {
				o := o
				o.Rejects = readRejects(t, o, withLines(t, rejects, `{"entity":"player","row":"player_id=1","reason":"forged"}`))
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed with a present row accepted as rejected:\n%s", text(rep))
				}
				got := problemsOf(rep, verify.KindRejectedPresent)
				if len(got) != 1 || got[0].SourceKey != "player_id=1" || got[0].Key != "PK=TEAM#2 SK=PLAYER#p1" || got[0].Entity != "player" ||
					!strings.Contains(got[0].Message, "row player_id=1 of entity player is accepted as rejected (") || !strings.Contains(got[0].Message, ":4: forged), but the table holds its item PK=TEAM#2 SK=PLAYER#p1") {
					t.Fatalf("rejected-present problems = %+v", got)
				}
				if c := countOf(t, rep, "player"); c.OK || c.Rejected != 4 {
					t.Errorf("player count = %+v, want a failure with 4 accepted rejects", c)
				}
				if rep.Stray.Total != 0 {
					t.Errorf("the forged row's item is also reported as stray: %+v", rep.Stray)
				}
			})

			t.Run("a reject of a row the source lacks fails", func(t *testing.T) {
				o := o
				o.Rejects = readRejects(t, o, withLines(t, rejects, `{"entity":"player","row":"player_id=999","reason":"old"}`))
				rep := run(t, o)
				got := problemsOf(rep, verify.KindRejectedUnknown)
				if rep.OK || len(got) != 1 || got[0].SourceKey != "player_id=999" || !strings.HasSuffix(got[0].Message, ":4 names row player_id=999 of entity player as rejected, but the source has no such row") {
					t.Fatalf("ok=%v, rejected-unknown problems = %+v", rep.OK, got)
				}
			})

			t.Run("a deleted item still fails with the rejects accepted", func(t *testing.T) {
				if _, err := o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.Table), Key: key("TEAM#3", "PLAYER#p2")}); err != nil {
					t.Fatal(err)
				}
				o := o
				o.Rejects = readRejects(t, o, rejects)
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed after an item was deleted:\n%s", text(rep))
				}
				got := problemsOf(rep, verify.KindMissing)
				if len(got) != 1 || got[0].Key != "PK=TEAM#3 SK=PLAYER#p2" || got[0].SourceKey != "player_id=2" {
					t.Fatalf("missing-item problems = %+v", got)
				}
				if c := countOf(t, rep, "player"); c.OK || c.Items != 36 {
					t.Errorf("player count = %+v, want a failure with 36 items", c)
				}
			})
		})
	}
}

func TestReadRejectsErrors(t *testing.T) {
	plan := leaguePlan(t)
	for _, tc := range []struct{ text, want string }{
		{`{"entity":"player","row":"player_id=7","reason":"x"}` + "\nnot json\n", `verify: r.jsonl:2: not a rejected-row line ({"entity", "row", "reason"}): invalid character 'o' in literal null (expecting 'u')`},
		{"\n" + `{"entity":"coach","row":"coach_id=1"}`, `verify: r.jsonl:2: entity "coach" is not in the mapping (entities: team, player)`},
		{`{"row":"player_id=1"}`, `verify: r.jsonl:1: the line names no entity`},
		{`{"entity":"player","row":""}`, `verify: r.jsonl:1: the line names no row`},
		{`["player","player_id=1"]`, `verify: r.jsonl:1: not a rejected-row line ({"entity", "row", "reason"}): json: cannot unmarshal array into Go value of type verify.rejectLine`},
	} {
		_, err := verify.ParseRejects("r.jsonl", strings.NewReader(tc.text), plan)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseRejects(%q) = %v\nwant %s", tc.text, err, tc.want)
		}
	}
	rj, err := verify.ParseRejects("r.jsonl", strings.NewReader(`{"entity":"player","row":"player_id=7","reason":"a"}`+"\n\n"+`{"entity":"player","row":"player_id=7","reason":"again"}`+"\n"+`{"entity":"team","row":"team_id=1","reason":"b","extra":1}`), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(rj.List) != 2 || rj.List[0] != (verify.Rejection{Entity: "player", Row: "player_id=7", Reason: "a", Line: 1}) || rj.List[1].Line != 4 {
		t.Fatalf("rejects = %+v, want player_id=7 once (line 1) and team_id=1 (line 4)", rj.List)
	}
	if _, err := verify.ReadRejects(filepath.Join(t.TempDir(), "none.jsonl"), plan); err == nil || !strings.HasPrefix(err.Error(), "verify: reading the rejects file: open ") {
		t.Fatalf("ReadRejects of a missing file = %v", err)
	}
}

// leaguePlan compiles the league mapping against a fresh league database.
func leaguePlan(t *testing.T) *mapping.Plan {
	t.Helper()
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, leagueSQL())
	src, err := source.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return compile(t, src, leagueMapping)
}

// TestBrokenSQLFailsOnlyItsCheck gives one entity a where and one access
// pattern an SQL that the source refuses: their checks fail with the
// error, and every other check still runs and passes (on PostgreSQL this
// needs the failing statement not to abort the snapshot's transaction).
func TestBrokenSQLFailsOnlyItsCheck(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			o, rejects := league(t, eng.Name, eng.Fresh, eng.Exec)
			broken := strings.Replace(leagueMapping, `    from: teams
`, `    from: teams
    where: "no_such_column > 0"
`, 1) + `  brokenPattern:
    query: {pk: "TEAM#{team_id}", sk: {begins_with: "PLAYER#"}}
    entity: player
    sql: SELECT * FROM players WHERE no_such_column = {team_id}
`
			src := o.Source
			o.Plan = compile(t, src, broken)
			o.Rejects = readRejects(t, o, rejects)
			rep, err := verify.Run(context.Background(), o)
			if err != nil {
				t.Fatalf("verify stopped at a broken SQL: %v", err)
			}
			if rep.OK || rep.Error != "" {
				t.Fatalf("ok=%v error=%q, want a failure that finished", rep.OK, rep.Error)
			}
			team := countOf(t, rep, "team")
			if team.OK || len(team.Problems.List) != 1 || team.Problems.List[0].Kind != verify.KindCheckError || !strings.Contains(team.Problems.List[0].Message, "counting the rows of entity team: ") || !strings.Contains(team.Problems.List[0].Message, "no_such_column") {
				t.Errorf("team count = %+v, want a check_error naming the bad column", team)
			}
			if it := itemsOf(t, rep, "team"); it.OK || it.Problems.List[0].Kind != verify.KindCheckError {
				t.Errorf("team items = %+v, want not compared", it)
			}
			if c, it := countOf(t, rep, "player"), itemsOf(t, rep, "player"); !c.OK || !it.OK || it.Compared != 37 {
				t.Errorf("player checks = %+v, %+v; want them to pass", c, it)
			}
			if rep.Stray.Total != 0 {
				t.Errorf("the items of the entity whose items were not compared are called stray: %+v", rep.Stray)
			}
			for _, p := range rep.Patterns {
				switch {
				case p.Name == "brokenPattern" || p.Name == "findTeam": // findTeam samples team_id under team's broken where
					if p.OK || len(p.Problems.List) != 1 || p.Problems.List[0].Kind != verify.KindPatternError || !strings.Contains(p.Problems.List[0].Message, "no_such_column") {
						t.Errorf("%s = %+v, want a pattern_error naming the bad column", p.Name, p)
					}
					if p.Name == "brokenPattern" && (p.Samples != 1 || !strings.Contains(p.Problems.List[0].Message, "}: running the SQL of entity player: ")) {
						t.Errorf("brokenPattern = %+v, want its first sample's SQL to fail", p)
					}
				case !p.OK || p.Samples == 0:
					t.Errorf("access pattern %s after the broken one: ok=%v samples=%d\n%s", p.Name, p.OK, p.Samples, text(rep))
				}
			}
		})
	}
}

func TestTableCheckedFirst(t *testing.T) {
	ctx := context.Background()
	eng := testenv.Engines[0]
	o, _ := league(t, eng.Name, eng.Fresh, eng.Exec)

	t.Run("missing table", func(t *testing.T) {
		o := o
		o.Table = "no_such_table_" + o.Table
		rep, err := verify.Run(ctx, o)
		want := "verify: table " + o.Table + " does not exist at " + testenv.DynamoDB(t) + " (region us-east-1); its tables: "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("verify of a missing table = %v\nwant %s…", err, want)
		}
		if rep == nil || rep.OK || rep.Error != err.Error() || rep.Version != verify.ReportVersion {
			t.Fatalf("the report of a run that could not start = %+v", rep)
		}
	})

	t.Run("other key", func(t *testing.T) {
		db, table := testenv.DynamoDBTable(t)
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
		o := o
		o.DB, o.Table = db, table
		_, err = verify.Run(ctx, o)
		if want := "verify: table " + table + " has the key (id), the mapping's table key is (PK, SK)"; err == nil || err.Error() != want {
			t.Fatalf("verify of a table with another key = %v, want %s", err, want)
		}
	})
}

// TestSeedFixesSamples: two runs with the same seed check the same
// parameters, on both engines; another seed checks others.
func TestSeedFixesSamples(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			o, _ := league(t, eng.Name, eng.Fresh, eng.Exec)
			o.SkipItems, o.Samples = true, 3
			params := func(seed int64) string {
				o := o
				o.Seed = seed
				rep := run(t, o)
				var b strings.Builder
				for _, p := range rep.Patterns {
					if p.Samples != 3 || len(p.Params) != 3 {
						t.Fatalf("%s checked %d samples %v, want 3", p.Name, p.Samples, p.Params)
					}
					fmt.Fprintf(&b, "%s %v\n", p.Name, p.Params)
				}
				return b.String()
			}
			first := params(42)
			if again := params(42); again != first {
				t.Fatalf("seed 42 checked\n%s\nthen\n%s", first, again)
			}
			if other := params(43); other == first {
				t.Fatalf("seeds 42 and 43 checked the same parameters:\n%s", first)
			}
		})
	}
}

// TestStrayItemsAndMaxProblems: every problem is counted, the first
// MaxProblems (in key order) are listed, and stray items of a known entity
// are named by key.
func TestStrayItemsAndMaxProblems(t *testing.T) {
	ctx := context.Background()
	eng := testenv.Engines[0]
	o, rejects := league(t, eng.Name, eng.Fresh, eng.Exec)
	o.Rejects = readRejects(t, o, rejects)
	for _, p := range []int{1, 2, 3, 4, 5} {
		k := key(fmt.Sprintf("TEAM#%d", p%5+1), fmt.Sprintf("PLAYER#p%d", p))
		if _, err := o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.Table), Key: k}); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range []struct{ pk, sk, typ string }{{"TEAM#9", "PLAYER#ghost", "player"}, {"TEAM#1", "PLAYER#zz", "player"}, {"X#1", "X#", "coach"}} {
		item := key(it.pk, it.sk)
		item["_type"] = &types.AttributeValueMemberS{Value: it.typ}
		putItem(t, o, item)
	}
	o.MaxProblems = 2
	rep := run(t, o)
	out := text(rep)
	player := itemsOf(t, rep, "player")
	if player.Missing != 5 || player.Problems.Total != 5 || len(player.Problems.List) != 2 ||
		player.Problems.List[0].Key != "PK=TEAM#1 SK=PLAYER#p5" || player.Problems.List[1].Key != "PK=TEAM#2 SK=PLAYER#p1" {
		t.Fatalf("player items = %+v, want 5 missing, the first 2 by key listed", player)
	}
	if !strings.Contains(out, "missing item PK=TEAM#2 SK=PLAYER#p1 (entity player, row player_id=1)\n        … and 3 more\n") {
		t.Errorf("the text does not say how many more problems there are:\n%s", out)
	}
	if rep.Stray.Total != 3 || len(rep.Stray.List) != 2 || rep.Stray.List[0].Key != "PK=X#1 SK=X#" || rep.Stray.List[1].Key != "PK=TEAM#1 SK=PLAYER#zz" {
		t.Fatalf("stray items = %+v, want 3 counted, the coach item and TEAM#1 listed", rep.Stray)
	}
	o.MaxProblems = 0
	rep = run(t, o)
	if p := itemsOf(t, rep, "player"); len(p.Problems.List) != 5 || rep.Stray.Total != 3 || len(rep.Stray.List) != 3 {
		t.Fatalf("with MaxProblems 0: %d of %d item problems, %d of %d strays listed", len(p.Problems.List), p.Problems.Total, len(rep.Stray.List), rep.Stray.Total)
	}
	want := []string{
		"item PK=X#1 SK=X# belongs to no entity of the mapping (_type S \"coach\")",
		"item PK=TEAM#1 SK=PLAYER#zz (entity player) comes from no source row",
		"item PK=TEAM#9 SK=PLAYER#ghost (entity player) comes from no source row",
	}
	if got := rep.Stray.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stray items:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReportJSONGolden pins the JSON report of a real run of the league on
// PostgreSQL, broken on purpose in one way per kind of problem: an accepted
// reject forged for a present row, a changed attribute, a deleted item and an
// item of no entity. Durations, the table's and the file's names are
// normalised.
func TestReportJSONGolden(t *testing.T) {
	ctx := context.Background()
	eng := testenv.Engines[0]
	o, rejects := league(t, eng.Name, eng.Fresh, eng.Exec)
	forged := withLines(t, rejects, `{"entity":"player","row":"player_id=1","reason":"forged"}`)
	o.Rejects = readRejects(t, o, forged)
	o.Seed, o.Samples = 7, 2
	_, err := o.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(o.Table), Key: key("TEAM#1", "TEAM#"),
		UpdateExpression:          aws.String("SET #n = :v"),
		ExpressionAttributeNames:  map[string]string{"#n": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "Ants!"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.Table), Key: key("TEAM#5", "PLAYER#p4")}); err != nil {
		t.Fatal(err)
	}
	ghost := key("X#1", "X#")
	ghost["_type"] = &types.AttributeValueMemberS{Value: "coach"}
	if _, err := o.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(o.Table), Item: ghost}); err != nil {
		t.Fatal(err)
	}
	rep := run(t, o)
	rep.Seconds = 0
	var b strings.Builder
	if err := report.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := strings.NewReplacer(o.Table, "league", forged, "rejects.jsonl").Replace(b.String())
	golden.Check(t, "league.golden.json", []byte(out))
}

// TestReportOfAnUnfinishedRun: DynamoDB fails every BatchGetItem (a fault
// the real service can return but DynamoDB Local cannot be made to), so
// verify stops in the item check; the report still holds the counts done
// before, OK false and the error, and renders as JUnit with an error case.
func TestReportOfAnUnfinishedRun(t *testing.T) {
	eng := testenv.Engines[0]
	o, rejects := league(t, eng.Name, eng.Fresh, eng.Exec)
	o.Rejects = readRejects(t, o, rejects)
	p, err := faultproxy.New(testenv.DynamoDB(t), 1, faultproxy.Rule{Fault: faultproxy.InternalError, Ops: []string{"BatchGetItem"}, Prob: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		p.Close()
	})
	o.DB = testenv.DynamoDBClient(srv.URL)
	// The batch is retried for 1s, not the default two minutes, before
	// verify gives up: the retries are not what this test is about.
	o.Backoff = migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: time.Second}
	rep, err := verify.Run(context.Background(), o)
	if err == nil || !strings.HasPrefix(err.Error(), "verify: comparing items of entity team: ") || !strings.Contains(err.Error(), "after retrying for 1s") {
		t.Fatalf("verify with every BatchGetItem failing = %v", err)
	}
	if rep == nil || rep.OK || rep.Error != err.Error() || len(rep.Counts) != 2 || !rep.Counts[0].OK || len(rep.Items) != 0 {
		t.Fatalf("the report of the unfinished run = %+v", rep)
	}
	for _, pc := range rep.Patterns { // the patterns run beside the item check: those that finished are listed
		if !pc.OK || pc.Samples == 0 {
			t.Errorf("access pattern %+v of the unfinished run is listed unfinished", pc)
		}
	}
	var b strings.Builder
	if err := report.Write(&b, report.JUnit, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuite name="counts" tests="3" failures="0" errors="0"`, `<testsuite name="verify" tests="1" failures="0" errors="1"`, `<error type="error" message="verify: comparing items of entity team: `} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the JUnit report lacks %s:\n%s", want, b.String())
		}
	}
}
