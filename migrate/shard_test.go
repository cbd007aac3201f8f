package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestParseShard: i/n, 1-based; everything else is refused with a reason.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want migrate.Shard
		err  string
	}{
		{"1/1", migrate.Shard{Index: 1, Count: 1}, ""},
		{"2/3", migrate.Shard{Index: 2, Count: 3}, ""},
		{"3/3", migrate.Shard{Index: 3, Count: 3}, ""},
		{"10000/10000", migrate.Shard{Index: 10000, Count: 10000}, ""},
		{"0/3", migrate.Shard{}, "the shard must be from 1 to 3 (shards are numbered from 1"},
		{"4/3", migrate.Shard{}, "the shard must be from 1 to 3"},
		{"-1/3", migrate.Shard{}, "the shard must be from 1 to 3"},
		{"1/0", migrate.Shard{}, "the number of shards must be from 1 to 10000"},
		{"1/10001", migrate.Shard{}, "the number of shards must be from 1 to 10000"},
		{"2", migrate.Shard{}, "is not i/n"},
		{"", migrate.Shard{}, "is not i/n"},
		{"a/3", migrate.Shard{}, "two whole numbers"},
		{"1/3/4", migrate.Shard{}, "two whole numbers"},
		{"1.5/3", migrate.Shard{}, "two whole numbers"},
	} {
		got, err := migrate.ParseShard(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseShard(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

// shardSQL: accounts (300 rows) with their orders embedded (3 each),
// lines with a two-column key (500 rows), and a table of 2 rows, fewer
// than the ranges and the shards.
var shardSQL = func() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE accounts (account_id int PRIMARY KEY, name varchar(40) NOT NULL);
CREATE TABLE orders (order_id int PRIMARY KEY, account_id int NOT NULL, total int NOT NULL);
CREATE TABLE order_lines (order_id int NOT NULL, line int NOT NULL, sku varchar(20) NOT NULL, PRIMARY KEY (order_id, line));
CREATE TABLE few (id int PRIMARY KEY, v varchar(10) NOT NULL);
INSERT INTO few VALUES (1, 'a'), (2, 'b');
`)
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "INSERT INTO accounts VALUES (%d, 'account %d');\n", i, i)
		for j := 0; j < 3; j++ {
			fmt.Fprintf(&b, "INSERT INTO orders VALUES (%d, %d, %d);\n", i*10+j, i, i+j)
		}
	}
	for i := 1; i <= 100; i++ {
		for l := 1; l <= 5; l++ {
			fmt.Fprintf(&b, "INSERT INTO order_lines VALUES (%d, %d, 'sku%d');\n", i, l, l)
		}
	}
	return b.String()
}()

const shardMapping = `version: 1
table: {name: sharded, key: {pk: PK, sk: SK}}
entities:
  account:
    from: accounts
    pk: "ACCOUNT#{account_id}"
    sk: ACCOUNT
    embed:
      orders: {from: orders, on: [account_id], order_by: order_id, attributes: {include: [order_id, total]}}
  line:
    from: order_lines
    pk: "ORDER#{order_id}"
    sk: "LINE#{line}"
  few:
    from: few
    pk: "FEW#{id}"
    sk: FEW
`

// TestShardsAtOnce: three shards of one job start at once, each with
// --create-table, into a table that does not exist: exactly one creates it,
// the others wait for it and check it, and all three write. Each row is read
// by exactly one shard (the rows the reports count add up to the source's,
// entity by entity, with an entity of embedded rows and one of fewer rows
// than ranges), and the table holds exactly one item per row. Then a fourth
// run with --create-table into a table whose keys differ from the mapping's
// is refused.
func TestShardsAtOnce(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := load(t, eng, shardSQL, shardMapping)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			const n = 3
			reps := make([]*migrate.Report, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := fx.options(newDB(t, endpoint), table)
					o.CreateTable, o.Ranges, o.Readers = true, 4, 2
					o.Shard = migrate.Shard{Index: i + 1, Count: n}
					<-start
					reps[i], errs[i] = migrate.Run(testContext(t), o)
				}()
			}
			close(start)
			wg.Wait()
			created := 0
			rows := map[string]int64{}
			var total int64
			for i, rep := range reps {
				if errs[i] != nil {
					t.Fatalf("shard %d/%d: %v", i+1, n, errs[i])
				}
				if rep.Shard != strconv.Itoa(i+1)+"/3" {
					t.Errorf("shard %d/%d: the report says shard %q", i+1, n, rep.Shard)
				}
				if rep.CreatedTable {
					created++
				}
				if rep.RowsRead == 0 {
					t.Errorf("shard %d/%d read no row: the ranges are not dealt over the shards", i+1, n)
				}
				total += rep.RowsRead
				for _, e := range rep.Entities {
					rows[e.Name] += e.Rows
				}
			}
			if created != 1 {
				t.Errorf("%d shards say they created the table, want 1", created)
			}
			if total != fx.total {
				t.Errorf("the shards read %d rows together, the source has %d", total, fx.total)
			}
			for name, want := range fx.rows {
				if rows[name] != want {
					t.Errorf("entity %s: the shards read %d rows together, the source has %d", name, rows[name], want)
				}
			}
			got, per := scan(t, db, table)
			if got != fx.total {
				t.Errorf("the table holds %d items, the source has %d rows", got, fx.total)
			}
			for name, want := range fx.rows {
				if per[name] != want {
					t.Errorf("the table holds %d %s items, the source has %d rows", per[name], name, want)
				}
			}

			// A table of that name with other keys: the shard that finds it
			// checks it and refuses.
			other := tableName(t, db)
			_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
				TableName:            aws.String(other),
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
				BillingMode:          types.BillingModePayPerRequest,
			})
			if err != nil {
				t.Fatal(err)
			}
			o := fx.options(db, other)
			o.CreateTable, o.Shard = true, migrate.Shard{Index: 1, Count: 2}
			if _, err := migrate.Run(testContext(t), o); err == nil || !strings.Contains(err.Error(), "has key (id, no sort key) but the mapping says (PK, SK)") {
				t.Errorf("a shard with --create-table into a table with other keys: %v", err)
			}
		})
	}
}

// TestShardLock: each shard has its own lock item. While shard 2/3 of a
// job holds its lock (a live run of this process), a second run of shard
// 2/3 is refused, naming it, and writes nothing; shards 1/3 and 3/3 write
// beside it, and leave its lock alone. Once it is gone, shard 2/3 runs, and
// the three shards together wrote every row; no lock item is left.
func TestShardLock(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	if err := migrate.CreateTable(context.Background(), db, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	self := process.Self()
	held := fx.plan.Table.ShardLockKey(2, 3)
	held["remodel_owner"] = &types.AttributeValueMemberS{Value: "00112233aabbccdd"}
	held["remodel_host"] = &types.AttributeValueMemberS{Value: self.Host}
	held["remodel_pid"] = &types.AttributeValueMemberN{Value: strconv.Itoa(os.Getpid())}
	held["remodel_pid_start"] = &types.AttributeValueMemberS{Value: self.Start}
	held["remodel_started"] = &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)}
	held["remodel_heartbeat"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().UnixMilli(), 10)}
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: held}); err != nil {
		t.Fatal(err)
	}
	run := func(i int) (*migrate.Report, error) {
		o := fx.options(db, table)
		o.Ranges, o.Shard = 3, migrate.Shard{Index: i, Count: 3}
		return migrate.Run(testContext(t), o)
	}
	rep, err := run(2)
	if err == nil || !strings.HasPrefix(err.Error(), "migrate: shard 2/3 of table "+table+" is locked by another migrate run: owner 00112233aabbccdd on host "+self.Host) {
		t.Fatalf("a second run of shard 2/3: %v", err)
	}
	if rep.ItemsWritten != 0 || rep.RowsRead != 0 {
		t.Errorf("the refused shard read %d rows and wrote %d items", rep.RowsRead, rep.ItemsWritten)
	}
	var rows int64
	for _, i := range []int{1, 3} {
		rep, err := run(i)
		if err != nil {
			t.Fatalf("shard %d/3 beside shard 2/3's lock: %v", i, err)
		}
		rows += rep.RowsRead
	}
	got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: fx.plan.Table.ShardLockKey(2, 3), ConsistentRead: aws.Bool(true)})
	if err != nil || testenv.AttrText(got.Item, "remodel_owner") != "00112233aabbccdd" {
		t.Fatalf("shard 2/3's lock after shards 1 and 3: %v, %v", got.Item, err)
	}
	if _, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: fx.plan.Table.ShardLockKey(2, 3)}); err != nil {
		t.Fatal(err)
	}
	rep, err = run(2)
	if err != nil {
		t.Fatalf("shard 2/3 once its lock is gone: %v", err)
	}
	if rows += rep.RowsRead; rows != fx.total {
		t.Errorf("the three shards read %d rows, the source has %d", rows, fx.total)
	}
	if n, _ := scan(t, db, table); n != fx.total {
		t.Errorf("the table holds %d items (lock items included), the source has %d rows", n, fx.total)
	}
	var nf *types.ResourceNotFoundException
	for i := 1; i <= 3; i++ {
		got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: fx.plan.Table.ShardLockKey(i, 3), ConsistentRead: aws.Bool(true)})
		if err != nil && !errors.As(err, &nf) || got.Item != nil {
			t.Errorf("shard %d/3's lock item is left: %v %v", i, got.Item, err)
		}
	}
}
