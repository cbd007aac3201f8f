package migrate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// followExample is a shipped example (../examples/<dir>) as
// TestFollowExamples follows it: its workload is the file
// follow-workload.<engine>.sql of its folder, or follow-workload.sql when
// both engines run the same statements.
type followExample struct {
	dir     string
	mapping string // the mapping file in dir
	// name is the subtest's name ("": dir); edit, when set, changes the
	// mapping file's text before it is used.
	name string
	edit func(string) string
	load func(t *testing.T, eng testenv.FollowEngine, dsn string)
	// The sentinel change: sentinel (a statement with one %s, the mark)
	// changes a row nothing else changes, followed row by row, whose item
	// is in the partition pk and gets the mark in its attribute attr. ""
	// for an example whose every entity is diffed at the stop (nothing to
	// wait for: the pass reads the source as it is then).
	sentinel, pk, attr string
}

func loadExample(dir string) func(*testing.T, testenv.FollowEngine, string) {
	return func(t *testing.T, eng testenv.FollowEngine, dsn string) {
		testenv.LoadExample(t, eng.Name, dsn, filepath.Join("../examples", dir))
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

// withMarkers is the personalization example with every marker set
// (table.markers): the follower renders its items as the copy does, so
// verify, which checks the markers, passes only if it writes them too.
// One engine is enough: both render through the same code.
func withMarkers() followExample {
	const from = "entity_attribute: _type"
	return followExample{dir: "personalization", name: "personalization-markers", mapping: "mapping.yaml", load: loadExample("personalization"),
		edit: func(m string) string {
			return strings.Replace(m, from, "entity_attribute: kind\n  markers: [electrodb, onetable, version]", 1)
		},
		sentinel: "UPDATE users SET name = '%s' WHERE user_id = 1000", pk: "USER#1000", attr: "name"}
}

// label is the example's subtest name.
func (ex followExample) label() string {
	if ex.name != "" {
		return ex.name
	}
	return ex.dir
}

// followedExample is an example loaded into a fresh database of a follow
// engine, ready to be followed.
type followedExample struct {
	followExample
	eng      testenv.FollowEngine
	dsn      string
	mapping  string // the mapping file's path
	fx       *fixture
	workload [][]string // its transactions
	conn     testenv.SQLConn
}

// loadFollowed loads ex into a fresh database of eng and, as an operator
// would, gives the tables validate (migrate.FollowSupport) names the whole
// rows before a change.
func loadFollowed(t *testing.T, eng testenv.FollowEngine, ex followExample) *followedExample {
	t.Helper()
	dsn := eng.Fresh(t)
	ex.load(t, eng, dsn)
	path, err := filepath.Abs(filepath.Join("../examples", ex.dir, ex.mapping))
	if err != nil {
		t.Fatal(err)
	}
	mappingYAML := readFile(t, path)
	if ex.edit != nil {
		mappingYAML = ex.edit(mappingYAML)
	}
	fx := openWithQueries(t, dsn, mappingYAML)
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
	return &followedExample{followExample: ex, eng: eng, dsn: dsn, mapping: path, fx: fx,
		workload: followWorkload(t, ex.dir, eng.Name), conn: eng.Connect(t, dsn)}
}

// apply commits the workload's transactions from..to.
func (x *followedExample) apply(t *testing.T, from, to int) {
	t.Helper()
	for _, stmts := range x.workload[from:to] {
		if err := x.conn.Exec(context.Background(), stmts...); err != nil {
			t.Fatalf("the workload: %v", err)
		}
	}
}

// sentinel commits the sentinel change and returns a func that says
// whether the table shows it; nil for an example without one.
func (x *followedExample) sentinelChange(t *testing.T, db dynamo.API, table string) func() bool {
	t.Helper()
	if x.sentinel == "" {
		return nil
	}
	mark := "sentinel " + testenv.UniqueName("x")
	if err := x.conn.Exec(context.Background(), fmt.Sprintf(x.sentinel, mark)); err != nil {
		t.Fatalf("the sentinel change: %v", err)
	}
	return func() bool { return partitionHas(db, table, x.fx.plan.Table.PK.Name, x.pk, x.attr, mark) }
}

// checkFollowed checks the report of the stopped follower (nothing
// rejected; changes applied, or for an example whose every entity is
// diffed, the pass's puts and deletes) and that the table is the source.
func (x *followedExample) checkFollowed(t *testing.T, fr *migrate.FollowReport, rejected int64, db dynamo.API, table string) {
	t.Helper()
	t.Logf("followed %d transactions, %d changed rows: %d puts, %d deletes, %d rejected; %d entities diffed at the stop",
		fr.Transactions, fr.Changes, fr.Puts, fr.Deletes, fr.Rejected, len(fr.Diffed))
	if fr.Rejected != 0 || rejected != 0 {
		t.Errorf("rows rejected: %d by the follower, %d in all", fr.Rejected, rejected)
	}
	switch {
	case x.sentinel == "" && (len(fr.Diffed) != len(x.fx.plan.Entities) || fr.Puts == 0 || fr.Deletes == 0):
		t.Errorf("every entity diffed at the stop, yet the pass: %+v", fr.Diffed)
	case x.sentinel != "" && fr.Changes == 0:
		t.Errorf("the follower applied no change: %+v", fr)
	}
	checkExact(t, x.fx, db, table)
}

// copyGate is a DynamoDB client whose BatchWriteItem calls wait until the
// gate is opened: the copy's first write tells writing and waits, so that
// the test commits changes after the copy's snapshot and before the copy
// is done.
type copyGate struct {
	dynamo.API
	writing, open chan struct{}
	once          sync.Once
}

func newCopyGate(db dynamo.API) *copyGate {
	return &copyGate{API: db, writing: make(chan struct{}), open: make(chan struct{})}
}

func (g *copyGate) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	g.once.Do(func() { close(g.writing) })
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.API.BatchWriteItem(ctx, in, opts...)
}

// TestFollowExamples: every shipped example that --follow can follow, on
// both follow engines, moves exactly while its source is written, during
// the copy and after it. The example is loaded, given the REPLICA
// IDENTITY FULL that validate (migrate.FollowSupport) says it needs, and
// migrated with --follow --create-table. Its workload
// (examples/<name>/follow-workload*.sql: inserts, value and key-moving
// updates, deletes, embedded child rows, transactions of several
// statements, rows under entities from queries) is committed in two
// parts: the first third while the copy runs (its first write waits, at a
// gate of the DynamoDB client, until those transactions are committed:
// after the copy's snapshot, before its end, so they reach the table only
// through the stream), the rest once the follower applies changes. Once
// the follower applied a sentinel change made after the workload it is
// stopped as SIGINT stops it, and the table must be the source: verify
// passes (every item, no stray item, the access patterns) and each entity
// has as many items as its source rows. A follower that applied only the
// transactions committed once the copy was done (a stream starting at the
// copy's end, not at its snapshot) loses the first part: missing items.
func TestFollowExamples(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for i, eng := range testenv.FollowEngines {
		exs := followExamples(eng.Name)
		if i == 0 {
			exs = append(exs, withMarkers())
		}
		for _, ex := range exs {
			t.Run(ex.label()+"/"+eng.Name, func(t *testing.T) {
				t.Parallel() // each its own database, table and slot
				x := loadFollowed(t, eng, ex)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				gate := newCopyGate(db)
				o := x.fx.options(gate, table)
				o.Follow, o.CreateTable = true, true
				o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(t.TempDir(), "job.checkpoint.json"), "digest-1", "source-1"
				f := startFollow(t, testContext(t), o)
				select {
				case <-gate.writing:
				case <-f.done:
					t.Fatalf("the run ended before the copy wrote: %v", f.err)
				}
				during := len(x.workload) / 3
				x.apply(t, 0, during) // while the copy waits at the gate
				close(gate.open)
				f.following(t)
				x.apply(t, during, len(x.workload))
				t.Logf("%d transactions during the copy, %d after it", during, len(x.workload)-during)
				if applied := x.sentinelChange(t, db, table); applied != nil {
					waitCaughtUp(t, f, applied)
				}
				rep := f.stop(t)
				x.checkFollowed(t, rep.Follow, rep.Rejected, db, table)
				if ex.edit != nil && !x.fx.plan.Table.HasMarkers(mapping.MarkersElectroDB) {
					t.Errorf("%s: the edit left the mapping without markers (the example's mapping changed?)", ex.label())
				}
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
	path := filepath.Join("../examples", dir, "follow-workload."+engine+".sql")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("../examples", dir, "follow-workload.sql")
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
