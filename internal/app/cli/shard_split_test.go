package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// splitPlanKey is the key of the split plan item of a table with
// shardedMapping's keys (mapping.Table.SplitPlanKey).
func splitPlanKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "#remodel#lock#plan"}, "SK": &types.AttributeValueMemberS{Value: "#remodel#lock#plan"}}
}

func splitPlanItem(t *testing.T, db *dynamodb.Client, table string) map[string]types.AttributeValue {
	t.Helper()
	got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: splitPlanKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return got.Item
}

// splitRows is the orders of the split plan tests' source.
const splitRows = 1200

// splitJob is the split plan tests' fixture: a fresh database (fresh,
// exec: the engine's) holding ordersSQL's splitRows orders and 2
// customers, shardedMapping's file, a DynamoDB client and a table name,
// and a folder for the shards' files.
func splitJob(t *testing.T, fresh func(testing.TB) string, exec func(testing.TB, string, string)) (dsn, m string, db *dynamodb.Client, table, dir string) {
	t.Helper()
	dsn = fresh(t)
	exec(t, dsn, ordersSQL(1, splitRows, true))
	m = writeFile(t, "sharded.yaml", shardedMapping)
	db, table = testenv.DynamoDBTable(t)
	return dsn, m, db, table, t.TempDir()
}

// jobEnded checks a sharded job that ended: the table holds want items,
// the split plan item is gone, and verify passes.
func jobEnded(t *testing.T, db *dynamodb.Client, dsn, m, endpoint, table string, want int64) {
	t.Helper()
	if n := count(t, db, table); n != want {
		t.Errorf("the table holds %d items, want %d", n, want)
	}
	if it := splitPlanItem(t, db, table); it != nil {
		t.Errorf("the split plan item is left after the last shard: %v", it)
	}
	verifyPasses(t, dsn, m, endpoint, table, "")
}

// verifyPasses runs verify of the table (what: when, for the message) and
// returns its output.
func verifyPasses(t *testing.T, dsn, m, endpoint, table, what string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--seed", "1")
	if code != 0 {
		t.Errorf("verify %s exited %d:\n%s\n%s", what, code, vout, verr)
	}
	return vout
}

// shardArgs is the command line of a shard of the split plan tests'
// job (--ranges 4, a checkpoint and rejects file in dir named by the
// shard), with extra flags.
func shardArgs(dsn, m, endpoint, table, dir, shard string, extra ...string) []string {
	f := strings.ReplaceAll(shard, "/", "-")
	return append([]string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
		"--create-table", "--shard", shard, "--ranges", "4", "--readers", "2", "--checkpoint-every", "50ms",
		"--checkpoint", filepath.Join(dir, f+".json"), "--rejects", filepath.Join(dir, f+".jsonl")}, extra...)
}

