package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// stopAfter cancels the returned context once the table holds more than
// n items (the lock item aside), as SIGINT would.
func stopAfter(t *testing.T, db dynamo.API, table string, n int64) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(testContext(t))
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var got int64
			p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					got = -1
					break
				}
				got += int64(out.Count)
			}
			if got > n+1 {
				return
			}
		}
	}()
	return ctx
}

// stopWhenSettled is a context canceled, as SIGINT cancels a run, once the
// checkpoint at path records a settled row (some entity's rows above 0),
// or after two minutes: a run stopped by it has settled rows to resume
// after, however the writers' acknowledgements interleave (a count of the
// table's items does not say that the first rows of an entity are in).
func stopWhenSettled(t *testing.T, path string) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(testContext(t))
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			var ck struct {
				Entities []struct {
					Rows int64 `json:"rows"`
				} `json:"entities"`
			}
			if json.Unmarshal(b, &ck) != nil {
				continue
			}
			for _, e := range ck.Entities {
				if e.Rows > 0 {
					return
				}
			}
		}
	}()
	return ctx
}

// checkpointOf reads a checkpoint file.
func checkpointOf(t *testing.T, path string) map[string]any {
	t.Helper()
	var ck map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &ck); err != nil {
		t.Fatalf("checkpoint %s: %v", path, err)
	}
	return ck
}

// verifyExact runs verify's checks (counts, every item attribute by
// attribute, stray items, access patterns) and fails the test on any
// problem.
func verifyExact(t *testing.T, fx *fixture, db dynamo.API, table string) {
	t.Helper()
	rep, err := verify.Run(testContext(t), verify.Options{Plan: fx.plan, Source: fx.src, DB: db, Table: table, Samples: 3, Seed: 1, Settle: 30 * time.Second})
	if err != nil || !rep.OK {
		var b strings.Builder
		_ = report.Write(&b, report.Text, rep)
		t.Fatalf("verify: %v\n%s", err, b.String())
	}
}

// TestResumeAfterStop: a run stopped mid-way (a canceled context, as
// SIGINT) leaves its checkpoint, says how to resume, and --resume finishes
// the job: every row's item exact, nothing extra, the report counting the
// whole job, the rows the first run settled not written again, and the
// checkpoint removed. On both engines.
func TestResumeAfterStop(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			// Answers held back a little, so that the run is stopped mid-way.
			_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
			ck := filepath.Join(t.TempDir(), "job.checkpoint.json")
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			o := fx.options(slow, table)
			o.CreateTable = true
			o.Writers = 2
			o.CheckpointPath, o.CheckpointEvery, o.MappingDigest, o.SourceID = ck, 50*time.Millisecond, "digest-1", "source-1"
			o.RejectsPath = rejects
			rep, err := migrate.Run(stopAfter(t, direct, table, 1000), o)
			if err == nil || !rep.Interrupted || !rep.Partial {
				t.Fatalf("the first run was not stopped mid-way: %v, %+v", err, rep)
			}
			if rep.Checkpoint != ck {
				t.Errorf("report's checkpoint = %q, want %q", rep.Checkpoint, ck)
			}
			var text strings.Builder
			report.Write(&text, report.Text, rep)
			if !strings.Contains(text.String(), "migrate --resume --checkpoint "+ck) {
				t.Errorf("the report of the stopped run does not say how to resume:\n%s", text.String())
			}
			first := rep.ItemsWritten
			saved := checkpointOf(t, ck)
			var settled int64
			for _, e := range saved["entities"].([]any) {
				settled += int64(e.(map[string]any)["items"].(float64))
			}
			if settled == 0 || settled > first {
				t.Fatalf("the checkpoint settles %d items, the run acknowledged %d", settled, first)
			}
			if first >= fx.total {
				t.Fatalf("the first run wrote all %d items", first)
			}

			o2 := fx.options(direct, table)
			o2.Writers = 2
			o2.CheckpointPath, o2.MappingDigest, o2.SourceID, o2.Resume = ck, "digest-1", "source-1", true
			o2.RejectsPath = rejects
			tracker := progress.New("migrate")
			o2.Progress = tracker
			rep2, err := migrate.Run(testContext(t), o2)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			checkLanded(t, fx, rep2, direct, table)
			// The resumed run's progress counts the whole job: the rows the
			// earlier run settled too.
			for _, ph := range tracker.Snapshot().Phases {
				if ph.Name == "copy" {
					if sum := ph.Sum(); sum.Done != rep2.RowsRead {
						t.Errorf("the resumed run's copy phase counts %d rows, want the job's %d (%d settled before)", sum.Done, rep2.RowsRead, settled)
					}
				}
			}
			if rep2.Earlier == nil || rep2.Earlier.Items != settled {
				t.Errorf("the resumed report's earlier runs: %+v, want %d items", rep2.Earlier, settled)
			}
			if again := rep2.ItemsWritten - rep2.Earlier.Items; again != fx.total-settled {
				t.Errorf("the resumed run wrote %d items, want the %d the checkpoint did not settle", again, fx.total-settled)
			}
			if rep2.StrayItems != 0 {
				t.Errorf("the resumed run found %d stray items: %v", rep2.StrayItems, rep2.StrayKeys)
			}
			if _, err := os.Stat(ck); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the checkpoint of the finished job is still there: %v", err)
			}
			if rep2.Checkpoint != "" {
				t.Errorf("the finished job's report names checkpoint %q", rep2.Checkpoint)
			}
			verifyExact(t, fx, direct, table)
		})
	}
}

