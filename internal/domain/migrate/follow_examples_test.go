package migrate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// followExample is a shipped example (../examples/<dir>) as
// TestFollowExamples follows it: its workload is the file
// follow-workload.<engine>.sql of its folder, or follow-workload.sql when
// both engines run the same statements.
type followExample struct {
	dir     string
	mapping string // the mapping file in dir
	load    func(t *testing.T, eng testenv.FollowEngine, dsn string)
	// The sentinel change: sentinel (a statement with one %s, the mark)
	// changes a row nothing else changes, followed row by row, whose item
	// is in the partition pk and gets the mark in its attribute attr. ""
	// for an example whose every entity is diffed at the stop (nothing to
	// wait for: the pass reads the source as it is then).
	sentinel, pk, attr string
}

func loadExample(dir string) func(*testing.T, testenv.FollowEngine, string) {
	return func(t *testing.T, eng testenv.FollowEngine, dsn string) {
		testenv.LoadExample(t, eng.Name, dsn, filepath.Join("../../../examples", dir))
	}
}

// followExamples are the shipped examples, on engine. Leaderboard's two
// entities both read a query (aggregates and a fan-out): nothing is
// followed row by row, and the diff pass synchronises them at the stop.
func followExamples(engine string) []followExample {
	chinook := followExample{dir: "chinook", mapping: "mapping.postgres.yaml",
		load: func(t *testing.T, eng testenv.FollowEngine, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_PostgreSql.sql", eng.Exec,
				"DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
		},
		sentinel: "UPDATE artist SET name = '%s' WHERE artist_id = 1", pk: "ARTIST#000001", attr: "name"}
	if engine == "mysql" {
		chinook.mapping = "mapping.mysql.yaml"
		chinook.load = func(t *testing.T, eng testenv.FollowEngine, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_MySql.sql", eng.Exec,
				"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
		}
		chinook.sentinel, chinook.attr = "UPDATE Artist SET Name = '%s' WHERE ArtistId = 1", "Name"
	}
	return []followExample{
		{dir: "personalization", mapping: "mapping.yaml", load: loadExample("personalization"),
			sentinel: "UPDATE users SET name = '%s' WHERE user_id = 1000", pk: "USER#1000", attr: "name"},
		{dir: "board", mapping: "mapping.yaml", load: loadExample("board"),
			sentinel: "UPDATE users SET nickname = '%s' WHERE user_id = 1", pk: "USER-1", attr: "nickname"},
		{dir: "game-profile", mapping: "mapping.yaml", load: loadExample("game-profile"),
			sentinel: "UPDATE users SET name = '%s' WHERE user_id = 'USER000001'", pk: "USER#USER000001", attr: "NAME"},
		{dir: "product-reviews", mapping: "mapping.yaml", load: loadExample("product-reviews"),
			sentinel: "UPDATE products SET name = '%s' WHERE product_id = 1", pk: "PRODUCT#1", attr: "name"},
		chinook,
		{dir: "leaderboard", mapping: "mapping.yaml", load: loadExample("leaderboard")},
	}
}