// ordersSQL is shardedMapping's source: orders from..to, and 2 customers.
func ordersSQL(from, to int, customers bool) string {
	var b strings.Builder
	if customers {
		b.WriteString("CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT NOT NULL, total INT NOT NULL, note VARCHAR(40));\n")
		b.WriteString("CREATE TABLE customers (customer_id INT PRIMARY KEY, name VARCHAR(40));\nINSERT INTO customers VALUES (1, 'one'), (2, 'two');\n")
	}
	for i := from; i <= to; i++ {
		if (i-from)%500 == 0 {
			b.WriteString("INSERT INTO orders VALUES ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %d, 'order %d')", i, i%2+1, i%997, i)
		if (i-from)%500 == 499 || i == to {
			b.WriteString(";\n")
		}
	}
	return b.String()
}

// TestShardSplitRefused: the first shard of a job records its split plan
// in the table; while it is in use (shard 1/3 finished with it), a shard
// given another --ranges, another n or another mapping file is refused
// (exit status 3, naming what differs) before it writes any item. The
// job's other shards then finish it: the table holds exactly the source's
// items, the plan item is gone, and verify passes. Both engines.
func TestShardSplitRefused(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn, m, db, table, dir := splitJob(t, e.Fresh, e.Exec)
			other := writeFile(t, "other.yaml", shardedMapping+"# another file\n")
			run := func(mapping, shard string, ranges int) (int, string, string) {
				f := strings.ReplaceAll(shard, "/", "-") + "-" + strconv.Itoa(ranges)
				return remodelCtx(t, context.Background(), "migrate", "--source", dsn, "-m", mapping, "--endpoint-url", endpoint, "--table", table,
					"--create-table", "--shard", shard, "--ranges", strconv.Itoa(ranges), "--readers", "2",
					"--checkpoint", filepath.Join(dir, f+".json"), "--rejects", filepath.Join(dir, f+".jsonl"))
			}
			if code, out, errs := run(m, "1/3", 4); code != 0 {
				t.Fatalf("shard 1/3: exit %d\n%s%s", code, out, errs)
			}
			if splitPlanItem(t, db, table) == nil {
				t.Fatal("shard 1/3 left no split plan item")
			}
			before := count(t, db, table)
			for _, c := range []struct {
				mapping, shard string
				ranges         int
				want           string
			}{
				{m, "2/3", 3, "it was made with --ranges 4, this shard with --ranges 3"},
				{m, "2/4", 4, "it is of 3 shards, this shard of 4"},
				{other, "2/3", 4, "it was made with another mapping file"},
			} {
				code, out, errs := run(c.mapping, c.shard, c.ranges)
				if code != exitError || !strings.Contains(errs, "remodel: migrate: shard "+c.shard+" of table "+table+": the job's split plan ") ||
					!strings.Contains(errs, c.want) || !strings.Contains(errs, "shard 1/3 finished with it") {
					t.Errorf("shard %s --ranges %d: exit %d\n%s%s\nwant exit 3 and %q", c.shard, c.ranges, code, out, errs, c.want)
				}
				if n := count(t, db, table); n != before {
					t.Errorf("the refused shard %s --ranges %d changed the table: %d items, %d before", c.shard, c.ranges, n, before)
				}
			}
			for _, shard := range []string{"2/3", "3/3"} {
				if code, out, errs := run(m, shard, 4); code != 0 {
					t.Fatalf("shard %s: exit %d\n%s%s", shard, code, out, errs)
				}
			}
			jobEnded(t, db, dsn, m, endpoint, table, splitRows+2)
		})
	}
}