// TestResumeRefusesAnotherJob: --resume with a checkpoint of another
// mapping, table or source is refused, naming the difference, before
// anything is written; without a checkpoint it says there is nothing to
// resume.
func TestResumeRefusesAnotherJob(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	eng := testenv.Engines[0]
	fx := personalization(t, eng)
	db := newDB(t, endpoint)
	table := tableName(t, db)
	ck := filepath.Join(t.TempDir(), "c.json")
	_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
	o := fx.options(slow, table)
	o.CreateTable = true
	o.CheckpointPath, o.MappingDigest, o.SourceID = ck, "digest-1", "source-1"
	// The first run is stopped once its checkpoint holds settled rows
	// (a count of the table's items does not say that an entity's first
	// rows are in: a run stopped before any is settled leaves none).
	if _, err := migrate.Run(stopWhenSettled(t, ck), o); err == nil {
		t.Fatal("the first run was not stopped")
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no checkpoint after the stopped run: %v", err)
	}
	before, _ := scan(t, db, table)

	other := personalization(t, eng) // another database with the same schema and rows
	for _, tc := range []struct {
		name             string
		digest, src, tab string
		src2             source.Source
		want             string
	}{
		{"mapping", "digest-2", "source-1", table, fx.src, "the mapping file changed since"},
		{"source", "digest-1", "source-2", table, other.src, "it read the database " + serverID(t, fx.src) + " (source-1), not " + serverID(t, other.src) + " (source-2)"},
		{"table", "digest-1", "source-1", table + "_other", fx.src, "it is of table " + table + ", not " + table + "_other"},
	} {
		o := fx.options(db, tc.tab)
		o.Source = tc.src2
		o.CheckpointPath, o.MappingDigest, o.SourceID, o.Resume = ck, tc.digest, tc.src, true
		_, err := migrate.Run(testContext(t), o)
		if err == nil || !strings.Contains(err.Error(), "belongs to another migration") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: resume with another %s: %v, want it refused saying %q", tc.name, tc.name, err, tc.want)
		}
	}
	if after, _ := scan(t, db, table); after != before {
		t.Errorf("the refused runs changed the table: %d items, before %d", after, before)
	}

	o = fx.options(db, table)
	o.CheckpointPath, o.Resume = filepath.Join(t.TempDir(), "none.json"), true
	if _, err := migrate.Run(testContext(t), o); err == nil || !strings.Contains(err.Error(), "nothing to resume") {
		t.Errorf("resume without a checkpoint: %v", err)
	}
}

// itemWith returns the item of items (scanItems) whose JSON holds attr,
// "" when none does.
func itemWith(items map[string]string, attr string) string {
	for _, it := range items {
		if strings.Contains(it, attr) {
			return it
		}
	}
	return ""
}