// TestFollowExamples: every shipped example that --follow can follow, on
// both follow engines, moves exactly while its source is written. The
// example is loaded, given the REPLICA IDENTITY FULL that validate
// (migrate.FollowSupport) says it needs, migrated with --follow
// --create-table, and changed by its workload (examples/<name>/
// follow-workload*.sql: inserts, value and key-moving updates, deletes,
// embedded child rows, transactions of several statements, rows under
// entities from queries); once the follower applied a sentinel change
// made after the workload it is stopped as SIGINT stops it, and the table
// must be the source: verify passes (every item, no stray item, the
// access patterns) and each entity has as many items as its source rows.
func TestFollowExamples(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		for _, ex := range followExamples(eng.Name) {
			t.Run(ex.dir+"/"+eng.Name, func(t *testing.T) {
				dsn := eng.Fresh(t)
				ex.load(t, eng, dsn)
				mappingYAML := readFile(t, filepath.Join("../../../examples", ex.dir, ex.mapping))
				fx := openWithQueries(t, dsn, mappingYAML)
				// As an operator would: give the tables validate names the
				// whole rows before a change.
				support := migrate.FollowSupport(fx.plan)
				t.Logf("%s", support)
				if strings.Contains(support, "refused") {
					t.Fatalf("validate says the example cannot be followed: %s", support)
				}
				if _, tables, ok := strings.Cut(support, "needs REPLICA IDENTITY FULL on "); ok {
					for _, name := range strings.Split(tables, ", ") {
						eng.Exec(t, dsn, eng.FullRows(name))
					}
					fx = openWithQueries(t, dsn, mappingYAML)
					if s := migrate.FollowSupport(fx.plan); s != support {
						t.Fatalf("FollowSupport changed with REPLICA IDENTITY FULL: %s", s)
					}
				}
				workload := followWorkload(t, ex.dir, eng.Name)

				db := newDB(t, endpoint)
				table := tableName(t, db)
				o := fx.options(db, table)
				o.Follow, o.CreateTable = true, true
				o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(t.TempDir(), "job.checkpoint.json"), "digest-1", "source-1"
				f := startFollow(t, testContext(t), o)
				f.following(t)

				conn := eng.Connect(t, dsn)
				for _, stmts := range workload {
					if err := conn.Exec(context.Background(), stmts...); err != nil {
						t.Fatalf("the workload: %v", err)
					}
				}
				if ex.sentinel != "" {
					mark := "sentinel " + testenv.UniqueName("x")
					if err := conn.Exec(context.Background(), fmt.Sprintf(ex.sentinel, mark)); err != nil {
						t.Fatalf("the sentinel change: %v", err)
					}
					waitCaughtUp(t, f, func() bool { return partitionHas(db, table, fx.plan.Table.PK.Name, ex.pk, ex.attr, mark) })
				}
				rep := f.stop(t)
				fr := rep.Follow
				t.Logf("followed %d transactions, %d changed rows: %d puts, %d deletes, %d rejected; %d entities diffed at the stop",
					fr.Transactions, fr.Changes, fr.Puts, fr.Deletes, fr.Rejected, len(fr.Diffed))
				if fr.Rejected != 0 || rep.Rejected != 0 {
					t.Errorf("rows rejected: %d by the follower, %d in all", fr.Rejected, rep.Rejected)
				}
				switch {
				case ex.sentinel == "" && (len(fr.Diffed) != len(fx.plan.Entities) || fr.Puts == 0 || fr.Deletes == 0):
					t.Errorf("every entity diffed at the stop, yet the pass: %+v", fr.Diffed)
				case ex.sentinel != "" && fr.Changes == 0:
					t.Errorf("the follower applied no change: %+v", fr)
				}
				checkExact(t, fx, db, table)
			})
		}
	}
}

// followWorkload reads an example's workload for engine: the transactions
// to commit one after the other, each a list of statements. A statement
// ends with the line that ends with ";"; lines of "--" comments are left
// out; the statements between the lines BEGIN; and COMMIT; are one
// transaction, every other statement is one of its own.
func followWorkload(t *testing.T, dir, engine string) [][]string {
	t.Helper()
	path := filepath.Join("../../../examples", dir, "follow-workload."+engine+".sql")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("../../../examples", dir, "follow-workload.sql")
	}
	var (
		txns  [][]string
		txn   []string
		inTxn bool
		stmt  strings.Builder
	)
	for i, line := range strings.Split(readFile(t, path), "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		stmt.WriteString(line + "\n")
		if !strings.HasSuffix(l, ";") {
			continue
		}
		s := strings.TrimSuffix(strings.TrimSpace(stmt.String()), ";")
		stmt.Reset()
		switch {
		case strings.EqualFold(s, "BEGIN"):
			if inTxn {
				t.Fatalf("%s:%d: BEGIN in a transaction", path, i+1)
			}
			inTxn = true
		case strings.EqualFold(s, "COMMIT"):
			if !inTxn || len(txn) < 2 {
				t.Fatalf("%s:%d: COMMIT without BEGIN and two statements", path, i+1)
			}
			txns, txn, inTxn = append(txns, txn), nil, false
		case inTxn:
			txn = append(txn, s)
		default:
			txns = append(txns, []string{s})
		}
	}
	if inTxn || stmt.Len() > 0 {
		t.Fatalf("%s: ends in a transaction or a statement", path)
	}
	return txns
}

// partitionHas says whether an item of the partition pk (the table's
// partition key attribute pkAttr) has value in its attribute attr.
func partitionHas(db dynamo.API, table, pkAttr, pk, attr, value string) bool {
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkAttr, "#a": attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}, ":v": &types.AttributeValueMemberS{Value: value}},
		FilterExpression:          aws.String("#a = :v"),
		ConsistentRead:            aws.Bool(true),
	})
	return err == nil && len(out.Items) > 0
}