// TestShardSplitSourceChanges: rows are added to the source between shard
// 1/2's run and shard 2/2's start, inside a key range of shard 2/2's,
// enough to move every boundary of its snapshot. Shard 2/2 reads the key
// ranges shard 1/2 recorded (its report says so), so that every row is read
// by one shard: the table ends with exactly the source's items and verify
// passes. The split plan item, left out by verify, by migrate's count of
// the items before (--allow-non-empty) and by the emptiness check, is then
// put back into the table to show it: verify still passes, and an
// unsharded migrate into a table holding only that item is not refused.
// Both engines.
func TestShardSplitSourceChanges(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn, m, db, table, dir := splitJob(t, e.Fresh, e.Exec)
			run := func(shard string, extra ...string) (int, string, string) {
				return remodelCtx(t, context.Background(), shardArgs(dsn, m, endpoint, table, dir, shard, extra...)...)
			}
			if code, out, errs := run("1/2"); code != 0 {
				t.Fatalf("shard 1/2: exit %d\n%s%s", code, out, errs)
			}
			plan := splitPlanItem(t, db, table)
			body, ok := plan["remodel_split_plan"].(*types.AttributeValueMemberS)
			if !ok {
				t.Fatalf("the split plan item holds no plan: %v", plan)
			}
			var p struct {
				Reads []struct {
					Entities []string
					Bounds   [][]struct{ T, V string }
				}
			}
			if err := json.Unmarshal([]byte(body.Value), &p); err != nil {
				t.Fatal(err)
			}
			var bounds int
			for _, r := range p.Reads {
				if r.Entities[0] == "order" {
					bounds = len(r.Bounds)
				}
			}
			if bounds != 3 {
				t.Fatalf("the plan cuts orders at %d boundaries, want 3: %s", bounds, body.Value)
			}
			// Range j of "order" is shard (fnv32a("order")+j) mod 2 + 1's
			// (migrate.shardOf): of 4 ranges, shard 2/2 owns the first or
			// the last. Add as many rows as there are inside it.
			h := fnv.New32a()
			h.Write([]byte("order"))
			if (h.Sum32()+0)%2+1 == 2 {
				e.Exec(t, dsn, ordersSQL(-splitRows+1, 0, false))
			} else {
				e.Exec(t, dsn, ordersSQL(splitRows+1, 2*splitRows, false))
			}
			rows := int64(2*splitRows + 2)
			code, out, errs := run("2/2")
			if code != 0 {
				t.Fatalf("shard 2/2: exit %d\n%s%s", code, out, errs)
			}
			if !strings.Contains(out, "the key ranges of this shard's snapshot differ from the split plan") {
				t.Errorf("shard 2/2's report does not say it read the recorded ranges:\n%s", out)
			}
			if n := count(t, db, table); n != rows {
				t.Errorf("the table holds %d items (lock and plan items included), the source %d rows", n, rows)
			}
			if it := splitPlanItem(t, db, table); it != nil {
				t.Errorf("the split plan item is left after the last shard: %v", it)
			}
			if out := verifyPasses(t, dsn, m, endpoint, table, "after both shards"); strings.Contains(out, "warning:") {
				t.Errorf("verify after both shards warns:\n%s", out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()

			// The plan item, put back, is no item of the data.
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: plan}); err != nil {
				t.Fatal(err)
			}
			if out := verifyPasses(t, dsn, m, endpoint, table, "with the split plan item in the table"); !strings.Contains(out, "warning: the table holds a sharded migrate job's split plan item (key PK=#remodel#lock#plan") {
				t.Errorf("verify with the split plan item in the table does not say so:\n%s", out)
			}
			code, out, errs = remodelCtx(t, ctx, "migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
				"--allow-non-empty", "--checkpoint", filepath.Join(dir, "all.json"), "--rejects", filepath.Join(dir, "all.jsonl"), "--output", "json")
			var rep struct {
				ItemsBefore int64 `json:"items_before"`
			}
			if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.ItemsBefore != rows {
				t.Errorf("migrate --allow-non-empty over the job's table and its plan item: exit %d, items before %d, want %d (%v)\n%s%s", code, rep.ItemsBefore, rows, err, out, errs)
			}
			_, empty := testenv.DynamoDBTable(t)
			if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName: aws.String(empty), BillingMode: types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(empty), Item: plan}); err != nil {
				t.Fatal(err)
			}
			code, out, errs = remodelCtx(t, ctx, "migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", empty,
				"--checkpoint", filepath.Join(dir, "empty.json"), "--rejects", filepath.Join(dir, "empty.jsonl"))
			if code != 0 {
				t.Errorf("migrate into a table holding only a split plan item: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}

// interruptOnceSettled runs remodel with args and cancels it (as SIGINT
// does) once its checkpoint ck has settled rows.
func interruptOnceSettled(t *testing.T, ck string, args []string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for settled(ck) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancel()
	}()
	code, out, errs := remodelCtx(t, ctx, args...)
	cancel()
	<-stopped
	return code, out, errs
}

// TestShardSplitReplacedThenResume: shard 1/2 is interrupted, so no shard
// of its job finished or runs; a new job's shard 1/3 then replaces its
// split plan (its report says so), and shard 1/2 --resume, whose
// checkpoint's key ranges are of the replaced plan, is refused (exit
// status 3) instead of reading ranges that fit no other shard's. Both
// engines.
func TestShardSplitReplacedThenResume(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn, m, _, table, dir := splitJob(t, e.Fresh, e.Exec)
			args := func(shard string, extra ...string) []string {
				return shardArgs(dsn, m, endpoint, table, dir, shard, extra...)
			}
			code, out, errs := interruptOnceSettled(t, filepath.Join(dir, "1-2.json"), args("1/2", "--rate-limit", "200"))
			if code != exitInterrupted {
				t.Fatalf("shard 1/2 stopped mid-way: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = remodelCtx(t, context.Background(), args("1/3")...)
			if code != 0 || !strings.Contains(out, "replaced the split plan") || !strings.Contains(out, "no shard of it finished or runs (it is of 2 shards, this shard of 3)") {
				t.Fatalf("shard 1/3 of a new job: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = remodelCtx(t, context.Background(), args("1/2", "--resume")...)
			if code != exitError || !strings.Contains(errs, "the checkpoint's key ranges are of split plan") || !strings.Contains(errs, "another job replaced the plan since") {
				t.Errorf("shard 1/2 --resume after its plan was replaced: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}

// TestShardSplitJobs: --job keeps two jobs of the same options apart.
// Shard 1/3 of job "a" is interrupted, and shard 2/3 of job "a" finishes:
// the split plan item is job a's, in use. Shard 3/3 of job "b", and one
// given no --job, are refused (exit status 3, naming both jobs) before
// they write any item, instead of adopting a plan whose finished shards
// would count as theirs; shard 1/3 --resume of job "b" is refused by its
// checkpoint. Job a's shards then finish: the table holds exactly the
// source's items, the plan item is gone, and verify passes. Then a plan not
// in use is replaced by another job's shard, and a shard of the replaced
// job resumed is refused even though the new plan has the same ranges;
// once that plan item is deleted, the shard resumes and records its plan
// again, by its digest, and its job ends with the item removed. Both
// engines.
func TestShardSplitJobs(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn, m, db, table, dir := splitJob(t, e.Fresh, e.Exec)
			args := func(shard string, extra ...string) []string {
				return shardArgs(dsn, m, endpoint, table, dir, shard, extra...)
			}
			ck := filepath.Join(dir, "1-3.json")
			code, out, errs := interruptOnceSettled(t, ck, args("1/3", "--job", "a", "--rate-limit", "200"))
			if code != exitInterrupted {
				t.Fatalf("shard 1/3 of job a stopped mid-way: exit %d\n%s%s", code, out, errs)
			}
			if code, sout, serr := remodel(t, "status", "--checkpoint", ck); code != 0 || !strings.Contains(sout, `, job "a", split plan `) {
				t.Errorf("status of shard 1/3 of job a: exit %d\n%s%s", code, sout, serr)
			}
			if code, out, errs := remodelCtx(t, context.Background(), args("2/3", "--job", "a")...); code != 0 || !strings.Contains(out, `, shard 2/3 of job "a" (split plan `) {
				t.Fatalf("shard 2/3 of job a: exit %d\n%s%s", code, out, errs)
			}
			if testenv.AttrText(splitPlanItem(t, db, table), "remodel_split_job") != "a" {
				t.Fatalf("the split plan item does not name job a: %v", splitPlanItem(t, db, table))
			}
			before := count(t, db, table)
			for _, c := range []struct {
				name string
				args []string
				want string
			}{
				{"shard 3/3 of job b", args("3/3", "--job", "b"), `it is of --job "a", this shard of --job "b"`},
				{"shard 3/3 of no job", args("3/3"), `it is of --job "a", this shard of no --job`},
			} {
				code, out, errs := remodelCtx(t, context.Background(), c.args...)
				if code != exitError || !strings.Contains(errs, "the job's split plan ") || !strings.Contains(errs, c.want) || !strings.Contains(errs, "shard 2/3 finished with it") {
					t.Errorf("%s: exit %d\n%s%s\nwant exit 3 and %q", c.name, code, out, errs, c.want)
				}
				if n := count(t, db, table); n != before {
					t.Errorf("the refused %s changed the table: %d items, %d before", c.name, n, before)
				}
			}
			code, out, errs = remodelCtx(t, context.Background(), args("1/3", "--resume", "--job", "b")...)
			if code != exitError || !strings.Contains(errs, `it is of --job "a", not --job "b". Resume with the mapping, source, table, --shard 1/3 and --job "a" of the interrupted run, or run the shard again without --resume`) {
				t.Errorf("shard 1/3 --resume of job b: exit %d\n%s%s", code, out, errs)
			}
			for _, a := range [][]string{args("1/3", "--resume", "--job", "a"), args("3/3", "--job", "a")} {
				if code, out, errs := remodelCtx(t, context.Background(), a...); code != 0 {
					t.Fatalf("%v: exit %d\n%s%s", a[len(a)-3:], code, out, errs)
				}
			}
			jobEnded(t, db, dsn, m, endpoint, table, splitRows+2)

			// Job c's shard 1/3 stops; no shard of job c finished or runs, so
			// job d's shard 2/3 replaces its plan, with the same ranges (the
			// source did not change). Shard 1/3 of job c, resumed, is refused:
			// its end would count as one of job d's shards'.
			if code, out, errs := interruptOnceSettled(t, ck, args("1/3", "--job", "c", "--rate-limit", "200")); code != exitInterrupted {
				t.Fatalf("shard 1/3 of job c stopped mid-way: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = remodelCtx(t, context.Background(), args("2/3", "--job", "d")...)
			if code != 0 || !strings.Contains(out, "replaced the split plan") || !strings.Contains(out, `it is of --job "c", this shard of --job "d"`) {
				t.Fatalf("shard 2/3 of job d: exit %d\n%s%s", code, out, errs)
			}
			ckBefore, err := os.ReadFile(ck)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errs = remodelCtx(t, context.Background(), args("1/3", "--resume", "--job", "c")...)
			if code != exitError || !strings.Contains(errs, "is of another job than this shard's (--job \"c\")") {
				t.Errorf("shard 1/3 of job c resumed onto job d's plan: exit %d\n%s%s", code, out, errs)
			}
			if after, err := os.ReadFile(ck); err != nil || !bytes.Equal(after, ckBefore) {
				t.Errorf("the refused resume changed its checkpoint (%v):\n%s\nbefore:\n%s", err, after, ckBefore)
			}

			// Job d abandoned: its plan item deleted, as the message says.
			// Shard 1/3 of job c resumes and records its plan again, by its
			// digest; job c's other shards read the same ranges, and the
			// last one removes the item.
			if _, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: splitPlanKey()}); err != nil {
				t.Fatal(err)
			}
			code, out, errs = remodelCtx(t, context.Background(), args("1/3", "--resume", "--job", "c")...)
			if code != 0 || !strings.Contains(out, "this shard recorded its plan") {
				t.Fatalf("shard 1/3 of job c resumed with no plan item: exit %d\n%s%s", code, out, errs)
			}
			if it := splitPlanItem(t, db, table); it == nil || it["remodel_split_plan"] != nil || testenv.AttrText(it, "remodel_split_job") != "c" || testenv.AttrText(it, "remodel_split_ranges") != "4" {
				t.Fatalf("the plan item recorded again: %v", it)
			}
			for _, shard := range []string{"2/3", "3/3"} {
				if code, out, errs := remodelCtx(t, context.Background(), args(shard, "--job", "c")...); code != 0 {
					t.Fatalf("shard %s of job c: exit %d\n%s%s", shard, code, out, errs)
				}
			}
			jobEnded(t, db, dsn, m, endpoint, table, splitRows+2)
		})
	}
}

// TestShardSplitSiblingLocks: the shards of a new job start at once beside
// a plan an earlier job left, not in use (its shard 2/3 was interrupted).
// A live lock of the plan's job keeps it in use: shard 1/3 of job "new" is
// refused, naming that lock. A live lock of the new job (a sibling of
// shard 1/3 starting with it) does not: shard 1/3 replaces the plan, and
// the new job's shards finish with exactly the source's items. Both
// engines.
func TestShardSplitSiblingLocks(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn, m, db, table, dir := splitJob(t, e.Fresh, e.Exec)
			args := func(shard string, extra ...string) []string {
				return shardArgs(dsn, m, endpoint, table, dir, shard, extra...)
			}
			if code, out, errs := interruptOnceSettled(t, filepath.Join(dir, "2-3.json"), args("2/3", "--job", "old", "--rate-limit", "200")); code != exitInterrupted {
				t.Fatalf("shard 2/3 of job old stopped mid-way: exit %d\n%s%s", code, out, errs)
			}
			ctx := context.Background()
			lock := func(shard, job string) map[string]types.AttributeValue {
				key := &types.AttributeValueMemberS{Value: "#remodel#lock#shard#" + shard}
				return map[string]types.AttributeValue{"PK": key, "SK": key,
					"remodel_owner": &types.AttributeValueMemberS{Value: "feedfacefeedface"}, "remodel_host": &types.AttributeValueMemberS{Value: "elsewhere"},
					"remodel_pid": &types.AttributeValueMemberN{Value: "99"}, "remodel_started": &types.AttributeValueMemberS{Value: "2026-01-02T03:04:05Z"},
					"remodel_heartbeat": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)},
					"remodel_job":       &types.AttributeValueMemberS{Value: job}}
			}
			put := func(it map[string]types.AttributeValue) {
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
					t.Fatal(err)
				}
			}
			drop := func(it map[string]types.AttributeValue) {
				if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}}); err != nil {
					t.Fatal(err)
				}
			}
			old := lock("3/3", "old")
			put(old)
			code, out, errs := remodelCtx(t, ctx, args("1/3", "--job", "new")...)
			if code != exitError || !strings.Contains(errs, `that plan is in use: a shard of it holds its lock: owner feedfacefeedface of --job "old" on host elsewhere`) {
				t.Errorf("shard 1/3 of job new beside a live lock of job old: exit %d\n%s%s", code, out, errs)
			}
			drop(old)
			sibling := lock("2/3", "new")
			put(sibling)
			code, out, errs = remodelCtx(t, ctx, args("1/3", "--job", "new")...)
			if code != 0 || !strings.Contains(out, "replaced the split plan") {
				t.Fatalf("shard 1/3 of job new beside a live lock of its sibling shard 2/3: exit %d\n%s%s", code, out, errs)
			}
			drop(sibling)
			for _, shard := range []string{"2/3", "3/3"} {
				if code, out, errs := remodelCtx(t, ctx, args(shard, "--job", "new")...); code != 0 {
					t.Fatalf("shard %s of job new: exit %d\n%s%s", shard, code, out, errs)
				}
			}
			jobEnded(t, db, dsn, m, endpoint, table, splitRows+2)
		})
	}
}