// resumeJob is a job a test interrupts and resumes: a fresh table, a
// client whose BatchWriteItem calls are slowed by 20 ms (so that a run
// can be stopped midway) and one straight to DynamoDB Local.
type resumeJob struct {
	fx           *fixture
	direct, slow *dynamo.Client
	table, ck    string
}

func newResumeJob(t *testing.T, endpoint, dsn, mappingYAML string) resumeJob {
	t.Helper()
	fx := open(t, dsn, "mapping.yaml", mappingYAML)
	direct := newDB(t, endpoint)
	_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
	return resumeJob{fx: fx, direct: direct, slow: slow, table: tableName(t, direct), ck: filepath.Join(t.TempDir(), "c.json")}
}

// first is the options of the run to interrupt: it creates the table and
// writes with 2 writers, slowed, saving its checkpoint every 50 ms.
func (j resumeJob) first() migrate.Options {
	o := j.fx.options(j.slow, j.table)
	o.CreateTable, o.Writers = true, 2
	o.CheckpointPath, o.CheckpointEvery, o.MappingDigest, o.SourceID = j.ck, 50*time.Millisecond, "d", "s"
	return o
}

// resume is the options of --resume, straight to DynamoDB Local.
func (j resumeJob) resume() migrate.Options {
	o := j.fx.options(j.direct, j.table)
	o.CheckpointPath, o.MappingDigest, o.SourceID, o.Resume = j.ck, "d", "s", true
	return o
}

// TestResumeAfterSourceChanged: between the interrupted run (which reads
// its one table as 3 key ranges, in parallel) and --resume the source
// changes. As documented: rows deleted leave stray items, which
// --delete-stale deletes; a row updated after the checkpoint key is written
// as it is now, one updated before it is not rewritten; a row inserted
// after it is written, one inserted before it is not. On both engines.
func TestResumeAfterSourceChanged(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	var script strings.Builder
	script.WriteString("CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20) NOT NULL);\n")
	for i := 1; i <= 2000; i++ {
		if i%500 == 1 {
			if i > 1 {
				script.WriteString(";\n")
			}
			script.WriteString("INSERT INTO items VALUES ")
		} else {
			script.WriteString(", ")
		}
		script.WriteString("(" + strconv.Itoa(i) + ", 'v1')")
	}
	script.WriteString(";\n")
	const m = `version: 1
table:
  name: changed
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{id}"
`
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, script.String())
			j := newResumeJob(t, endpoint, dsn, m)
			direct, table, ck := j.direct, j.table, j.ck
			o := j.first()
			o.Readers, o.Ranges = 3, 3
			if _, err := migrate.Run(stopAfter(t, direct, table, 600), o); err == nil {
				t.Fatal("the first run was not stopped")
			}
			ents := checkpointOf(t, ck)["entities"].([]any)
			if len(ents) != 3 {
				t.Fatalf("the checkpoint has %d parts, want the 3 key ranges of the entity: %v", len(ents), ents)
			}
			for i, e := range ents { // read in parallel: each range has begun
				if e.(map[string]any)["after"] == nil {
					t.Errorf("key range %d has no settled row: %v", i+1, e)
				}
			}
			after := ents[0].(map[string]any)["after"].([]any)[0].(map[string]any)["v"].(string)
			k, _ := strconv.Atoi(after)
			if k < 20 || k > 1990 {
				t.Fatalf("the checkpoint key is id %d: want the run stopped between 20 and 1990", k)
			}
			eng.Exec(t, dsn, fmt.Sprintf(`DELETE FROM items WHERE id <= 5;
UPDATE items SET k = 'v2' WHERE id = 6 OR id = %d OR id = 2000;
INSERT INTO items VALUES (-1, 'v2'), (%d, 'v2');`, k+1, 5000))

			o2 := j.resume()
			o2.DeleteStale = true
			rep, err := migrate.Run(testContext(t), o2)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if rep.StrayItems != 5 || rep.StrayDeleted != 5 {
				t.Errorf("stray items %d (%v), deleted %d; want the 5 items of the deleted rows", rep.StrayItems, rep.StrayKeys, rep.StrayDeleted)
			}
			got := map[string]string{}
			p := dynamodb.NewScanPaginator(direct, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
			for p.HasMorePages() {
				out, err := p.NextPage(testContext(t))
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range out.Items {
					got[it["PK"].(*types.AttributeValueMemberS).Value] = it["k"].(*types.AttributeValueMemberS).Value
				}
			}
			want := map[string]string{}
			for i := 6; i <= 2000; i++ {
				want["ITEM#"+strconv.Itoa(i)] = "v1"
			}
			want["ITEM#"+strconv.Itoa(k+1)] = "v2" // updated after the key: rewritten
			want["ITEM#2000"] = "v2"
			want["ITEM#5000"] = "v2" // inserted after the key: written
			// ITEM#6, updated before the key, keeps v1; ITEM#-1, inserted
			// before it, is not written.
			if len(got) != len(want) {
				t.Errorf("the table holds %d items, want %d", len(got), len(want))
			}
			for key, v := range want {
				if got[key] != v {
					t.Errorf("item %s: k = %q, want %q", key, got[key], v)
				}
			}
			for key := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("item %s should not be there", key)
				}
			}
		})
	}
}

// TestResumeRechecksKeys: the key "ITEM#{k}#{id}" is proven distinct only
// on data where no k holds "#". The interrupted run finds none in its
// snapshot and skips the collision check; a row with k = 'x#1' is added
// before --resume, whose new snapshot is checked again: the check is on
// (naming the column), and the table ends with exactly one item a row.
func TestResumeRechecksKeys(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	var script strings.Builder
	script.WriteString("CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20) NOT NULL);\nINSERT INTO items VALUES ")
	for i := 1; i <= 1000; i++ {
		if i > 1 {
			script.WriteString(", ")
		}
		script.WriteString("(" + strconv.Itoa(i) + ", 'a')")
	}
	script.WriteString(";\n")
	const m = `version: 1
table:
  name: rechecked
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{k}#{id}"
`
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, script.String())
			j := newResumeJob(t, endpoint, dsn, m)
			direct, table := j.direct, j.table
			rep, err := migrate.Run(stopAfter(t, direct, table, 300), j.first())
			if err == nil {
				t.Fatal("the first run was not stopped")
			}
			if rep == nil || !rep.KeysOnData {
				t.Fatalf("the first run: the keys are not proven on its data: %+v", rep)
			}
			eng.Exec(t, dsn, "INSERT INTO items VALUES (2001, 'x#1');")

			rep, err = migrate.Run(testContext(t), j.resume())
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if rep.KeysDistinct || rep.KeysOnData || len(rep.KeyProof) == 0 || rep.KeyProof[0] != `entity item: k holds "#" in a value, and the key needs it not to` {
				t.Errorf("resume: keys distinct %v, on data %v, proof %q; want the check on, naming k", rep.KeysDistinct, rep.KeysOnData, rep.KeyProof)
			}
			if n, _ := scan(t, direct, table); n != 1001 {
				t.Errorf("%d items in the table, want 1001", n)
			}
		})
	}
}

// TestResumeCollidesWithSettledRows: with the collision check on (the key
// "ITEM#{k}" leaves out the primary key), rows 950 and 960 render the keys
// of rows 5 and 7. The interrupted run settles rows 5 and 7 (and about 300
// more) and stops; --resume reads only the rows after its checkpoint, and
// the settled rows' keys it puts into the check first must still reject
// rows 950 and 960, or their items would replace rows 5's and 7's.
func TestResumeCollidesWithSettledRows(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	var script strings.Builder
	script.WriteString("CREATE TABLE items (id INT PRIMARY KEY, k INT NOT NULL);\nINSERT INTO items VALUES ")
	for i := 1; i <= 1000; i++ {
		if i > 1 {
			script.WriteString(", ")
		}
		k := map[int]int{950: 5, 960: 7}[i]
		if k == 0 {
			k = i
		}
		fmt.Fprintf(&script, "(%d, %d)", i, k)
	}
	script.WriteString(";\n")
	const m = `version: 1
table:
  name: collides
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{k}"
`
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, script.String())
			j := newResumeJob(t, endpoint, dsn, m)
			direct, table := j.direct, j.table
			o := j.first()
			o.RenderWorkers, o.MaxRejects = 1, 10
			rep, err := migrate.Run(stopAfter(t, direct, table, 300), o)
			if err == nil {
				t.Fatal("the first run was not stopped")
			}
			if rep.KeysDistinct || rep.KeyCheck == nil {
				t.Fatalf("the first run: the collision check did not run: %+v", rep)
			}

			o2 := j.resume()
			o2.MaxRejects = 10
			rep, err = migrate.Run(testContext(t), o2)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if rep.Earlier == nil || rep.Earlier.Rows < 10 || rep.Earlier.Rows >= 950 {
				t.Fatalf("resume: the earlier run settled %+v rows, want rows 5 and 7 but not 950", rep.Earlier)
			}
			var rejected []string
			for _, r := range rep.Rejections {
				if !strings.HasPrefix(r.Reason, "key collision: renders the same key PK=ITEM#") {
					t.Errorf("rejection %+v: want a key collision", r)
				}
				rejected = append(rejected, r.Row)
			}
			slices.Sort(rejected)
			if want := []string{"id=950", "id=960"}; !slices.Equal(rejected, want) {
				t.Errorf("resume rejected %v, want %v", rejected, want)
			}
			items := scanItems(t, direct, table)
			if len(items) != 998 {
				t.Errorf("%d items in the table, want 998", len(items))
			}
			for key, id := range map[string]string{`"PK":{"S":"ITEM#5"}`: `"id":{"N":"5"}`, `"PK":{"S":"ITEM#7"}`: `"id":{"N":"7"}`} {
				found := itemWith(items, key)
				if !strings.Contains(found, id) {
					t.Errorf("item %s is %s, want row %s's", key, found, id)
				}
			}
		})
	}
}

// TestResumeSettledRejectHasNoKey: row 5 is rejected (its item is over
// 400 KB) and row 900 renders its key, ITEM#5: a run from the start writes
// row 900's item, row 5's key having no item. The interrupted run settles
// row 5 (rejected) but not row 900; --resume must not count row 5's key as
// written, or it would reject row 900 as a key collision and leave ITEM#5
// without an item. The rejected-rows file ends with row 5's line only.
func TestResumeSettledRejectHasNoKey(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	const m = `version: 1
table:
  name: settledreject
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{k}"
`
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			big := "TEXT"
			if eng.Name == "mysql" {
				big = "MEDIUMTEXT"
			}
			var script strings.Builder
			fmt.Fprintf(&script, "CREATE TABLE items (id INT PRIMARY KEY, k INT NOT NULL, big %s);\nINSERT INTO items (id, k) VALUES ", big)
			for i := 1; i <= 1000; i++ {
				if i > 1 {
					script.WriteString(", ")
				}
				k := i
				if i == 900 {
					k = 5
				}
				fmt.Fprintf(&script, "(%d, %d)", i, k)
			}
			script.WriteString(";\nUPDATE items SET big = REPEAT('x', 410000) WHERE id = 5;\n")
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, script.String())
			j := newResumeJob(t, endpoint, dsn, m)
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			o := j.first()
			o.RenderWorkers, o.MaxRejects, o.RejectsPath = 1, 10, rejects
			if _, err := migrate.Run(stopAfter(t, j.direct, j.table, 300), o); err == nil {
				t.Fatal("the first run was not stopped")
			}
			o2 := j.resume()
			o2.MaxRejects = 10
			rep, err := migrate.Run(testContext(t), o2)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if rep.Earlier == nil || rep.Earlier.Rows < 10 || rep.Earlier.Rows >= 900 {
				t.Fatalf("resume: the earlier run settled %+v rows, want row 5 but not 900", rep.Earlier)
			}
			if len(rep.Rejections) != 0 {
				t.Errorf("resume rejected %+v, want none (row 5 was rejected before)", rep.Rejections)
			}
			b, err := os.ReadFile(rejects)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"row":"id=5"`) {
				t.Errorf("rejected-rows file:\n%s\nwant row 5's line alone", b)
			}
			items := scanItems(t, j.direct, j.table)
			found := itemWith(items, `"PK":{"S":"ITEM#5"}`)
			if len(items) != 999 || !strings.Contains(found, `"id":{"N":"900"}`) {
				t.Errorf("%d items, ITEM#5 is %q; want 999 items and ITEM#5 row 900's", len(items), found)
			}
		})
	}
}

// serverID is the source's source.ServerID.
func serverID(t *testing.T, src source.Source) string {
	t.Helper()
	id, err := source.ServerID(context.Background(), src)
	if err != nil || id == "" {
		t.Fatalf("ServerID: %q, %v", id, err)
	}
	return id
}

// stoppedJob runs a first migration into a new table (with ranges key
// ranges per entity, if given) that is stopped once its checkpoint records
// settled rows, and returns the options to resume it and its checkpoint.
func stoppedJob(t *testing.T, fx *fixture, endpoint string, ranges ...int) (o migrate.Options, db dynamo.API, table, ck string) {
	t.Helper()
	db = newDB(t, endpoint)
	table = tableName(t, db)
	ck = filepath.Join(t.TempDir(), "c.json")
	_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
	o = fx.options(slow, table)
	o.CreateTable = true
	o.CheckpointPath, o.MappingDigest, o.SourceID = ck, "digest-1", "source-1"
	if len(ranges) > 0 {
		o.Ranges = ranges[0]
	}
	o.CheckpointEvery = 50 * time.Millisecond
	if _, err := migrate.Run(stopWhenSettled(t, ck), o); err == nil {
		t.Fatal("the first run was not stopped")
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no checkpoint after the stopped run: %v", err)
	}
	o = fx.options(db, table)
	o.CheckpointPath, o.MappingDigest, o.SourceID, o.Resume = ck, "digest-1", "source-1", true
	return o, db, table, ck
}

// TestResumeTableRecreated: the table of an interrupted job deleted (an
// in-memory DynamoDB Local restarted, a table dropped by hand) and created
// again under its name holds none of the items the checkpoint settled:
// --resume, with or without --create-table, is refused, naming the table
// and its creation times, and writes nothing. Without the table's
// identity in the checkpoint the resumed run reported every row migrated
// while the settled ones were missing.
func TestResumeTableRecreated(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[1%len(testenv.Engines)])
	for _, recreate := range []bool{false, true} {
		t.Run(fmt.Sprintf("recreated=%v", recreate), func(t *testing.T) {
			o, db, table, _ := stoppedJob(t, fx, endpoint)
			ctx := testContext(t)
			if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
				t.Fatal(err)
			}
			if err := dynamodb.NewTableNotExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, time.Minute); err != nil {
				t.Fatal(err)
			}
			want := "does not exist any more"
			if recreate {
				if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
					t.Fatal(err)
				}
				want = "is not the table the interrupted run wrote into"
			}
			o.CreateTable = true
			rep, err := migrate.Run(ctx, o)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "start over without --resume") {
				t.Fatalf("resume into a table created since: %v (report ok %v, %d items), want it refused saying %q", err, rep.OK, rep.ItemsWritten, want)
			}
			if recreate {
				if n, _ := scan(t, db, table); n != 0 {
					t.Errorf("the refused run wrote %d items", n)
				}
			} else if _, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
				t.Error("the refused run created the table")
			}
		})
	}
}

// TestResumeTableGoneMidRun: when the table is deleted while the run
// writes, the report says the table is gone (not that N items are
// written), and the run fails.
func TestResumeTableGoneMidRun(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
	o := fx.options(slow, table)
	o.CreateTable = true
	o.CheckpointPath = filepath.Join(t.TempDir(), "c.json")
	ctx := testContext(t)
	done := make(chan struct{})
	go func() { // delete the table once some items are in it
		defer close(done)
		for ctx.Err() == nil {
			if n, _ := scanQuiet(db, table); n >= 100 {
				_, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
				return
			}
		}
	}()
	rep, err := migrate.Run(ctx, o)
	<-done
	if err == nil {
		t.Fatal("the run succeeded into a deleted table")
	}
	if !rep.TableGone {
		t.Errorf("report: table_gone false after %v", err)
	}
	var text strings.Builder
	report.Write(&text, report.Text, rep)
	if !strings.Contains(text.String(), "the table is gone") || strings.Contains(text.String(), "items are written") || strings.Contains(text.String(), "lock item") {
		t.Errorf("the text report does not say the table is gone:\n%s", text.String())
	}
}

// scanQuiet counts the table's items, 0 on any error.
func scanQuiet(db dynamo.API, table string) (int64, error) {
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	if err != nil {
		return 0, err
	}
	return int64(out.Count), nil
}

// TestResumeCheckpointEdited: a checkpoint whose settled key was moved
// forward by hand (which would skip rows and report them written), whose
// counts were made negative, or that was cut short is refused, and the
// resumed run writes nothing.
func TestResumeCheckpointEdited(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	o, db, table, ck := stoppedJob(t, fx, endpoint)
	orig, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := scan(t, db, table)
	var doc map[string]any
	if err := json.Unmarshal(orig, &doc); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(ents []any)) []byte {
		var d map[string]any
		_ = json.Unmarshal(orig, &d)
		f(d["entities"].([]any))
		b, _ := json.MarshalIndent(d, "", "  ")
		return b
	}
	// The first entity with a settled key, and the first with settled rows
	// (the same, unless the only entities that settled rows are done).
	first, counted := -1, -1
	for i, e := range doc["entities"].([]any) {
		e := e.(map[string]any)
		if first < 0 && e["after"] != nil {
			first = i
		}
		if rows, _ := e["rows"].(float64); counted < 0 && rows > 0 {
			counted = i
		}
	}
	if counted < 0 {
		t.Fatalf("the stopped run settled no row:\n%s", orig)
	}
	type edited struct {
		name string
		file []byte
		want string
	}
	var cases []edited
	if first >= 0 { // a key moved forward: the rows up to it would be skipped and reported written
		cases = append(cases, edited{"key moved forward", edit(func(ents []any) {
			kv := ents[first].(map[string]any)["after"].([]any)
			last := kv[len(kv)-1].(map[string]any)
			last["v"] = "~~~~~~" + fmt.Sprint(last["v"])
			if last["t"] == "i" {
				last["v"] = "999999999"
			}
		}), "its checksum does not match"})
	}
	cases = append(cases,
		edited{"counts raised", edit(func(ents []any) {
			e := ents[counted].(map[string]any)
			e["rows"] = e["rows"].(float64) + 1000
			e["items"] = e["items"].(float64) + 1000
		}), "its checksum does not match"},
		edited{"negative count", edit(func(ents []any) { ents[counted].(map[string]any)["rows"] = -5 }), "its checksum does not match"},
		edited{"cut short", orig[:len(orig)/2], "is not a remodel checkpoint"},
	)
	for _, c := range cases {
		if err := os.WriteFile(ck, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := migrate.Run(testContext(t), o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: resume: %v, want it refused saying %q", c.name, err, c.want)
		}
	}
	if after, _ := scan(t, db, table); after != before {
		t.Errorf("the refused runs changed the table: %d items, before %d", after, before)
	}
	// The untouched checkpoint still resumes the job, exactly.
	if err := os.WriteFile(ck, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatalf("resume with the untouched checkpoint: %v", err)
	}
	checkLanded(t, fx, rep, db, table)
	verifyExact(t, fx, db, table)
}

// TestResumeSourceMoved: the interrupted job's database reached at another
// address (a proxy port, a failover endpoint: SourceID differs) is the same
// database: --resume goes on, with a warning that the address changed, and
// ends exact.
func TestResumeSourceMoved(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			o, db, table, _ := stoppedJob(t, fx, endpoint)
			o.SourceID = "source-at-another-address"
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatalf("resume from the same database at another address: %v", err)
			}
			want := "the source's address changed since the interrupted run (source-1, now source-at-another-address): it is the same database (" + serverID(t, fx.src) + ")"
			if !slices.Contains(rep.Warnings, want) {
				t.Errorf("warnings %q, want %q", rep.Warnings, want)
			}
			checkLanded(t, fx, rep, db, table)
			verifyExact(t, fx, db, table)
		})
	}
}
